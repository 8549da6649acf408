// The page's rows, as plain data: for each piece of the lab's state, the scenario key it
// feeds and how the page shows it. Everything about the value itself (type, default, range,
// choices, unit, which fieldset it sits in, which preset it is a detail of and what each preset
// sets) is the core's field table, lab.schema(): table.js joins the two. The rows' order is
// the form's and the URL's. No code here.
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

// The Advanced form's fieldsets, in order; which rows sit in each is the schema's `group`.
export const GROUPS = Object.freeze([
  { name: 'fleet', label: 'Fleet and layout' },
  { name: 'model', label: 'Model and batch' },
  { name: 'hardware', label: 'Hardware' },
  { name: 'memory', label: 'Memory and schedule' },
  { name: 'reliability', label: 'Failures and checkpoints' },
]);

function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export const ROWS = deepFreeze([
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
    sendAs: 'full', // while on; off, the core's default (the book's memory model)
    control: 'details',
    label: 'Advanced: size a real run',
  },

  {
    name: 'gpus',
    scenario: 'gpus',
    advanced: true,
    fixed: true,
    control: 'number',
    label: 'GPUs',
    unit: '', // the label says it
    hint: 'any whole number, {range}',
  },
  // Unset, the GPU preset's system applies (4 per GB200 NVL72 tray, else 8); the field shows it.
  {
    name: 'gpus_per_node',
    scenario: 'gpus_per_node',
    core: true,
    advanced: true,
    control: 'number',
    label: 'GPUs per node',
    unit: '',
    hint: "empty: the GPU's system, shown here; GPU k of every node shares rail k",
  },
  {
    name: 'network_oversubscription',
    scenario: 'network_oversubscription',
    step: 'any',
    advanced: true,
    control: 'number',
    label: 'Spine oversubscription',
    unit: '',
    hint: '1: non-blocking; traffic between rails gets the network divided by this',
  },
  // 'auto' (the seams auto-factor, as in the book) or an explicit 'DPxTPxPP'; the control
  // offers the layouts the core accepts for the GPU count and the model (report.layouts).
  {
    name: 'degrees',
    own: { type: 'degrees', default: 'auto' },
    scenario: 'degrees',
    advanced: true,
    control: 'select',
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
    label: 'Context parallel (split each sequence)',
  },
  {
    name: 'context_parallel',
    scenario: 'context_parallel',
    when: { context: true },
    advanced: true,
    control: 'select',
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
    label: 'Expert parallel (split the experts; mixture-of-experts models)',
  },
  {
    name: 'expert_tp',
    scenario: 'expert_tp',
    core: true,
    when: { expert: true },
    advanced: true,
    control: 'number',
    label: 'Tensor parallel inside each expert',
    hint: 'divides TP; 1 keeps experts whole',
  },

  {
    name: 'model',
    scenario: 'model',
    advanced: true,
    control: 'select',
    label: 'Model',
    labels: modelWords,
  },
  {
    name: 'layers',
    scenario: 'model.layers',
    advanced: true,
    control: 'number',
    label: 'Layers',
  },
  {
    name: 'hidden',
    scenario: 'model.hidden',
    advanced: true,
    control: 'number',
    label: 'Hidden size',
  },
  {
    name: 'heads',
    scenario: 'model.heads',
    advanced: true,
    control: 'number',
    label: 'Attention heads',
    hint: 'must divide the hidden size',
  },
  {
    name: 'vocab',
    scenario: 'model.vocab',
    advanced: true,
    control: 'number',
    label: 'Vocabulary',
  },
  {
    name: 'kv_heads',
    scenario: 'model.kv_heads',
    hint: '0: as many as the heads; fewer for GQA, dividing them',
    advanced: true,
    control: 'number',
    label: 'Key/value heads',
  },
  {
    name: 'ffn_hidden',
    scenario: 'model.ffn_hidden',
    hint: '0: 4 × hidden, as GPT',
    advanced: true,
    control: 'number',
    label: 'MLP width',
  },
  {
    name: 'activation',
    scenario: 'model.activation',
    labels: { gelu: 'GELU (GPT: biases, LayerNorm)', swiglu: 'SwiGLU (Llama: RMSNorm)' },
    advanced: true,
    control: 'select',
    label: 'MLP',
  },
  {
    name: 'position',
    scenario: 'model.position',
    labels: { learned: 'learned table', rope: 'RoPE or ALiBi (no table)' },
    advanced: true,
    control: 'select',
    label: 'Positions',
  },
  {
    name: 'tied_embeddings',
    scenario: 'model.tied_embeddings',
    advanced: true,
    control: 'checkbox',
    label: 'Output layer shares the embedding',
  },
  {
    name: 'attention',
    scenario: 'model.attention',
    labels: {
      multi_head: 'multi-head (grouped by the key/value heads)',
      latent: 'latent (DeepSeek MLA)',
    },
    advanced: true,
    control: 'select',
    label: 'Attention',
  },
  {
    name: 'experts',
    scenario: 'model.experts',
    hint: '0: a dense model',
    advanced: true,
    control: 'number',
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
    when: { experts: true }, // and, as a detail of the model, while it is custom
    hint,
    advanced: true,
    control: 'number',
    label,
  })),
  {
    name: 'capacity_factor',
    scenario: 'capacity_factor',
    core: true,
    when: { expert: true },
    step: 'any',
    hint: 'expert buffers as a multiple of an even share; 0: dropless',
    advanced: true,
    control: 'number',
    label: 'Expert capacity factor',
  },
  {
    name: 'moe_load_imbalance',
    scenario: 'moe_load_imbalance',
    core: true,
    when: { expert: true },
    step: 'any',
    hint: "the busiest expert's tokens over an even share; 1: balanced",
    advanced: true,
    control: 'number',
    label: 'Expert load imbalance',
  },
  {
    name: 'seq_len',
    scenario: 'seq_len',
    advanced: true,
    control: 'number',
    label: 'Sequence length',
  },
  {
    name: 'micro_batch',
    scenario: 'micro_batch',
    advanced: true,
    control: 'number',
    label: 'Micro-batch',
  },
  {
    name: 'global_batch',
    scenario: 'global_batch',
    advanced: true,
    control: 'number',
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
    label: 'Token budget',
    unit: 'B tokens',
    hint: 'for the time to train; 0 for none',
  },

  {
    name: 'gpu',
    scenario: 'gpu',
    advanced: true,
    control: 'select',
    label: 'GPU',
    labels: gpuWords,
  },
  {
    name: 'gpu_memory_gb',
    scenario: 'gpu_memory_gb',
    step: 'any',
    advanced: true,
    control: 'number',
    label: 'GPU memory',
  },
  {
    name: 'gpu_peak_tflops',
    scenario: 'gpu_peak_tflops',
    step: 'any',
    advanced: true,
    control: 'number',
    label: 'Dense bf16 peak',
  },
  {
    name: 'gpu_fp8_tflops',
    scenario: 'gpu_fp8_tflops',
    step: 'any',
    advanced: true,
    control: 'number',
    label: 'Dense FP8 peak',
    hint: '0: no FP8 (A100)',
  },
  {
    name: 'gpu_fp4_tflops',
    scenario: 'gpu_fp4_tflops',
    step: 'any',
    advanced: true,
    control: 'number',
    label: 'Dense FP4 peak',
    hint: '0: no FP4 (before Blackwell)',
  },
  {
    name: 'nvlink_gb_s',
    scenario: 'nvlink_gb_s',
    step: 'any',
    advanced: true,
    control: 'number',
    label: 'NVLink',
  },
  // Unset, the GPU preset's NVLink domain applies (one node; 72 GPUs on a GB200 NVL72).
  {
    name: 'nvlink_domain_gpus',
    scenario: 'nvlink_domain_gpus',
    core: true,
    advanced: true,
    control: 'number',
    label: 'GPUs per NVLink domain',
    unit: '',
    hint: "empty: the GPU's system, shown here; 0: one node",
  },
  {
    name: 'hbm_gb_s',
    scenario: 'hbm_gb_s',
    step: 'any',
    advanced: true,
    control: 'number',
    label: 'Memory bandwidth',
  },
  // Unset, the GPU preset's fleet network applies (the core's presets cite each system); the
  // field shows the value the core used.
  {
    name: 'network_gb_s',
    scenario: 'network_gb_s',
    core: true,
    step: 'any',
    advanced: true,
    control: 'number',
    label: 'Network per GPU',
    hint:
      "empty: the GPU's fleet, shown here: DGX A100 one HDR 200 Gb/s port per GPU = 25 GB/s; " +
      'DGX H100, H200, B200 one 400 Gb/s ConnectX-7 per GPU = 50 GB/s',
  },
  // Unset, the GPU preset's host link applies (PCIe Gen4 or Gen5 x16); the field shows it.
  {
    name: 'host_link_gb_s',
    scenario: 'host_link_gb_s',
    core: true,
    step: 'any',
    advanced: true,
    control: 'number',
    label: 'Host link per GPU',
    hint: "empty: the GPU's PCIe link, shown here; offloaded activations ride it",
  },
  // Unset, the GPU's calibrated value applies; the field shows the value the core used.
  {
    name: 'efficiency',
    scenario: 'efficiency',
    core: true,
    step: 0.01,
    advanced: true,
    control: 'number',
    label: 'Matmul efficiency',
    hint: "empty: the GPU's calibrated value, shown here; bubble and communication are counted apart",
  },
  {
    name: 'price_per_gpu_hour',
    scenario: 'price_per_gpu_hour',
    step: 'any',
    hint: "the default is the core's round cloud figure; set your own for the cost per day",
    advanced: true,
    control: 'number',
    label: 'Price per GPU-hour',
  },
  {
    name: 'overlap_grad_reduce',
    scenario: 'overlap_grad_reduce',
    advanced: true,
    control: 'checkbox',
    label: 'Overlap gradient reduce',
  },
  {
    name: 'overlap_param_gather',
    scenario: 'overlap_param_gather',
    advanced: true,
    control: 'checkbox',
    label: 'Overlap weight gather',
  },
  {
    name: 'tp_comm_overlap',
    scenario: 'tp_comm_overlap',
    advanced: true,
    control: 'checkbox',
    label: 'Overlap TP communication',
  },
  {
    name: 'expert_comm_overlap',
    scenario: 'expert_comm_overlap',
    when: { expert: true },
    advanced: true,
    control: 'checkbox',
    label: 'Overlap expert all-to-alls (DualPipe)',
  },
  {
    name: 'pp_scatter_gather',
    scenario: 'pp_scatter_gather',
    advanced: true,
    control: 'checkbox',
    label: 'Pipeline sends split over TP (Megatron-LM 2021-22)',
  },

  {
    name: 'precision',
    scenario: 'precision',
    advanced: true,
    control: 'select',
    label: 'Precision',
    labels: precisionWords,
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
    advanced: true,
    control: 'number',
    label,
  })),
  {
    name: 'fp8',
    scenario: 'precision.fp8',
    advanced: true,
    control: 'checkbox',
    label: 'FP8 matmuls (Transformer Engine)',
  },
  {
    name: 'fp4',
    scenario: 'precision.fp4',
    advanced: true,
    control: 'checkbox',
    label: 'NVFP4 matmuls (Blackwell)',
  },
  {
    name: 'zero_stage',
    scenario: 'zero_stage',
    advanced: true,
    control: 'select',
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
    label: 'Recompute activations',
    labels: { selective: 'selective (modules)', full: 'full (per layer)' },
  },
  // Megatron-Core's recompute_modules: several may be chosen.
  {
    name: 'recompute_modules',
    scenario: 'recompute_modules',
    when: { recompute: 'selective' },
    advanced: true,
    control: 'select',
    label: 'Recomputed modules',
    labels: recomputeModuleWords,
  },
  {
    name: 'recompute_layers',
    scenario: 'recompute_layers',
    when: { recompute: 'full' },
    advanced: true,
    control: 'number',
    label: 'Recomputed layers',
    hint: '0: every layer',
  },
  {
    name: 'recompute_method',
    scenario: 'recompute_method',
    when: { recompute: 'full' },
    advanced: true,
    control: 'select',
    label: 'Recompute method',
    labels: { uniform: 'uniform: chunks of that many layers', block: 'block: that many per stage' },
  },
  {
    name: 'offload_layers',
    scenario: 'offload_layers',
    advanced: true,
    control: 'number',
    label: 'Layers offloaded to host',
    hint: 'per stage; their activations wait in host memory',
  },
  {
    name: 'sequence_parallel',
    scenario: 'sequence_parallel',
    advanced: true,
    control: 'checkbox',
    label: 'Sequence parallel',
  },
  {
    name: 'flash_attention',
    scenario: 'flash_attention',
    advanced: true,
    control: 'checkbox',
    label: 'Fused (flash) attention',
  },
  {
    name: 'cross_entropy',
    scenario: 'cross_entropy',
    advanced: true,
    control: 'select',
    label: 'Loss kernel',
    labels: {
      unfused: 'unfused (fp32 log-probabilities)',
      te: "Transformer Engine's fused cross entropy",
    },
  },
  {
    name: 'overhead_gb',
    scenario: 'overhead_gb',
    step: 'any',
    hint: 'CUDA context, NCCL buffers, allocator',
    advanced: true,
    control: 'number',
    label: 'Overhead',
  },
  {
    name: 'schedule',
    scenario: 'schedule',
    advanced: true,
    control: 'select',
    label: 'Pipeline schedule',
    labels: scheduleWords,
  },
  // Unset, the core picks the chunks (its doc says how); the field shows what it picked.
  {
    name: 'virtual_stages',
    scenario: 'virtual_stages',
    core: true,
    when: { schedule: 'interleaved' },
    advanced: true,
    control: 'number',
    label: 'Virtual stages',
  },
  {
    name: 'first_stage_layers',
    scenario: 'first_stage_layers',
    hint: "0: Megatron's split",
    advanced: true,
    control: 'number',
    label: 'First stage layers',
  },
  {
    name: 'last_stage_layers',
    scenario: 'last_stage_layers',
    hint: "0: Megatron's split",
    advanced: true,
    control: 'number',
    label: 'Last stage layers',
  },

  // What interrupts the run and what a checkpoint and a restart cost: the report's goodput
  // (the desk's summary and its day of the run). Named by the scenario keys' last parts.
  ...[
    ['gpu', 'GPU failures', "the defaults are Llama 3's, by cause (its Table 5)"],
    ['host', 'Host failures', 'maintenance, SSD, power'],
    ['network', 'Network failures', 'switches, cables, NICs, NCCL timeouts'],
    ['software', 'Software failures', undefined],
  ].map(([cause, label, hint]) => ({
    name: `${cause}_failures_per_million_gpu_hours`,
    scenario: `reliability.${cause}_failures_per_million_gpu_hours`,
    step: 'any',
    hint,
    advanced: true,
    control: 'number',
    label,
  })),
  {
    name: 'storage_gb_s',
    scenario: 'reliability.storage_gb_s',
    step: 'any',
    hint: 'the whole job, written or read',
    advanced: true,
    control: 'number',
    label: 'Checkpoint storage',
  },
  {
    name: 'async_checkpoint',
    scenario: 'reliability.async_checkpoint',
    advanced: true,
    control: 'checkbox',
    label: 'Asynchronous checkpoints (training waits for the copy to host only)',
  },
  {
    name: 'checkpoint_interval_s',
    scenario: 'reliability.checkpoint_interval_s',
    step: 'any',
    hint: '0: the interval with the most new work, shown in the results',
    advanced: true,
    control: 'number',
    label: 'Checkpoint every',
  },
  {
    name: 'restart_s',
    scenario: 'reliability.restart_s',
    step: 'any',
    hint: 'detect, reschedule and start again; the reload is counted apart',
    advanced: true,
    control: 'number',
    label: 'Restart',
  },
  {
    name: 'hot_spares',
    scenario: 'reliability.hot_spares',
    hint: 'held idle for restarts, paid for',
    advanced: true,
    control: 'number',
    label: 'Hot spares',
  },

  // The planner's inputs besides the scenario, so a URL reproduces a search: the headroom
  // margin (percent of GPU memory a plan leaves free: 0 lists every plan within the GPU, tight
  // ones marked; 20 only those under the core's 80% rule), what the plans are ranked by (step
  // time, or time to train with failures) and whether a search was asked (the page then
  // searches again on load). Never sent to the core.
  {
    name: 'plan_headroom',
    own: { planner: 'headroom' },
    scale: 0.01,
    advanced: true,
    page: true,
  },
  { name: 'plan_rank', own: { planner: 'rank' }, advanced: true, page: true },
  {
    name: 'plan',
    own: { type: 'boolean', default: false },
    advanced: true,
    page: true,
  },

  // The measured run the model is calibrated to (the scenario's `calibration` block, as its
  // JSON: core/model/calibrate.h), set by the desk's "Calibrate to your run" panel. Kept by
  // presets and loads, as the pins are; sent only while the Advanced model applies.
  {
    name: 'calibration',
    scenario: 'calibration',
    own: { type: 'calibration', default: '' },
    advanced: true,
    page: true,
  },

  // Which view the lab shows: the book's, or the planning desk (inputs beside results, the
  // planner, Compare and the calibration in tabs: app/desk.js). The desk sizes a real run,
  // so it opens the Advanced model (state.js change()).
  {
    name: 'view',
    own: { type: 'enum', default: 'book', choices: ['book', 'desk'] },
    page: true,
  },

  // The states pinned for comparison (compare.js), up to MAX_PINS, each the URL parameters
  // of a whole state (toParams from the defaults) joined by PIN_SEPARATOR. Never sent to the
  // core: each pin is evaluated on its own. Kept by presets and loads, as the planner's rows.
  {
    name: 'pins',
    own: { type: 'pins', default: '' },
    page: true,
  },
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
