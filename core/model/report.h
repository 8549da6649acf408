// What the core says about a scenario. Every number the page shows comes from here.
#pragma once

#include <string>
#include <vector>

#include "model/layout.h"
#include "model/scenario.h"

namespace pe {

struct MemoryBreakdown {
  double weights_bytes = 0;
  double grads_bytes = 0;
  double master_bytes = 0;
  double adam_m_bytes = 0;
  double adam_v_bytes = 0;
  double activations_bytes = 0;
  double overhead_bytes = 0;  // CUDA context, NCCL buffers, allocator (full model only)
  // What lives only for a moment at the stage's peak (full model only, memory.h): ZeRO-3's
  // gathered weights, the loss's gradients, the working set of the layer being recomputed.
  double transient_bytes = 0;
  double optimizer_bytes() const { return master_bytes + adam_m_bytes + adam_v_bytes; }
  double model_state_bytes() const { return weights_bytes + grads_bytes + optimizer_bytes(); }
  double total_bytes() const {
    return model_state_bytes() + activations_bytes + overhead_bytes + transient_bytes;
  }
};

struct StageMemory {
  int stage = 0;
  int layers = 0;
  double params_per_gpu = 0;
  double expert_params_per_gpu = 0;  // of params_per_gpu, what routed experts hold (moe.h)
  int inflight_microbatches = 0;
  MemoryBreakdown breakdown;
  double offloaded_bytes = 0;  // activations its offloaded layers keep in host memory
};

// Which model states ZeRO stage z shards over the data-parallel group: the optimizer's from
// stage 1, the gradients from 2, the weights from 3 (Rajbhandari et al. 2020 Sec. 5.1).
struct ZeroSharding {
  bool weights = false;
  bool grads = false;
  bool optimizer = false;
};

struct MemoryReport {
  double params_per_gpu = 0;  // the most-loaded GPU's parameter shard
  double per_gpu_bytes = 0;   // the most-loaded GPU
  int shard_factor = 1;       // TP x PP
  int peak_stage = 0;
  // Within the GPU's memory (verdict "fits" or "tight"; memory.h fit_verdict). It once
  // it meant under the safe fraction, which called runs that ran "does not fit".
  bool fits = true;
  // "fits": under safe_fraction of the GPU's memory (Fujii et al. 2024, arXiv:2411.06465: no
  // out-of-memory failure in 454 runs whose estimate stayed under 80%); "tight": above it,
  // within the GPU; "over": past the GPU.
  const char* verdict = "fits";
  double safe_fraction = 0;  // safe_memory_fraction(), written by memory_report
  double gpu_memory_bytes = 0;
  double headroom_bytes = 0;   // GPU memory minus the estimate; negative when it exceeds it
  double offloaded_bytes = 0;  // host memory per GPU for offloaded activations, busiest stage
  MemoryBreakdown breakdown;   // of the most-loaded GPU
  std::vector<StageMemory> stages;
  // What ZeRO shards (memory.h zero_sharding) and over how many ranks: the data-parallel
  // group of a stage, DP × CP (Megatron-Core's data-parallel group with context parallelism).
  ZeroSharding zero_shards;
  int zero_group = 1;
};

struct SeamTraffic {
  bool active = false;
  int group_size = 1;
  // Static strings, so the planner's hot loop allocates nothing.
  const char* collective = "idle";  // "ring all-reduce of gradients", "point-to-point", ...
  const char* link = "none";        // "nvlink" (inside a domain), "network" (across)
  // The level it rides (layout.h Fabric): "nvlink_domain", "rail", "spine"; "none" when idle.
  const char* level = "none";
  double bytes_per_gpu_per_step = 0;  // bytes one GPU sends per step (the busiest one)
  double bytes_per_message = 0;       // one collective or one send
  double messages_per_step = 0;
  double link_bytes_per_s = 0;  // the slowest link the busiest GPU's traffic rides
  // The NICs of one NVLink domain the collective spreads its bytes over (comms.h
  // collective_rate): the group's members there for a ring, 1 for sends and all-to-alls, 0
  // on NVLink alone.
  int nics = 0;
  double time_s = 0;  // on the wire, per step (time.exposed_* says what is hidden)
};

struct CommsReport {
  int stage = 0;  // the busiest GPU's pipeline stage: the most bytes sent per step
  SeamTraffic data;
  SeamTraffic tensor;
  SeamTraffic pipeline;
  SeamTraffic context;  // K/V ring passes or Ulysses all-to-alls (context.h)
  SeamTraffic expert;   // MoE dispatch and combine all-to-alls (moe.h)
};

// Layers per pipeline stage (pipeline.h stage_split): the first, the last, and the middle
// stages, of which those from `extra_from` on hold one layer more.
struct StageSplit {
  int pp = 1;
  int first = 0;
  int middle = 0;
  int last = 0;
  int extra_from = 0;  // middle stages >= extra_from hold middle + 1 (pp - 1: none do)
  // "even": p divides L; "set": first/last_stage_layers; "ends": Megatron's split counting
  // the embedding and the loss as layers; "balanced": none of those fits (Megatron refuses).
  const char* rule = "even";
  bool megatron_default = true;  // p divides L and no end stage was set
  int layers_on(int stage) const {
    if (pp == 1) return first;
    if (stage == 0) return first;
    if (stage == pp - 1) return last;
    return middle + (stage >= extra_from ? 1 : 0);
  }
  // The index of the stage's first layer (the layers before it, on the earlier stages).
  int first_layer(int stage) const {
    if (stage <= 0) return 0;
    // Middle stages 1 .. stage-1 hold `middle` each, and one more from extra_from on.
    const int from = extra_from > 1 ? extra_from : 1;
    const int extra = stage > from ? stage - from : 0;
    return first + middle * (stage - 1) + extra;
  }
  int most() const {
    int m = first > last ? first : last;
    if (pp > 2)
      m = m > middle + (extra_from < pp - 1 ? 1 : 0) ? m : middle + (extra_from < pp - 1 ? 1 : 0);
    return m;
  }
};

struct PipelineReport {
  int microbatches = 1;  // per step per pipeline (m)
  int virtual_stages = 1;
  StageSplit split;
  double bubble_fraction = 0;  // the idle share of the step: bubble_s / step_s, in [0, 1)
};

struct TimeReport {
  double matmul_efficiency = 0;  // the fraction of dense peak the matmuls ran at
  int slowest_stage = 0;
  double compute_s = 0;       // the slowest stage's m micro-batches: matmuls + memory-bound
  double memory_bound_s = 0;  // of compute_s: elementwise kernels at HBM bandwidth
  double bubble_s = 0;        // pipeline fill and drain
  // What the bubble is made of (not written to the JSON; its derivation shows them): 1F1B's
  // bubble with one chunk per GPU (sum_i T_i - T_k; with a schedule that splits the backward,
  // less the longest stage's T), and that stage's forward (F) and weight-gradient (W) shares
  // of its micro-batch (pipeline.h bubble_scale).
  double bubble_1f1b_s = 0;
  double forward_share = 0;
  double weight_grad_share = 0;
  // One micro-batch's chain through every stage: its F and B on each (B + W where the schedule
  // does not split the backward), then the longest stage's last W (of one chunk in a V). No
  // schedule's step takes less (a law); not in the JSON.
  double critical_path_s = 0;
  double exposed_data_s = 0;  // communication not hidden behind compute, per seam
  double exposed_tensor_s = 0;
  double exposed_pipeline_s = 0;
  double exposed_context_s = 0;  // K/V exchange beyond the attention it overlaps (context.h)
  double exposed_expert_s = 0;   // expert all-to-alls (moe.h), hidden with expert_comm_overlap
  double exposed_comms_s = 0;    // their sum
  double exposed_offload_s = 0;  // activation copies to and from the host beyond compute
  double optimizer_s = 0;        // the optimizer step, at HBM bandwidth
  // The attention kernel's efficiency against its long-sequence rate, for the keys one call
  // reads (context.h: short with CP's ring chunks).
  double attention_efficiency = 1;
  // The layers' linear GEMMs at their size against a large GEMM's rate (gemm_shape.h), over the
  // whole model: 1 when every GEMM is large, or the GPU has no measured curve.
  double gemm_shape_efficiency = 1;
  // A mixture of experts' routed GEMMs (moe.h), 0 when dense: rows per expert per micro-batch,
  // their grouped GEMM's efficiency against a large GEMM's, the busiest EP rank's load.
  double tokens_per_expert = 0;
  double expert_gemm_efficiency = 0;
  double expert_load = 0;
  double step_s = 0;
  double model_flops_per_step = 0;
  double hardware_flops_per_step = 0;
  // model FLOPs / (step x GPUs x peak), the peak the GEMMs run at (step_time.h)
  double mfu = 0;
  double hfu = 0;                 // hardware FLOPs (recomputation included) / (step x GPUs x peak)
  double mfu_peak_tflops = 0;     // that peak: the dense BF16 one, or FP8's under FP8
  const char* mfu_peak = "bf16";  // which: "bf16" | "fp8" | "fp4"
  double mfu_bf16_peak = 0;       // model FLOPs / (step x GPUs x BF16 peak)
  double mfu_fp8_peak = 0;        // model FLOPs / (step x GPUs x FP8 peak); 0: the GPU has none
  double tflops_per_gpu = 0;      // hardware FLOPs per GPU per second, Narayanan's convention
  double tokens_per_s = 0;
  double time_to_train_s = 0;  // 0 when no token budget is given
};

// What set the best checkpoint interval (goodput.h): the effective time's optimum, the last
// write it must wait for, the MTBF (a failure loses more than the time between failures), or
// no failures at all (a day).
enum class BestInterval { kOptimum, kWrite, kMtbf, kNoFailures };

// The run with its failures, checkpoints and restarts (goodput.h).
struct GoodputReport {
  double failures_per_day = 0;          // the job's, at its GPU count
  double job_mtbf_s = 0;                // mean time between the job's failures
  double checkpoint_bytes = 0;          // the model states saved: master weights and Adam's moments
  double checkpoint_bytes_per_gpu = 0;  // the busiest saver's share, as ZeRO shards it
  double checkpoint_write_s = 0;        // to storage (or its reload from it)
  // What each checkpoint pauses training at the least: the write, or async the copy to host
  // memory; and what it pauses at the interval used (async, also the rest of the last write).
  double checkpoint_staging_s = 0;
  double checkpoint_pause_s = 0;
  double checkpoint_interval_s = 0;  // the one used: the scenario's, or the best
  double best_interval_s = 0;        // the interval that maximises the effective time
  // Not in the JSON; its derivation shows them: the rule that set it, and A, the share of
  // time a failure's fixed loss and half a pause leave.
  BestInterval best_interval_by = BestInterval::kOptimum;
  double steady_share = 1;
  double lost_per_failure_s = 0;  // work done again, the restart and the reload
  double effective_time = 0;      // useful share of the wall-clock time, in [0, 1]
  double time_to_train_s = 0;     // with failures; 0: no token budget, or no progress
  double usd_per_day = 0;         // the job's GPUs and its hot spares
  double usd_to_train = 0;        // with failures and spares; 0 as time_to_train_s
  // One day of the run, its seconds by what they went to (they sum to 86,400): new work,
  // checkpoint pauses, work done again after failures, restarts and reloads.
  double day_work_s = 0, day_checkpoint_s = 0, day_redone_s = 0, day_restart_s = 0;
};

// What a run costs: GPU-hours and money per step, per day and for a token budget (cost.h).
struct CostReport {
  double price_per_gpu_hour = 0;  // USD, the scenario's
  double gpu_hours_per_step = 0;  // gpus x step / 3600
  double usd_per_step = 0;
  double tokens_per_day = 0;     // tokens/s x 86,400
  double gpu_hours_per_day = 0;  // gpus x 24
  double usd_per_day = 0;
  // gpus x (1e12 / tokens/s) / 3600: the unit DeepSeek-V3's report gives (180K H800
  // GPU-hours per trillion tokens, arXiv:2412.19437 Sec. 1).
  double gpu_hours_per_trillion_tokens = 0;
  double usd_per_trillion_tokens = 0;  // those GPU-hours x the price: what a token budget costs
  double gpu_hours_to_train = 0;       // 0 when no token budget is given
  double usd_to_train = 0;
};

struct Report {
  Degrees degrees;
  Precision precision;  // bytes per parameter of each training state, before any sharding
  int gpus = 0;
  int active_gpus = 0;  // DP x TP x PP x CP; fewer than gpus only when no seam is on
  int nodes = 0;
  int domain_gpus = 0;  // GPUs per NVLink domain: the GPU's, or one node (Scenario::domain_gpus)
  bool domain_spans_nodes = false;  // an NVLink domain wider than a node (GB200 NVL72's trays)
  double model_params = 0;
  double model_active_params = 0;  // what one token uses: all of a dense model, MoE's top-k
  int global_batch = 0;            // effective: micro_batch x DP x micro-batches
  std::vector<RankPlace> ranks;
  MemoryReport memory;
  CommsReport comms;
  PipelineReport pipeline;
  TimeReport time;
  CostReport cost;
  GoodputReport goodput;
  // The step time with the chapter's nesting (tp,pp,dp) on the same degrees, and what this
  // scenario's order costs against it (0 when the order is the chapter's).
  double rule_order_step_s = 0;
  double order_cost_s = 0;
  // In words: warnings, where the model assumed something or a framework would refuse or
  // differ; facts, what the chosen layout is (idle GPUs, the memory verdict past 80% of the
  // GPU, a seam whose traffic leaves its node, the nesting order's cost against the chapter's),
  // which the panels also show as numbers. The book's eight seam states have at most facts,
  // never a warning: not fitting is the chapter's lesson.
  std::vector<std::string> warnings;
  std::vector<std::string> facts;
};

}  // namespace pe
