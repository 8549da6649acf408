// The lab's state, declared once. Each row names a piece of state, its type, its default,
// its allowed range and the scenario key it feeds. Parsing, validation, the controls (the
// book's switches and the "Advanced" form) and the scenario sent to the core are all driven
// from this table (later also the URL and the embedding options: add rows here, not code
// elsewhere). No DOM in this module. options.js reads and writes URLs and embed options with it.
//
// Row fields:
//   name      the state key (and the future URL / embed option name)
//   type      boolean | integer | number | enum | degrees
//   default   the book's value
//   range     [lo, hi] for numbers (the core's own limits, README.md "The contract")
//   options   enum values: [[value, label], ...], or the name of a preset list from
//             lab.presets() ('models', 'gpus', 'precisions'), to which 'custom' is added
//   scenario  the scenario key it feeds, dotted ('seams.data', 'model.layers')
//   encode    state value -> scenario value (default: as is)
//   scale     the scenario value is the state value times this (token budget in billions)
//   when      state -> boolean: the row only applies (is sent, and its control shows) then
//   detailOf  a detail of a preset picker ('model', 'gpu', ...): it applies only while that
//             picker is 'custom', and choosing 'custom' fills it from the preset chosen before
//             (so the URL leaves it out otherwise: its value is the preset's)
//   sendIf    state -> boolean: the row is sent only then, but its control always shows (a
//             preset picker is not sent when 'custom' is picked; its detail rows are)
//   advanced  belongs to the "Advanced: size a real run" section; while that is closed the
//             row is not sent, so the scenario is exactly the book's
//   fixed     (advanced rows) sent at its default while the section is closed
//   control   switch | details | number | select | checkbox; group: the fieldset it sits in
//   label, unit, hint, step: for the control

export const NETWORKS = { hdr: 25, ndr: 50 };

const custom = (name) => (s) => s[name] === 'custom';
const preset = (name) => (s) => s[name] !== 'custom';
const detailOf = (name) => ({ detailOf: name, when: custom(name) });

export const GROUPS = [
  { name: 'fleet', label: 'Fleet and layout' },
  { name: 'model', label: 'Model and batch' },
  { name: 'hardware', label: 'Hardware' },
  { name: 'memory', label: 'Memory and schedule' },
];

export const STATE = [
  // The book lab: three seams that auto-factor the GPU count.
  { name: 'data', type: 'boolean', default: true, scenario: 'seams.data',
    control: 'switch', label: 'Data parallel' },
  { name: 'tensor', type: 'boolean', default: false, scenario: 'seams.tensor',
    control: 'switch', label: 'Tensor parallel' },
  { name: 'pipeline', type: 'boolean', default: false, scenario: 'seams.pipeline',
    control: 'switch', label: 'Pipeline parallel' },

  // Opening the advanced section switches to the practitioner's memory model (whole layers
  // per stage, embedding on the end stages, activations); closed, the book's N/(TP·PP).
  { name: 'advanced', type: 'boolean', default: false, scenario: 'memory_model',
    encode: () => 'full', sendIf: (s) => s.advanced, control: 'details',
    label: 'Advanced: size a real run' },

  { name: 'gpus', type: 'integer', default: 16, range: [1, 16384], scenario: 'gpus',
    advanced: true, fixed: true, control: 'number', group: 'fleet', label: 'GPUs',
    hint: 'any whole number, 1 to 16,384' },
  { name: 'gpus_per_node', type: 'integer', default: 8, range: [1, 1024],
    scenario: 'gpus_per_node', advanced: true, fixed: true, control: 'number', group: 'fleet',
    label: 'GPUs per node' },
  // 'auto' (the seams auto-factor, as in the book) or an explicit 'DPxTPxPP'; the control
  // offers only the factorizations of the GPU count the core accepts (see factorizations()).
  { name: 'degrees', type: 'degrees', default: 'auto', scenario: 'degrees',
    encode: (v) => parseDegrees(v), sendIf: (s) => s.degrees !== 'auto', advanced: true,
    control: 'select', options: 'factorizations', group: 'fleet', label: 'Layout DP×TP×PP' },

  { name: 'model', type: 'enum', default: 'book-16b', options: 'models', scenario: 'model',
    sendIf: preset('model'), advanced: true, control: 'select', group: 'model', label: 'Model' },
  { name: 'layers', type: 'integer', default: 50, range: [1, 10000], scenario: 'model.layers',
    ...detailOf('model'), advanced: true, control: 'number', group: 'model', label: 'Layers' },
  { name: 'hidden', type: 'integer', default: 5120, range: [1, 1048576], scenario: 'model.hidden',
    ...detailOf('model'), advanced: true, control: 'number', group: 'model', label: 'Hidden size' },
  { name: 'heads', type: 'integer', default: 40, range: [1, 1048576], scenario: 'model.heads',
    ...detailOf('model'), advanced: true, control: 'number', group: 'model',
    label: 'Attention heads', hint: 'must divide the hidden size' },
  { name: 'vocab', type: 'integer', default: 51200, range: [1, 10000000], scenario: 'model.vocab',
    ...detailOf('model'), advanced: true, control: 'number', group: 'model', label: 'Vocabulary' },
  { name: 'seq_len', type: 'integer', default: 2048, range: [1, 1048576], scenario: 'seq_len',
    advanced: true, control: 'number', group: 'model', label: 'Sequence length', unit: 'tokens' },
  { name: 'micro_batch', type: 'integer', default: 1, range: [1, 65536], scenario: 'micro_batch',
    advanced: true, control: 'number', group: 'model', label: 'Micro-batch', unit: 'sequences' },
  { name: 'global_batch', type: 'integer', default: 512, range: [1, 16777216],
    scenario: 'global_batch', advanced: true, control: 'number', group: 'model',
    label: 'Global batch', unit: 'sequences', hint: 'a multiple of DP × micro-batch, or the core rounds it up' },
  { name: 'train_tokens', type: 'number', default: 0, range: [0, 1e7], scale: 1e9, step: 'any',
    scenario: 'train_tokens', advanced: true, control: 'number', group: 'model',
    label: 'Token budget', unit: 'B tokens', hint: 'for the time to train; 0 for none' },

  { name: 'gpu', type: 'enum', default: 'A100-80GB', options: 'gpus', scenario: 'gpu',
    sendIf: preset('gpu'), advanced: true, control: 'select', group: 'hardware', label: 'GPU' },
  { name: 'gpu_memory_gb', type: 'number', default: 80, range: [0.001, 1e5], step: 'any',
    scenario: 'gpu_memory_gb', ...detailOf('gpu'), advanced: true, control: 'number',
    group: 'hardware', label: 'GPU memory', unit: 'GB' },
  { name: 'gpu_peak_tflops', type: 'number', default: 312, range: [0.001, 1e6], step: 'any',
    scenario: 'gpu_peak_tflops', ...detailOf('gpu'), advanced: true, control: 'number',
    group: 'hardware', label: 'Dense bf16 peak', unit: 'TFLOP/s' },
  { name: 'nvlink_gb_s', type: 'number', default: 300, range: [0.001, 1e5], step: 'any',
    scenario: 'nvlink_gb_s', ...detailOf('gpu'), advanced: true, control: 'number',
    group: 'hardware', label: 'NVLink', unit: 'GB/s' },
  { name: 'network', type: 'enum', default: 'hdr', scenario: 'network_gb_s',
    encode: (v) => NETWORKS[v], sendIf: preset('network'), advanced: true, control: 'select',
    group: 'hardware', label: 'Network per GPU',
    hint: 'InfiniBand per GPU: HDR 200 Gb/s = 25 GB/s, NDR 400 Gb/s = 50 GB/s',
    options: [['hdr', 'HDR, 25 GB/s'], ['ndr', 'NDR, 50 GB/s'], ['custom', 'custom']] },
  { name: 'network_gb_s', type: 'number', default: 25, range: [0.001, 1e5], step: 'any',
    scenario: 'network_gb_s', ...detailOf('network'), advanced: true, control: 'number',
    group: 'hardware', label: 'Network bandwidth', unit: 'GB/s' },
  // The core accepts down to 0.001; below 1% of peak no run is worth sizing.
  { name: 'efficiency', type: 'number', default: 0.5, range: [0.01, 1], step: 0.01,
    scenario: 'efficiency', advanced: true, control: 'number', group: 'hardware',
    label: 'Efficiency',
    hint: 'the achievable fraction of dense peak; Narayanan et al. report 0.44–0.52 end to end' },

  { name: 'precision', type: 'enum', default: 'mixed_bf16', options: 'precisions',
    scenario: 'precision', sendIf: preset('precision'), advanced: true, control: 'select',
    group: 'memory', label: 'Precision' },
  ...[['weight', 'Weight'], ['grad', 'Gradient'], ['master', 'Master copy'],
    ['adam_m', 'Adam m'], ['adam_v', 'Adam v']].map(([key, label]) => ({
    name: `${key}_bytes`, type: 'number', default: { weight: 2, grad: 2 }[key] ?? 4,
    range: [0, 16], step: 'any', scenario: `precision.${key}`, ...detailOf('precision'),
    advanced: true, control: 'number', group: 'memory', label, unit: 'B/param' })),
  { name: 'zero_stage', type: 'integer', default: 0, range: [0, 3], scenario: 'zero_stage',
    advanced: true, control: 'select', group: 'memory', label: 'ZeRO stage',
    options: [[0, '0: replicated'], [1, '1: optimizer sharded'], [2, '2: + gradients'],
      [3, '3: + weights']] },
  { name: 'recompute', type: 'enum', default: 'none', scenario: 'recompute', advanced: true,
    control: 'select', group: 'memory', label: 'Recompute activations',
    options: [['none', 'none'], ['selective', 'selective (attention)'], ['full', 'full (per layer)']] },
  { name: 'sequence_parallel', type: 'boolean', default: false, scenario: 'sequence_parallel',
    advanced: true, control: 'checkbox', group: 'memory', label: 'Sequence parallel' },
  { name: 'schedule', type: 'enum', default: '1f1b', scenario: 'schedule', advanced: true,
    control: 'select', group: 'memory', label: 'Pipeline schedule',
    options: [['1f1b', '1F1B'], ['interleaved', 'interleaved 1F1B']] },
  { name: 'virtual_stages', type: 'integer', default: 2, range: [1, 128],
    scenario: 'virtual_stages', when: (s) => s.schedule === 'interleaved', advanced: true,
    control: 'number', group: 'memory', label: 'Virtual stages', unit: 'chunks per GPU' },
];

// Buttons that set several rows at once.
export const PRESETS = [
  { name: 'fleet', label: 'The book\'s fleet: 10,240 GPUs',
    hint: 'TP = 8, PP = 16, DP = 80; global batch 2,560 = 80 replicas × 32 micro-batches',
    values: { advanced: true, gpus: 10240, gpus_per_node: 8, degrees: '80x8x16',
      global_batch: 2560, micro_batch: 1 } },
  { name: 'book', label: 'Back to the book\'s defaults', reset: true,
    hint: 'every value at its default (16 GPUs, data parallel, the 16B model, A100 80 GB), the section open',
    values: { advanced: true } },
];

const byName = new Map(STATE.map((row) => [row.name, row]));

export function entry(name) {
  const e = byName.get(name);
  if (!e) throw new Error(`unknown state "${name}"`);
  return e;
}

// 'DPxTPxPP' (or with ×) -> { dp, tp, pp }; anything else -> null.
export function parseDegrees(text) {
  const m = /^(\d+)\s*[x×]\s*(\d+)\s*[x×]\s*(\d+)$/.exec(String(text).trim());
  return m ? { dp: Number(m[1]), tp: Number(m[2]), pp: Number(m[3]) } : null;
}

export const degreesText = ({ dp, tp, pp }) => `${dp}x${tp}x${pp}`;

// The values of an enum row: a fixed list, or a preset list from the core plus 'custom'.
export function optionsOf(e, ctx = {}) {
  if (Array.isArray(e.options)) return e.options;
  const list = ctx.presets?.[e.options];
  if (!list) return null;
  return [...list.map((p) => [p.name, p.name]), ['custom', 'custom']];
}

// A value that fits the row: strings are parsed ("true", "8"), numbers are clamped to the
// range, and anything unreadable falls back to the default.
export function coerce(name, value, ctx = {}) {
  const e = entry(name);
  switch (e.type) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      return e.default;
    case 'integer':
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return e.default;
      const [lo, hi] = e.range;
      const v = Math.min(hi, Math.max(lo, n));
      return e.type === 'integer' ? Math.round(v) : v;
    }
    case 'enum': {
      const options = optionsOf(e, ctx);
      if (typeof value !== 'string') return e.default;
      // Without the preset lists (not loaded yet) any name passes; the core checks it.
      return !options || options.some(([v]) => v === value) ? value : e.default;
    }
    case 'degrees': {
      if (value === 'auto') return value;
      const d = parseDegrees(value);
      return d && d.dp > 0 && d.tp > 0 && d.pp > 0 ? degreesText(d) : e.default;
    }
    default:
      throw new Error(`state "${name}" has unknown type ${e.type}`);
  }
}

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });

// What a row accepts, in words, for the notes about refused URL values and embed options.
export function allowed(name, ctx = {}) {
  const e = entry(name);
  switch (e.type) {
    case 'boolean': return 'true or false';
    case 'integer':
    case 'number': {
      const [lo, hi] = e.range.map((v) => grouped.format(v));
      return `${e.type === 'integer' ? 'a whole number' : 'a number'} from ${lo} to ${hi}`;
    }
    case 'enum': {
      const options = optionsOf(e, ctx);
      return options ? `one of ${options.map(([v]) => v).join(', ')}` : 'a preset name';
    }
    case 'degrees': return 'auto, or DP×TP×PP of the GPU count written as 2x4x2';
    default: return '';
  }
}

// The strict reader behind URLs and embed options (coerce, for the controls, clamps instead):
// { value } for a value the row takes as is, { error } (what is allowed) for anything else.
// Booleans also take 1/0, on/off, yes/no and '' (a bare attribute or ?tensor).
export function parseValue(name, value, ctx = {}) {
  const e = entry(name);
  const refuse = { error: allowed(name, ctx) };
  const text = typeof value === 'string' ? value.trim() : null;
  switch (e.type) {
    case 'boolean': {
      if (typeof value === 'boolean') return { value };
      const key = text?.toLowerCase();
      if (['true', '1', 'on', 'yes', ''].includes(key)) return { value: true };
      if (['false', '0', 'off', 'no'].includes(key)) return { value: false };
      return refuse;
    }
    case 'integer':
    case 'number': {
      let n = value;
      if (text !== null) n = NUMBER_TEXT.test(text) ? Number(text) : NaN;
      if (typeof n !== 'number' || !Number.isFinite(n)) return refuse;
      if (n < e.range[0] || n > e.range[1]) return refuse;
      if (e.type === 'integer' && !Number.isInteger(n)) return refuse;
      return { value: n };
    }
    case 'enum': {
      const options = optionsOf(e, ctx);
      const v = text ?? (typeof value === 'number' ? String(value) : null);
      if (v === null) return refuse;
      const hit = options?.find(([o]) => String(o) === v);
      if (options && !hit) return refuse;
      return { value: hit ? hit[0] : v };
    }
    case 'degrees': {
      if (text === 'auto') return { value: text };
      const d = text === null ? null : parseDegrees(text);
      return d && d.dp > 0 && d.tp > 0 && d.pp > 0 ? { value: degreesText(d) } : refuse;
    }
    default:
      return refuse;
  }
}

export function defaults() {
  return Object.fromEntries(STATE.map((e) => [e.name, e.default]));
}

// A state with every key present and valid; unknown keys are dropped. Whether an explicit
// layout fits the GPU count and the model is the core's to say (it refuses the key "degrees").
export function normalize(partial = {}, ctx = {}) {
  return Object.fromEntries(STATE.map((e) =>
    [e.name, e.name in partial ? coerce(e.name, partial[e.name], ctx) : e.default]));
}

const SEAM_DEGREE = { data: 'dp', tensor: 'tp', pipeline: 'pp' };

// The copy a 'custom' choice starts from: the preset that was chosen before.
function presetValues(name, value, ctx) {
  const p = ctx.presets;
  if (name === 'model') {
    const m = p?.models.find((x) => x.name === value);
    return m && { layers: m.layers, hidden: m.hidden, heads: m.heads, vocab: m.vocab };
  }
  if (name === 'gpu') {
    const g = p?.gpus.find((x) => x.name === value);
    return g && { gpu_memory_gb: g.gpu_memory_gb, gpu_peak_tflops: g.gpu_peak_tflops,
      nvlink_gb_s: g.nvlink_gb_s };
  }
  if (name === 'precision') {
    const q = p?.precisions.find((x) => x.name === value);
    return q && { weight_bytes: q.weight, grad_bytes: q.grad, master_bytes: q.master,
      adam_m_bytes: q.adam_m, adam_v_bytes: q.adam_v };
  }
  if (name === 'network') return value in NETWORKS ? { network_gb_s: NETWORKS[value] } : null;
  return null;
}

// One control changed: the new state, with the rows that depend on it kept consistent.
//  - a seam switch goes back to auto-factoring (an explicit layout overrides the seams);
//  - an explicit layout shows as the seams it uses;
//  - choosing 'custom' starts from the preset chosen before.
export function change(state, name, value, ctx = {}) {
  const next = { ...state, [name]: coerce(name, value, ctx) };
  if (name in SEAM_DEGREE) next.degrees = 'auto';
  if (next[name] === 'custom' && state[name] !== 'custom') {
    Object.assign(next, presetValues(name, state[name], ctx));
  }
  return settle(next, ctx);
}

// Several rows at once, in the order given.
export function changeMany(state, values, ctx = {}) {
  let next = state;
  for (const [name, value] of Object.entries(values)) next = change(next, name, value, ctx);
  return next;
}

// A preset button: its rows, set on the current state or (reset) on the defaults.
export function applyPreset(state, name, ctx = {}) {
  const p = PRESETS.find((x) => x.name === name);
  if (!p) throw new Error(`unknown preset "${name}"`);
  return changeMany(p.reset ? defaults() : state, p.values, ctx);
}

function settle(state, ctx) {
  const next = normalize(state, ctx);
  if (next.degrees !== 'auto') {
    const d = parseDegrees(next.degrees);
    for (const [seam, key] of Object.entries(SEAM_DEGREE)) next[seam] = d[key] > 1;
  }
  return next;
}

// The scenario the core is asked about (README.md: the JSON contract).
export function toScenario(state) {
  const scenario = {};
  for (const e of STATE) {
    let value = state[e.name];
    if (e.advanced && !state.advanced) {
      if (!e.fixed) continue;
      value = e.default;
    } else if ((e.when && !e.when(state)) || (e.sendIf && !e.sendIf(state))) {
      continue;
    }
    if (e.encode) value = e.encode(value);
    if (e.scale) value *= e.scale;
    const path = e.scenario.split('.');
    let node = scenario;
    for (const key of path.slice(0, -1)) node = node[key] ??= {};
    node[path.at(-1)] = value;
  }
  return scenario;
}

const at = (obj, path) => path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);

// The state that asks for a resolved scenario (report.scenario, a plan's or a reference
// run's): the inverse of toScenario, so "load this scenario" is one call.
export function fromScenario(scenario, ctx = {}) {
  const partial = {};
  for (const e of STATE) {
    if (e.encode) continue; // the pick rows below
    const v = at(scenario, e.scenario);
    if (v !== undefined && typeof v !== 'object') partial[e.name] = e.scale ? v / e.scale : v;
  }
  partial.advanced = scenario.memory_model === 'full';
  const model = scenario.model;
  const named = (list, name) => ctx.presets?.[list].some((p) => p.name === name);
  if (typeof model === 'string') {
    partial.model = model;
    Object.assign(partial, presetValues('model', model, ctx));
  } else if (model) {
    partial.model = named('models', model.name) ? model.name : 'custom';
  }
  partial.gpu = named('gpus', scenario.gpu) ? scenario.gpu : 'custom';
  if (typeof scenario.precision === 'string') {
    partial.precision = scenario.precision;
    Object.assign(partial, presetValues('precision', scenario.precision, ctx));
  } else if (scenario.precision) {
    partial.precision = 'custom';
  }
  const network = Object.keys(NETWORKS).find((k) => NETWORKS[k] === scenario.network_gb_s);
  partial.network = network ?? 'custom';
  partial.degrees = scenario.degrees ? degreesText(scenario.degrees) : 'auto';
  return settle(normalize(partial, ctx), ctx);
}
