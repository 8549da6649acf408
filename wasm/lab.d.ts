// Types of the lab's JS API (lab.js beside this file), for embedders and their editors. Written
// by hand from wasm/README.md's API table and core/README.md's contract; scripts/build-wasm
// copies it beside lab.js into web/lab/. tests/wasm/types.test.mjs holds it to the module: every
// method createLab() returns is declared here and every one declared is returned, and the
// values both modules return (reports, plans, the schema, ...) type-check against these types,
// no key missing and none unknown.

// ---- The scenario: core/README.md's field table. Every key may be left out (the book's default).

export type Seam = 'data' | 'tensor' | 'pipeline' | 'context' | 'expert';
// How ranks are numbered, innermost first.
export type NestingOrder =
  'tp,pp,dp' | 'tp,dp,pp' | 'pp,tp,dp' | 'pp,dp,tp' | 'dp,tp,pp' | 'dp,pp,tp';
export type ModelPreset =
  | 'book-16b'
  | 'gpt-neox-20b'
  | 'megatron-22b'
  | 'llama3-8b'
  | 'llama2-70b'
  | 'llama3-70b'
  | 'megatron-145b'
  | 'gpt3-175b'
  | 'bloom-176b'
  | 'llama3-405b'
  | 'megatron-530b'
  | 'megatron-1t'
  | 'mixtral-8x7b'
  | 'mixtral-8x22b'
  | 'deepseek-v3';
export type GpuPreset =
  | 'A100-40GB'
  | 'A100-80GB'
  | 'H100-80GB'
  | 'H200-141GB'
  | 'H800-80GB'
  | 'B200-192GB'
  | 'B200-DGX'
  | 'GB200-NVL72'
  | 'B300-HGX'
  | 'GB300-NVL72';
export type PrecisionPreset =
  'mixed_bf16' | 'megatron_fp32_grads' | 'fp32' | 'fp8_hybrid' | 'nvfp4';
export type Schedule = '1f1b' | 'interleaved' | 'zb_h1' | 'zb_v' | 'dualpipe' | 'dualpipe_v';
export type RecomputeModule =
  | 'core_attn'
  | 'moe_act'
  | 'layernorm'
  | 'mla_up_proj'
  | 'mlp'
  | 'moe'
  | 'shared_experts'
  | 'every_other_matmul';

export interface Degrees {
  dp: number;
  tp: number;
  pp: number;
  cp: number;
  ep: number;
}

// A model: a preset's fields overridden by those given.
export interface ModelSpec {
  preset?: ModelPreset;
  name?: string;
  layers?: number;
  hidden?: number;
  heads?: number;
  vocab?: number;
  kv_heads?: number;
  head_dim?: number;
  ffn_hidden?: number;
  activation?: 'gelu' | 'swiglu';
  position?: 'learned' | 'rope';
  tied_embeddings?: boolean;
  attention?: 'multi_head' | 'latent';
  experts?: number;
  experts_per_token?: number;
  moe_ffn_hidden?: number;
  shared_experts?: number;
  dense_layers?: number;
  params?: number;
  shape_nominal?: boolean;
}

// Bytes per parameter of each state, and the GEMMs' number formats.
export interface PrecisionSpec {
  weight?: number;
  grad?: number;
  master?: number;
  adam_m?: number;
  adam_v?: number;
  fp8?: boolean;
  fp4?: boolean;
}

// One measured run the model's constants are refitted to.
export interface CalibrationInput {
  name?: string;
  scenario?: Scenario | null;
  step_time_s?: number;
  tokens_per_s_per_gpu?: number;
  peak_memory_gb?: number;
  tflops_per_gpu?: number;
  nvlink_bus_gb_s?: number;
  network_bus_gb_s?: number;
  /** A second run of the same fleet and GPU, whose pipeline bubble differs: fits bubble_paid. */
  second_scenario?: Scenario | null;
  second_step_time_s?: number;
}

export interface Reliability {
  gpu_failures_per_million_gpu_hours?: number;
  host_failures_per_million_gpu_hours?: number;
  network_failures_per_million_gpu_hours?: number;
  software_failures_per_million_gpu_hours?: number;
  storage_gb_s?: number;
  async_checkpoint?: boolean;
  restart_s?: number;
  hot_spares?: number;
  checkpoint_interval_s?: number;
}

export interface Scenario {
  gpus?: number;
  gpus_per_node?: number;
  network_oversubscription?: number;
  seams?: Partial<Record<Seam, boolean>>;
  order?: NestingOrder;
  // Explicit degrees (their product the GPU count) override the seams; null: auto-factor.
  degrees?: Partial<Degrees> | null;
  context_parallel?: 'ring' | 'all_gather' | 'ulysses';
  expert_tp?: number;
  model?: ModelPreset | ModelSpec;
  seq_len?: number;
  micro_batch?: number;
  global_batch?: number;
  train_tokens?: number;
  price_per_gpu_hour?: number;
  capacity_factor?: number;
  moe_load_imbalance?: number;
  precision?: PrecisionPreset | PrecisionSpec;
  bytes_per_param?: number;
  zero_stage?: 0 | 1 | 2 | 3;
  fsdp_prefetch?: number;
  recompute?: 'none' | 'selective' | 'full';
  recompute_modules?: RecomputeModule[];
  recompute_layers?: number;
  recompute_method?: 'uniform' | 'block';
  offload_layers?: number;
  sequence_parallel?: boolean;
  memory_model?: 'book' | 'full';
  gpu?: GpuPreset;
  gpu_memory_gb?: number;
  gpu_peak_tflops?: number;
  gpu_fp8_tflops?: number;
  gpu_fp4_tflops?: number;
  nvlink_gb_s?: number;
  nvlink_domain_gpus?: number;
  hbm_gb_s?: number;
  network_gb_s?: number;
  host_link_gb_s?: number;
  efficiency?: number;
  nvlink_efficiency?: number;
  network_efficiency?: number;
  bubble_paid?: number;
  overlap_grad_reduce?: boolean;
  overlap_param_gather?: boolean;
  tp_comm_overlap?: boolean;
  pp_scatter_gather?: boolean;
  flash_attention?: boolean;
  cross_entropy?: 'unfused' | 'te';
  overhead_gb?: number;
  schedule?: Schedule;
  virtual_stages?: number;
  first_stage_layers?: number;
  last_stage_layers?: number;
  expert_comm_overlap?: boolean;
  calibration?: CalibrationInput;
  reliability?: Reliability;
}

// ---- The report: core/README.md, "Report keys".

// Memory by kind, in bytes.
export interface MemoryBreakdown {
  weights_bytes: number;
  grads_bytes: number;
  master_bytes: number;
  adam_m_bytes: number;
  adam_v_bytes: number;
  optimizer_bytes: number;
  activations_bytes: number;
  transient_bytes: number;
  overhead_bytes: number;
}

export interface StageMemory {
  stage: number;
  layers: number;
  params_per_gpu: number;
  per_gpu_bytes: number;
  inflight_microbatches: number;
  breakdown: MemoryBreakdown;
}

// fits: at or under safe_fraction of the GPU's memory; tight: above it but within the GPU;
// over: past the GPU.
export type Verdict = 'fits' | 'tight' | 'over';

export interface Memory {
  params_per_gpu: number;
  per_gpu_bytes: number;
  shard_factor: number;
  peak_stage: number;
  // Within the GPU: verdict fits or tight.
  fits: boolean;
  verdict: Verdict;
  safe_fraction: number;
  gpu_memory_bytes: number;
  headroom_bytes: number;
  offloaded_bytes: number;
  zero: { group: number; optimizer: boolean; grads: boolean; weights: boolean };
  breakdown: MemoryBreakdown;
  stages: StageMemory[];
}

// One seam's traffic on the busiest GPU's stage.
export interface SeamComms {
  active: boolean;
  group_size: number;
  collective: string;
  link: 'nvlink' | 'network' | 'none';
  // The level of the fleet the seam's groups ride.
  level: 'nvlink_domain' | 'rail' | 'spine' | 'none';
  nics: number;
  bytes_per_gpu_per_step: number;
  bytes_per_message: number;
  messages_per_step: number;
  link_bytes_per_s: number;
  time_s: number;
}

export interface Comms extends Record<Seam, SeamComms> {
  stage: number;
  // The seam that sends the most, ties to the slower link; '' when none does.
  busiest_seam: Seam | '';
}

export interface Pipeline {
  microbatches: number;
  virtual_stages: number;
  stage_layers: {
    first: number;
    middle: number;
    last: number;
    extra_from: number;
    rule: 'even' | 'set' | 'ends' | 'balanced';
    megatron_default: boolean;
  };
  // The idle share of the step, in [0, 1).
  bubble_fraction: number;
}

export interface Time {
  matmul_efficiency: number;
  gemm_shape_efficiency: number;
  attention_efficiency: number;
  expert_gemm_efficiency: number;
  expert_load: number;
  tokens_per_expert: number;
  slowest_stage: number;
  compute_s: number;
  memory_bound_s: number;
  bubble_s: number;
  exposed_data_s: number;
  exposed_tensor_s: number;
  exposed_pipeline_s: number;
  exposed_context_s: number;
  exposed_expert_s: number;
  exposed_comms_s: number;
  exposed_offload_s: number;
  optimizer_s: number;
  step_s: number;
  model_flops_per_step: number;
  hardware_flops_per_step: number;
  mfu: number;
  hfu: number;
  // The dense peak the GEMMs run at, which mfu and hfu are against.
  mfu_peak: 'bf16' | 'fp8' | 'fp4';
  mfu_peak_tflops: number;
  mfu_bf16_peak: number;
  mfu_fp8_peak: number;
  tflops_per_gpu: number;
  tokens_per_s: number;
  time_to_train_s: number;
}

export interface Cost {
  price_per_gpu_hour: number;
  gpu_hours_per_step: number;
  usd_per_step: number;
  tokens_per_day: number;
  gpu_hours_per_day: number;
  usd_per_day: number;
  gpu_hours_per_trillion_tokens: number;
  usd_per_trillion_tokens: number;
  gpu_hours_to_train: number;
  usd_to_train: number;
}

// The run with its failures, checkpoints and restarts.
export interface Goodput {
  failures_per_day: number;
  job_mtbf_s: number;
  checkpoint_bytes: number;
  checkpoint_bytes_per_gpu: number;
  checkpoint_write_s: number;
  checkpoint_staging_s: number;
  checkpoint_pause_s: number;
  checkpoint_interval_s: number;
  best_interval_s: number;
  lost_per_failure_s: number;
  // The share of the wall clock that is new work.
  effective_time: number;
  time_to_train_s: number;
  usd_per_day: number;
  usd_to_train: number;
  // One day of the run, in seconds of each kind.
  day: { work_s: number; checkpoint_s: number; redone_s: number; restart_s: number };
}

// What a calibrated scenario's report says of its fit.
export interface CalibrationReport {
  title: string;
  says: string;
  constants: { key: string; unit: string; before: number; after: number; how: string }[];
  residuals: { key: string; measured: number; before: number; after: number; error: number }[];
}

export interface Rank {
  rank: number;
  dp: number;
  tp: number;
  pp: number;
  cp: number;
  ep: number;
  node: number;
  expert_group: number;
}

// [dp, tp, pp], or [dp, tp, pp, cp, ep] for a layout that uses the context or expert seam.
export type Layout = [number, number, number] | [number, number, number, number, number];

export interface Report {
  degrees: Degrees;
  gpus: number;
  active_gpus: number;
  nodes: number;
  domain_gpus: number;
  domain_spans_nodes: boolean;
  model_params: number;
  model_active_params: number;
  global_batch: number;
  precision: Required<PrecisionSpec> & { name: string; bytes_per_param: number };
  memory: Memory;
  comms: Comms;
  pipeline: Pipeline;
  time: Time;
  cost: Cost;
  goodput: Goodput;
  // Only when the scenario has a calibration.
  calibration?: CalibrationReport;
  // One per GPU; empty in evaluateSummary()'s report (lab.ranks() gives them as an Int32Array).
  ranks: Rank[];
  // Where the model assumed something or a framework would refuse or differ.
  warnings: string[];
  // What the chosen layout is, in words (idle GPUs, the memory verdict, a seam leaving its node).
  facts: string[];
  layouts: Layout[];
  order: { order_cost_s: number; rule_order_step_s: number };
  // The report keys whose derivation lab.explain(scenario, key) gives.
  explained: string[];
  // The inputs with presets expanded: reading it back gives the same report.
  scenario: Scenario;
}

// evaluateSummary()'s report: the same without the ranks, for fleets.
export interface SummaryReport extends Omit<Report, 'ranks'> {
  ranks: [];
}

// ---- What the other calls return.

// The math behind one number of the report.
export interface Derivation {
  formula: string;
  // Each symbol of the formula.
  terms: { symbol: string; name: string; unit: string; value: number }[];
  // The formula with the values in.
  text: string;
  // The report's number.
  result: number;
  source: string;
}

// lab.explain(scenario) with no key: the report with every derivation, by report key.
export interface ExplainedReport extends Report {
  explain: Record<string, Derivation>;
}

// [stage, micro-batch, pass (0 forward, 1 backward, 2 weight gradient), start, duration]
export type TimelineBlock = [number, number, 0 | 1 | 2, number, number];

export interface Timeline {
  stages: number;
  microbatches: number;
  shown_microbatches: number;
  span: number;
  // Each stage's slanted start and end belong to the steps before and after, not the bubble.
  ends_overlap: boolean;
  blocks: TimelineBlock[];
}

export interface ModelPresetInfo {
  name: ModelPreset;
  layers: number;
  hidden: number;
  heads: number;
  vocab: number;
  kv_heads: number;
  head_dim: number;
  ffn_hidden: number;
  activation: 'gelu' | 'swiglu';
  position: 'learned' | 'rope';
  tied_embeddings: boolean;
  attention: 'multi_head' | 'latent';
  experts: number;
  params: number;
  // Mixtures of experts only.
  active_params?: number;
  experts_per_token?: number;
  moe_ffn_hidden?: number;
  shared_experts?: number;
  dense_layers?: number;
}

export interface GpuPresetInfo {
  name: GpuPreset;
  gpu_memory_gb: number;
  gpu_peak_tflops: number;
  hbm_gb_s: number;
  nvlink_gb_s: number;
  network_gb_s: number;
  matmul_efficiency: number;
}

export interface Presets {
  models: ModelPresetInfo[];
  gpus: GpuPresetInfo[];
  precisions: (Required<PrecisionSpec> & { name: PrecisionPreset; bytes_per_param: number })[];
}

export type FieldType =
  | 'integer'
  | 'number'
  | 'boolean'
  | 'string'
  | 'enum'
  | 'preset'
  | 'order'
  | 'set'
  | 'object'
  | 'scenario';

// One row of the core's field table.
export interface Field {
  // Dotted: 'model.layers'.
  key: string;
  type: FieldType;
  // null for an object or a scenario.
  default: number | string | boolean | string[] | null;
  min?: number;
  max?: number;
  // min itself is refused.
  min_exclusive?: boolean;
  max_chars?: number;
  choices?: string[];
  unit: string;
  // The Advanced form's fieldset the field sits in.
  group: string;
  // Left out of the wasm modules' schema (they are built without the docs): ''.
  doc: string;
  // A preset's fields: what each choice sets, by dotted key.
  details?: Record<string, Record<string, number | string | boolean>>;
  // The preset this field is a detail of.
  detail_of?: string;
  // Left unset, the preset's value applies.
  tunes_preset?: boolean;
}

// One of the planner's options, in the shape of a field (no fieldset; a unit when it has one).
export interface PlannerField extends Omit<Field, 'group' | 'unit'> {
  unit?: string;
}

export interface Schema {
  fields: Field[];
  planner: {
    // The fraction of GPU memory a plan leaves free.
    headroom: PlannerField;
    // What the plans are ranked by.
    rank: PlannerField;
    // The sentence a plan's fit obeys.
    fit_rule: string;
  };
}

export type PlanRank = 'step' | 'time_with_failures';

// One plan's figures and its configuration.
export interface PlanFigures {
  degrees: Degrees;
  scenario: Scenario;
  step_s: number;
  tokens_per_s: number;
  mfu: number;
  bubble_fraction: number;
  per_gpu_bytes: number;
  verdict: Verdict;
  effective_time: number;
  usd_per_trillion_tokens: number;
  comms: Comms;
  micro_batch: number;
  zero_stage: number;
  recompute: 'none' | 'selective' | 'full';
  recompute_modules: RecomputeModule[];
  recompute_layers: number;
  recompute_method: 'uniform' | 'block';
  offload_layers: number;
  sequence_parallel: boolean;
  schedule: Schedule;
  virtual_stages: number;
  precision: string;
  fp8: boolean;
}

export interface Plan extends PlanFigures {
  // Within tie_within of the fastest, with at least one other.
  tie: boolean;
  // The layout's next fastest configurations.
  variants: PlanFigures[];
}

export interface PlanResult {
  evaluated: number;
  feasible: number;
  why_best: string;
  warnings: string[];
  // The levers the best plan leaves out.
  dropped: { what: string; why: string }[];
  headroom: number;
  rank: PlanRank;
  memory_limit_bytes: number;
  safe_fraction: number;
  // The share of the best step time within which the model cannot tell plans apart.
  tie_within: number;
  // Fastest first, one per layout.
  plans: Plan[];
}

export interface PlanOptions {
  // The fraction of GPU memory a plan leaves free, within schema().planner.headroom's range.
  headroom?: number;
  rank?: PlanRank;
  // Called as the search goes; returning false cancels it (plan() then throws a LabError with
  // key 'onProgress' and cancelled true).
  onProgress?: ((done: number, total: number, evaluated: number) => boolean | void) | null;
}

// A published run beside the model's prediction.
export interface ReferenceRun {
  name: string;
  source: string;
  table: string;
  // The report key compared ('step_s', ...) and the report's section it sits in.
  metric: string;
  section: string;
  published: number | null;
  predicted: number;
  // predicted / published - 1; null without a published figure.
  error: number | null;
  report: Report;
}

// ---- The API.

// Every refusal. key: the dotted scenario key at fault ('gpus', 'model.layers'), or an
// argument's name ('top', 'onProgress'); null when the scenario as a whole is at fault.
export class LabError extends Error {
  constructor(message: string, key?: string | null);
  name: 'LabError';
  key: string | null;
  // A search onProgress cancelled.
  cancelled?: boolean;
}

export interface LabOptions {
  // Load lab-planner (every call, larger) rather than lab-module (the first load).
  planner?: boolean;
  // The module's bytes, where the web build cannot fetch a file path (Node).
  wasmBinary?: ArrayBuffer | Uint8Array;
  // Where the .wasm file is, given its name and the glue's folder.
  locateFile?: (path: string, prefix: string) => string;
}

// The calls marked "planner module only" throw a LabError on lab-module saying to create the
// lab with createLab({ planner: true }).
export interface Lab {
  evaluate(scenario?: Scenario): Report;
  evaluateSummary(scenario?: Scenario): SummaryReport;
  // Planner module only.
  explain(scenario?: Scenario, key?: ''): ExplainedReport;
  explain(scenario: Scenario | undefined, key: string): Derivation;
  // Planner module only.
  plan(scenario?: Scenario, top?: number, options?: PlanOptions): PlanResult;
  layouts(scenario?: Scenario): Layout[];
  // Planner module only.
  timeline(
    stages: number,
    microbatches: number,
    schedule?: Schedule,
    options?: { drawn?: number },
  ): Timeline;
  // [dp, tp, pp, cp, ep, node, expert group] per rank (a copy); cp and ep 1 when left out.
  ranks(
    degrees: Pick<Degrees, 'dp' | 'tp' | 'pp'> & Partial<Degrees>,
    gpusPerNode: number,
    order?: NestingOrder,
  ): Int32Array;
  presets(): Presets;
  // Planner module only.
  referenceRuns(): ReferenceRun[];
  schema(): Schema;
}

export function createLab(options?: LabOptions): Promise<Lab>;
