// The page's rows, as plain data: for each piece of the lab's state, the scenario key it
// feeds and how the page shows it. Everything about the value itself (type, default, range,
// choices, unit, which fieldset it sits in, which preset it is a detail of and what each preset
// sets) is the core's field table, lab.schema(): table.js joins the two. The rows' order is
// the form's and the URL's. ROWS is written one line a row, through small helpers that fill in
// what the rows of one kind of control share (below); each row is an object of these keys:
//
//   name      the state key (the URL's and the embed option's name)
//   scenario  the scenario key it feeds, dotted ('seams.data', 'model.layers'); none: the
//             page's own row, never sent (the planner's margin, the pins)
//   own       the page's own state, not a scenario field: { type, default, range }, or
//             { planner: key }, a planner option whose type, range and default are the core's
//             (schema().planner)
//   scale     the core's value is the state value times this (token budget in billions)
//   core      default null: the row is not sent until set, and the core's value applies
//   when      { row: value } the row applies (is sent, and its control shows) only while each
//             such row has that value (true: is on, or non-zero)
//   detailOf  a detail of a page preset (the schema says which preset a field is a detail of)
//   sendAs    a switch sent as this value while on, not sent while off
//   advanced  belongs to the "Advanced: size a real run" section; while that is closed the
//             row is not sent, so the scenario is exactly the book's
//   fixed     (advanced rows) sent at its default while the section is closed
//   page      the page's own row that a loaded scenario leaves as it is
//   control   switch | order | details | number | select | checkbox
//   label, unit, hint, step, labels: for the control (unit: the schema's unless given, '' for
//             none; '{range}' in a hint is the row's range in words; labels: words for choices)

import {
  gpuWords,
  modelWords,
  precisionWords,
  recomputeModuleWords,
  scheduleWords,
} from '../lib/format.js';

// The Advanced form's fieldsets, in order: the scenario's parts (core/model/scenario.h). Which
// rows sit in each is the schema's `group`.
export const GROUPS = Object.freeze([
  { name: 'fleet', label: 'Fleet' },
  { name: 'gpu', label: 'GPU' },
  { name: 'model', label: 'Model' },
  { name: 'batch', label: 'Batch' },
  { name: 'recipe', label: 'Recipe: seams, memory and schedule' },
  { name: 'economics', label: 'Cost and failures' },
]);

function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

// The rows of the Advanced section, one helper per kind of control. The state key is the
// scenario key's last part ('model.layers' is 'layers'); `more` is what only some rows add
// (when, core, unit, ...).
function advanced(control, key, label, more) {
  return { name: key.split('.').pop(), scenario: key, advanced: true, control, label, ...more };
}
const number = (key, label, hint, more) =>
  advanced('number', key, label, { ...(hint && { hint }), ...more });
// A number that need not be whole (rates, sizes, prices): the field takes any step.
const decimal = (key, label, hint, more) => number(key, label, hint, { step: 'any', ...more });
const checkbox = (key, label, more) => advanced('checkbox', key, label, more);
const select = (key, label, labels, more) =>
  advanced('select', key, label, { ...(labels && { labels }), ...more });
// The book lab's seams: switches, outside the Advanced section.
const seam = (key, label) => ({
  name: key.split('.').pop(),
  scenario: key,
  control: 'switch',
  label,
});
// A precision's bytes per parameter of one state (weight_bytes: precision.weight).
const bytes = (state, label) =>
  decimal(`precision.${state}`, label, undefined, { name: `${state}_bytes` });
// The page's own rows, never sent (or sent whole, as the calibration): no control of the form.
const own = (name, value, more) => ({ name, own: value, page: true, ...more });
// A section that opens with a switch of the page's own, sent as `sendAs` while open.
const section = (name, scenario, sendAs, label) => ({
  name,
  own: { type: 'boolean', default: false },
  scenario,
  sendAs,
  control: 'details',
  label,
});

// Rows that apply only while a row has a value (a seam on, a schedule, ...), and the rows whose
// value is the core's until set (null: not sent; the field shows the value the core used).
const WITH_EXPERTS = { when: { expert: true } };
const MOE_SHAPE = { when: { experts: true } }; // (and, as a detail of the model, while custom)
const CORE = { core: true };

// The words of the selects whose choices need more than their names.
const WORDS = {
  context_parallel: {
    ring: 'ring passes of K/V (Megatron-Core, Ring Attention)',
    all_gather: 'one all-gather of K/V (Llama 3)',
    ulysses: 'all-to-alls of Q, K, V (DeepSpeed-Ulysses)',
  },
  activation: { gelu: 'GELU (GPT: biases, LayerNorm)', swiglu: 'SwiGLU (Llama: RMSNorm)' },
  position: { learned: 'learned table', rope: 'RoPE or ALiBi (no table)' },
  attention: {
    multi_head: 'multi-head (grouped by the key/value heads)',
    latent: 'latent (DeepSeek MLA)',
  },
  zero_stage: {
    0: '0: replicated',
    1: '1: optimizer sharded',
    2: '2: + gradients',
    3: '3: + weights',
  },
  recompute: { selective: 'selective (modules)', full: 'full (per layer)' },
  recompute_method: {
    uniform: 'uniform: chunks of that many layers',
    block: 'block: that many per stage',
  },
  cross_entropy: {
    unfused: 'unfused (fp32 log-probabilities)',
    te: "Transformer Engine's fused cross entropy",
  },
};
const NETWORK_HINT =
  "empty: the GPU's fleet, shown here: DGX A100 one HDR 200 Gb/s port per GPU = 25 GB/s; " +
  'DGX H100, H200, B200 one 400 Gb/s ConnectX-7 per GPU = 50 GB/s';

// One line per row, in the form's and the URL's order (kept so by hand: prettier would break
// the rows with long hints over several lines).
// prettier-ignore
export const ROWS = deepFreeze([
  // The book lab: three seams that auto-factor the GPU count.
  seam('seams.data', 'Data parallel'),
  seam('seams.tensor', 'Tensor parallel'),
  seam('seams.pipeline', 'Pipeline parallel'),
  // How ranks are numbered, innermost first: which seam's groups share a node. Its choices are
  // the permutations of the schema's seams, the chapter's rule (the default) first.
  { name: 'order', scenario: 'order', control: 'order', label: 'Nesting order' },

  // Opening the advanced section switches to the practitioner's memory model (whole layers
  // per stage, embedding on the end stages, activations); closed, the core's default, the
  // book's N/(TP·PP).
  section('advanced', 'memory_model', 'full', 'Advanced: size a real run'),

  number('gpus', 'GPUs', 'any whole number, {range}', { fixed: true, unit: '' }), // the label says the unit
  // Unset, the GPU preset's system applies (4 per GB200 NVL72 tray, else 8); the field shows it.
  number('gpus_per_node', 'GPUs per node', "empty: the GPU's system, shown here; GPU k of every node shares rail k", { ...CORE, unit: '' }),
  decimal('network_oversubscription', 'Spine oversubscription', '1: non-blocking; traffic between rails gets the network divided by this', { unit: '' }),
  // 'auto' (the seams auto-factor, as in the book) or an explicit 'DPxTPxPP'; the control
  // offers the layouts the core accepts for the GPU count and the model (report.layouts).
  select('degrees', 'Layout DP×TP×PP', undefined, { own: { type: 'degrees', default: 'auto' } }),

  // The fourth and fifth seams, beyond the book: context parallelism splits each sequence over
  // the GPUs of a CP group; expert parallelism splits a mixture of experts' experts over EP
  // groups carved out of the data- and context-parallel ranks (it takes no GPUs of its own).
  checkbox('seams.context', 'Context parallel (split each sequence)'),
  select('context_parallel', 'Context parallelism by', WORDS.context_parallel, { when: { context: true } }),
  checkbox('seams.expert', 'Expert parallel (split the experts; mixture-of-experts models)'),
  number('expert_tp', 'Tensor parallel inside each expert', 'divides TP; 1 keeps experts whole', { ...CORE, ...WITH_EXPERTS }),

  select('model', 'Model', modelWords),
  number('model.layers', 'Layers'),
  number('model.hidden', 'Hidden size'),
  number('model.heads', 'Attention heads', 'must divide the hidden size unless the head width is given'),
  number('model.vocab', 'Vocabulary'),
  number('model.kv_heads', 'Key/value heads', '0: as many as the heads; fewer for GQA, dividing them'),
  number('model.head_dim', 'Head width', '0: hidden size ÷ heads; set where heads are wider (Qwen3)'),
  number('model.ffn_hidden', 'MLP width', '0: 4 × hidden, as GPT'),
  select('model.activation', 'MLP', WORDS.activation),
  select('model.position', 'Positions', WORDS.position),
  checkbox('model.tied_embeddings', 'Output layer shares the embedding'),
  select('model.attention', 'Attention', WORDS.attention),
  number('model.experts', 'Routed experts', '0: a dense model'),
  // A mixture of experts' shape, shown while the model has experts.
  number('model.experts_per_token', 'Experts per token (top-k)', undefined, MOE_SHAPE),
  number('model.moe_ffn_hidden', 'Expert MLP width', '0: the MLP width', MOE_SHAPE),
  number('model.shared_experts', 'Shared experts', undefined, MOE_SHAPE),
  number('model.dense_layers', 'Leading dense layers', undefined, MOE_SHAPE),
  decimal('capacity_factor', 'Expert capacity factor', 'expert buffers as a multiple of an even share; 0: dropless', { ...CORE, ...WITH_EXPERTS }),
  decimal('moe_load_imbalance', 'Expert load imbalance', "the busiest expert's tokens over an even share; 1: balanced", { ...CORE, ...WITH_EXPERTS }),
  number('seq_len', 'Sequence length'),
  number('micro_batch', 'Micro-batch'),
  number('global_batch', 'Global batch', 'a multiple of DP × micro-batch, or the core rounds it up'),
  // The token budget in billions: the core's value is the state's times 1e9.
  decimal('train_tokens', 'Token budget', 'for the time to train; 0 for none', { scale: 1e9, unit: 'B tokens' }),

  select('gpu', 'GPU', gpuWords),
  decimal('gpu_memory_gb', 'GPU memory'),
  decimal('gpu_peak_tflops', 'Dense bf16 peak'),
  decimal('gpu_fp8_tflops', 'Dense FP8 peak', '0: no FP8 (A100)'),
  decimal('gpu_fp4_tflops', 'Dense FP4 peak', '0: no FP4 (before Blackwell)'),
  decimal('nvlink_gb_s', 'NVLink'),
  // Unset, the GPU preset's NVLink domain applies (one node; 72 GPUs on a GB200 NVL72).
  number('nvlink_domain_gpus', 'GPUs per NVLink domain', "empty: the GPU's system, shown here; 0: one node", { ...CORE, unit: '' }),
  decimal('hbm_gb_s', 'Memory bandwidth'),
  // Unset, the GPU preset's fleet network applies (the core's presets cite each system).
  decimal('network_gb_s', 'Network per GPU', NETWORK_HINT, CORE),
  // Unset, the GPU preset's host link applies (PCIe Gen4 or Gen5 x16).
  decimal('host_link_gb_s', 'Host link per GPU', "empty: the GPU's PCIe link, shown here; offloaded activations ride it", CORE),
  // Unset, the GPU's calibrated value applies.
  decimal('efficiency', 'Matmul efficiency', "empty: the GPU's calibrated value, shown here; bubble and communication are counted apart", { ...CORE, step: 0.01 }),
  decimal('price_per_gpu_hour', 'Price per GPU-hour', "the default is the core's round cloud figure; set your own for the cost per day"),
  checkbox('overlap_grad_reduce', 'Overlap gradient reduce'),
  checkbox('overlap_param_gather', 'Overlap weight gather'),
  checkbox('tp_comm_overlap', 'Overlap TP communication'),
  checkbox('expert_comm_overlap', 'Overlap expert all-to-alls (DualPipe)', WITH_EXPERTS),
  checkbox('pp_scatter_gather', 'Pipeline sends split over TP (Megatron-LM 2021-22)'),

  select('precision', 'Precision', precisionWords),
  bytes('weight', 'Weight'),
  bytes('grad', 'Gradient'),
  bytes('master', 'Master copy'),
  bytes('adam_m', 'Adam m'),
  bytes('adam_v', 'Adam v'),
  checkbox('precision.fp8', 'FP8 matmuls (Transformer Engine)'),
  checkbox('precision.fp4', 'NVFP4 matmuls (Blackwell)'),
  select('zero_stage', 'ZeRO stage', WORDS.zero_stage),
  select('recompute', 'Recompute activations', WORDS.recompute),
  // Megatron-Core's recompute_modules: several may be chosen.
  select('recompute_modules', 'Recomputed modules', recomputeModuleWords, { when: { recompute: 'selective' } }),
  number('recompute_layers', 'Recomputed layers', '0: every layer', { when: { recompute: 'full' } }),
  select('recompute_method', 'Recompute method', WORDS.recompute_method, { when: { recompute: 'full' } }),
  number('offload_layers', 'Layers offloaded to host', 'per stage; their activations wait in host memory'),
  checkbox('sequence_parallel', 'Sequence parallel'),
  checkbox('flash_attention', 'Fused (flash) attention'),
  select('cross_entropy', 'Loss kernel', WORDS.cross_entropy),
  decimal('overhead_gb', 'Overhead', 'CUDA context, NCCL buffers, allocator'),
  select('schedule', 'Pipeline schedule', scheduleWords),
  // Unset, the core picks the chunks (its doc says how); the field shows what it picked.
  number('virtual_stages', 'Virtual stages', undefined, { ...CORE, when: { schedule: 'interleaved' } }),
  number('first_stage_layers', 'First stage layers', "0: Megatron's split"),
  number('last_stage_layers', 'Last stage layers', "0: Megatron's split"),

  // What interrupts the run and what a checkpoint and a restart cost: the report's goodput
  // (the desk's summary and its day of the run).
  decimal('reliability.gpu_failures_per_million_gpu_hours', 'GPU failures', "the defaults are Llama 3's, by cause (its Table 5)"),
  decimal('reliability.host_failures_per_million_gpu_hours', 'Host failures', 'maintenance, SSD, power'),
  decimal('reliability.network_failures_per_million_gpu_hours', 'Network failures', 'switches, cables, NICs, NCCL timeouts'),
  decimal('reliability.software_failures_per_million_gpu_hours', 'Software failures'),
  decimal('reliability.storage_gb_s', 'Checkpoint storage', 'the whole job, written or read'),
  checkbox('reliability.async_checkpoint', 'Asynchronous checkpoints (training waits for the copy to host only)'),
  decimal('reliability.checkpoint_interval_s', 'Checkpoint every', '0: the interval with the most new work, shown in the results'),
  decimal('reliability.restart_s', 'Restart', 'detect, reschedule and start again; the reload is counted apart'),
  number('reliability.hot_spares', 'Hot spares', 'held idle for restarts, paid for'),

  // The planner's inputs besides the scenario, so a URL reproduces a search: the headroom
  // margin (percent of GPU memory a plan leaves free: 0 lists every plan within the GPU, tight
  // ones marked; 20 only those under the core's 80% rule; the core's value is the state's
  // times 0.01), what the plans are ranked by (step time, or time to train with failures) and
  // whether a search was asked (the page then searches again on load). Never sent to the core.
  own('plan_headroom', { planner: 'headroom' }, { scale: 0.01, advanced: true }),
  own('plan_rank', { planner: 'rank' }, { advanced: true }),
  own('plan', { type: 'boolean', default: false }, { advanced: true }),
  // The measured run the model is calibrated to (the scenario's `calibration` block, as its
  // JSON: core/model/calibrate.h), set by the desk's "Calibrate to your run" panel. Kept by
  // presets and loads, as the pins are; sent only while the Advanced model applies.
  own('calibration', { type: 'calibration', default: '' }, { scenario: 'calibration', advanced: true }),
  // Which view the lab shows: the book's, or the planning desk (inputs beside results, the
  // planner, Compare and the calibration in tabs: app/desk.js). The desk sizes a real run,
  // so it opens the Advanced model (state.js change()).
  own('view', { type: 'enum', default: 'book', choices: ['book', 'desk'] }),
  // The states pinned for comparison (compare.js), up to MAX_PINS, each the URL parameters
  // of a whole state (toParams from the defaults) joined by PIN_SEPARATOR. Never sent to the
  // core: each pin is evaluated on its own. Kept by presets and loads, as the planner's rows.
  own('pins', { type: 'pins', default: '' }),
]);

export const MAX_PINS = 3;
export const PIN_SEPARATOR = '|'; // URL parameters encode it (%7C), so no pin holds one
const MAX_PIN_CHARS = 4000;

// The pins' texts, in order ('' when none).
export const pinList = (text) => (text ? text.split(PIN_SEPARATOR) : []);

// Buttons that set several rows at once.
export const PRESETS = deepFreeze([
  {
    name: 'fleet',
    label: "The book's fleet: 10,240 GPUs",
    bookLabel: "Book's fleet (10,240 GPUs)", // its button in the book view
    hint: 'TP = 8, PP = 16, DP = 80; global batch 2,560 = 80 replicas × 32 micro-batches',
    values: {
      advanced: true,
      gpus: 10240,
      gpus_per_node: null, // the GPU's system: 8 per node on the book's A100s
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
]);
