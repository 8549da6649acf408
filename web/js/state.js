// The lab's state, declared once. Each entry names a piece of state, its type, its default,
// its allowed range and the scenario key it feeds. Parsing, validation and the controls are
// driven from this table (later also the URL, embedding options and an "advanced" section
// with more scenario keys: add rows here, not code elsewhere). No DOM in this module.

export const STATE = [
  { name: 'data', type: 'boolean', default: true, scenario: 'seams.data',
    control: 'switch', label: 'Data parallel' },
  { name: 'tensor', type: 'boolean', default: false, scenario: 'seams.tensor',
    control: 'switch', label: 'Tensor parallel' },
  { name: 'pipeline', type: 'boolean', default: false, scenario: 'seams.pipeline',
    control: 'switch', label: 'Pipeline parallel' },
  // Fixed at the book's fleet for now (no control); the core accepts the whole range.
  { name: 'gpus', type: 'integer', default: 16, range: [1, 16384], scenario: 'gpus' },
  { name: 'gpus_per_node', type: 'integer', default: 8, range: [1, 1024],
    scenario: 'gpus_per_node' },
];

const byName = new Map(STATE.map((entry) => [entry.name, entry]));

export function entry(name) {
  const e = byName.get(name);
  if (!e) throw new Error(`unknown state "${name}"`);
  return e;
}

// A value that fits the entry: strings are parsed ("true", "8"), numbers are clamped to the
// range, and anything unreadable falls back to the default.
export function coerce(name, value) {
  const e = entry(name);
  switch (e.type) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      return e.default;
    case 'integer': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return e.default;
      const [lo, hi] = e.range;
      return Math.min(hi, Math.max(lo, Math.round(n)));
    }
    default:
      throw new Error(`state "${name}" has unknown type ${e.type}`);
  }
}

export function defaults() {
  return Object.fromEntries(STATE.map((e) => [e.name, e.default]));
}

// A state with every key present and valid; unknown keys are dropped.
export function normalize(partial = {}) {
  return Object.fromEntries(
    STATE.map((e) => [e.name, e.name in partial ? coerce(e.name, partial[e.name]) : e.default]));
}

// The scenario the core is asked about (README.md: the JSON contract).
export function toScenario(state) {
  const scenario = {};
  for (const e of STATE) {
    const path = e.scenario.split('.');
    let node = scenario;
    for (const key of path.slice(0, -1)) node = node[key] ??= {};
    node[path.at(-1)] = state[e.name];
  }
  return scenario;
}
