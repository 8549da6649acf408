// The lab's state and its transitions: the defaults, a control's change with the rows that
// depend on it kept consistent, the preset buttons, and the scenario the core is asked about
// (and back). The rows are rows.js's, joined with the core's schema by table.js; parse.js is
// the one reader of a value. options.js reads and writes URLs and embed options with these.
// No DOM in this module.
import { degreesText, parseDegrees, valueOf } from './parse.js';
import { PRESETS, ROWS } from './rows.js';
import { defaults, entry, isPicker, presetValues, rows, shows } from './table.js';

export { allowed, degreesText, parse, parseDegrees } from './parse.js';
export { MAX_PINS, PIN_SEPARATOR, pinList, PRESETS, ROWS } from './rows.js';
export { defaults, entry, groups, hasSchema, optionsOf, rows, shows, useSchema } from './table.js';

// A state with every key present and valid; unknown keys are dropped. Whether an explicit
// layout fits the GPU count and the model is the core's to say (it refuses the key "degrees").
export function normalize(partial = {}) {
  return Object.fromEntries(
    rows().map((e) => [e.name, e.name in partial ? valueOf(e.name, partial[e.name]) : e.default]),
  );
}

const SEAM_DEGREE = { data: 'dp', tensor: 'tp', pipeline: 'pp', context: 'cp', expert: 'ep' };

// One control changed: the new state, with the rows that depend on it kept consistent.
//  - a seam switch goes back to auto-factoring (an explicit layout overrides the seams);
//  - an explicit layout shows as the seams it uses;
//  - choosing 'custom' starts from the preset chosen before.
export function change(state, name, value) {
  const next = { ...state, [name]: valueOf(name, value) };
  if (name in SEAM_DEGREE) next.degrees = 'auto';
  // The desk sizes a real run: it opens the Advanced model, and closing that leaves the desk.
  if (name === 'view' && next.view === 'desk') next.advanced = true;
  if (name === 'advanced' && !next.advanced) next.view = 'book';
  if (next[name] === 'custom' && state[name] !== 'custom') {
    Object.assign(next, presetValues(name, state[name]));
  }
  return settle(next);
}

// Several rows at once, in the order given.
export function changeMany(state, values) {
  let next = state;
  for (const [name, value] of Object.entries(values)) next = change(next, name, value);
  return next;
}

// A preset button: its rows, set on the current state or (reset) on the defaults.
export function applyPreset(state, name) {
  const p = PRESETS.find((x) => x.name === name);
  if (!p) throw new Error(`unknown preset "${name}"`);
  let base = p.reset ? defaults() : state;
  if (p.keepBook) {
    base = { ...defaults() };
    for (const e of ROWS) if (!e.advanced && !e.own) base[e.name] = state[e.name];
  }
  const kept = { pins: state.pins, view: state.view, calibration: state.calibration };
  return changeMany({ ...base, ...kept }, p.values);
}

// The book view shows its way back from a larger fleet ('sixteen') while the GPU count is not
// the book's; else the way to the book's fleet ('fleet').
export const bookFleetPreset = (state) =>
  state.advanced && state.gpus !== entry('gpus').default ? 'sixteen' : 'fleet';

function settle(state) {
  const next = normalize(state);
  if (next.degrees !== 'auto') {
    const d = parseDegrees(next.degrees);
    for (const [seam, key] of Object.entries(SEAM_DEGREE)) next[seam] = d[key] > 1;
  }
  return next;
}

// The value a row sends, or undefined: a picker's 'custom' sends its details instead, an
// 'auto' layout nothing, a switch with sendAs that value while on.
function sent(e, value) {
  if (value === null) return undefined; // the core chooses
  if (isPicker(e)) return value === 'custom' ? undefined : value;
  if (e.type === 'degrees') return value === 'auto' ? undefined : parseDegrees(value);
  if (e.sendAs !== undefined) return value ? e.sendAs : undefined;
  if (e.type === 'set') return value ? value.split(',') : [];
  if (e.type === 'calibration') return value ? JSON.parse(value) : undefined;
  return e.scale ? value * e.scale : value;
}

// Does the row count in this state: its control shows, and it is sent or left to the core?
export const applies = (e, state) =>
  shows(e, state) && (state[e.name] === null || sent(e, state[e.name]) !== undefined);

// The scenario the core is asked about (core/README.md: the JSON contract).
export function toScenario(state) {
  const scenario = {};
  for (const e of rows()) {
    if (!e.scenario) continue; // the page's own
    let value = state[e.name];
    if (e.advanced && !state.advanced) {
      if (!e.fixed) continue;
      value = e.default;
    } else if (!shows(e, state)) {
      continue;
    }
    value = sent(e, value);
    if (value === undefined) continue;
    const path = e.scenario.split('.');
    let node = scenario;
    for (const key of path.slice(0, -1)) node = node[key] ??= {};
    node[path.at(-1)] = value;
  }
  return scenario;
}

const at = (obj, path) => path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);

// `next` with the page's own rows (the planner's) as they are in `from`.
export function keepPage(next, from) {
  for (const e of ROWS) if (e.page && from) next[e.name] = from[e.name];
  return next;
}

// The state that asks for a resolved scenario (report.scenario, a plan's or a reference
// run's): the inverse of toScenario, so "load this scenario" is one call.
export function fromScenario(scenario) {
  const partial = {};
  for (const e of rows()) {
    if (e.own || !e.scenario) continue; // the pickers' rows below
    const v = at(scenario, e.scenario);
    if (Array.isArray(v)) partial[e.name] = v.join(',');
    else if (v !== undefined && typeof v !== 'object') partial[e.name] = e.scale ? v / e.scale : v;
  }
  partial.advanced = scenario.memory_model === 'full';
  // A preset by name sets its details; written out, it is 'custom' unless it names a preset.
  for (const picker of rows().filter((e) => isPicker(e) && !e.own)) {
    const [top, sub] = picker.scenario.split('.');
    const v = scenario[top];
    const name = typeof v === 'string' ? v : sub ? v?.[sub] : v?.name;
    if (typeof v === 'string') {
      partial[picker.name] = v;
      Object.assign(partial, presetValues(picker.name, v));
    } else if (v || top === 'gpu') {
      partial[picker.name] = picker.choices.includes(name) && name !== 'custom' ? name : 'custom';
    }
  }
  // A preset's tuned value (efficiency, the network) as the preset has it is the core's to choose.
  for (const picker of rows().filter((e) => e.tuned)) {
    for (const [name, value] of Object.entries(picker.tuned[partial[picker.name]] ?? {})) {
      if (partial[name] === value) partial[name] = null;
    }
  }
  partial.degrees = scenario.degrees ? degreesText(scenario.degrees) : 'auto';
  return settle(normalize(partial));
}
