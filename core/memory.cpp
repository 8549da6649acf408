#include "memory.h"

#include <algorithm>

#include "activations.h"
#include "moe.h"
#include "pipeline.h"
#include "transformer.h"

namespace pe {

double safe_memory_fraction() { return 0.8; }

MemoryBreakdown model_state_bytes(double params, const Precision& precision, int zero_stage,
                                  int dp) {
  MemoryBreakdown m;
  m.weights_bytes = params * precision.weight_bytes / (zero_stage >= 3 ? dp : 1);
  m.grads_bytes = params * precision.grad_bytes / (zero_stage >= 2 ? dp : 1);
  const double optimizer_share = 1.0 / (zero_stage >= 1 ? dp : 1);
  m.master_bytes = params * precision.master_bytes * optimizer_share;
  m.adam_m_bytes = params * precision.adam_m_bytes * optimizer_share;
  m.adam_v_bytes = params * precision.adam_v_bytes * optimizer_share;
  return m;
}

namespace {

// In-flight micro-batches on a stage with 1F1B: stage i has run p - i forwards before its
// first backward (Narayanan Sec. 2.2.1; Korthikanti Sec. 4.2.3), never more than m. The
// interleaved schedule holds (1 + (p-1)/(p v)) times as much (Korthikanti Sec. 4.2.3).
double inflight_factor(const Scenario& s, const Degrees& d, int stage, int microbatches) {
  const double inflight = std::min(d.pp - stage, microbatches);
  // One model chunk per GPU is plain 1F1B, as the bubble and the traffic already count it.
  if (s.schedule != Schedule::kInterleaved || d.pp == 1 || s.virtual_stages == 1) return inflight;
  return inflight * (1.0 + (d.pp - 1.0) / (1.0 * d.pp * s.virtual_stages));
}

StageMemory full_stage(const Scenario& s, const Degrees& d, int stage, int microbatches) {
  const ModelSpec& m = s.model;
  StageMemory st;
  st.stage = stage;
  const StageSplit split = stage_split(s, d.pp);
  st.layers = split.layers_on(stage);
  // The shape's counts, scaled so that the stages add up to model.params. Routed experts are
  // sharded by EP and expert TP, the rest by TP (moe.h).
  const LayerParams run = layer_run_params(m, split.first_layer(stage), st.layers);
  double params = run.dense;
  if (stage == 0) params += embedding_params(m, s.seq_len);
  if (stage == d.pp - 1) {
    params += output_params(m);
    // Megatron keeps a copy of the tied word embedding on the last stage for the output layer.
    if (d.pp > 1 && m.tied_embeddings) params += static_cast<double>(m.vocab) * m.hidden;
  }
  const double scale = param_scale(m, s.seq_len);
  const double dense = params * scale / d.tp;
  st.expert_params_per_gpu = run.expert > 0 ? run.expert * scale / (1.0 * d.ep * s.expert_tp) : 0;
  st.params_per_gpu = dense + st.expert_params_per_gpu;
  st.breakdown = sharded_model_state_bytes(s, d, dense, st.expert_params_per_gpu);

  // Each CP rank holds s/cp of every sequence: every activation divides by cp, the attention
  // scores too (s/cp queries against all s keys).
  st.inflight_microbatches = std::min(d.pp - stage, microbatches);
  double acts = st.layers * activation_bytes_per_layer(m, s.seq_len, s.micro_batch, d.tp,
                                                       s.sequence_parallel, s.recompute,
                                                       s.flash_attention) / d.cp;
  const int moe_here = moe_layers_in(m, split.first_layer(stage), st.layers);
  if (moe_here > 0) acts += moe_here * moe_layer_extra_activation_bytes(s, d);
  acts *= inflight_factor(s, d, stage, microbatches);
  // Korthikanti's s b h p / t counts p micro-batches in flight; with fewer, only m are.
  if (stage == 0) {
    acts += first_stage_extra_activation_bytes(s.seq_len, s.micro_batch, m.hidden, d.tp,
                                               std::min(d.pp, microbatches)) / d.cp;
  }
  if (stage == d.pp - 1) {
    acts += last_stage_extra_activation_bytes(s.seq_len, s.micro_batch, m.hidden, m.vocab,
                                              d.tp) / d.cp;
  }
  st.breakdown.activations_bytes = acts;
  st.breakdown.overhead_bytes = s.overhead_gb * 1e9;
  return st;
}

StageMemory book_stage(const Scenario& s, const Degrees& d, int stage) {
  StageMemory st;
  st.stage = stage;
  st.layers = stage_split(s, d.pp).layers_on(stage);
  if (!s.model.moe()) {
    st.params_per_gpu = s.model.params / (1.0 * d.tp * d.pp);
    st.breakdown = sharded_model_state_bytes(s, d, st.params_per_gpu, 0);
    return st;
  }
  // The book's even spread, with the experts' share spread over EP x expert TP instead of TP.
  const ModelSpec& m = s.model;
  const double expert_share = layer_run_params(m, 0, m.layers).expert / shape_params(m, s.seq_len);
  const double dense = m.params * (1 - expert_share) / (1.0 * d.tp * d.pp);
  st.expert_params_per_gpu = m.params * expert_share / (1.0 * d.ep * s.expert_tp * d.pp);
  st.params_per_gpu = dense + st.expert_params_per_gpu;
  st.breakdown = sharded_model_state_bytes(s, d, dense, st.expert_params_per_gpu);
  return st;
}

}  // namespace

StageMemory stage_memory(const Scenario& s, const Degrees& d, int stage, int microbatches) {
  return s.memory_model == MemoryModel::kFull ? full_stage(s, d, stage, microbatches)
                                              : book_stage(s, d, stage);
}

StageMemory peak_stage_memory(const Scenario& s, const Degrees& d, int microbatches) {
  StageMemory peak = stage_memory(s, d, 0, microbatches);
  const StageSplit split = stage_split(s, d.pp);
  // With leading dense layers, the first stage made only of MoE layers can hold more.
  int all_moe = 0;
  while (s.model.moe() && all_moe < d.pp - 1 && split.first_layer(all_moe) < s.model.dense_layers) {
    ++all_moe;
  }
  for (int stage : {d.pp > 2 ? 1 : 0, split.extra_from, all_moe, d.pp - 1}) {
    StageMemory candidate = stage_memory(s, d, stage, microbatches);
    if (candidate.breakdown.total_bytes() > peak.breakdown.total_bytes()) peak = candidate;
  }
  return peak;
}

MemoryReport memory_report(const Scenario& s, const Degrees& d, int microbatches) {
  MemoryReport r;
  r.shard_factor = d.tp * d.pp;
  r.stages.reserve(d.pp);
  for (int stage = 0; stage < d.pp; ++stage) {
    r.stages.push_back(stage_memory(s, d, stage, microbatches));
  }
  const auto peak = std::max_element(r.stages.begin(), r.stages.end(), [](auto& a, auto& b) {
    return a.breakdown.total_bytes() < b.breakdown.total_bytes();
  });
  r.peak_stage = peak->stage;
  r.params_per_gpu = peak->params_per_gpu;
  r.breakdown = peak->breakdown;
  r.per_gpu_bytes = peak->breakdown.total_bytes();
  r.gpu_memory_bytes = s.gpu.memory_gb * 1e9;
  r.headroom_bytes = r.gpu_memory_bytes - r.per_gpu_bytes;
  r.safe_fraction = safe_memory_fraction();
  r.fits = r.per_gpu_bytes <= r.safe_fraction * r.gpu_memory_bytes;
  return r;
}

}  // namespace pe
