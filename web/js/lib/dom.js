// Small DOM helpers for the renderers that build their own markup.
const SVG = 'http://www.w3.org/2000/svg';

let counter = 0;

// An id unique in the document, so two labs mounted on one page do not collide.
export function uid(name) {
  counter += 1;
  return `pe${counter}-${name}`;
}

// An HTML element with properties set (className, textContent, ...), appended to parent.
export function make(tag, props = {}, parent = null) {
  const node = Object.assign(document.createElement(tag), props);
  if (parent) parent.append(node);
  return node;
}

// An SVG element with attributes set, appended to parent.
export function svg(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}

// A panel: <section class="panel ..."> under a heading; an author hides it by its class name
// (state/options.js PARTS). Not a named region: the lab is one, and two labs on a page would repeat
// the panels' names.
export function panel(root, className, title, level = 'h3') {
  const section = make('section', { className: `panel ${className}` }, root);
  section.dataset.part = className;
  make(level, { id: uid(className), textContent: title }, section);
  return section;
}

// Shows a number with its exact value on hover; data-value keeps the raw number for tests.
export function showNumber(node, value, text, exactText) {
  node.textContent = text;
  node.title = exactText;
  node.dataset.value = String(value);
}

// No number where there is none to give (a run that does not fit its GPUs has no MFU): a
// dash, with why as its title, and no derivation to open.
export function showNone(node, why) {
  node.textContent = '—';
  node.title = why;
  delete node.dataset.value;
  node.removeAttribute('data-explain');
}

// Calls fn once the page has drawn its next two frames and then has nothing else to do (or
// `timeout` ms later at most): for work asked at load that can wait for it, so the two never
// share a main-thread task. Where requestIdleCallback is missing (Safari), soon after.
export function whenIdle(fn, timeout = 1000) {
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      if (typeof requestIdleCallback === 'function') requestIdleCallback(() => fn(), { timeout });
      else setTimeout(fn, 50);
    }),
  );
}

// Calls fn once, the first time `element` comes within half a screen of view (never while it
// is hidden): for parts below the first screen whose code or drawing is costly.
export function whenNear(element, fn) {
  const near = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      near.disconnect();
      fn();
    },
    { rootMargin: '50% 0px' },
  );
  near.observe(element);
}
