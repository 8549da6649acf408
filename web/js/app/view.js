// What one lab draws: the switches and the nesting order, the book's panels (summary, order,
// grid, memory, wire, compare), the book's fleet button, the sized run kept while Advanced is
// closed, the "Advanced" section (its module imported the first time the state opens it), the
// planning desk (desk.js, imported the first time the state asks for it: view=desk), the
// math behind every marked number (explain.js) and the look an author chose (theme, hidden
// parts). It turns a state and the core's report into pixels and hands the reader's changes
// back (onChange, onPreset, onLoad, onShow); it decides nothing.
import * as fmt from '../lib/format.js';
import { createCompare } from '../panels/compare.js';
import { createMemory } from '../panels/memory.js';
import { createOrder } from '../panels/order.js';
import { createSummary } from '../panels/summary.js';
import { createWire } from '../panels/wire.js';
import { getPlannerLab } from '../planner/lab.js';
import { PARTS } from '../state/options.js';
import { createPins } from '../state/pins.js';
import { bookFleetPreset, entry, fromScenario, keepPage, PRESETS, rows } from '../state/state.js';
import { createControls } from './controls.js';
import { createExplain } from './explain.js';
import { createGrid } from './grid.js';

// The book view's fleet button: to the book's fleet, and back to its 16 GPUs.
function createFleetButton(box, onPreset) {
  const button = box.querySelector('.fleet-toggle');
  const hint = box.querySelector('.fleet-hint');
  let preset = 'fleet';
  button.addEventListener('click', () => onPreset(preset));
  return {
    update(state) {
      preset = bookFleetPreset(state);
      const p = PRESETS.find((x) => x.name === preset);
      const text = p.bookLabel ?? p.label;
      if (button.textContent !== text) button.textContent = text;
      hint.textContent = p.hint;
    },
  };
}

// Closed, the Advanced section keeps the sized run in the state (and the link): this says so,
// with a button that opens the section on it again.
function createKeptRun(box, onChange) {
  const text = box.querySelector('.kept-text');
  box.querySelector('.restore-run').addEventListener('click', () => onChange('advanced', true));
  return {
    update(state) {
      // Open, the section shows the run itself.
      const sized = state.advanced
        ? []
        : rows().filter((e) => e.advanced && !e.page && !e.detailOf && state[e.name] !== e.default);
      box.hidden = sized.length === 0;
      if (box.hidden) return;
      const parts = [];
      if (state.gpus !== entry('gpus').default) parts.push(`${fmt.integer(state.gpus)} GPUs`);
      if (state.model !== entry('model').default) parts.push(`model ${state.model}`);
      if (state.degrees !== 'auto') parts.push(`layout ${state.degrees.replaceAll('x', '×')}`);
      const rest = sized.length - parts.length;
      if (rest > 0)
        parts.push(`${rest} ${parts.length ? 'more ' : ''}setting${rest === 1 ? '' : 's'}`);
      const msg =
        `Advanced is closed, so the lab shows the book's view. Your sized run ` +
        `(${parts.join(', ')}) is kept, in the link too: reopen it to go back.`;
      if (text.textContent !== msg) text.textContent = msg;
    },
  };
}

// Derivations are built by the planner's module, loaded the first time a reader opens one.
const derive = async (report, key) => (await getPlannerLab()).explain(report.scenario, key);

// A scenario key's label and its values' words for Compare's rows: its state row's, else
// the key in words.
function describe(key) {
  const row = rows().find((e) => e.label && (e.scenario === key || `${e.scenario}.name` === key));
  return { label: row?.label ?? key.replaceAll('_', ' ').replace('.', ': '), labels: row?.labels };
}

// The look an author chose: the theme, and the parts and controls hidden.
function applyLookTo(root, look) {
  root.dataset.theme = look.theme;
  for (const el of root.querySelectorAll('[data-pe-hidden]')) el.removeAttribute('data-pe-hidden');
  for (const name of look.hide) {
    const targets = PARTS.includes(name)
      ? root.querySelectorAll(`[data-part="${name}"]`)
      : [...root.querySelectorAll(`[data-state="${name}"]`)].map(
          (el) => el.closest('.field') ?? el,
        );
    for (const el of targets) el.setAttribute('data-pe-hidden', '');
  }
}

// The desk (desk.js): its buttons, and its module imported the first time the state asks for
// it, once the Advanced section's has loaded (the desk arranges that section's parts).
function deskSlot(root, { onChange, loadAdvanced, onLoaded }) {
  let desk = null;
  let loading = null;
  root.querySelector('.open-desk').addEventListener('click', () => onChange('view', 'desk'));
  root.querySelector('.to-book').addEventListener('click', () => onChange('advanced', false));
  return {
    load: () =>
      (loading ??= loadAdvanced()
        .then(() => import('./desk.js'))
        .then(({ createDesk }) => {
          desk = createDesk(root);
          onLoaded();
        })),
    update: (on) => desk?.update(on),
    show: (part) => desk?.show(part),
  };
}

// The core's refusal goes beside the form's field (or the calibration's) while the section is
// open (open()), once its module has loaded (advanced()).
function besideField(open, advanced) {
  return (message, row, key) => {
    const beside = Boolean(message) && open() && Boolean(advanced());
    advanced()?.showError(beside ? message : null, row?.name ?? null, key);
    return beside;
  };
}

// Compare behind its summary (an embedded lab) opens for a new pin and on the desk.
function compareOpener(root) {
  const more = root.querySelector('.compare-more');
  let shown = 0; // pins
  return (onDesk) => {
    const count = Number(root.querySelector('.compare').dataset.pins ?? 0);
    if ((count > shown || onDesk) && !more.open) more.open = true;
    shown = count;
  };
}

// The nesting order moves the grid's tiles, and its control sits below them: a change brings
// the grid into view (the select keeps the focus, so its keys go on working).
const showingGrid = (root, onChange) => (name, value) => {
  onChange(name, value);
  if (name === 'order') root.querySelector('.grid-panel').scrollIntoView({ block: 'center' });
};

export function createView(root, { notes, onChange, onPreset, onLoad, onShow, later }) {
  const $ = (selector) => root.querySelector(selector);
  const details = $('details.advanced');
  const outputs = $('.advanced-out');
  const summary = createSummary(root);
  const grid = createGrid({ svg: $('.gpu-grid'), legend: $('.legend'), readout: $('.readout') });
  const renderers = [summary, createMemory($('.memory')), createWire($('.wire'))];
  const order = createOrder($('.order-out'));
  const explain = createExplain(root, derive);
  const controls = createControls(
    { switches: $('.switches'), order: $('.order-field') },
    { onChange: showingGrid(root, onChange) },
  );
  const fleet = createFleetButton($('.fleet-box'), onPreset);
  const kept = createKeptRun($('.kept-run'), onChange);
  const pins = createPins({ lab: () => lab });
  const compare = createCompare($('.compare'), { onChange, onShow, pins, describe });
  // A plan's scenario pinned in Compare as the state that loads it, the page's rows kept.
  const onPin = (scenario, name) => {
    const pinned = compare.pin(keepPage(fromScenario(scenario), state), name);
    desk.show('compare');
    return pinned;
  };
  let lab = null;
  let state = null; // the state the controls show
  let advanced = null; // the advanced module's view, once loaded
  let advancedLoading = null;
  let destroyed = false;
  let look = { hide: [], theme: 'auto' };
  let redraw = () => {};

  details.addEventListener('toggle', () => {
    if (state && details.open !== state.advanced) onChange('advanced', details.open);
  });

  notes.besideField = besideField(
    () => Boolean(state?.advanced),
    () => advanced,
  );

  function loadAdvanced() {
    advancedLoading ??= import('./advanced.js').then(({ createAdvanced }) => {
      if (destroyed) return;
      advanced = createAdvanced({
        body: details.querySelector('.advanced-body'),
        outputs,
        onChange,
        onPreset,
        onLoad,
        onPin,
        later,
      });
      applyLook(look);
      redraw();
    });
    return advancedLoading;
  }

  const desk = deskSlot(root, { onChange, loadAdvanced, onLoaded: () => destroyed || redraw() });
  const openCompare = compareOpener(root);
  const applyLook = (next) => applyLookTo(root, (look = next));

  return {
    applyLook,
    // The module is loaded: the advanced section needs it (planner, timeline, runs).
    start(loadedLab, onRedraw) {
      lab = loadedLab;
      redraw = onRedraw;
      const maxGpus = fmt.integer(entry('gpus').range[1]);
      for (const node of root.querySelectorAll('[data-text="max-gpus"]'))
        node.textContent = maxGpus;
    },
    // The state the controls show (it may be one the core refused).
    showState(next) {
      state = next;
      controls.update(state);
      fleet.update(state);
      if (state.advanced) loadAdvanced();
      if (state.view === 'desk') desk.load();
    },
    // The section's module (and the desk's), once the state needs it (ready waits for it).
    advancedReady: () =>
      state?.view === 'desk' ? desk.load() : state?.advanced ? loadAdvanced() : Promise.resolve(),
    // A report the core accepted, for `shown` (the state it was asked about); ranks null when
    // the report is the one already drawn (a page-only change): the grid and panels stand.
    render(shown, report, ranks) {
      if (details.open !== state.advanced) details.open = state.advanced;
      outputs.hidden = !state.advanced || !advanced;
      summary.heading(shown, report);
      if (ranks) {
        grid.update(report, ranks);
        for (const r of renderers) r.update(report);
        order.update(report, entry('order').default);
      }
      kept.update(shown);
      compare.update(shown, report);
      openCompare(state.view === 'desk');
      desk.update(state.view === 'desk');
      if (advanced && state.advanced) advanced.update(shown, report);
      explain.update(report); // after every panel: the advanced ones may have just drawn
    },
    drawn: () => grid.drawn(),
    fit: () => grid.fit(),
    // What a change did beyond itself (a seam switch on an explicit layout), or '' to clear.
    say(text) {
      const note = $('.change-note');
      if (note.textContent !== text) note.textContent = text;
    },
    // The drawing the grid shows (the tiles or the fleet map), for the exports.
    gridSvg: () => (grid.mode === 'fleet' ? root.querySelector('svg.fleet') : $('.gpu-grid')),
    destroy() {
      destroyed = true;
      summary.destroy();
      grid.destroy();
      explain.destroy();
    },
  };
}
