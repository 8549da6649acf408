// Types of the embed API (embed.js beside this file), for embedders and their editors: mount()
// and its options as web/README.md "Embedding" documents them. Written by hand; the report is
// the lab API's type (lab/lab.d.ts, which scripts/build-wasm copies beside lab.js, and the
// published folder keeps at the same place). tests/web/types.test.mjs holds the exports and
// the state keys to embed.js and state/rows.js.
import type { Lab, SummaryReport } from '../../lab/lab.js';

// The state's keys, the URL's (state/rows.js, in the form's order). Keys are read
// case-insensitively and take - for _ (gpus-per-node).
export type StateKey =
  | 'data'
  | 'tensor'
  | 'pipeline'
  | 'order'
  | 'advanced'
  | 'gpus'
  | 'gpus_per_node'
  | 'network_oversubscription'
  | 'degrees'
  | 'context'
  | 'context_parallel'
  | 'expert'
  | 'expert_tp'
  | 'model'
  | 'layers'
  | 'hidden'
  | 'heads'
  | 'vocab'
  | 'kv_heads'
  | 'head_dim'
  | 'ffn_hidden'
  | 'activation'
  | 'position'
  | 'tied_embeddings'
  | 'attention'
  | 'experts'
  | 'experts_per_token'
  | 'moe_ffn_hidden'
  | 'shared_experts'
  | 'dense_layers'
  | 'capacity_factor'
  | 'moe_load_imbalance'
  | 'seq_len'
  | 'micro_batch'
  | 'global_batch'
  | 'train_tokens'
  | 'gpu'
  | 'gpu_memory_gb'
  | 'gpu_peak_tflops'
  | 'gpu_fp8_tflops'
  | 'gpu_fp4_tflops'
  | 'nvlink_gb_s'
  | 'nvlink_domain_gpus'
  | 'hbm_gb_s'
  | 'network_gb_s'
  | 'host_link_gb_s'
  | 'efficiency'
  | 'price_per_gpu_hour'
  | 'overlap_grad_reduce'
  | 'overlap_param_gather'
  | 'tp_comm_overlap'
  | 'expert_comm_overlap'
  | 'pp_scatter_gather'
  | 'precision'
  | 'weight_bytes'
  | 'grad_bytes'
  | 'master_bytes'
  | 'adam_m_bytes'
  | 'adam_v_bytes'
  | 'fp8'
  | 'fp4'
  | 'zero_stage'
  | 'recompute'
  | 'recompute_modules'
  | 'recompute_layers'
  | 'recompute_method'
  | 'offload_layers'
  | 'sequence_parallel'
  | 'flash_attention'
  | 'cross_entropy'
  | 'overhead_gb'
  | 'schedule'
  | 'virtual_stages'
  | 'first_stage_layers'
  | 'last_stage_layers'
  | 'gpu_failures_per_million_gpu_hours'
  | 'host_failures_per_million_gpu_hours'
  | 'network_failures_per_million_gpu_hours'
  | 'software_failures_per_million_gpu_hours'
  | 'storage_gb_s'
  | 'async_checkpoint'
  | 'checkpoint_interval_s'
  | 'restart_s'
  | 'hot_spares'
  | 'plan_headroom'
  | 'plan_rank'
  | 'plan'
  | 'calibration'
  | 'view'
  | 'pins';

// Parts of the lab an author can hide; any control can be hidden too, by its state key.
export type Part =
  | 'intro'
  | 'switches'
  | 'order'
  | 'fleet'
  | 'badge'
  | 'status'
  | 'warnings'
  | 'advanced'
  | 'grid'
  | 'caption'
  | 'legend'
  | 'readout'
  | 'memory'
  | 'wire'
  | 'compare'
  | 'breakdown'
  | 'steptime'
  | 'timeline'
  | 'planner'
  | 'references'
  | 'calibrate'
  | 'goodput'
  | 'exercises'
  | 'share'
  | 'export';

// A state value as an option: read through the state table, as the URL's text is. null (or
// undefined) in update() puts the key back to its default.
export type OptionValue = string | number | boolean | null | undefined;

export type Seams = 'data' | 'tensor' | 'pipeline';

export interface MountOptions extends Partial<Record<StateKey, OptionValue>> {
  // A list of data, tensor, pipeline, or none: "data,tensor" or an array.
  seams?: string | readonly (Seams | 'none')[] | null;
  // Parts or controls to hide: "advanced,planner" or an array.
  hide?: string | readonly (Part | StateKey)[] | null;
  // auto (the default) follows the reader's system setting.
  theme?: 'auto' | 'light' | 'dark' | null;
  // Where the state lives: none (the default), or the page URL's query or hash.
  url?: 'none' | 'query' | 'hash' | null;
  // From JavaScript only: each report the core accepts.
  onReport?: (report: SummaryReport) => void;
  // From JavaScript only: the page a copied link opens when url is none (an http or https URL).
  linkBase?: string;
  // From JavaScript only: embed (the default: the book's view on one screen) or page (the
  // standalone page's).
  layout?: 'embed' | 'page';
}

// The options as mount() also takes them: a URL's parameters, or [key, value] pairs.
export type OptionsLike = MountOptions | URLSearchParams | readonly (readonly [string, unknown])[];

export type StateValue = string | number | boolean | null;
export type LabState = { readonly [K in StateKey]: StateValue };

// A mounted lab.
export interface EmbeddedLab {
  // Resolves once the lab is drawn; rejects when it cannot start (said in the lab too).
  readonly ready: Promise<void>;
  // Any options; null puts one back to its default.
  update(options?: OptionsLike): void;
  // The current state (a copy) and the core's report for it (null until the first).
  readonly state: LabState;
  readonly report: SummaryReport | null;
  destroy(): void;
}

// Never throws for its options: a value refused is a note in the lab. Throws a TypeError only
// when host is not an element.
export function mount(host: Element, options?: OptionsLike): EmbeddedLab;

// The lab API (first-load module) that every lab on the page shares, loaded once.
export function getLab(): Promise<Lab>;
