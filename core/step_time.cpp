#include "step_time.h"

#include <algorithm>
#include <vector>

#include "activations.h"
#include "comms.h"
#include "memory.h"
#include "transformer.h"

namespace pe {
namespace {

constexpr double kElementwisePasses = 5;      // per stored byte, forward and backward
constexpr double kRecomputePasses = 2;        // the re-run forward writes and reads again

struct StageTime {
  double matmul_s = 0;
  double memory_s = 0;
  double tensor_s = 0;  // exposed
  double compute_s() const { return matmul_s + memory_s; }
  double total_s() const { return matmul_s + memory_s + tensor_s; }
};

}  // namespace

double elementwise_bytes_per_layer(const Scenario& s, int tp) {
  const ModelSpec& m = s.model;
  auto stored = [&](Recompute r) {
    return activation_bytes_per_layer(m, s.seq_len, s.micro_batch, tp, s.sequence_parallel, r,
                                      s.flash_attention);
  };
  const double everything = stored(Recompute::kNone);
  double bytes = kElementwisePasses * everything;
  if (s.recompute == Recompute::kFull) bytes += kRecomputePasses * everything;
  if (s.recompute == Recompute::kSelective) {
    bytes += kRecomputePasses * (everything - stored(Recompute::kSelective));
  }
  return bytes;
}

TimeReport time_report(const Scenario& s, const Degrees& d, PipelineReport& pipeline,
                       const CommsReport& comms, int effective_global_batch) {
  TimeReport t;
  const ModelSpec& m = s.model;
  const int gpus = static_cast<int>(d.product());
  const int mb = pipeline.microbatches, v = pipeline.virtual_stages;
  const double peak = s.gpu.peak_tflops * 1e12;
  t.matmul_efficiency = s.matmul_efficiency();
  const double matmul_rate = peak * t.matmul_efficiency;
  const double hbm = s.gpu.hbm_gb_s * 1e9;
  const double tokens = 1.0 * s.micro_batch * s.seq_len;

  const double layer_flops =
      tokens * (3 * layer_forward_flops_per_token(m, s.seq_len) +
                recompute_flops_per_token(m, s.seq_len, s.recompute, s.flash_attention));
  const double output_flops = tokens * 3 * output_forward_flops_per_token(m, s.seq_len);
  const double layer_bytes = elementwise_bytes_per_layer(s, d.tp);

  // Stages with equal layers take equal times, so four cover them all: the first, the middle
  // ones with and without an extra layer, the last.
  auto stage_time = [&](int stage) {
    const int layers = pipeline.split.layers_on(stage);
    StageTime st;
    double flops = layers * layer_flops;
    if (stage == d.pp - 1) flops += output_flops;
    st.matmul_s = flops / d.tp / matmul_rate;
    st.memory_s = layers * layer_bytes / hbm;
    const double wire = stage_comms(s, d, stage, 0, layers, 1).tensor.time_s;
    st.tensor_s = s.tp_comm_overlap ? std::max(0.0, wire - st.matmul_s) : wire;
    return st;
  };
  const StageSplit& split = pipeline.split;
  int slowest = 0;
  StageTime k = stage_time(0);
  double sum = k.total_s();
  if (d.pp > 1) {
    const int extra = d.pp - 1 - split.extra_from;  // middle stages with one layer more
    const int plain = d.pp - 2 - extra;
    struct Kind { int stage, count; };
    for (const Kind& kind : {Kind{1, plain}, Kind{split.extra_from, extra}, Kind{d.pp - 1, 1}}) {
      if (kind.count <= 0) continue;
      const StageTime st = stage_time(kind.stage);
      sum += kind.count * st.total_s();
      if (st.total_s() > k.total_s()) slowest = kind.stage, k = st;
    }
  }
  t.slowest_stage = slowest;

  t.compute_s = mb * k.compute_s();
  t.memory_bound_s = mb * k.memory_s;
  t.exposed_tensor_s = mb * k.tensor_s;
  t.bubble_s = std::max(0.0, sum - k.total_s()) / v;

  // Pipeline sends of the slowest stage: on the critical path.
  const double params_k = stage_memory(s, d, slowest, mb).params_per_gpu;
  t.exposed_pipeline_s =
      stage_comms(s, d, slowest, params_k, pipeline.split.layers_on(slowest), mb).pipeline.time_s;

  // Data parallel, for the busiest GPU's parameter shard; overlapped with one micro-batch's
  // backward (the gradient reduction) or forward (the weight gather) of the slowest stage.
  if (comms.data.active) {
    const double params = stage_memory(s, d, comms.stage, mb).params_per_gpu;
    const DataParallelParts parts = data_parallel_parts(s, d, params, mb);
    const double rate = comms.data.link_bytes_per_s;
    const double recompute_share = s.recompute == Recompute::kFull ? 1 : 0;
    const double backward = k.compute_s() * (2 + recompute_share) / (3 + recompute_share);
    const double forward = k.compute_s() - backward;
    const double reduce = parts.reduce_bytes / rate, gather = parts.gather_bytes / rate;
    const double reduce_exposed = s.overlap_grad_reduce ? std::max(0.0, reduce - backward) : reduce;
    double gather_exposed = gather * parts.gathers;
    if (s.overlap_param_gather) {
      // ZeRO-3 gathers for the forward and again for the backward of every micro-batch.
      gather_exposed = s.zero_stage >= 3 ? mb * (std::max(0.0, gather - forward) +
                                                 std::max(0.0, gather - backward))
                                         : parts.gathers * std::max(0.0, gather - forward);
    }
    t.exposed_data_s = parts.reductions * reduce_exposed + gather_exposed;
  }
  t.exposed_comms_s = t.exposed_data_s + t.exposed_tensor_s + t.exposed_pipeline_s;

  // Adam over the optimizer shard: master weights and both moments read and written, the
  // gradient read twice (norm and update), the 16-bit weight written.
  {
    double params = 0;
    for (int stage : {0, d.pp > 2 ? 1 : 0, split.extra_from, d.pp - 1}) {
      params = std::max(params, stage_memory(s, d, stage, mb).params_per_gpu);
    }
    const Precision& p = s.precision;
    const double shard = params / (s.zero_stage >= 1 ? d.dp : 1);
    t.optimizer_s =
        shard * (2 * p.optimizer_bytes() + 2 * p.grad_bytes + p.weight_bytes) / hbm;
  }

  t.step_s = t.compute_s + t.bubble_s + t.exposed_comms_s + t.optimizer_s;
  t.model_flops_per_step = model_flops_per_step(m, s.seq_len, effective_global_batch);
  t.hardware_flops_per_step = hardware_flops_per_step(m, s.seq_len, effective_global_batch,
                                                      s.recompute, s.flash_attention);
  t.mfu = t.model_flops_per_step / (t.step_s * gpus * peak);
  t.hfu = t.hardware_flops_per_step / (t.step_s * gpus * peak);
  t.tflops_per_gpu = t.hardware_flops_per_step / (t.step_s * gpus) / 1e12;
  t.tokens_per_s = 1.0 * effective_global_batch * s.seq_len / t.step_s;
  if (s.train_tokens > 0) t.time_to_train_s = s.train_tokens / t.tokens_per_s;
  pipeline.bubble_fraction = t.bubble_s / t.step_s;
  return t;
}

}  // namespace pe
