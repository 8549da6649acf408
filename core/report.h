// What the core says about a scenario. Every number the page shows comes from here.
#pragma once

#include <string>
#include <vector>

#include "layout.h"
#include "scenario.h"

namespace pe {

struct MemoryBreakdown {
  double weights_bytes = 0;
  double grads_bytes = 0;
  double master_bytes = 0;
  double adam_m_bytes = 0;
  double adam_v_bytes = 0;
  double activations_bytes = 0;
  double optimizer_bytes() const { return master_bytes + adam_m_bytes + adam_v_bytes; }
  double model_state_bytes() const { return weights_bytes + grads_bytes + optimizer_bytes(); }
  double total_bytes() const { return model_state_bytes() + activations_bytes; }
};

struct StageMemory {
  int stage = 0;
  int layers = 0;
  double params_per_gpu = 0;
  int inflight_microbatches = 0;
  MemoryBreakdown breakdown;
};

struct MemoryReport {
  double params_per_gpu = 0;  // the most-loaded GPU's parameter shard
  double per_gpu_bytes = 0;   // the most-loaded GPU
  int shard_factor = 1;       // TP x PP
  int peak_stage = 0;
  bool fits = true;
  double gpu_memory_bytes = 0;
  double headroom_bytes = 0;  // negative when it does not fit
  MemoryBreakdown breakdown;  // of the most-loaded GPU
  std::vector<StageMemory> stages;
};

struct SeamTraffic {
  bool active = false;
  int group_size = 1;
  // Static strings, so the planner's hot loop allocates nothing.
  const char* collective = "idle";  // "ring all-reduce of gradients", "point-to-point", ...
  const char* link = "none";        // "nvlink" (inside a node), "network" (across nodes)
  double bytes_per_gpu_per_step = 0;  // bytes one GPU sends per step (the busiest one)
  double bytes_per_message = 0;       // one collective or one send
  double messages_per_step = 0;
  double link_bytes_per_s = 0;
  double time_s = 0;
};

struct CommsReport {
  SeamTraffic data;
  SeamTraffic tensor;
  SeamTraffic pipeline;
};

struct PipelineReport {
  int microbatches = 1;  // per step per pipeline (m)
  int virtual_stages = 1;
  double bubble_fraction = 0;
};

struct TimeReport {
  double compute_s = 0;         // ideal compute, no bubble
  double bubble_s = 0;
  double exposed_comms_s = 0;   // traffic not hidden behind compute
  double step_s = 0;
  double model_flops_per_step = 0;
  double hardware_flops_per_step = 0;
  double mfu = 0;
  double tflops_per_gpu = 0;    // hardware FLOPs (with recompute), Narayanan's convention
  double tokens_per_s = 0;
  double time_to_train_s = 0;   // 0 when no token budget is given
};

// What a run costs: GPU-hours and money per step, per day and for a token budget (cost.h).
struct CostReport {
  double price_per_gpu_hour = 0;  // USD, the scenario's
  double gpu_hours_per_step = 0;  // gpus x step / 3600
  double usd_per_step = 0;
  double tokens_per_day = 0;      // tokens/s x 86,400
  double gpu_hours_per_day = 0;   // gpus x 24
  double usd_per_day = 0;
  // gpus x (1e12 / tokens/s) / 3600: the unit DeepSeek-V3's report gives (180K H800
  // GPU-hours per trillion tokens, arXiv:2412.19437 Sec. 1).
  double gpu_hours_per_trillion_tokens = 0;
  double gpu_hours_to_train = 0;  // 0 when no token budget is given
  double usd_to_train = 0;
};

struct Report {
  Degrees degrees;
  Precision precision;  // bytes per parameter of each training state, before any sharding
  int gpus = 0;
  int active_gpus = 0;  // DP x TP x PP; fewer than gpus only when no seam is on
  int nodes = 0;
  double model_params = 0;
  int global_batch = 0;  // effective: micro_batch x DP x micro-batches
  std::vector<RankPlace> ranks;
  MemoryReport memory;
  CommsReport comms;
  PipelineReport pipeline;
  TimeReport time;
  CostReport cost;
  // The step time with the chapter's nesting (tp,pp,dp) on the same degrees, and what this
  // scenario's order costs against it (0 when the order is the chapter's).
  double rule_order_step_s = 0;
  double order_cost_s = 0;
  std::vector<std::string> warnings;
};

}  // namespace pe
