// The planning desk (view=desk): the same lab's parts laid out as a workspace. The inputs (the
// seams, the Advanced form) in one column, the results in the other, under tabs: the run's
// memory per stage, step time and the wire; the planner with Compare under it; the published
// runs; the calibration to the reader's own run. Nothing here draws or decides: the parts are
// the book's and the Advanced section's, moved into the desk while it shows and put back where
// they were when the reader returns to the book's view. view.js imports this module the first
// time the state asks for the desk, after the Advanced section's.

const TABS = ['results', 'plan', 'runs', 'calibrate'];

// Where each part goes: [selector in the lab, the desk's place]. A part inside another moves
// first (the summary strip sits in the Advanced form's body).
const PLACES = [
  ['.desk-summary', 'results-top'],
  ['.toolbar', 'inputs'],
  ['.advanced-body', 'inputs'],
  ['.warn-strip', 'results-top'],
  ['.advanced-row', 'results'],
  ['[data-part="goodput"]', 'results'],
  ['.wire-panel', 'results'],
  ['[data-part="timeline"]', 'results'],
  ['.compare', 'plan'],
  ['[data-part="planner"]', 'plan'],
  ['[data-part="references"]', 'runs'],
  ['[data-part="calibrate"]', 'calibrate'],
];

export function createDesk(root) {
  const desk = root.querySelector('.desk');
  const inputs = desk.querySelector('.desk-inputs');
  const results = desk.querySelector('.desk-results');
  const tabs = [...desk.querySelectorAll('.desk-tab')];
  const panes = Object.fromEntries(
    TABS.map((name) => [name, desk.querySelector(`[data-pane="${name}"]`)]),
  );
  const top = document.createElement('div');
  top.className = 'desk-top';
  results.prepend(top);
  const place = { inputs, 'results-top': top, ...panes };
  let moved = []; // [node, placeholder] while the desk shows
  let tab = 'results';

  function select(name, focus = false) {
    tab = name;
    for (const t of tabs) {
      const on = t.dataset.tab === name;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      if (on && focus) t.focus();
    }
    for (const [k, pane] of Object.entries(panes)) pane.hidden = k !== name;
  }
  for (const t of tabs) t.addEventListener('click', () => select(t.dataset.tab));
  // The tabs' keyboard: arrows move between them, Home and End to the ends.
  desk.querySelector('.desk-tabs').addEventListener('keydown', (e) => {
    const i = TABS.indexOf(tab);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(TABS[(to + TABS.length) % TABS.length], true);
  });
  select(tab);

  function arrange() {
    for (const [selector, where] of PLACES) {
      const node = root.querySelector(selector);
      if (!node || desk.contains(node)) continue;
      const mark = document.createComment(`desk: ${selector}`);
      node.replaceWith(mark);
      place[where].append(node);
      moved.push([node, mark]);
    }
  }

  function restore() {
    for (const [node, mark] of moved) mark.replaceWith(node);
    moved = [];
  }

  return {
    // Shows the desk (on) or the book's view, moving the parts at the change only.
    update(on) {
      root.classList.toggle('pe-desk', on);
      if (on === !desk.hidden) return;
      desk.hidden = !on;
      if (on) arrange();
      else restore();
    },
    // A part brought into view: Compare after a pin.
    show(part) {
      if (desk.hidden) return;
      if (part === 'compare') {
        select('plan');
        root.querySelector('.compare')?.scrollIntoView({ block: 'nearest' });
      }
    },
  };
}
