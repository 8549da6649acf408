#include "model/memory.h"

#include <algorithm>
#include <cmath>

#include "model/activations.h"
#include "model/layout_facts.h"
#include "model/moe.h"
#include "model/pipeline.h"
#include "model/text.h"

namespace pe {

double safe_memory_fraction() { return 0.8; }

std::string fit_rule_text() {
  const std::string under = short_number(100 * safe_memory_fraction()) + "%";
  return "A plan fits when the model's estimate stays under " + under +
         " of GPU memory: Fujii et al. 2024 (arXiv:2411.06465) saw no out-of-memory failure in "
         "454 runs whose estimate stayed under " +
         under +
         ", and real runs hold more than any model counts. Between that and the whole GPU a "
         "plan is tight: tuned runs run there, at the risk of running out.";
}

FitVerdict fit_verdict(double per_gpu_bytes, double gpu_memory_bytes) {
  if (per_gpu_bytes <= safe_memory_fraction() * gpu_memory_bytes) return FitVerdict::kFits;
  return per_gpu_bytes <= gpu_memory_bytes ? FitVerdict::kTight : FitVerdict::kOver;
}

const char* verdict_name(FitVerdict verdict) {
  switch (verdict) {
    case FitVerdict::kFits:
      return "fits";
    case FitVerdict::kTight:
      return "tight";
    default:
      return "over";
  }
}

MemoryBreakdown stage_breakdown(const MemoryBreakdown& states, const StageActivations& acts,
                                double overhead_bytes, double gathered_bytes) {
  MemoryBreakdown b = states;
  b.activations_bytes = acts.gpu_bytes;
  b.transient_bytes = acts.transient_bytes + gathered_bytes;
  b.overhead_bytes = overhead_bytes;
  return b;
}

ZeroSharding zero_sharding(int zero_stage) {
  return {zero_stage >= 3, zero_stage >= 2, zero_stage >= 1};
}

MemoryBreakdown model_state_bytes(double params, const Precision& precision, int zero_stage,
                                  int dp) {
  MemoryBreakdown m;
  const ZeroSharding z = zero_sharding(zero_stage);
  m.weights_bytes = params * precision.weight_bytes / (z.weights ? dp : 1);
  m.grads_bytes = params * precision.grad_bytes / (z.grads ? dp : 1);
  const double optimizer_share = 1.0 / (z.optimizer ? dp : 1);
  m.master_bytes = params * precision.master_bytes * optimizer_share;
  m.adam_m_bytes = params * precision.adam_m_bytes * optimizer_share;
  m.adam_v_bytes = params * precision.adam_v_bytes * optimizer_share;
  return m;
}

namespace {

// Which layers a stage holds, and how many of them are MoE layers.
StageParams stage_shape(const ModelShape& shape, const StageSplit& split, int stage) {
  StageParams p;
  p.stage = stage;
  p.layers = split.layers_on(stage);
  p.first_layer = split.first_layer(stage);
  p.moe_layers = shape.moe_layers_in(p.first_layer, p.layers);
  return p;
}

// The full model's shards: whole layers per stage, the embedding on the first stage and the
// output layer on the last. The shape's counts, scaled so that the stages add up to
// model.params. Routed experts are sharded by EP and expert TP, the rest by TP (moe.h).
StageParams full_stage_params(const Scenario& s, const ModelShape& shape, const Degrees& d,
                              const StageSplit& split, int stage) {
  const ModelSpec& m = s.model;
  StageParams p = stage_shape(shape, split, stage);
  const LayerParams run = shape.run_params(p.first_layer, p.layers);
  double params = run.dense;
  if (stage == 0) params += shape.embedding_params();
  if (stage == d.pp - 1) {
    params += shape.output_params();
    // Megatron keeps a copy of the tied word embedding on the last stage for the output layer.
    if (d.pp > 1 && m.tied_embeddings) params += static_cast<double>(m.vocab) * m.hidden;
  }
  const double scale = shape.param_scale();
  p.dense_params = params * scale;
  p.expert_params = run.expert * scale;
  p.dense_per_gpu = p.dense_params / d.tp;
  p.expert_params_per_gpu =
      run.expert > 0 ? p.expert_params / (1.0 * d.ep * s.recipe.expert_tp) : 0;
  p.params_per_gpu = p.dense_per_gpu + p.expert_params_per_gpu;
  return p;
}

// The book's even spread (params per GPU = N/(TP x PP)), with an MoE's experts' share spread
// over EP x expert TP instead of TP.
StageParams book_stage_params(const Scenario& s, const ModelShape& shape, const Degrees& d,
                              const StageSplit& split, int stage) {
  const ModelSpec& m = s.model;
  StageParams p = stage_shape(shape, split, stage);
  if (!shape.moe()) {
    p.dense_params = m.params / d.pp;
    p.params_per_gpu = m.params / (1.0 * d.tp * d.pp);
    p.dense_per_gpu = p.params_per_gpu;
    return p;
  }
  const double expert_share = shape.run_params(0, m.layers).expert / shape.params();
  p.dense_params = m.params * (1 - expert_share) / d.pp;
  p.expert_params = m.params * expert_share / d.pp;
  p.dense_per_gpu = m.params * (1 - expert_share) / (1.0 * d.tp * d.pp);
  p.expert_params_per_gpu = m.params * expert_share / (1.0 * d.ep * s.recipe.expert_tp * d.pp);
  p.params_per_gpu = p.dense_per_gpu + p.expert_params_per_gpu;
  return p;
}

}  // namespace

StageParams stage_params(const Scenario& s, const ModelShape& shape, const Degrees& d,
                         const StageSplit& split, int stage) {
  return s.recipe.memory_model == MemoryModel::kFull ? full_stage_params(s, shape, d, split, stage)
                                                     : book_stage_params(s, shape, d, split, stage);
}

LayerActivations layer_activations(const Scenario& s, const ModelShape& shape, const Degrees& d) {
  const ActivationCase c = activation_case(s, d.tp, d.cp);
  const unsigned modules = s.recipe.selective_modules();
  LayerActivations a;
  a.per_layer_bytes = layer_stored_bytes(shape, shape.dense_layer(), c, modules);
  if (shape.moe()) {
    a.moe_extra_bytes =
        layer_stored_bytes(shape, shape.moe_layer(), c, modules) - a.per_layer_bytes;
  }
  a.checkpoint_bytes = layer_checkpoint_bytes(shape, c);
  a.working_bytes = layer_stored_bytes(shape, shape.dense_layer(), c, 0);
  if (shape.moe()) {
    a.moe_working_extra_bytes =
        layer_stored_bytes(shape, shape.moe_layer(), c, 0) - a.working_bytes;
  }
  return a;
}

namespace {

int chunks_before(int position, int chunk) { return (position + chunk - 1) / chunk; }

// One micro-batch's bytes kept by the stage's layers at positions [from, to) of the stage.
double kept_bytes(const Scenario& s, const ModelShape& shape, const StageParams& p,
                  const LayerActivations& a, int from, int to) {
  const auto partial = [&](int lo, int hi) {
    if (hi <= lo) return 0.0;
    return (hi - lo) * a.per_layer_bytes +
           shape.moe_layers_in(p.first_layer + lo, hi - lo) * a.moe_extra_bytes;
  };
  if (s.recipe.recompute != Recompute::kFull) return partial(from, to);
  const int n = s.recipe.recompute_layers;
  if (n == 0) return (to - from) * a.checkpoint_bytes;
  if (s.recipe.recompute_method == RecomputeMethod::kBlock) {
    const int split = std::max(from, std::min(n, to));
    return (split - from) * a.checkpoint_bytes + partial(split, to);
  }
  return (chunks_before(to, n) - chunks_before(from, n)) * a.checkpoint_bytes;
}

}  // namespace

double offloaded_bytes_per_microbatch(const Scenario& s, const ModelShape& shape,
                                      const StageParams& p, const LayerActivations& a) {
  return kept_bytes(s, shape, p, a, p.layers - std::min(s.recipe.offload_layers, p.layers),
                    p.layers);
}

namespace {

// The working set of the one layer being recomputed (StageActivations): what the stage's
// heaviest layer stores with nothing recomputed less what it keeps on the GPU; 0 when nothing
// is recomputed. A stage that offloads activations has its layers' back for their backward,
// the stored part fetched and the rest recomputed: all of it.
double recomputed_layer_working_bytes(const Scenario& s, const StageParams& p,
                                      const LayerActivations& a, bool offloads) {
  const bool moe = p.moe_layers > 0;
  const double all = a.working_bytes + (moe ? a.moe_working_extra_bytes : 0.0);
  if (offloads) return all;
  if (fully_recomputed_layers(s, p.layers) > 0) return all - a.checkpoint_bytes;
  if (s.recipe.selective_modules() == 0) return 0;
  return std::max(0.0, all - a.per_layer_bytes - (moe ? a.moe_extra_bytes : 0.0));
}

}  // namespace

// Each CP rank holds s/cp of every sequence: every activation divides by cp, the attention
// scores too (s/cp queries against all s keys).
ActivationParts activation_parts(const Scenario& s, const ModelShape& shape, const Degrees& d,
                                 const StageParams& p, const LayerActivations& a,
                                 int microbatches) {
  const ModelSpec& m = s.model;
  const int stage = p.stage;
  const int kept = p.layers - std::min(s.recipe.offload_layers, p.layers);
  ActivationParts out;
  out.kept_bytes = kept_bytes(s, shape, p, a, 0, kept);
  out.host_bytes = kept_bytes(s, shape, p, a, kept, p.layers);
  // A uniform chunk's other layers hold their activations while its backward re-runs them;
  // the layer being recomputed is the transient below.
  if (s.recipe.recompute == Recompute::kFull &&
      s.recipe.recompute_method == RecomputeMethod::kUniform && s.recipe.recompute_layers > 1) {
    out.beside_bytes[0] = (std::min(s.recipe.recompute_layers, p.layers) - 1) * a.working_bytes;
  }
  // Korthikanti's s b h p / t counts p micro-batches in flight; with fewer, only m are.
  if (stage == 0 && m.dropout()) {  // the embedding's dropout mask
    out.beside_bytes[1] =
        first_stage_extra_activation_bytes(s.batch.seq_len, s.recipe.micro_batch, m.hidden, d.tp,
                                           std::min(d.pp, microbatches)) /
        d.cp;
  }
  double loss = 0;
  if (stage == d.pp - 1) {
    out.beside_bytes[2] =
        last_stage_extra_activation_bytes(s.batch.seq_len, s.recipe.micro_batch, m.hidden, m.vocab,
                                          d.tp, s.recipe.cross_entropy) /
        d.cp;
    if (s.recipe.cross_entropy == CrossEntropy::kUnfused) {
      loss = loss_backward_transient_bytes(s.batch.seq_len, s.recipe.micro_batch, m.vocab, d.tp) /
             d.cp;
    }
  }
  out.transient_bytes = std::max(loss, recomputed_layer_working_bytes(s, p, a, out.host_bytes > 0));
  return out;
}

// The parts' sum: a part a stage lacks is 0, and adding 0 leaves a sum's bits as they were.
StageActivations stage_activations(const ActivationParts& parts, double inflight) {
  StageActivations out;
  out.gpu_bytes = parts.kept_bytes * inflight;
  for (double beside : parts.beside_bytes) out.gpu_bytes += beside;
  out.host_bytes = parts.host_bytes * inflight;
  out.transient_bytes = parts.transient_bytes;
  return out;
}

StageActivations stage_activations(const Scenario& s, const ModelShape& shape, const Degrees& d,
                                   const StageParams& p, const LayerActivations& a,
                                   int microbatches) {
  return stage_activations(activation_parts(s, shape, d, p, a, microbatches),
                           inflight_microbatches(s, d, p.stage, microbatches));  // pipeline.h
}

double gathered_weight_bytes(const Scenario& s, const ModelShape& shape, const Degrees& d,
                             const StageParams& p) {
  if (s.recipe.zero_stage < 3 || p.layers == 0) return 0;
  const double scale = shape.param_scale();
  const LayerShape& layer = p.moe_layers > 0 ? shape.moe_layer() : shape.dense_layer();
  double unit =
      layer.params * scale / d.tp +
      (layer.expert_params > 0 ? layer.expert_params * scale / (1.0 * d.ep * s.recipe.expert_tp)
                               : 0.0);
  const double vocab_unit = 1.0 * s.model.vocab * s.model.hidden * scale / d.tp;
  if (p.stage == 0 || p.stage == d.pp - 1) unit = std::max(unit, vocab_unit);
  return ((1.0 + s.recipe.fsdp_prefetch) * kActivationBytes + s.recipe.precision.grad_bytes) * unit;
}

namespace {

// One pipeline stage's GPU (every GPU of a stage holds the same), from the layout's facts (its
// parameter shards) and one micro-batch's activations per layer (`a`: the full model's). The
// full model adds activations for the micro-batches the stage holds in flight and the
// overhead; the book's counts model states only.
StageMemory stage_memory(const Scenario& s, const LayoutFacts& f, const LayerActivations& a,
                         int stage, int microbatches) {
  const Degrees& d = f.degrees();
  const StageParams& p = f.params(stage);
  StageMemory st;
  st.stage = stage;
  st.layers = p.layers;
  st.params_per_gpu = p.params_per_gpu;
  st.expert_params_per_gpu = p.expert_params_per_gpu;
  st.breakdown = sharded_model_state_bytes(s, d, p.dense_per_gpu, p.expert_params_per_gpu);
  if (s.recipe.memory_model != MemoryModel::kFull) return st;
  st.inflight_microbatches =
      s.recipe.schedule == Schedule::kInterleaved
          ? std::min(d.pp - stage, microbatches)
          : static_cast<int>(std::ceil(inflight_microbatches(s, d, stage, microbatches)));
  const StageActivations acts = stage_activations(s, f.shape(), d, p, a, microbatches);
  st.breakdown = stage_breakdown(st.breakdown, acts, s.recipe.overhead_gb * 1e9,
                                 gathered_weight_bytes(s, f.shape(), d, p));
  st.offloaded_bytes = acts.host_bytes;
  return st;
}

}  // namespace

StageRuns stage_runs(const Scenario& s, const Degrees& d, const StageSplit& split) {
  // The first stage holding an MoE layer and the first holding only MoE layers (dense layers
  // lead: DeepSeek-V3's first three).
  int mixed = 0, all_moe = 0;
  if (s.model.moe()) {
    while (all_moe < d.pp - 1 && split.first_layer(all_moe) < s.model.dense_layers) ++all_moe;
    mixed = all_moe;
    if (all_moe > 0 && split.first_layer(all_moe) > s.model.dense_layers) mixed = all_moe - 1;
  }
  StageRuns runs;
  // Each start put in its place among those already kept (six at most: no sort needed).
  for (int stage : {0, std::min(1, d.pp - 1), split.extra_from, mixed, all_moe, d.pp - 1}) {
    size_t i = 0;
    while (i < runs.count && runs.starts[i] < stage) ++i;
    if (stage >= d.pp || (i < runs.count && runs.starts[i] == stage)) continue;
    for (size_t j = runs.count++; j > i; --j) runs.starts[j] = runs.starts[j - 1];
    runs.starts[i] = stage;
  }
  runs.starts[runs.count] = d.pp;
  return runs;
}

MemoryReport memory_report(const Scenario& s, const LayoutFacts& f, int microbatches) {
  const Degrees& d = f.degrees();
  const LayerActivations per_layer = s.recipe.memory_model == MemoryModel::kFull
                                         ? layer_activations(s, f.shape(), d)
                                         : LayerActivations{};
  MemoryReport r;
  r.shard_factor = d.tp * d.pp;
  r.zero_shards = zero_sharding(s.recipe.zero_stage);
  r.zero_group = d.dp * d.cp;  // as sharded_model_state_bytes shards the dense states
  r.stages.reserve(d.pp);
  for (int stage = 0; stage < d.pp; ++stage) {
    r.stages.push_back(stage_memory(s, f, per_layer, stage, microbatches));
  }
  const auto peak = std::max_element(r.stages.begin(), r.stages.end(), [](auto& a, auto& b) {
    return a.breakdown.total_bytes() < b.breakdown.total_bytes();
  });
  r.peak_stage = peak->stage;
  r.params_per_gpu = peak->params_per_gpu;
  r.breakdown = peak->breakdown;
  r.per_gpu_bytes = peak->breakdown.total_bytes();
  for (const StageMemory& st : r.stages)
    r.offloaded_bytes = std::max(r.offloaded_bytes, st.offloaded_bytes);
  r.gpu_memory_bytes = s.gpu.memory_gb * 1e9;
  r.headroom_bytes = r.gpu_memory_bytes - r.per_gpu_bytes;
  r.safe_fraction = safe_memory_fraction();
  const FitVerdict verdict = fit_verdict(r.per_gpu_bytes, r.gpu_memory_bytes);
  r.verdict = verdict_name(verdict);
  r.fits = verdict != FitVerdict::kOver;
  return r;
}

Scenario with_full_memory(Scenario s) {
  s.recipe.memory_model = MemoryModel::kFull;
  return s;
}

}  // namespace pe
