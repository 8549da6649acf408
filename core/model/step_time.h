// Step time, MFU and HFU.
#pragma once

#include <array>
#include <vector>

#include "model/comms.h"
#include "model/gemm_shape.h"
#include "model/layout_facts.h"
#include "model/report.h"
#include "model/scenario.h"

namespace pe {

// Per micro-batch on pipeline stage i with n_i layers (the last also runs the output layer):
//   matmul_i  = its FLOPs (recomputation included) / (t x peak x matmul efficiency)
//   memory_i  = its elementwise bytes / HBM bandwidth: layer norms, softmax, dropout, GeLU and
//               residuals move about 5x the bytes the layer stores for its backward
//               (Korthikanti Table 2; each stored tensor is written and read in the forward
//               pass, read in the backward, its gradient written and read): 7x with full
//               recomputation (the forward again)
//   tensor_i  = its TP collectives' time, with tp_comm_overlap hidden behind the linear GEMMs
//               of the same pass: the forward's collectives behind the forward's GEMMs, the
//               backward's behind the backward's (each pass's own, never the other's); only
//               while the TP group stays in the NVLink domain (Transformer Engine's userbuffers)
//   T_i       = matmul_i + memory_i + tensor_i
// The pipeline runs at the pace of its slowest stage k (1F1B):
//   compute   = m (matmul_k + memory_k);  exposed tensor = m tensor_k
//   bubble    = (sum_i T_i - T_k) / v     ((p-1)/v x T for equal stages: Narayanan Sec. 2.2);
//               the schedules that split the backward scale (sum_i T_i - max_i T_i) by
//               bubble_scale (pipeline.h) from that longest stage's forward and
//               weight-gradient shares (DualPipe's B a backward run alone)
//   pipeline  = stage k's point-to-point sends, on the critical path (not overlapped)
//   data      = the gradient reduction and weight gather, each hidden behind the backward
//               (overlap_grad_reduce) or forward (overlap_param_gather) of one micro-batch of
//               each stage, every micro-batch with ZeRO-2/3; exposed in full otherwise. The
//               forward is its FLOPs without recomputation and 2 of the 5 elementwise passes;
//               the backward the rest of the micro-batch, recomputation included; each less
//               what that pass already hides of the tensor, context and expert traffic
//               (StageTime::forward_free_s, backward_free_s). ZeRO-3's
//               backward gather and its reduce-scatter share one backward. Every stage
//               reduces its own shard at once: the longest exposed one counts
//   optimizer = Adam's pass over the GPU's optimizer shard at HBM bandwidth
//   offload_i = the offloaded layers' copies to and from the host (host_link_gb_s), each behind
//               its pass's compute, the excess exposed
//   step      = compute + bubble + exposed data, tensor, pipeline + exposed offload + optimizer
// With FP8 or FP4 (precision.fp8, precision.fp4) the layers' GEMMs run at gemm_rate_flops; the
// attention core and the output layer at BF16's.
// MFU = model FLOPs / (step x GPUs x peak); HFU the same with hardware FLOPs (Korthikanti
// Sec. 6.3; PaLM App. B), both against utilisation_peak_tflops, so neither passes 1 (an FP8
// run's model FLOPs against the BF16 peak can: GB200's FP8 GEMMs run at twice it).
// mfu_bf16_peak and mfu_fp8_peak are MFU against each peak, named. bubble_fraction = bubble /
// step.
// The peak MFU and HFU are against: the one the layers' GEMMs run at (FP8's under FP8, FP4's
// under FP4), never below BF16's, at which the attention core and the output layer run.
double utilisation_peak_tflops(const Scenario& s);
// The pipeline's idle share of the step (the report's pipeline.bubble_fraction, a plan's).
double bubble_fraction(const TimeReport& t);

// The rate the transformer layers' GEMMs run at, FLOP/s: BF16's, dense peak x matmul
// efficiency, times the precision's speedup over it. The speedup is the GPU's measured one
// (GpuSpec::fp8_gemm_speedup, fp4_gemm_speedup: Transformer Engine's GEMM benchmark, quantization
// included) and never more than the ratio of the peaks, which it is when none is measured.
double gemm_rate_flops(const Scenario& s);

// One micro-batch on one stage: matmuls, memory-bound kernels and the communication they do
// not hide.
struct StageTime {
  double matmul_s = 0;
  double memory_s = 0;
  double tensor_s = 0;   // exposed
  double context_s = 0;  // exposed
  double expert_s = 0;   // exposed
  // Exposed: offloaded activations' copies beyond the pass they ride behind, the forward's
  // (out to the host) and the backward's (back in).
  double offload_forward_s = 0;
  double offload_backward_s = 0;
  // Of matmul_s + memory_s, the forward pass alone: its FLOPs without recomputation and the
  // elementwise passes it makes. The rest is the backward, recomputation included: the window
  // the gradient reduction hides behind.
  double forward_s = 0;
  // Of the backward, the weight-gradient GEMMs (W, Qi et al. 2023 Sec. 2): the layers' linear
  // FLOPs once more, at their rate; the attention core's backward is all input gradient (B).
  double weight_grad_s = 0;
  // The tensor, context and expert traffic its compute hides (their time on the wire less
  // what is exposed).
  double hidden_s = 0;
  // Each pass's compute that hides none of that traffic: the windows for the data-parallel
  // weight gather (forward) and gradient reduction (backward). They add up to compute_s() -
  // hidden_s (less W where the schedule runs it apart), and each grows with its own pass's
  // compute and shrinks as its own pass hides more, so no faster matmul or overlap switch
  // moves a window from one pass to the other (laws).
  double forward_free_s = 0;
  double backward_free_s = 0;
  // A backward run alone, with nothing to pair with: its compute, its own exposed collectives
  // and its all-to-alls (exposed, or behind its own compute with expert_comm_overlap): B in
  // DualPipe's bubble (pipeline.h bubble_scale).
  double backward_alone_s = 0;
  double compute_s() const { return matmul_s + memory_s; }
  double offload_s() const { return offload_forward_s + offload_backward_s; }
  double total_s() const {
    return matmul_s + memory_s + tensor_s + context_s + expert_s + offload_s();
  }
  // The forward's wall time before its host copies: its compute and the traffic it leaves
  // exposed itself (each pass hides its own, pipeline_pace), the exposed all-to-alls by their
  // forward share. A fixed share of the whole micro-batch's exposed traffic (a third, once)
  // let faster backward GEMMs, whose saving the backward's collectives took back, move the
  // copies' windows and lengthen the step (laws).
  double forward_wall_s = 0;
  // The forward pass as a schedule places it (F in pipeline.h): its wall time and the host
  // copies it waits for. F as the forward's compute alone left its exposed collectives in B,
  // and faster forward GEMMs, whose saving the forward's collectives took back, moved time from
  // F to B and lengthened a V's span with few micro-batches (a law).
  double forward_pass_s() const { return forward_wall_s + offload_forward_s; }
};

// The pipeline's pace: its slowest stage (per micro-batch), every stage's time summed (for the
// bubble) and the slowest stage's sends. It depends on b, the schedule, SP and recomputation
// but not on ZeRO, so the planner computes it once for the four ZeRO stages.
struct PipelinePace {
  int slowest_stage = 0;
  StageTime slowest;
  double sum_forward_s = 0;  // every stage's forward pass (forward_pass_s), summed as sum_s is
  // The stage whose micro-batch is longest (its compute and exposed traffic): the schedules
  // that split the backward take their bubble from it (pipeline.h), whichever stage the sends
  // make the pace's, so that their bubbles compare on the same stages.
  StageTime longest;
  double sum_s = 0;
  double sum_weight_grad_s = 0;  // every stage's W, summed as sum_s is
  double exposed_pipeline_s = 0;
  // Each kind of stage's window for its gradient reduction (memory.h stage_runs, by run): its
  // own backward beside what that already hides, and the time it waits for the pacing stage
  // every micro-batch (its pace's shortfall), when its network is free too. One stage's window
  // for all let faster matmuls, which moved the pace to a stage with a shorter backward,
  // lengthen the step (a law).
  StageRuns runs;
  std::array<double, kStageRuns> backward_window_s{};
  double backward_window_of(int stage) const;
  // Each kind of stage's window for its weight gather (overlap_param_gather): its own forward's
  // free compute (StageTime::forward_free_s) and the host copies it waits for, and under
  // ZeRO-1 its wait for the pacing stage (a faster stage's gather may not cost more than the
  // pacing stage saves). Not its exposed traffic: an overlap switch turns exposed traffic
  // into hidden, and a window holding a share of it shrank with the switch, beside the
  // backward's (which hidden traffic narrows), by more than the switch saved: under ZeRO-3
  // tp_comm_overlap lengthened a step. Not the forward's whole compute either: FP8 GEMMs
  // shortened it while the backward's collectives, hidden behind the whole micro-batch,
  // took their saving back, and the gather's exposure lengthened the step. Not the longest
  // forward of any stage: FP8, speeding another stage's forward more than the pacing
  // stage's, lengthened a step.
  std::array<double, kStageRuns> gather_window_s{};
  std::array<double, kStageRuns> wait_s{};  // the wait for the pacing stage, per micro-batch
  int microbatches = 1;
  double gather_window_of(int stage, int zero_stage) const;
};
PipelinePace pipeline_pace(const Scenario& s, const LayoutFacts& f, const PipelineReport& pipeline);

// One micro-batch on the first stage of each run (memory.h stage_runs) before a schedule places
// it: its compute, the attention core's time (the ring passes' window), the traffic its layers
// send and its offloaded layers' copy each way. It depends on b, SP, the precision and
// recomputation but not on the schedule, so the planner builds it once for every schedule it
// tries and gives it to pipeline_pace.
struct StageWork {
  // A stage's matmuls but the GEMMs' rate, which the precision sets: the layers' GEMM FLOPs
  // and the time of what stays BF16 (the attention core and the output layer).
  struct Matmuls {
    double gemm_flops = 0;
    double bf16_s = 0;
  };
  struct Stage {
    StageTime st;  // matmul_s, memory_s, forward_s and weight_grad_s
    double core_s = 0;
    LayerTraffic wire;
    double offload_copy_s = 0;
    Matmuls matmuls;              // under the recipe's recomputation
    Matmuls plain;                // with none
    double forward_memory_s = 0;  // the forward's memory-bound kernels
  };
  StageRuns runs;
  std::array<Stage, kStageRuns> stages;
};
// Into `work`, written in place (the planner keeps one per recomputation choice): its stages
// past its runs' count are left as they were, and nothing reads them.
void stage_work(const Scenario& s, const LayoutFacts& f, StageWork& work);
// `work`, built for a recipe under another precision, under the one `s` holds, the recipe
// otherwise the same: only the GEMMs' rate and the offloaded bytes change (stage_work ends
// with the same step).
void restate_precision(const Scenario& s, const LayoutFacts& f, StageWork& work);
// What a micro-batch takes on the first stage of each run under the schedule `s` holds, each
// kind of traffic behind the compute that hides it (StageTime): the same under every schedule
// of one kind (stage_times_kind: 1F1B's and interleaving's; the zero-bubble ones', which run W
// apart; DualPipe's, which also pair passes), so the planner builds it once per kind and gives
// it to pipeline_pace for each schedule, which adds the sends.
struct StageTimes {
  StageRuns runs;
  std::array<StageTime, kStageRuns> times;
};
// Into `times`, in place as stage_work.
void stage_times(const Scenario& s, const LayoutFacts& f, const StageWork& work, StageTimes& times);
int stage_times_kind(Schedule schedule);
// Each stage run's pipeline sends per step (comms.h stage_pipeline_traffic's time; none without
// a pipeline) under the b, SP and schedule `s` holds: what the pace adds to each run's
// micro-batches. The planner keeps them per schedule and SP, as neither depends on the rest.
using RunSends = std::array<double, kStageRuns>;
RunSends pipeline_sends_s(const Scenario& s, const LayoutFacts& f, const StageRuns& runs,
                          int microbatches);
PipelinePace pipeline_pace(const Scenario& s, const LayoutFacts& f, const PipelineReport& pipeline,
                           const StageTimes& times, const RunSends& sends_s);

// The share of the pipeline bubble the step pays: GpuSpec::bubble_paid, held at v / (v - 1)
// where the interleaved schedule laps fewer micro-batches than stages, and at 1 with ZB-V
// (a larger share would let a larger batch take less time).
double bubble_share(const Scenario& s, int pp, int v, int mb);

// The step time of the layout in `f` (what depends on the layout only is read from it, as the
// planner reads it), with the pace given or computed.
TimeReport time_report(const Scenario& s, const LayoutFacts& f, const PipelineReport& pipeline,
                       const CommsReport& comms, int effective_global_batch);
TimeReport time_report(const Scenario& s, const LayoutFacts& f, const PipelineReport& pipeline,
                       const CommsReport& comms, int effective_global_batch,
                       const PipelinePace& pace);
// time_report in two steps, for the planner: what the pace fixes (compute, bubble, the exposed
// traffic but the data seam's, the kernels' efficiencies), once for the four ZeRO stages; then
// what ZeRO changes (the data seam's exposed time, the optimizer step) and the step it makes.
// The kernels' efficiencies a step runs at (TimeReport's matmul_efficiency to expert_load, an
// MoE's last three; 0 for a dense model, as there): the layout's and b's alone, so the planner
// finds them once per b and gives them to paced_time.
struct KernelEfficiencies {
  double matmul = 0;
  double attention = 1;
  double gemm_shape = 1;
  double tokens_per_expert = 0;
  double expert_gemm = 0;
  double expert_load = 0;
};
KernelEfficiencies kernel_efficiencies(const Scenario& s, const LayoutFacts& f);
TimeReport paced_time(const Scenario& s, const LayoutFacts& f, const PipelineReport& pipeline,
                      const PipelinePace& pace, const KernelEfficiencies& kernels);
// The optimizer step, which time_report adds last to the step, in two steps for the planner:
// the largest shard of the parameters a stage's GPU steps under the ZeRO stage `s` holds (a
// layout's, whatever the recipe), then its time under the precision and schedule `s` holds.
double optimizer_shard(const Scenario& s, const LayoutFacts& f, const StageRuns& runs);
double optimizer_time_s(const Scenario& s, int pp, double shard);
// Then, per ZeRO stage, the data seam's exposed time (the stage that exposes most), and the step
// it makes with the optimizer step (optimizer_time_s(s, pp, optimizer_shard(...))), bit for bit
// the step_s finish_time writes: the planner ranks by it and fills the rest of the report
// (MFU, throughput) only for a plan it keeps.
// The data seam's bytes and collectives on each traffic stage (LayoutFacts::traffic_stages'
// order) are the ZeRO stage's, the precision's and the micro-batch count's alone: the planner
// builds them once for those and gives them to exposed_data_s.
using StageDataParts = std::vector<DataParallelParts>;
void data_parallel_parts_of_stages(const Scenario& s, const LayoutFacts& f, int microbatches,
                                   StageDataParts& parts);
double exposed_data_s(const Scenario& s, const LayoutFacts& f, const CommsReport& comms,
                      const PipelinePace& pace, const StageDataParts& parts);
double finished_step_s(const TimeReport& paced, double exposed_data_s, double optimizer_s);
void finish_time(const Scenario& s, const LayoutFacts& f, double exposed_data_s,
                 int effective_global_batch, double optimizer_s, TimeReport& t);
// Floors under finish_time's step before its optimizer step, for a search that skips what it
// could not keep (the planner): a floor plus optimizer_time_s, rounded, is at most the step.
// Before the pace, from the stages' times: m micro-batches of the stage that takes least, and
// with 1F1B or interleaving the bubble those times alone make (the sends and the data seam's
// exposed time are never negative). After it, from paced_time: the step with the data seam's
// traffic all hidden.
double step_floor_s(const Scenario& s, const StageTimes& stage_times,
                    const PipelineReport& pipeline);
double step_floor_s(const TimeReport& paced);

// What one layer of each kind stores with nothing recomputed, per GPU per micro-batch at 16
// bits, and of that what recomputation r re-runs selectively: the memory_i term above moves 5x
// the first and 2x more of what is recomputed.
struct ElementwiseBytes {
  double dense = 0, dense_recomputed = 0;
  double moe = 0, moe_recomputed = 0;
};
ElementwiseBytes elementwise_bytes(const Scenario& s, const ModelShape& shape, const Degrees& d,
                                   Recompute r);

}  // namespace pe
