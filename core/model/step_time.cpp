#include "model/step_time.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/activations.h"
#include "model/comms.h"
#include "model/context.h"
#include "model/gemm_shape.h"
#include "model/memory.h"
#include "model/moe.h"
#include "model/pipeline.h"

namespace pe {
namespace {

constexpr double kElementwisePasses = 5;  // per stored byte, forward and backward
constexpr double kForwardPasses = 2;      // of those, the forward's: written and read
constexpr double kRecomputePasses = 2;    // the re-run forward writes and reads again

// One micro-batch's forward and backward on the slowest stage, which the data-parallel
// collectives overlap, and the rate they ride.
struct DataParallelWindows {
  double forward_s;
  double backward_s;
  double link_bytes_per_s;
};

// A stage's data-parallel time not hidden behind compute. The gradient reduction hides behind
// a backward (overlap_grad_reduce), the weight gather behind a forward (overlap_param_gather);
// ZeRO-3 gathers again for every backward, and that gather and the micro-batch's gradient
// reduce-scatter share its one backward: together they hide at most its length. Hiding each
// behind the whole backward let full recomputation, whose backward is longer, shorten the
// step.
double exposed_data_parallel_s(const Scenario& s, const DataParallelParts& parts,
                               const DataParallelWindows& w) {
  const double reduce = parts.reduce_bytes / w.link_bytes_per_s;
  const double gather = parts.gather_bytes / w.link_bytes_per_s;
  const auto hidden_behind = [](double comm_s, double window_s) {
    return std::max(0.0, comm_s - window_s);
  };
  const double gather_forward =
      s.recipe.overlap_param_gather ? hidden_behind(gather, w.forward_s) : gather;
  if (s.recipe.zero_stage >= 3) {
    const double overlapped =
        (s.recipe.overlap_param_gather ? gather : 0) + (s.recipe.overlap_grad_reduce ? reduce : 0);
    const double exposed_backward = (s.recipe.overlap_param_gather ? 0 : gather) +
                                    (s.recipe.overlap_grad_reduce ? 0 : reduce) +
                                    hidden_behind(overlapped, w.backward_s);
    return parts.reductions * (gather_forward + exposed_backward);  // per micro-batch
  }
  const double reduce_exposed =
      s.recipe.overlap_grad_reduce ? hidden_behind(reduce, w.backward_s) : reduce;
  return parts.reductions * reduce_exposed + parts.gathers * gather_forward;
}

}  // namespace

double gemm_rate_flops(const Scenario& s) {
  const GpuSpec& g = s.gpu;
  const double bf16 = g.peak_tflops * 1e12 * g.matmul_efficiency;
  const auto faster = [&](double peak_tflops, double measured) {
    const double ratio = peak_tflops / g.peak_tflops;
    return bf16 * (measured > 0 ? std::min(measured, ratio) : ratio);
  };
  if (s.recipe.precision.fp4) return faster(g.fp4_tflops, g.fp4_gemm_speedup);
  if (s.recipe.precision.fp8) return faster(g.fp8_tflops, g.fp8_gemm_speedup);
  return bf16;
}

ElementwiseBytes elementwise_bytes(const Scenario& s, const ModelShape& shape, const Degrees& d,
                                   Recompute r) {
  ActivationCase c = activation_case(s, d.tp, d.cp);
  c.fp8 = c.fp4 = false;  // what the kernels move: the 16-bit tensors, whatever FP8 caches
  const unsigned modules = r == Recompute::kSelective ? s.recipe.recompute_modules : 0u;
  ElementwiseBytes e;
  e.dense = layer_stored_bytes(shape, shape.dense_layer(), c, 0);
  e.dense_recomputed = e.dense - layer_stored_bytes(shape, shape.dense_layer(), c, modules);
  e.moe = layer_stored_bytes(shape, shape.moe_layer(), c, 0);
  e.moe_recomputed = e.moe - layer_stored_bytes(shape, shape.moe_layer(), c, modules);
  return e;
}

double utilisation_peak_tflops(const Scenario& s) {
  const double bf16 = s.gpu.peak_tflops;
  if (s.recipe.precision.fp4) return std::max(bf16, s.gpu.fp4_tflops);
  return s.recipe.precision.fp8 ? std::max(bf16, s.gpu.fp8_tflops) : bf16;
}

namespace {
// Interleaved with fewer micro-batches than stages: each micro-batch laps the stages v times
// with no other to fill the laps (pipeline.h few_microbatch_span).
bool laps(const Scenario& s, int pp, int v, int mb) {
  return s.recipe.schedule == Schedule::kInterleaved && v > 1 && pp > 1 && mb < pp;
}
}  // namespace

// The share of the bubble paid (step_time.h), never so much that a batch of twice the
// micro-batches would take less time (a law). In laps, each micro-batch more adds T_k of work
// and fills v - 1 of every v idle slots it meets, shrinking that bubble by (1 - 1/v) T_k: at
// most v / (v - 1) of it. The V's bubble is its span's excess at every m (pipeline.h
// few_microbatch_span), and from p - 1 micro-batches on that span stays the same while the
// work doubles (until ZB-H1's bound): the bubble shrinks by all the added work, so at most
// all of it.
double bubble_share(const Scenario& s, int pp, int v, int mb) {
  const double k = s.gpu.bubble_paid;
  if (s.recipe.schedule == Schedule::kZbV) return std::min(k, 1.0);
  return laps(s, pp, v, mb) ? std::min(k, v / (v - 1.0)) : k;
}

namespace {

// What a collective leaves exposed behind a window of compute that can hide it.
double exposed(double comm_s, double window_s) { return std::max(0.0, comm_s - window_s); }

// What every stage's time is computed from, the same for all stages of one pace.
struct StageRates {
  double tokens = 0;  // per micro-batch, b s
  double output_flops = 0;
  double matmul_rate = 0;  // BF16 FLOP/s at the calibrated efficiency
  double hbm = 0;          // bytes/s
  double routed_slowdown = 1;
  double permute_bytes = 0;
  double attention_efficiency = 1;
  ElementwiseBytes bytes;
  LinearGemmShapes gemm_shapes;
};

[[gnu::always_inline]] inline StageRates stage_rates(const Scenario& s, const LayoutFacts& f) {
  const Degrees& d = f.degrees();
  const ModelShape& shape = f.shape();
  StageRates k;
  const double peak = s.gpu.peak_tflops * 1e12;
  k.matmul_rate = peak * s.gpu.matmul_efficiency;
  k.hbm = s.gpu.hbm_gb_s * 1e9;
  k.tokens = 1.0 * s.recipe.micro_batch * s.batch.seq_len;

  k.output_flops = k.tokens * 3 * shape.output_forward_flops_per_token();
  k.bytes = elementwise_bytes(s, shape, d, s.recipe.recompute);
  const MlpShape& moe = shape.moe_layer().mlp;
  k.routed_slowdown =
      shape.moe() ? expert_load(s, d) / grouped_gemm_efficiency(tokens_per_expert(s, moe, d)) : 1;
  // The linear GEMMs at their size's share of a large GEMM's rate (gemm_shape.h).
  k.gemm_shapes = f.gemm_shapes(s.recipe.micro_batch);
  k.permute_bytes = permutation_bytes(s, moe, d);
  // The attention core's kernel runs slower on short calls (context.h): CP's ring chunks.
  k.attention_efficiency = attention_kernel_efficiency(attention_kernel_tokens(s, d));
  return k;
}

// A stage's compute, with the attention core's time (the ring passes' window) and the traffic
// its layers send, for stage_traffic (its offload copy filled by stage_work).
using StageCompute = StageWork::Stage;

// One micro-batch's compute on a stage: its matmuls (recomputation included), memory-bound
// kernels, the forward's share and W; with the attention core's time and the stage's traffic,
// which stage_traffic hides behind them.
[[gnu::always_inline]] inline StageCompute stage_compute(const Scenario& s, const LayoutFacts& f,
                                                         const StageRates& k, int stage) {
  const Degrees& d = f.degrees();
  const ModelShape& shape = f.shape();
  const StageParams& here = f.params(stage);
  const int layers = here.layers;
  const int moe_here = here.moe_layers;
  StageCompute c;
  // A training step's matmuls under recomputation r; with none, three forwards. The routed
  // experts' grouped GEMMs run slower by the busiest EP rank's load over their efficiency
  // (moe.h).
  const double shape_slowdown = k.gemm_shapes.slowdown(layers - moe_here, moe_here);
  auto matmuls = [&](Recompute r) -> StageWork::Matmuls {
    const ModelShape::StepFlops fl = f.step_flops_per_token(stage, r);
    const double output = stage == d.pp - 1 ? k.output_flops / k.gemm_shapes.output_efficiency : 0;
    const double gemm =
        (fl.total - fl.core - fl.routed) * shape_slowdown + fl.routed * k.routed_slowdown;
    const double attention = k.tokens * fl.core / k.attention_efficiency;
    return {k.tokens * gemm, (attention + output) / k.matmul_rate};
  };
  c.matmuls = matmuls(s.recipe.recompute);
  c.plain = s.recipe.recompute == Recompute::kNone ? c.matmuls : matmuls(Recompute::kNone);
  // Elementwise kernels move kElementwisePasses x what each layer stores, and the forward
  // of what it recomputes again (a whole layer, or its selective modules' tensors).
  const int full = fully_recomputed_layers(s, layers);
  const int moe_full = shape.moe_layers_in(here.first_layer, full);
  const double all = (layers - moe_here) * k.bytes.dense + moe_here * k.bytes.moe;
  const double again = (full - moe_full) * k.bytes.dense + moe_full * k.bytes.moe +
                       (layers - full - (moe_here - moe_full)) * k.bytes.dense_recomputed +
                       (moe_here - moe_full) * k.bytes.moe_recomputed;
  // Each MoE layer permutes its tokens into expert order and back, forward and backward,
  // and again where it re-runs the MoE MLP (full recomputation, or the moe module).
  const int moe_again = moe_full + (s.recipe.selective_modules() & kMoe ? moe_here - moe_full : 0);
  const double permute = k.permute_bytes * (2 * moe_here + moe_again);
  c.st.memory_s = (kElementwisePasses * all + kRecomputePasses * again + permute) / k.hbm;
  c.forward_memory_s = (kForwardPasses * all + k.permute_bytes * moe_here) / k.hbm;
  c.wire = layer_traffic(s, f, layers, moe_here, 1);
  // Each stretch of compute hides one kind of traffic: the TP collectives the linear layers'
  // GEMMs around them (--tp-comm-overlap), the ring passes the attention core, the expert
  // all-to-alls whatever compute is left. Letting two hide behind the same compute made
  // faster matmuls lengthen the step (a law).
  c.core_s = layers * k.tokens * 3 * shape.attention().core_flops_per_token / d.tp / d.cp /
             k.matmul_rate / k.attention_efficiency;
  return c;
}

// The stage's matmuls at the GEMMs' rate: matmul_s, the forward's share and W.
[[gnu::always_inline]] inline void stage_at_rate(const Degrees& d, double gemm_rate,
                                                 StageCompute& c) {
  const auto seconds = [&](const StageWork::Matmuls& m) {
    return (m.gemm_flops / gemm_rate + m.bf16_s) / d.tp / d.cp;
  };
  c.st.matmul_s = seconds(c.matmuls);
  const double plain_s = seconds(c.plain);
  c.st.forward_s = plain_s / 3 + c.forward_memory_s;
  // W: the linear layers' forward FLOPs again (a third of their three passes).
  c.st.weight_grad_s = std::max(0.0, plain_s - c.core_s) / 3;
}

// A stage's traffic, each kind behind the compute that hides it (Context parallelism: each GPU
// computes s/cp of every sequence; Megatron-Core overlaps each ring pass with the attention of
// the chunk it already holds, so only what the attention core cannot cover is exposed;
// Ulysses' all-to-alls sit between the projections and attention, exposed. The expert
// all-to-alls are exposed unless expert_comm_overlap hides them behind another micro-batch's
// compute), the windows it leaves, and the offloaded layers' host copies.
// The traffic of one micro-batch's tensor and context seams, each pass's behind its own compute
// (exposed: what is not), and the compute each pass has left free for the rest.
struct PassTraffic {
  double tensor_f = 0, tensor_b = 0;    // exposed, forward and backward
  double context_f = 0, context_b = 0;  // exposed, forward and backward
  double left_f = 0, left_b = 0;        // each pass's compute left free
  double apart_s = 0;                   // W, where the schedule runs it apart
};

[[gnu::always_inline]] inline PassTraffic pass_traffic(const Scenario& s, const NodeSpans& spans,
                                                       int layers, const StageCompute& c) {
  const StageTime& st = c.st;
  const LayerTraffic& wire = c.wire;
  const double core = c.core_s;
  // Each pass hides its own collectives behind its own compute: Megatron-Core's
  // --tp-comm-overlap splits each linear layer's GEMM into chunks and pipelines the
  // all-gather (reduce-scatter) of its input (output) with them, in the forward and in the
  // backward (Transformer Engine userbuffers), and the ring passes ride beside the attention
  // core of the same pass; a backward's traffic cannot wait for the next forward's compute. A
  // forward, compute-light and collective-heavy (TP sends 2 of a layer's 4 collectives, 4 of
  // 10 with SP, in a third of its FLOPs), exposes more than the micro-batch as a whole would. One
  // window for the whole micro-batch let faster forward GEMMs, whose saving the backward's
  // collectives took back, shrink the forward's window for the weight gather and lengthen the
  // step (a law). Forward shares of each kind of traffic, by message count (comms.h, context.h,
  // moe.h): TP 4 of 10 + 4a collectives with SP, 2 of 4 + 2a without; ring and all-gather CP 1 of
  // 3 + a, Ulysses 1 of 2 + a; the expert all-to-alls 2 of 4 + 2a (a: the fully recomputed
  // share, whose forward runs again inside the backward).
  const double tensor_forward_share =
      (s.recipe.sequence_parallel ? 4.0 : 2.0) / tensor_collectives_per_layer(s, layers);
  const double rerun = fully_recomputed_share(s, layers);
  const double context_forward_share =
      1.0 / ((s.recipe.context_parallel == ContextParallel::kUlysses ? 2.0 : 3.0) + rerun);
  // A schedule that splits the backward runs W apart, where the bubble was: its GEMMs
  // (no TP collective of their own) hide none of F's and B's, nor their expert all-to-alls.
  const double apart_s = splits_weight_grad(s.recipe.schedule) ? st.weight_grad_s : 0;
  // The linear GEMMs of the forward are W's FLOPs at W's rate; the backward's the rest.
  const double gemm_forward = st.weight_grad_s;
  const double gemm_backward = std::max(0.0, st.matmul_s - core - apart_s - gemm_forward);
  const double tensor_f = wire.tensor.time_s * tensor_forward_share;
  const double tensor_b = wire.tensor.time_s - tensor_f;
  double exposed_tensor_f = tensor_f, exposed_tensor_b = tensor_b;
  // Userbuffers need every TP rank's peers on NVLink/NVSwitch ("Tensor-parallel GPUs must be
  // on a single node, and connected over NVLink/NVSwitch": Transformer Engine,
  // examples/pytorch/comm_gemm_overlap/README.md; an NVL72 rack's trays share one NVSwitch
  // fabric, its domain here): a TP group that leaves the NVLink domain runs its collectives
  // through NCCL over the network, exposed, as without the switch.
  if (s.recipe.tp_comm_overlap && !spans.tp_group_spans_nodes) {
    exposed_tensor_f = exposed(tensor_f, gemm_forward);
    exposed_tensor_b = exposed(tensor_b, gemm_backward);
  }
  double exposed_context_f = 0, exposed_context_b = 0;
  if (wire.context.active) {
    const double context_f = wire.context.time_s * context_forward_share;
    exposed_context_f = context_f;
    exposed_context_b = wire.context.time_s - context_f;
    if (s.recipe.context_parallel == ContextParallel::kRing) {
      // The core's forward is a third of its three passes.
      exposed_context_f = exposed(context_f, core / 3);
      exposed_context_b = exposed(wire.context.time_s - context_f, core - core / 3);
    }
  }
  // What each pass's compute has left after its tensor and context traffic.
  const double left_f =
      std::max(0.0, st.forward_s - (tensor_f - exposed_tensor_f) -
                        (wire.context.time_s * context_forward_share - exposed_context_f));
  const double left_b =
      std::max(0.0, st.compute_s() - st.forward_s - apart_s - (tensor_b - exposed_tensor_b) -
                        (wire.context.time_s * (1 - context_forward_share) - exposed_context_b));
  return {exposed_tensor_f, exposed_tensor_b, exposed_context_f, exposed_context_b, left_f,
          left_b,           apart_s};
}

[[gnu::always_inline]] inline StageTime stage_traffic(const Scenario& s, const LayoutFacts& f,
                                                      int stage, const StageCompute& c) {
  const Degrees& d = f.degrees();
  const StageParams& here = f.params(stage);
  const int layers = here.layers;
  const int moe_here = here.moe_layers;
  StageTime st = c.st;
  const LayerTraffic& wire = c.wire;
  const PassTraffic pass = pass_traffic(s, f.spans(), layers, c);
  st.tensor_s = pass.tensor_f + pass.tensor_b;
  st.context_s = pass.context_f + pass.context_b;
  const double left_f = pass.left_f, left_b = pass.left_b, apart_s = pass.apart_s;
  const double expert_forward_share = 2.0 / (4.0 + 2.0 * fully_recomputed_share(s, moe_here));
  const double left = left_f + left_b;  // the micro-batch's compute left free
  double hidden_expert = 0;
  // The all-to-alls an unpaired backward sends: all of its own, exposed (nothing to pair
  // with), or behind its own compute with expert_comm_overlap.
  double expert_backward_alone = 0;
  if (wire.expert.active) {
    // W, run apart, hides none of them: counted so for DualPipe's pairs too (whose backward
    // holds W), or a faster W, shrinking the window, lengthened the step (a law).
    // DualPipe's F&B pairs one micro-batch's forward with another's backward and hides the
    // all-to-alls of each behind the other's compute (DeepSeek-V3 Sec. 3.2.1), as
    // expert_comm_overlap does (Megatron-Core's 1F1B all-to-all overlap, a forward beside
    // another micro-batch's backward): the pair's compute is their window together.
    const bool paired = overlaps_forward_backward(s.recipe.schedule) && d.pp > 1;
    st.expert_s = s.recipe.expert_comm_overlap || paired ? exposed(wire.expert.time_s, left)
                                                         : wire.expert.time_s;
    hidden_expert = wire.expert.time_s - st.expert_s;
    const double expert_b = wire.expert.time_s * (1 - expert_forward_share);
    expert_backward_alone = s.recipe.expert_comm_overlap ? exposed(expert_b, left_b) : expert_b;
  }
  // The hidden expert traffic, spread over the compute that hides it as that compute
  // falls in each pass: each pass then keeps the same share of its leftover free.
  const double expert_hidden_f = left > 0 ? hidden_expert * left_f / left : 0;
  st.forward_free_s = std::max(0.0, left_f - expert_hidden_f);
  // W run apart is no window for the gradients either: it makes them, and their
  // reduce-scatter waits for it (as ZeRO-3's backward gather is waited for by B).
  st.backward_free_s = std::max(0.0, left_b - (hidden_expert - expert_hidden_f));
  st.hidden_s =
      (wire.tensor.time_s - st.tensor_s) + (wire.context.time_s - st.context_s) + hidden_expert;
  st.forward_wall_s =
      st.forward_s + pass.tensor_f + pass.context_f + st.expert_s * expert_forward_share;
  // A backward run alone (DualPipe's bubble, pipeline.h): its compute, its own exposed
  // collectives and its unpaired all-to-alls.
  st.backward_alone_s =
      st.compute_s() - st.forward_s + pass.tensor_b + pass.context_b + expert_backward_alone;
  // Offloaded layers' activations go to the host in the forward pass and come back for the
  // backward, over the host link, each behind that pass's wall time (compute and exposed
  // traffic alike: the link is the GPU's own); the excess is exposed (Megatron-Core
  // cpu_offloading overlaps the copies with compute on their own stream). The copies back
  // must land before B needs them, so W run apart (after its B, in the bubble) hides none:
  // counted as a window, a faster W exposed more of the copy, and the schedules' bubbles,
  // where W fills what B leaves, grew with it (a law).
  if (s.recipe.offload_layers > 0) {
    const double copy_s = c.offload_copy_s;
    st.offload_forward_s = std::max(0.0, copy_s - st.forward_wall_s);
    st.offload_backward_s = std::max(0.0, copy_s - (st.total_s() - st.forward_wall_s - apart_s));
  }
  return st;
}

}  // namespace

// The planner's steps (stage_work, the pace from it; paced_time, finish_time) are inlined into
// evaluate()'s (pipeline_pace, time_report), whose code the page's first load then holds once.
namespace {
// The stages' work but what the precision changes (work_at_precision).
// Into `work`, whose stages past its runs' count it leaves as they are (none reads them).
[[gnu::always_inline]] inline void stage_work_into(const Scenario& s, const LayoutFacts& f,
                                                   StageWork& work) {
  const StageRates rates = stage_rates(s, f);
  work.runs = stage_runs(s, f.degrees(), f.split());
  for (size_t i = 0; i < work.runs.count; ++i) {
    work.stages[i] = stage_compute(s, f, rates, work.runs.starts[i]);
  }
}

// What the precision changes: the GEMMs' rate (FP8 and FP4 run the layers' GEMMs faster; the
// attention core, softmax(QK^T) V, and the output layer, Megatron's own ColumnParallelLinear
// rather than Transformer Engine's, stay BF16) and what offloaded layers send to the host.
[[gnu::always_inline]] inline void work_at_precision(const Scenario& s, const LayoutFacts& f,
                                                     StageWork& work) {
  const double gemm_rate = gemm_rate_flops(s);
  LayerActivations stored;
  if (s.recipe.offload_layers > 0) stored = layer_activations(s, f.shape(), f.degrees());
  for (size_t i = 0; i < work.runs.count; ++i) {
    StageWork::Stage& w = work.stages[i];
    stage_at_rate(f.degrees(), gemm_rate, w);
    if (s.recipe.offload_layers > 0) {
      w.offload_copy_s =
          offloaded_bytes_per_microbatch(s, f.shape(), f.params(work.runs.starts[i]), stored) /
          (s.gpu.host_link_gb_s * 1e9);
    }
  }
}
}  // namespace

void stage_work(const Scenario& s, const LayoutFacts& f, StageWork& work) {
  stage_work_into(s, f, work);
  work_at_precision(s, f, work);
}

void restate_precision(const Scenario& s, const LayoutFacts& f, StageWork& work) {
  work_at_precision(s, f, work);
}

namespace {
// Into `out`, whose times past the runs' count it leaves as they are (none reads them).
[[gnu::always_inline]] inline void stage_times_into(const Scenario& s, const LayoutFacts& f,
                                                    const StageWork& work, StageTimes& out) {
  out.runs = work.runs;
  for (size_t i = 0; i < work.runs.count; ++i) {
    out.times[i] = stage_traffic(s, f, work.runs.starts[i], work.stages[i]);
  }
}

[[gnu::always_inline]] inline PipelinePace pace_of_times(const Scenario& s, const LayoutFacts& f,
                                                         const PipelineReport& pipeline,
                                                         const StageTimes& stage_times,
                                                         const RunSends& sends_s) {
  const Degrees& d = f.degrees();
  const int mb = pipeline.microbatches;
  // Stages of one run (memory.h stage_runs) take equal times: the first of each, counted as
  // many times as the run has stages. The stage that sets the pace is the one whose
  // micro-batches and sends take the step longest: mb of its micro-batches (less its own
  // share of the bubble, which the others fill) and its sends. Taking the longest micro-batch
  // alone, then adding another stage's sends than the one compared, let a faster link
  // lengthen the step (a law).
  const StageRuns& runs = stage_times.runs;
  // Interleaved with fewer micro-batches than stages spans sum_i T_i + (m - 1) T_k / v
  // (pipeline.h few_microbatch_span): stage k's own share is then (m - 1) / v.
  const int v = pipeline.virtual_stages;
  const bool lapped = laps(s, d.pp, v, mb);
  // The schedules that split the backward reckon their bubble from the longest stage's
  // micro-batch, whichever stage sets the pace (time_report), so no share of it is the pacing
  // stage's own: all mb of its micro-batches count. Counting mb - 1/v there let faster sends,
  // which handed the pace to a stage with a longer micro-batch, lengthen the step (a law).
  // With the share k of the bubble paid (pipeline_bubble), the step is (m - k/v) T_k + k
  // sum_i T_i / v; with laps (1 - k) m T_k + k ((m - 1) T_k / v + sum_i T_i): the pace is the
  // stage whose T_i with that coefficient, and its sends, take longest.
  const double paid = bubble_share(s, d.pp, v, mb);
  const double others_share = lapped ? (1 - paid) * mb + paid * (mb - 1.0) / v
                              : splits_weight_grad(s.recipe.schedule) ? 1.0 * mb
                                                                      : mb - paid / v;
  const std::array<StageTime, kStageRuns>& times = stage_times.times;
  std::array<double, kStageRuns> paces{};
  size_t slowest = 0;  // the pacing stage's run
  double sum = 0, sum_w = 0, sum_forward = 0;
  for (size_t i = 0; i < runs.count; ++i) {
    const StageTime& st = times[i];
    sum += runs.size(i) * st.total_s();
    sum_w += runs.size(i) * st.weight_grad_s;
    sum_forward += runs.size(i) * st.forward_pass_s();
    if (d.pp > 1) {
      paces[i] = others_share * st.total_s() + sends_s[i];
    }
    if (paces[i] > paces[slowest]) slowest = i;
  }
  const StageTime& k = times[slowest];
  const double k_pace = paces[slowest];
  PipelinePace pace;
  pace.runs = runs;
  pace.microbatches = mb;
  for (size_t i = 0; i < runs.count; ++i) {
    const StageTime& st = times[i];
    // The data-parallel collectives ride the NIC (or NVLink) beside the tensor, context and
    // expert traffic, but a stretch of compute hides one thing at a time: each pass's window
    // is the compute it has left free (StageTime::forward_free_s, backward_free_s). Megatron-
    // Core's overlap_grad_reduce launches each bucket's reduce-scatter as the backward
    // finishes its gradients (DistributedDataParallel's grad hooks), overlap_param_gather
    // each bucket's all-gather ahead of the forward that needs it (forward pre-hooks): the
    // backward is the reduction's window, the forward the gather's.
    const double own = st.backward_free_s + st.offload_backward_s;
    // The shortfall spread over all mb micro-batches (not the mb - 1/v its pace counts):
    // each of up to mb reductions then gains at most 1/mb of what a faster pacing stage saves
    // the step, so none gains more than the step saves (laws).
    const double wait = (k_pace - paces[i]) / mb;
    pace.backward_window_s[i] = std::max(0.0, own) + wait;
    pace.gather_window_s[i] = st.forward_free_s + st.offload_forward_s;
    pace.wait_s[i] = wait;
  }
  pace.slowest_stage = runs.starts[slowest];
  pace.slowest = k;
  pace.longest = *std::max_element(
      times.begin(), times.begin() + runs.count,
      [](const StageTime& a, const StageTime& b) { return a.total_s() < b.total_s(); });
  pace.sum_s = sum;
  pace.sum_weight_grad_s = sum_w;
  pace.sum_forward_s = sum_forward;
  // Pipeline sends of the slowest stage: on the critical path.
  pace.exposed_pipeline_s = sends_s[slowest];
  return pace;
}
}  // namespace

void stage_times(const Scenario& s, const LayoutFacts& f, const StageWork& work,
                 StageTimes& times) {
  stage_times_into(s, f, work, times);
}

int stage_times_kind(Schedule schedule) {
  return (splits_weight_grad(schedule) ? 1 : 0) + (overlaps_forward_backward(schedule) ? 1 : 0);
}

RunSends pipeline_sends_s(const Scenario& s, const LayoutFacts& f, const StageRuns& runs,
                          int microbatches) {
  RunSends sends_s{};
  if (f.degrees().pp == 1) return sends_s;
  for (size_t i = 0; i < runs.count; ++i) {
    sends_s[i] = stage_pipeline_traffic(s, f, runs.starts[i], microbatches).time_s;
  }
  return sends_s;
}

PipelinePace pipeline_pace(const Scenario& s, const LayoutFacts& f, const PipelineReport& pipeline,
                           const StageTimes& times, const RunSends& sends_s) {
  return pace_of_times(s, f, pipeline, times, sends_s);
}

PipelinePace pipeline_pace(const Scenario& s, const LayoutFacts& f,
                           const PipelineReport& pipeline) {
  StageWork work;
  stage_work_into(s, f, work);
  work_at_precision(s, f, work);
  const RunSends sends_s = pipeline_sends_s(s, f, work.runs, pipeline.microbatches);
  StageTimes times;
  stage_times_into(s, f, work, times);
  return pace_of_times(s, f, pipeline, times, sends_s);
}

double PipelinePace::backward_window_of(int stage) const {
  size_t run = 0;
  while (run + 1 < runs.count && runs.starts[run + 1] <= stage) ++run;
  return backward_window_s[run];
}

double PipelinePace::gather_window_of(int stage, int zero_stage) const {
  size_t run = 0;
  while (run + 1 < runs.count && runs.starts[run + 1] <= stage) ++run;
  // ZeRO-1 gathers once a step and reduces once: with two micro-batches or more, both windows'
  // waits together gain no more than the pacing stage saves. ZeRO-2 reduces every micro-batch
  // and ZeRO-3 gathers every one: their gathers wait in no window.
  const bool waits = zero_stage == 1 && microbatches >= 2;
  return gather_window_s[run] + (waits ? wait_s[run] : 0);
}

namespace {

// Each part of a step named here (stage_rates to stage_traffic above, pipeline_bubble to
// utilisation below) is called once and always inlined: the page's -Oz module
// would otherwise keep each as a call, and its first load grow.

// The pipeline's bubble and critical path (pipeline.h), from the stage it is reckoned from: the
// pacing stage with 1F1B and interleaving, the longest stage with the schedules that split the
// backward. Fills the bubble's terms of `t` (bubble_1f1b_s, forward_share, weight_grad_share,
// bubble_s, critical_path_s).
[[gnu::always_inline]] inline void pipeline_bubble(const Scenario& s, const Degrees& d,
                                                   const PipelinePace& pace, int mb, int v,
                                                   TimeReport& t) {
  const double sum = pace.sum_s;
  const bool split = splits_weight_grad(s.recipe.schedule);
  const StageTime& b = split ? pace.longest : pace.slowest;
  t.bubble_1f1b_s = std::max(0.0, sum - b.total_s());
  t.forward_share = b.total_s() > 0 ? b.forward_pass_s() / b.total_s() : 0;
  t.weight_grad_share = b.total_s() > 0 ? b.weight_grad_s / b.total_s() : 0;
  // DualPipe's (p/2 - 1)(F&B + B - 3W) (DeepSeek-V3 Table 2): F&B is the pair, T; B a
  // backward run alone in the fill and drain, which no forward's compute hides anything for.
  // Taking B as T - F counted the pair's hidden all-to-alls as hidden there too, and slower
  // compute that hid more of them shrank the bubble (a law). As a share: f = 1 - B / T.
  if (overlaps_forward_backward(s.recipe.schedule) && b.total_s() > 0) {
    t.forward_share = 1 - b.backward_alone_s / b.total_s();
  }
  t.bubble_s = split ? t.bubble_1f1b_s * bubble_scale(s.recipe.schedule, d.pp, v, t.forward_share,
                                                      t.weight_grad_share)
                     : t.bubble_1f1b_s / v;
  // Few micro-batches: the schedule's span as it runs them (pipeline.h), never shorter than
  // one micro-batch's chain through every stage; the bubble is what it adds to m of them.
  // Every stage's own F, B and W summed, not the longest stage's shares times the stages: a
  // stage with a larger W share than the longest's once put the span under the chain (a law).
  if (b.total_s() > 0) {
    const double few = few_microbatch_span(
        s.recipe.schedule, d.pp, v, mb,
        {pace.sum_forward_s, sum - pace.sum_forward_s - pace.sum_weight_grad_s,
         pace.sum_weight_grad_s},
        {b.forward_pass_s(), b.total_s() - b.forward_pass_s() - b.weight_grad_s, b.weight_grad_s});
    t.bubble_s = std::max(t.bubble_s, few - mb * b.total_s());
  }
  t.bubble_s *= bubble_share(s, d.pp, v, mb);  // as much as the fleet's runs pay (calibrate.h)
  const int chunks = v_shape(s.recipe.schedule) && d.pp > 1 ? 2 : 1;
  t.critical_path_s = d.pp > 1 && split ? sum - pace.sum_weight_grad_s + b.weight_grad_s / chunks
                                        : (d.pp > 1 ? sum : 0);
}

// Each stage behind its own backward window (PipelinePace::backward_window_s): what the
// micro-batch already hides of its tensor, context and expert traffic is not a window for
// the gradients too (one stretch of compute hides at most its own length); the host
// copies the backward waits for, and the stage's wait for the pacing stage, are: the
// network is free meanwhile.
[[gnu::always_inline]] inline double exposed_data_of_stage(const Scenario& s,
                                                           const CommsReport& comms,
                                                           const PipelinePace& pace, int stage,
                                                           const DataParallelParts& parts) {
  const DataParallelWindows windows{pace.gather_window_of(stage, s.recipe.zero_stage),
                                    pace.backward_window_of(stage), comms.data.link_bytes_per_s};
  return exposed_data_parallel_s(s, parts, windows);
}

// Data parallel: every stage reduces its own gradients (and gathers its weights) at once,
// so the step waits for the stage whose exposed share is longest, which need not be the
// stage that sends the most bytes overall (comms.stage): taking that one made a doubled
// batch, which moved it to a stage with fewer parameters, shorten the step.
[[gnu::always_inline]] inline double exposed_data_parallel_of_stages(const Scenario& s,
                                                                     const LayoutFacts& f,
                                                                     const CommsReport& comms,
                                                                     const PipelinePace& pace,
                                                                     int mb) {
  if (!comms.data.active) return 0;
  const Degrees& d = f.degrees();
  double longest = 0;
  for (int stage : f.traffic_stages()) {
    const StageParams& p = f.params(stage);
    const DataParallelParts parts =
        data_parallel_parts(s, d, p.params_per_gpu, mb, p.expert_params_per_gpu);
    longest = std::max(longest, exposed_data_of_stage(s, comms, pace, stage, parts));
  }
  return longest;
}

// Adam over the optimizer shard: master weights and both moments read and written, the
// gradient read twice (norm and update), the 16-bit weight written. The shard: dense
// parameters over dp x cp, experts over their own group (moe.h), on the stage holding most.
[[gnu::always_inline]] inline double optimizer_shard_of(const Scenario& s, const LayoutFacts& f,
                                                        const StageRuns& runs) {
  const Degrees& d = f.degrees();
  double shard = 0;
  for (size_t i = 0; i < runs.count; ++i) {
    const StageParams& st = f.params(runs.starts[i]);
    const bool zero = s.recipe.zero_stage >= 1;
    double here = (st.params_per_gpu - st.expert_params_per_gpu) / (zero ? d.dp * d.cp : 1);
    if (st.expert_params_per_gpu > 0) {
      here += st.expert_params_per_gpu / (zero ? expert_data_parallel(s, d) : 1);
    }
    shard = std::max(shard, here);
  }
  return shard;
}
[[gnu::always_inline]] inline double optimizer_step_s(const Scenario& s, int pp, double shard) {
  const Precision& p = s.recipe.precision;
  shard *= parameter_copies(s, pp);  // DualPipe: both copies step
  return shard * (2 * p.optimizer_bytes() + 2 * p.grad_bytes + p.weight_bytes) /
         (s.gpu.hbm_gb_s * 1e9);
}

// The kernels' efficiencies the step ran at: the attention core's on its calls (context.h),
// the linear GEMMs' at their size (gemm_shape.h), the experts' grouped GEMMs (moe.h).
[[gnu::always_inline]] inline KernelEfficiencies kernel_efficiencies_of(const Scenario& s,
                                                                        const LayoutFacts& f) {
  const Degrees& d = f.degrees();
  const ModelShape& shape = f.shape();
  KernelEfficiencies k;
  k.matmul = s.gpu.matmul_efficiency;
  k.attention = attention_kernel_efficiency(attention_kernel_tokens(s, d));
  const int moe_layers = shape.moe_layers(), dense_layers = shape.layers() - moe_layers;
  const LinearGemmShapes& g = f.gemm_shapes(s.recipe.micro_batch);
  const double slow = g.slow_weights(dense_layers, moe_layers);
  k.gemm_shape = slow > 0 ? g.weights(dense_layers, moe_layers) / slow : 1;
  if (shape.moe()) {
    k.tokens_per_expert = tokens_per_expert(s, shape.moe_layer().mlp, d);
    k.expert_gemm = grouped_gemm_efficiency(k.tokens_per_expert);
    k.expert_load = expert_load(s, d);
  }
  return k;
}

// MFU and HFU against the peak the GEMMs run at (utilisation_peak_tflops), each peak's figure
// beside them, named; the throughput and the time to train.
[[gnu::always_inline]] inline void utilisation(const Scenario& s, const LayoutFacts& f,
                                               int effective_global_batch, TimeReport& t) {
  const double gpus = static_cast<double>(f.degrees().product());
  t.model_flops_per_step = f.model_flops_per_step(effective_global_batch);
  t.hardware_flops_per_step = f.hardware_flops_per_step(effective_global_batch, s.recipe.recompute);
  const auto model_share_of = [&](double peak_tflops) {
    return peak_tflops > 0 ? t.model_flops_per_step / (t.step_s * gpus * peak_tflops * 1e12) : 0;
  };
  t.mfu_peak_tflops = utilisation_peak_tflops(s);
  t.mfu_peak = t.mfu_peak_tflops == s.gpu.peak_tflops ? "bf16"
               : s.recipe.precision.fp4               ? "fp4"
                                                      : "fp8";
  t.mfu = model_share_of(t.mfu_peak_tflops);
  t.mfu_bf16_peak = model_share_of(s.gpu.peak_tflops);
  t.mfu_fp8_peak = model_share_of(s.gpu.fp8_tflops);
  t.hfu = t.hardware_flops_per_step / (t.step_s * gpus * t.mfu_peak_tflops * 1e12);
  t.tflops_per_gpu = t.hardware_flops_per_step / (t.step_s * gpus) / 1e12;
  t.tokens_per_s = 1.0 * effective_global_batch * s.batch.seq_len / t.step_s;
  if (s.economics.train_tokens > 0) t.time_to_train_s = s.economics.train_tokens / t.tokens_per_s;
}

}  // namespace

TimeReport time_report(const Scenario& s, const LayoutFacts& f, const PipelineReport& pipeline,
                       const CommsReport& comms, int effective_global_batch) {
  return time_report(s, f, pipeline, comms, effective_global_batch, pipeline_pace(s, f, pipeline));
}

namespace {
[[gnu::always_inline]] inline TimeReport paced_time_of(const Scenario& s, const LayoutFacts& f,
                                                       const PipelineReport& pipeline,
                                                       const PipelinePace& pace,
                                                       const KernelEfficiencies& kernels) {
  TimeReport t;
  const int mb = pipeline.microbatches;
  const StageTime& k = pace.slowest;
  t.slowest_stage = pace.slowest_stage;
  t.compute_s = mb * k.compute_s();
  t.memory_bound_s = mb * k.memory_s;
  t.exposed_tensor_s = mb * k.tensor_s;
  t.exposed_context_s = mb * k.context_s;
  t.exposed_expert_s = mb * k.expert_s;
  pipeline_bubble(s, f.degrees(), pace, mb, pipeline.virtual_stages, t);
  t.exposed_pipeline_s = pace.exposed_pipeline_s;
  t.exposed_offload_s = mb * k.offload_s();
  t.matmul_efficiency = kernels.matmul;
  t.attention_efficiency = kernels.attention;
  t.gemm_shape_efficiency = kernels.gemm_shape;
  t.tokens_per_expert = kernels.tokens_per_expert;
  t.expert_gemm_efficiency = kernels.expert_gemm;
  t.expert_load = kernels.expert_load;
  return t;
}
}  // namespace

KernelEfficiencies kernel_efficiencies(const Scenario& s, const LayoutFacts& f) {
  return kernel_efficiencies_of(s, f);
}

TimeReport paced_time(const Scenario& s, const LayoutFacts& f, const PipelineReport& pipeline,
                      const PipelinePace& pace, const KernelEfficiencies& kernels) {
  return paced_time_of(s, f, pipeline, pace, kernels);
}

namespace {
// The exposed traffic and the step but its optimizer from paced_time's parts, the data seam's
// exposed time given: step_floor_s sums them as finish_time does, so that its floor is the
// step's own arithmetic with the data seam hidden.
[[gnu::always_inline]] inline double exposed_comms_of(const TimeReport& t, double data_s) {
  return data_s + t.exposed_tensor_s + t.exposed_pipeline_s + t.exposed_context_s +
         t.exposed_expert_s;
}
[[gnu::always_inline]] inline double step_but_optimizer_of(const TimeReport& t, double comms_s) {
  return t.compute_s + t.bubble_s + comms_s + t.exposed_offload_s;
}

[[gnu::always_inline]] inline void finish_time_of(const Scenario& s, const LayoutFacts& f,
                                                  double exposed_data_s, int effective_global_batch,
                                                  double optimizer_s, TimeReport& t) {
  t.exposed_data_s = exposed_data_s;
  t.exposed_comms_s = exposed_comms_of(t, t.exposed_data_s);
  t.optimizer_s = optimizer_s;
  t.step_s = step_but_optimizer_of(t, t.exposed_comms_s) + t.optimizer_s;
  utilisation(s, f, effective_global_batch, t);
}
}  // namespace

void data_parallel_parts_of_stages(const Scenario& s, const LayoutFacts& f, int microbatches,
                                   StageDataParts& parts) {
  parts.clear();
  for (int stage : f.traffic_stages()) {
    const StageParams& p = f.params(stage);
    parts.push_back(data_parallel_parts(s, f.degrees(), p.params_per_gpu, microbatches,
                                        p.expert_params_per_gpu));
  }
}

// exposed_data_parallel_of_stages with each stage's parts given (the planner's, which keeps
// them per ZeRO stage). evaluate() keeps its own loop, which builds each stage's parts where
// it uses them: built through this one, with a vector of parts, the page's first-load module
// grew by 230 gzipped bytes, past its budget.
double exposed_data_s(const Scenario& s, const LayoutFacts& f, const CommsReport& comms,
                      const PipelinePace& pace, const StageDataParts& parts) {
  if (!comms.data.active) return 0;
  const std::vector<int>& stages = f.traffic_stages();
  double longest = 0;
  for (size_t i = 0; i < stages.size(); ++i) {
    longest = std::max(longest, exposed_data_of_stage(s, comms, pace, stages[i], parts[i]));
  }
  return longest;
}

// finish_time_of's sum, term for term.
double finished_step_s(const TimeReport& paced, double exposed_data_s, double optimizer_s) {
  return step_but_optimizer_of(paced, exposed_comms_of(paced, exposed_data_s)) + optimizer_s;
}

double optimizer_shard(const Scenario& s, const LayoutFacts& f, const StageRuns& runs) {
  return optimizer_shard_of(s, f, runs);
}

double optimizer_time_s(const Scenario& s, int pp, double shard) {
  return optimizer_step_s(s, pp, shard);
}

double step_floor_s(const Scenario& s, const StageTimes& stage_times,
                    const PipelineReport& pipeline) {
  // The step holds m micro-batches of the pacing stage k, one of the runs' first stages
  // (pace_of_times), each T_k at least the least stage's: its compute and the tensor,
  // context, expert and host traffic it exposes (paced_time), the sends and the bubble beside.
  double least = INFINITY, all = 0;
  for (size_t i = 0; i < stage_times.runs.count; ++i) {
    const double t = stage_times.times[i].total_s();
    least = std::min(least, t);
    all += stage_times.runs.size(i) * t;
  }
  const int mb = pipeline.microbatches;
  // pipeline_bubble: a schedule that splits the backward may scale its bubble to nothing.
  // Otherwise, with the share k of the bubble paid, m T_k + k (sum_i T_i - T_k) / v, the few
  // micro-batches' span only adding: (m - k/v) T_k + k sum_i T_i / v, where T_k is at least
  // T_min and at most the sum (the one or the other bound as its coefficient is positive or
  // not). These terms are summed here in another order than the step's, so the floor gives up
  // a billionth, where their roundings differ by some 1e-15.
  const double v = pipeline.virtual_stages;
  const int pp = stage_times.runs.starts[stage_times.runs.count];  // stage_runs: starts[count]
  const double k = bubble_share(s, pp, pipeline.virtual_stages, mb);
  const double own = mb - k / v;  // T_k's coefficient
  const double floor_s = splits_weight_grad(s.recipe.schedule)
                             ? mb * least
                             : own * (own >= 0 ? least : all) + k * all / v;
  return floor_s * (1 - 1e-9);
}

// Rounding is monotone: a sum of the same terms with one of them no larger rounds to no more.
double step_floor_s(const TimeReport& paced) {
  return step_but_optimizer_of(paced, exposed_comms_of(paced, 0));
}

void finish_time(const Scenario& s, const LayoutFacts& f, double exposed_data_s,
                 int effective_global_batch, double optimizer_s, TimeReport& t) {
  finish_time_of(s, f, exposed_data_s, effective_global_batch, optimizer_s, t);
}

TimeReport time_report(const Scenario& s, const LayoutFacts& f, const PipelineReport& pipeline,
                       const CommsReport& comms, int effective_global_batch,
                       const PipelinePace& pace) {
  TimeReport t = paced_time_of(s, f, pipeline, pace, kernel_efficiencies_of(s, f));
  const double optimizer_s =
      optimizer_step_s(s, f.degrees().pp, optimizer_shard_of(s, f, pace.runs));
  const double data_s = exposed_data_parallel_of_stages(s, f, comms, pace, pace.microbatches);
  finish_time_of(s, f, data_s, effective_global_batch, optimizer_s, t);
  return t;
}

double bubble_fraction(const TimeReport& t) { return t.bubble_s / t.step_s; }

}  // namespace pe
