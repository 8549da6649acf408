// Types of <parallelism-explorer> (parallelism-explorer.js beside this file), for embedders and
// their editors: the element, its "report" event and its attributes as web/README.md
// "Embedding" documents them. Written by hand; tests/web/types.test.mjs holds the exports to
// the element's module.
import type { EmbeddedLab, StateKey } from './js/app/embed.js';
import type { SummaryReport } from './lab/lab.js';

// an_option -> an-option: the element takes either spelling.
type Dashed<S extends string> = S extends `${infer A}_${infer B}` ? `${A}-${Dashed<B>}` : S;
type OptionName = StateKey | 'seams' | 'hide' | 'theme' | 'url';

// The element's attributes: the options of mount() (embed.d.ts MountOptions) as text.
// Changing one updates the lab; removing one puts its key back to the default.
export type ParallelismExplorerAttributes = {
  [K in OptionName | Dashed<OptionName>]?: string;
};

export interface ParallelismExplorerEventMap extends HTMLElementEventMap {
  // Each report the core accepts.
  report: CustomEvent<SummaryReport>;
}

export class ParallelismExplorer extends HTMLElement {
  // The lab's handle once it has started (it loads when the element nears the viewport), else
  // null.
  readonly lab: EmbeddedLab | null;
  addEventListener<K extends keyof ParallelismExplorerEventMap>(
    type: K,
    listener: (this: ParallelismExplorer, event: ParallelismExplorerEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof ParallelismExplorerEventMap>(
    type: K,
    listener: (this: ParallelismExplorer, event: ParallelismExplorerEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'parallelism-explorer': ParallelismExplorer;
  }
}
