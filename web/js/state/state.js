// The lab's state, declared once. Each row names a piece of state, the scenario key it feeds
// and how the page shows it. What the row may hold (its type, its default, its range or its
// choices) is the core's: bindSchema() takes it from lab.schema(), the same field table the
// core reads, checks and writes scenarios with, so no range or default is typed here. Parsing,
// validation, the controls (the book's switches and the "Advanced" form), the URL and the
// embedding options and the scenario sent to the core are all driven from this table. No DOM
// in this module. options.js reads and writes URLs and embed options with it.
//
// Row fields (the page's own):
//   name      the state key (the URL's and the embed option's name)
//   scenario  the scenario key it feeds, dotted ('seams.data', 'model.layers'): the schema's
//             field of that key gives the row its type, default and range or choices
//   own       the page's own state, not a scenario field: { type, default } (the Advanced
//             switch, the 'auto' layout, the network presets)
//   encode    state value -> scenario value (default: as is)
//   scale     the scenario value is the state value times this (token budget in billions)
//   core      default null: the row is not sent until set, and the core's default applies
//   when      state -> boolean: the row only applies (is sent, and its control shows) then
//   detailOf  a detail of a preset picker ('model', 'gpu', ...): it applies only while that
//             picker is 'custom', and choosing 'custom' fills it from the preset chosen before
//             (so the URL leaves it out otherwise: its value is the preset's)
//   sendIf    state -> boolean: the row is sent only then, but its control always shows (a
//             preset picker is not sent when 'custom' is picked; its detail rows are)
//   advanced  belongs to the "Advanced: size a real run" section; while that is closed the
//             row is not sent, so the scenario is exactly the book's
//   fixed     (advanced rows) sent at its default while the section is closed
//   page      the page's own row that a loaded scenario (a plan, a published run) leaves as
//             it is: the planner's margin and whether a search was asked
//   control   switch | order | details | number | select | checkbox; group: the fieldset it
//             sits in (switch and order: the book's toolbar)
//   label, unit, hint, step: for the control (unit: the schema's unless given, '' for none;
//             hint: text, or a function of the bound row); labels: words for some choices
// Bound from the schema: type (boolean | integer | number | enum | degrees), default, range
// [lo, hi] (lo excluded when `above`), choices (for an `order` field, the orders of its seams).

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
  { name: 'data', scenario: 'seams.data', control: 'switch', label: 'Data parallel' },
  { name: 'tensor', scenario: 'seams.tensor', control: 'switch', label: 'Tensor parallel' },
  { name: 'pipeline', scenario: 'seams.pipeline', control: 'switch', label: 'Pipeline parallel' },
  // How ranks are numbered, innermost first: which seam's groups share a node. Its choices are
  // the permutations of the schema's seams, the chapter's rule (the default) first.
  { name: 'order', scenario: 'order', control: 'order', label: 'Nesting order' },

  // Opening the advanced section switches to the practitioner's memory model (whole layers
  // per stage, embedding on the end stages, activations); closed, the book's N/(TP·PP).
  {
    name: 'advanced',
    own: { type: 'boolean', default: false },
    scenario: 'memory_model',
    encode: () => 'full',
    sendIf: (s) => s.advanced,
    control: 'details',
    label: 'Advanced: size a real run',
  },

  {
    name: 'gpus',
    scenario: 'gpus',
    advanced: true,
    fixed: true,
    control: 'number',
    group: 'fleet',
    label: 'GPUs',
    unit: '', // the label says it
    hint: (e) => `any whole number, ${span(e)}`,
  },
  {
    name: 'gpus_per_node',
    scenario: 'gpus_per_node',
    advanced: true,
    fixed: true,
    control: 'number',
    group: 'fleet',
    label: 'GPUs per node',
    unit: '',
  },
  // 'auto' (the seams auto-factor, as in the book) or an explicit 'DPxTPxPP'; the control
  // offers the layouts the core accepts for the GPU count and the model (report.layouts).
  {
    name: 'degrees',
    own: { type: 'degrees', default: 'auto' },
    scenario: 'degrees',
    encode: (v) => parseDegrees(v),
    sendIf: (s) => s.degrees !== 'auto',
    advanced: true,
    control: 'select',
    group: 'fleet',
    label: 'Layout DP×TP×PP',
  },

  // The fourth and fifth seams, beyond the book: context parallelism splits each sequence over
  // the GPUs of a CP group; expert parallelism splits a mixture of experts' experts over EP
  // groups carved out of the data- and context-parallel ranks (it takes no GPUs of its own).
  {
    name: 'context',
    scenario: 'seams.context',
    advanced: true,
    control: 'checkbox',
    group: 'fleet',
    label: 'Context parallel (split each sequence)',
  },
  {
    name: 'context_parallel',
    scenario: 'context_parallel',
    when: (s) => s.context,
    advanced: true,
    control: 'select',
    group: 'fleet',
    label: 'Context parallelism by',
    labels: {
      ring: 'ring passes of K/V (Megatron-Core, Ring Attention)',
      all_gather: 'one all-gather of K/V (Llama 3)',
      ulysses: 'all-to-alls of Q, K, V (DeepSpeed-Ulysses)',
    },
  },
  {
    name: 'expert',
    scenario: 'seams.expert',
    advanced: true,
    control: 'checkbox',
    group: 'fleet',
    label: 'Expert parallel (split the experts; mixture-of-experts models)',
  },
  {
    name: 'expert_tp',
    scenario: 'expert_tp',
    core: true,
    when: (s) => s.expert,
    advanced: true,
    control: 'number',
    group: 'fleet',
    label: 'Tensor parallel inside each expert',
    hint: 'divides TP; 1 keeps experts whole',
  },

  {
    name: 'model',
    scenario: 'model',
    sendIf: preset('model'),
    advanced: true,
    control: 'select',
    group: 'model',
    label: 'Model',
  },
  {
    name: 'layers',
    scenario: 'model.layers',
    ...detailOf('model'),
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Layers',
  },
  {
    name: 'hidden',
    scenario: 'model.hidden',
    ...detailOf('model'),
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Hidden size',
  },
  {
    name: 'heads',
    scenario: 'model.heads',
    ...detailOf('model'),
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Attention heads',
    hint: 'must divide the hidden size',
  },
  {
    name: 'vocab',
    scenario: 'model.vocab',
    ...detailOf('model'),
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Vocabulary',
  },
  {
    name: 'kv_heads',
    scenario: 'model.kv_heads',
    ...detailOf('model'),
    hint: '0: as many as the heads; fewer for GQA, dividing them',
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Key/value heads',
  },
  {
    name: 'ffn_hidden',
    scenario: 'model.ffn_hidden',
    ...detailOf('model'),
    hint: '0: 4 × hidden, as GPT',
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'MLP width',
  },
  {
    name: 'activation',
    scenario: 'model.activation',
    ...detailOf('model'),
    labels: { gelu: 'GELU (GPT: biases, LayerNorm)', swiglu: 'SwiGLU (Llama: RMSNorm)' },
    advanced: true,
    control: 'select',
    group: 'model',
    label: 'MLP',
  },
  {
    name: 'position',
    scenario: 'model.position',
    ...detailOf('model'),
    labels: { learned: 'learned table', rope: 'RoPE or ALiBi (no table)' },
    advanced: true,
    control: 'select',
    group: 'model',
    label: 'Positions',
  },
  {
    name: 'tied_embeddings',
    scenario: 'model.tied_embeddings',
    ...detailOf('model'),
    advanced: true,
    control: 'checkbox',
    group: 'model',
    label: 'Output layer shares the embedding',
  },
  {
    name: 'attention',
    scenario: 'model.attention',
    ...detailOf('model'),
    labels: {
      multi_head: 'multi-head (grouped by the key/value heads)',
      latent: 'latent (DeepSeek MLA)',
    },
    advanced: true,
    control: 'select',
    group: 'model',
    label: 'Attention',
  },
  {
    name: 'experts',
    scenario: 'model.experts',
    ...detailOf('model'),
    hint: '0: a dense model',
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Routed experts',
  },
  ...[
    ['experts_per_token', 'Experts per token (top-k)', undefined],
    ['moe_ffn_hidden', 'Expert MLP width', '0: the MLP width'],
    ['shared_experts', 'Shared experts', undefined],
    ['dense_layers', 'Leading dense layers', undefined],
  ].map(([key, label, hint]) => ({
    name: key,
    scenario: `model.${key}`,
    detailOf: 'model',
    when: (s) => s.model === 'custom' && s.experts > 0,
    hint,
    advanced: true,
    control: 'number',
    group: 'model',
    label,
  })),
  {
    name: 'capacity_factor',
    scenario: 'capacity_factor',
    core: true,
    when: (s) => s.expert,
    step: 'any',
    hint: 'expert buffers as a multiple of an even share; 0: dropless',
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Expert capacity factor',
  },
  {
    name: 'seq_len',
    scenario: 'seq_len',
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Sequence length',
  },
  {
    name: 'micro_batch',
    scenario: 'micro_batch',
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Micro-batch',
  },
  {
    name: 'global_batch',
    scenario: 'global_batch',
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Global batch',
    hint: 'a multiple of DP × micro-batch, or the core rounds it up',
  },
  {
    name: 'train_tokens',
    scenario: 'train_tokens',
    scale: 1e9,
    step: 'any',
    advanced: true,
    control: 'number',
    group: 'model',
    label: 'Token budget',
    unit: 'B tokens',
    hint: 'for the time to train; 0 for none',
  },

  {
    name: 'gpu',
    scenario: 'gpu',
    sendIf: preset('gpu'),
    advanced: true,
    control: 'select',
    group: 'hardware',
    label: 'GPU',
  },
  {
    name: 'gpu_memory_gb',
    scenario: 'gpu_memory_gb',
    step: 'any',
    ...detailOf('gpu'),
    advanced: true,
    control: 'number',
    group: 'hardware',
    label: 'GPU memory',
  },
  {
    name: 'gpu_peak_tflops',
    scenario: 'gpu_peak_tflops',
    step: 'any',
    ...detailOf('gpu'),
    advanced: true,
    control: 'number',
    group: 'hardware',
    label: 'Dense bf16 peak',
  },
  {
    name: 'nvlink_gb_s',
    scenario: 'nvlink_gb_s',
    step: 'any',
    ...detailOf('gpu'),
    advanced: true,
    control: 'number',
    group: 'hardware',
    label: 'NVLink',
  },
  {
    name: 'hbm_gb_s',
    scenario: 'hbm_gb_s',
    step: 'any',
    ...detailOf('gpu'),
    advanced: true,
    control: 'number',
    group: 'hardware',
    label: 'Memory bandwidth',
  },
  // The network presets are the page's (the core takes a bandwidth); the default is the one
  // whose bandwidth is the core's default.
  {
    name: 'network',
    own: { type: 'enum' },
    scenario: 'network_gb_s',
    encode: (v) => NETWORKS[v],
    sendIf: preset('network'),
    advanced: true,
    control: 'select',
    group: 'hardware',
    label: 'Network per GPU',
    hint: 'InfiniBand per GPU: HDR 200 Gb/s = 25 GB/s, NDR 400 Gb/s = 50 GB/s',
    choices: [...Object.keys(NETWORKS), 'custom'],
    labels: { hdr: 'HDR, 25 GB/s', ndr: 'NDR, 50 GB/s' },
  },
  {
    name: 'network_gb_s',
    scenario: 'network_gb_s',
    step: 'any',
    ...detailOf('network'),
    advanced: true,
    control: 'number',
    group: 'hardware',
    label: 'Network bandwidth',
  },
  // Unset, the GPU's calibrated value applies; the field shows the value the core used.
  {
    name: 'efficiency',
    scenario: 'efficiency',
    core: true,
    step: 0.01,
    advanced: true,
    control: 'number',
    group: 'hardware',
    label: 'Matmul efficiency',
    hint: "empty: the GPU's calibrated value (A100 0.68, H100 0.57); bubble and communication are counted apart",
  },
  {
    name: 'price_per_gpu_hour',
    scenario: 'price_per_gpu_hour',
    step: 'any',
    hint: "the default is the core's round cloud figure; set your own for the cost per day",
    advanced: true,
    control: 'number',
    group: 'hardware',
    label: 'Price per GPU-hour',
  },
  {
    name: 'overlap_grad_reduce',
    scenario: 'overlap_grad_reduce',
    advanced: true,
    control: 'checkbox',
    group: 'hardware',
    label: 'Overlap gradient reduce',
  },
  {
    name: 'overlap_param_gather',
    scenario: 'overlap_param_gather',
    advanced: true,
    control: 'checkbox',
    group: 'hardware',
    label: 'Overlap weight gather',
  },
  {
    name: 'tp_comm_overlap',
    scenario: 'tp_comm_overlap',
    advanced: true,
    control: 'checkbox',
    group: 'hardware',
    label: 'Overlap TP communication',
  },
  {
    name: 'expert_comm_overlap',
    scenario: 'expert_comm_overlap',
    when: (s) => s.expert,
    advanced: true,
    control: 'checkbox',
    group: 'hardware',
    label: 'Overlap expert all-to-alls (DualPipe)',
  },
  {
    name: 'pp_scatter_gather',
    scenario: 'pp_scatter_gather',
    advanced: true,
    control: 'checkbox',
    group: 'hardware',
    label: 'Pipeline sends split over TP (Megatron-LM 2021-22)',
  },

  {
    name: 'precision',
    scenario: 'precision',
    sendIf: preset('precision'),
    advanced: true,
    control: 'select',
    group: 'memory',
    label: 'Precision',
  },
  ...[
    ['weight', 'Weight'],
    ['grad', 'Gradient'],
    ['master', 'Master copy'],
    ['adam_m', 'Adam m'],
    ['adam_v', 'Adam v'],
  ].map(([key, label]) => ({
    name: `${key}_bytes`,
    scenario: `precision.${key}`,
    step: 'any',
    ...detailOf('precision'),
    advanced: true,
    control: 'number',
    group: 'memory',
    label,
  })),
  {
    name: 'zero_stage',
    scenario: 'zero_stage',
    advanced: true,
    control: 'select',
    group: 'memory',
    label: 'ZeRO stage',
    labels: {
      0: '0: replicated',
      1: '1: optimizer sharded',
      2: '2: + gradients',
      3: '3: + weights',
    },
  },
  {
    name: 'recompute',
    scenario: 'recompute',
    advanced: true,
    control: 'select',
    group: 'memory',
    label: 'Recompute activations',
    labels: { selective: 'selective (attention)', full: 'full (per layer)' },
  },
  {
    name: 'sequence_parallel',
    scenario: 'sequence_parallel',
    advanced: true,
    control: 'checkbox',
    group: 'memory',
    label: 'Sequence parallel',
  },
  {
    name: 'flash_attention',
    scenario: 'flash_attention',
    advanced: true,
    control: 'checkbox',
    group: 'memory',
    label: 'Fused (flash) attention',
  },
  {
    name: 'overhead_gb',
    scenario: 'overhead_gb',
    step: 'any',
    hint: 'CUDA context, NCCL buffers, allocator',
    advanced: true,
    control: 'number',
    group: 'memory',
    label: 'Overhead',
  },
  {
    name: 'schedule',
    scenario: 'schedule',
    advanced: true,
    control: 'select',
    group: 'memory',
    label: 'Pipeline schedule',
    labels: { '1f1b': '1F1B', interleaved: 'interleaved 1F1B' },
  },
  // Unset, the core picks the chunks (its doc says how); the field shows what it picked.
  {
    name: 'virtual_stages',
    scenario: 'virtual_stages',
    core: true,
    when: (s) => s.schedule === 'interleaved',
    advanced: true,
    control: 'number',
    group: 'memory',
    label: 'Virtual stages',
  },
  {
    name: 'first_stage_layers',
    scenario: 'first_stage_layers',
    hint: "0: Megatron's split",
    advanced: true,
    control: 'number',
    group: 'memory',
    label: 'First stage layers',
  },
  {
    name: 'last_stage_layers',
    scenario: 'last_stage_layers',
    hint: "0: Megatron's split",
    advanced: true,
    control: 'number',
    group: 'memory',
    label: 'Last stage layers',
  },

  // The planner's inputs besides the scenario, so a URL reproduces a search: the headroom
  // margin (percent of GPU memory a plan leaves free) and whether a search was asked (the
  // page then searches again on load). Never sent to the core.
  {
    name: 'plan_headroom',
    own: { type: 'integer', default: 10, range: [0, 90] },
    scenario: 'plan_headroom',
    sendIf: () => false,
    advanced: true,
    page: true,
  },
  {
    name: 'plan',
    own: { type: 'boolean', default: false },
    scenario: 'plan',
    sendIf: () => false,
    advanced: true,
    page: true,
  },

  // The states pinned for comparison (compare.js), up to MAX_PINS, each the URL parameters
  // of a whole state (toParams from the defaults) joined by PIN_SEPARATOR. Never sent to the
  // core: each pin is evaluated on its own. Kept by presets and loads, as the planner's rows.
  {
    name: 'pins',
    own: { type: 'pins', default: '' },
    scenario: 'pins',
    sendIf: () => false,
    page: true,
  },
];

export const MAX_PINS = 3;
export const PIN_SEPARATOR = '|'; // URL parameters encode it (%7C), so no pin holds one
const MAX_PIN_CHARS = 4000;

// The pins' texts, in order ('' when none).
export const pinList = (text) => (text ? text.split(PIN_SEPARATOR) : []);

// Buttons that set several rows at once.
export const PRESETS = [
  {
    name: 'fleet',
    label: "The book's fleet: 10,240 GPUs",
    bookLabel: "Book's fleet (10,240 GPUs)", // its button in the book view
    hint: 'TP = 8, PP = 16, DP = 80; global batch 2,560 = 80 replicas × 32 micro-batches',
    values: {
      advanced: true,
      gpus: 10240,
      gpus_per_node: 8,
      degrees: '80x8x16',
      global_batch: 2560,
      micro_batch: 1,
    },
  },
  // The book view's way back from the fleet: every advanced row at its default and the
  // section closed; the seams and the nesting order stay as they are.
  {
    name: 'sixteen',
    label: 'Back to 16 GPUs',
    book: true,
    keepBook: true,
    hint: "the book's 16 GPUs, with the seams and the nesting order kept",
    values: { advanced: false },
  },
  {
    name: 'book',
    label: "Back to the book's defaults",
    reset: true,
    hint: 'every value at its default, the section open',
    values: { advanced: true },
  },
];

const byName = new Map(STATE.map((row) => [row.name, row]));

export function entry(name) {
  const e = byName.get(name);
  if (!e) throw new Error(`unknown state "${name}"`);
  return e;
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });

// "1 to 1,024", "above 0, up to 100,000": a number row's range in words.
function span(e) {
  const [lo, hi] = e.range.map((v) => grouped.format(v));
  return e.above ? `above ${lo}, up to ${hi}` : `${lo} to ${hi}`;
}

const SCHEMA_TYPES = {
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  enum: 'enum',
  preset: 'enum',
  order: 'enum',
};

// Every order of the seams, "tp,pp,dp" style, `first` (the chapter's) first.
function orders(seams, first) {
  const all = [];
  const walk = (done, rest) => {
    if (!rest.length) all.push(done.join(','));
    for (const s of rest)
      walk(
        [...done, s],
        rest.filter((x) => x !== s),
      );
  };
  walk([], seams);
  return [first, ...all.filter((o) => o !== first)];
}

// "TP, PP, DP (the chapter's rule)", "DP, TP, PP".
function orderLabels(choices, rule) {
  const words = (o) => o.toUpperCase().replaceAll(',', ', ');
  return Object.fromEntries(
    choices.map((o) => [o, o === rule ? `${words(o)} (the chapter's rule)` : words(o)]),
  );
}
let bound = false;

// Takes each row's type, default, range and choices from the core's field table
// (lab.schema()); a preset field's choices get 'custom' (its detail rows). Every lab on a page
// shares the table, so it is bound once.
export function bindSchema(schema) {
  if (bound) return;
  const fields = new Map(schema.fields.map((f) => [f.key, f]));
  for (const e of STATE) {
    const f = fields.get(e.scenario);
    if (e.own) {
      Object.assign(e, e.own);
      if (e.name === 'network') {
        e.default = Object.keys(NETWORKS).find((k) => NETWORKS[k] === f.default) ?? 'custom';
      }
    } else {
      if (!f || !(f.type in SCHEMA_TYPES))
        throw new Error(`no scenario field "${e.scenario}" for ${e.name}`);
      e.type = SCHEMA_TYPES[f.type];
      const scale = e.scale ?? 1;
      e.default = e.core ? null : typeof f.default === 'number' ? f.default / scale : f.default;
      if ('min' in f) e.range = [f.min / scale, f.max / scale];
      e.above = Boolean(f.min_exclusive);
      if (f.choices) e.choices = f.type === 'preset' ? [...f.choices, 'custom'] : f.choices;
      if (f.type === 'order') {
        e.choices = orders(f.choices, f.default);
        e.labels = orderLabels(e.choices, f.default);
      }
      if (e.type === 'integer' && e.control === 'select') e.choices = range(e.range);
      e.unit ??= f.unit || undefined;
    }
    if (typeof e.hint === 'function') e.hint = e.hint(e);
  }
  bound = true;
}

const range = ([lo, hi]) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

// 'DPxTPxPP' or 'DPxTPxPPxCPxEP' (or with ×) -> { dp, tp, pp, cp, ep }; anything else ->
// null. EP is not a factor of the GPU count (its groups are carved out of DP × CP).
export function parseDegrees(text) {
  const n = '\\s*[x×]\\s*(\\d+)';
  const m = new RegExp(`^(\\d+)${n}${n}(?:${n}${n})?$`).exec(String(text).trim());
  if (!m) return null;
  return {
    dp: Number(m[1]),
    tp: Number(m[2]),
    pp: Number(m[3]),
    cp: m[4] === undefined ? 1 : Number(m[4]),
    ep: m[5] === undefined ? 1 : Number(m[5]),
  };
}

// The book's '2x4x2'; '8x8x16x16x1' when context or expert parallelism is in play.
export const degreesText = ({ dp, tp, pp, cp = 1, ep = 1 }) =>
  cp === 1 && ep === 1 ? `${dp}x${tp}x${pp}` : `${dp}x${tp}x${pp}x${cp}x${ep}`;

// A pins text the row takes: a string of at most MAX_PINS pins, none empty. What each pin
// holds is read when it is evaluated (a pin the core refuses says so in the comparison).
function pinsOk(value) {
  if (typeof value !== 'string' || value.length > MAX_PIN_CHARS) return false;
  const list = pinList(value);
  return list.length <= MAX_PINS && list.every((p) => p !== '');
}

const positive = (d) => d && d.dp > 0 && d.tp > 0 && d.pp > 0 && d.cp > 0 && d.ep > 0;

// A select's options: [[value, label], ...] (a choice's label is the page's, else the choice).
export function optionsOf(e) {
  return e.choices?.map((v) => [v, e.labels?.[v] ?? String(v)]) ?? null;
}

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const inRange = (e, n) => (e.above ? n > e.range[0] : n >= e.range[0]) && n <= e.range[1];

// A value that fits the row: strings are parsed ("true", "8"), numbers are clamped to the
// range, and anything unreadable falls back to the default.
export function coerce(name, value) {
  const e = entry(name);
  if (value === null && e.core) return null;
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
      if (inRange(e, n)) return e.type === 'integer' ? Math.round(n) : n;
      return n > e.range[1] ? e.range[1] : e.default; // nothing sits just above an open bound
    }
    case 'enum':
      return typeof value === 'string' && e.choices.includes(value) ? value : e.default;
    case 'degrees': {
      if (value === 'auto') return value;
      const d = parseDegrees(value);
      return positive(d) ? degreesText(d) : e.default;
    }
    case 'pins':
      return pinsOk(value) ? value : e.default;
    default:
      throw new Error(`state "${name}" has unknown type ${e.type}`);
  }
}

// What a row accepts, in words, for the notes about refused URL values and embed options.
export function allowed(name) {
  const e = entry(name);
  const unset = e.core ? ', or empty for the core to choose' : '';
  switch (e.type) {
    case 'boolean':
      return 'true or false';
    case 'integer':
    case 'number':
      return `${e.type === 'integer' ? 'a whole number' : 'a number'} ${e.above ? '' : 'from '}${span(e)}${unset}`;
    case 'enum':
      return `one of ${e.choices.join(', ')}`;
    case 'pins':
      return `up to ${MAX_PINS} states pinned by the lab, separated by ${PIN_SEPARATOR}`;
    case 'degrees':
      return (
        'auto, or DP×TP×PP of the GPU count written as 2x4x2 ' +
        '(with context and expert parallelism DP×TP×PP×CP×EP, as 8x8x16x16x1)'
      );
    default:
      return '';
  }
}

// The strict reader behind URLs and embed options (coerce, for the controls, clamps instead):
// { value } for a value the row takes as is, { error } (what is allowed) for anything else.
// Booleans also take 1/0, on/off, yes/no and '' (a bare attribute or ?tensor); a row the core
// chooses for takes '' (or null) to leave it to the core.
export function parseValue(name, value) {
  const e = entry(name);
  const refuse = { error: allowed(name) };
  const text = typeof value === 'string' ? value.trim() : null;
  if (e.core && (value === null || text === '')) return { value: null };
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
      if (typeof n !== 'number' || !Number.isFinite(n) || !inRange(e, n)) return refuse;
      if (e.type === 'integer' && !Number.isInteger(n)) return refuse;
      return { value: n };
    }
    case 'enum': {
      const v = text ?? (typeof value === 'number' ? String(value) : null);
      return e.choices.includes(v) ? { value: v } : refuse;
    }
    case 'degrees': {
      if (text === 'auto') return { value: text };
      const d = text === null ? null : parseDegrees(text);
      return positive(d) ? { value: degreesText(d) } : refuse;
    }
    case 'pins':
      return pinsOk(value) ? { value } : refuse;
    default:
      return refuse;
  }
}

export function defaults() {
  return Object.fromEntries(STATE.map((e) => [e.name, e.default]));
}

// A state with every key present and valid; unknown keys are dropped. Whether an explicit
// layout fits the GPU count and the model is the core's to say (it refuses the key "degrees").
export function normalize(partial = {}) {
  return Object.fromEntries(
    STATE.map((e) => [e.name, e.name in partial ? coerce(e.name, partial[e.name]) : e.default]),
  );
}

const SEAM_DEGREE = { data: 'dp', tensor: 'tp', pipeline: 'pp', context: 'cp', expert: 'ep' };

// The copy a 'custom' choice starts from: the preset that was chosen before.
function presetValues(name, value, ctx) {
  const p = ctx.presets;
  if (name === 'model') {
    const m = p?.models.find((x) => x.name === value);
    return (
      m && {
        layers: m.layers,
        hidden: m.hidden,
        heads: m.heads,
        vocab: m.vocab,
        kv_heads: m.kv_heads,
        ffn_hidden: m.ffn_hidden,
        activation: m.activation,
        position: m.position,
        tied_embeddings: m.tied_embeddings,
        attention: m.attention,
        experts: m.experts,
        experts_per_token: m.experts_per_token,
        moe_ffn_hidden: m.moe_ffn_hidden,
        shared_experts: m.shared_experts,
        dense_layers: m.dense_layers,
      }
    );
  }
  if (name === 'gpu') {
    const g = p?.gpus.find((x) => x.name === value);
    return (
      g && {
        gpu_memory_gb: g.gpu_memory_gb,
        gpu_peak_tflops: g.gpu_peak_tflops,
        nvlink_gb_s: g.nvlink_gb_s,
        hbm_gb_s: g.hbm_gb_s,
      }
    );
  }
  if (name === 'precision') {
    const q = p?.precisions.find((x) => x.name === value);
    return (
      q && {
        weight_bytes: q.weight,
        grad_bytes: q.grad,
        master_bytes: q.master,
        adam_m_bytes: q.adam_m,
        adam_v_bytes: q.adam_v,
      }
    );
  }
  if (name === 'network') return value in NETWORKS ? { network_gb_s: NETWORKS[value] } : null;
  return null;
}

// One control changed: the new state, with the rows that depend on it kept consistent.
//  - a seam switch goes back to auto-factoring (an explicit layout overrides the seams);
//  - an explicit layout shows as the seams it uses;
//  - choosing 'custom' starts from the preset chosen before.
export function change(state, name, value, ctx = {}) {
  const next = { ...state, [name]: coerce(name, value) };
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
  let base = p.reset ? defaults() : state;
  if (p.keepBook) {
    base = { ...defaults() };
    for (const e of STATE) if (!e.advanced && !e.own) base[e.name] = state[e.name];
  }
  return changeMany({ ...base, pins: state.pins }, p.values, ctx);
}

// The book view shows its way back from a larger fleet ('sixteen') while the GPU count is not
// the book's; else the way to the book's fleet ('fleet').
export const bookFleetPreset = (state) =>
  state.advanced && state.gpus !== entry('gpus').default ? 'sixteen' : 'fleet';

function settle(state, ctx) {
  const next = normalize(state);
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
    if (value === null) continue; // the core chooses
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

// `next` with the page's own rows (the planner's) as they are in `from`.
export function keepPage(next, from) {
  for (const e of STATE) if (e.page && from) next[e.name] = from[e.name];
  return next;
}

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
  return settle(normalize(partial), ctx);
}
