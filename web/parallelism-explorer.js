// <parallelism-explorer>: the lab as a custom element. Attributes are the options of
// js/app/embed.js mount() (README.md "Embedding"), read through the same state table:
//
//   <script type="module" src="parallelism-explorer.js"></script>
//   <parallelism-explorer gpus="64" seams="data,tensor" hide="advanced" theme="dark">
//   </parallelism-explorer>
//
// The lab's code and its WebAssembly module load only when the element comes near the
// viewport (IntersectionObserver, 400 px ahead), so a chapter with labs far down the page
// does not pay for them on arrival. The lab lives in the element's shadow root, so the host
// page's styles and the lab's leave each other alone. Changing an attribute updates the lab;
// each report the core accepts is dispatched as a "report" event (event.detail).
const CSS_URL = new URL('explorer.css', import.meta.url).href;
const PAGE_URL = new URL('index.html', import.meta.url).href;
const AHEAD = '400px 0px';
// Attributes every element may carry: not options, so never "not understood".
const GLOBAL = new Set([
  'id',
  'class',
  'style',
  'title',
  'lang',
  'dir',
  'hidden',
  'tabindex',
  'slot',
  'part',
  'role',
  'is',
  'inert',
  'nonce',
  'autofocus',
  'translate',
  'draggable',
]);
const isOption = (name) =>
  !GLOBAL.has(name) && !name.startsWith('data-') && !name.startsWith('aria-');

export class ParallelismExplorer extends HTMLElement {
  #shadow = this.attachShadow({ mode: 'open' });
  #watch = null; // IntersectionObserver until the lab starts
  #attrs = null; // MutationObserver once it runs
  #lab = null;
  #starting = false;

  constructor() {
    super();
    const link = Object.assign(document.createElement('link'), {
      rel: 'stylesheet',
      href: CSS_URL,
    });
    const placeholder = Object.assign(document.createElement('p'), {
      className: 'pe-placeholder',
      textContent: 'The 3D parallelism explorer loads as you scroll to it…',
    });
    this.#shadow.append(link, placeholder);
  }

  // The lab's handle (update, destroy, ready, state, report) once it has started, else null.
  get lab() {
    return this.#lab;
  }

  connectedCallback() {
    if (this.#lab || this.#watch || this.#starting) return;
    this.#watch = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        this.#watch.disconnect();
        this.#watch = null;
        this.#start();
      },
      { rootMargin: AHEAD },
    );
    this.#watch.observe(this);
  }

  disconnectedCallback() {
    this.#watch?.disconnect();
    this.#watch = null;
    this.#attrs?.disconnect();
    this.#attrs = null;
    this.#lab?.destroy();
    this.#lab = null;
    this.removeAttribute('data-ready');
    for (const box of this.#shadow.querySelectorAll(':scope > div')) box.remove();
    this.#shadow.querySelector('.pe-placeholder').hidden = false;
  }

  #options() {
    return Object.fromEntries(
      [...this.attributes].filter((a) => isOption(a.name)).map((a) => [a.name, a.value]),
    );
  }

  // The module could not load (blocked cross-origin, offline, a CSP): said in the element,
  // with a link to the lab's own page, instead of a placeholder that never changes.
  #fail(error) {
    const placeholder = this.#shadow.querySelector('.pe-placeholder');
    placeholder.hidden = false;
    placeholder.classList.add('pe-failed');
    placeholder.setAttribute('role', 'alert');
    const link = Object.assign(document.createElement('a'), {
      href: PAGE_URL,
      textContent: 'open the explorer on its own page',
    });
    placeholder.replaceChildren(
      `The 3D parallelism explorer could not load here (${error?.message ?? 'its module failed'}). ` +
        'You can ',
      link,
      '.',
    );
    this.setAttribute('data-failed', '');
  }

  async #start() {
    this.#starting = true;
    try {
      let mount;
      try {
        ({ mount } = await import('./js/app/embed.js'));
      } catch (e) {
        this.#fail(e);
        return;
      }
      if (!this.isConnected || this.#lab) return;
      this.#shadow.querySelector('.pe-placeholder').hidden = true;
      const box = document.createElement('div');
      this.#shadow.append(box);
      this.#lab = mount(box, {
        ...this.#options(),
        onReport: (report) => this.dispatchEvent(new CustomEvent('report', { detail: report })),
      });
      const lab = this.#lab;
      lab.ready.then(
        () => this.toggleAttribute('data-ready', lab === this.#lab),
        () => {},
      );
      this.#attrs = new MutationObserver((records) => {
        const changed = {};
        for (const r of records) {
          if (isOption(r.attributeName))
            changed[r.attributeName] = this.getAttribute(r.attributeName);
        }
        if (Object.keys(changed).length) lab.update(changed); // null: removed, back to default
      });
      this.#attrs.observe(this, { attributes: true });
    } finally {
      this.#starting = false;
    }
  }
}

if (!customElements.get('parallelism-explorer')) {
  customElements.define('parallelism-explorer', ParallelismExplorer);
}
