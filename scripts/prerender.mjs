// The book's first view as static markup, for scripts/build-site.mjs: the lab's own code
// (js/app/embed.js mount()) draws the default state once under Node, on linkedom's DOM with
// the first-load wasm module, and its markup goes into the published page, where the reader
// sees the grid and the core's numbers before any script has run. The lab replaces it once its
// module is ready (embed.js adopts the page's `.pe-first-view`), in the same frame and the
// same size: nothing moves.
//   const { html, css } = await prerender('page' | 'embed');  // css: rules for its styles
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { parseHTML } from 'linkedom';

const web = new URL('../web/', import.meta.url);

let readValue = null; // linkedom's own getter of a select's value

// What the lab's code asks of a browser beyond the DOM, answered as a page with no storage,
// no layout and no motion would.
function browserGlobals(window) {
  const noop = () => {};
  class Observer {
    observe() {}
    unobserve() {}
    disconnect() {}
    takeRecords() {
      return [];
    }
  }
  const storage = {
    getItem: () => null,
    setItem: noop,
    removeItem: noop,
    clear: noop,
  };
  const globals = {
    window,
    document: window.document,
    location: new URL('https://first-view.invalid/'),
    history: { replaceState: noop, pushState: noop },
    localStorage: storage,
    sessionStorage: storage,
    ResizeObserver: Observer,
    IntersectionObserver: Observer,
    requestAnimationFrame: (fn) => setTimeout(() => fn(performance.now()), 0),
    cancelAnimationFrame: (id) => clearTimeout(id),
    requestIdleCallback: noop, // work that waits for an idle page never runs here
    matchMedia: () => ({ matches: false, addEventListener: noop, removeEventListener: noop }),
    getComputedStyle: () => ({ getPropertyValue: () => '' }),
    addEventListener: noop,
    removeEventListener: noop,
    // The wasm module and nothing else is fetched, from web/ on disk.
    fetch: async (url) => {
      const path = fileURLToPath(new URL(url, web));
      return new Response(await readFile(path), {
        headers: { 'content-type': path.endsWith('.wasm') ? 'application/wasm' : 'text/plain' },
      });
    },
  };
  for (const name of [
    'HTMLElement',
    'Element',
    'Node',
    'ShadowRoot',
    'Event',
    'CustomEvent',
    'MutationObserver',
    'HTMLLinkElement',
    'SVGElement',
    'DocumentFragment',
    'Text',
  ])
    globals[name] = window[name];
  // A select's value picks its option (linkedom reads it only).
  const select = window.HTMLSelectElement.prototype;
  readValue ??= Object.getOwnPropertyDescriptor(select, 'value')?.get;
  const read = readValue;
  Object.defineProperty(select, 'value', {
    configurable: true,
    get: read,
    set(value) {
      for (const option of this.querySelectorAll('option'))
        option.toggleAttribute('selected', option.value === String(value));
    },
  });
  // The stylesheet counts as applied: there is no layout here to wait for.
  Object.defineProperty(window.HTMLLinkElement.prototype, 'sheet', {
    get: () => ({}),
    configurable: true,
  });
  for (const [name, value] of Object.entries(globals)) {
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
}

export async function prerender(layout) {
  const { window } = parseHTML(
    '<!doctype html><html lang="en"><head></head><body><div id="lab"></div></body></html>',
  );
  browserGlobals(window);
  const { mount } = await import(pathToFileURL(fileURLToPath(new URL('js/app/embed.js', web))));
  const host = window.document.querySelector('#lab');
  const lab = mount(host, { layout });
  await lab.ready;
  const root = host.querySelector('.pe-lab');
  return firstView(root);
}

// What the first screen needs of the drawn lab, as markup: the parts down to the wire cards
// (the lab keeps its height: #lab's room on the standalone page, an embedded lab's reserved
// height), inert (a picture until the lab takes over), without what only a live lab uses
// (ids, names for assistive technology, exact values on hover, the parts it shows on demand).
const LIVE_ONLY = ['.pe-notes', '.lab-error', '.wire > li[hidden]', '.visually-hidden'];
const DROPPED_ATTRIBUTES = [
  'id',
  'role',
  'title',
  'tabindex',
  'aria-label',
  'aria-labelledby',
  'aria-describedby',
  'aria-live',
  'data-value',
  'data-explain',
  'data-ready',
];
function firstView(root) {
  const wire = root.querySelector('.wire-panel');
  while (wire.nextSibling) wire.nextSibling.remove();
  for (const selector of LIVE_ONLY)
    for (const node of root.querySelectorAll(selector)) node.remove();
  for (const node of [root, ...root.querySelectorAll('*')]) {
    for (const name of DROPPED_ATTRIBUTES) node.removeAttribute(name);
  }
  root.classList.add('pe-first-view');
  root.setAttribute('inert', '');
  // Its end mark: the picture shows once the parser has reached it (explorer.css).
  const end = root.ownerDocument.createElement('i');
  end.className = 'pe-first-end';
  root.append(end);
  const css = inlineStylesToRules(root);
  return { html: root.outerHTML.replace(/\s+/g, ' '), css };
}

// The lab sets a few styles from script (a tile's colour, the memory bar's length and its
// capacity mark), which the page's CSP refuses as style attributes in markup: each becomes a
// class and a rule for the published stylesheet (as strong as the style was: !important).
function inlineStylesToRules(root) {
  const rules = new Map(); // declarations -> class
  for (const node of root.querySelectorAll('[style]')) {
    const declarations = node
      .getAttribute('style')
      .split(';')
      .map((d) => d.split(':').map((part) => part.trim()))
      .filter(([name, value]) => name && value)
      .map(([name, value]) => `${name}:${value}!important`)
      .join(';');
    node.removeAttribute('style');
    if (!declarations) continue;
    if (!rules.has(declarations)) rules.set(declarations, `pe-fv${rules.size}`);
    node.setAttribute('class', `${node.getAttribute('class') ?? ''} ${rules.get(declarations)}`);
  }
  return [...rules].map(([d, name]) => `.pe-first-view .${name}{${d}}`).join('');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log((await prerender(process.argv[2] ?? 'page')).html);
}
