// The pipeline: how the layers are split over the stages, micro-batches per step, and the
// schedule's shape. The bubble's length depends on the stages' times (step_time.h).
#pragma once

#include <string>

#include "model/report.h"
#include "model/scenario.h"

namespace pe {

// Layers per stage as Megatron-Core places them (transformer_block.py get_num_layers_to_build):
// first_stage_layers / last_stage_layers set the end stages and the rest divide evenly over the
// middle ones. Without them p must divide L; when it does not but divides L + 2, the embedding
// and the loss count as a layer each (--account-for-embedding/loss-in-pipeline-split): 126
// layers on 16 stages give 7 + 14 x 8 + 7, Llama 3 405B's split. Otherwise Megatron refuses,
// and the extra layers go one each to the last middle stages (the report warns).
StageSplit stage_split(const Scenario& s, int pp);

// Why the split cannot be built ("" when it can): explicit end stages must leave at least one
// layer for each middle stage, and the rest must divide over them (Megatron's assertion).
std::string split_problem(const Scenario& s, int pp);

// Why v model chunks per GPU cannot hold this split ("" when they can): p x v at most the
// layers + 2, and a layer in every chunk, but the first stage's first chunk may hold the
// embedding alone and the last stage's last chunk the output layer alone (Llama 3's
// schedule). The split need not divide into v equal chunks: Megatron-Core's does, custom
// schedules run uneven ones (the report warns).
std::string chunks_problem(const Scenario& s, int pp, int v);
// The same rule without its words, for the split `split` (stage_split): the planner asks it of
// every v of every layout, and the words cost it more than the rule.
bool chunks_fit(const Scenario& s, const StageSplit& split, int v);

// Whether v chunks per GPU split every stage's layers evenly, as Megatron-Core's interleaved
// schedule builds them (transformer_block.py get_num_layers_to_build: a stage's layers / v
// per chunk). With the "ends" split the embedding and the loss count as a layer of the first
// and the last chunk (--account-for-embedding/loss-in-pipeline-split): Llama 3 405B's 126
// layers on PP 8 are 16 units a stage, 2 per chunk at v = 8. Uneven chunks need a custom
// layout (Megatron-Core's pipeline_model_parallel_layout, Llama 3's own schedule): evaluate
// accepts them with a warning, and the planner searches what runs without one.
bool chunks_even(const StageSplit& split, int v);

// m = B / (b d), rounded up so every replica gets whole micro-batches (the report then
// states the effective global batch).
int microbatches_per_step(const Scenario& s, const Degrees& d);

// Micro-batches, virtual stages (model chunks per GPU: v interleaved, 2 in a V) and the split;
// bubble_fraction needs the step: evaluate sets it from the time report (step_time.h
// bubble_fraction).
PipelineReport pipeline_report(const Scenario& s, const Degrees& d);

// The schedules that split the backward into B (input gradient) and W (weight gradient, the
// weight-gradient GEMMs: Qi et al. 2023 Sec. 2), those that place 2 chunks per GPU in a V (the
// first chunk down the stages, the second back up), and DualPipe's pairs of one micro-batch's
// forward overlapped with another's backward (F&B, DeepSeek-V3 Sec. 3.2.1). Inline: the
// planner asks them of every stage it times.
inline bool splits_weight_grad(Schedule schedule) {
  return schedule != Schedule::kOneFOneB && schedule != Schedule::kInterleaved;
}
// The schedule as its paper names it, for prose ("ZB-V"; the key's value is "zb_v").
const char* schedule_words(Schedule schedule);
constexpr int kSplitSchedules = 4;  // kZbH1 to kDualPipeV, the last in Schedule
inline bool v_shape(Schedule schedule) {
  return schedule == Schedule::kZbV || schedule == Schedule::kDualPipeV;
}
inline bool overlaps_forward_backward(Schedule schedule) {
  return schedule == Schedule::kDualPipe || schedule == Schedule::kDualPipeV;
}
// Copies of each stage's parameters a GPU holds: DualPipe's ranks hold stage i and stage
// p - 1 - i, so two (DeepSeek-V3 Table 2: 2x); 1 otherwise.
int parameter_copies(const Scenario& s, int pp);

// The bubble as a multiple of (sum_i T_i - T_k), 1F1B's bubble for unequal stages (step_time.h),
// with f = F / T and w = W / T the slowest stage's forward and weight-gradient shares of its
// micro-batch T = F + B + W:
//   1F1B              (p-1)(F+B+W)                           1
//   interleaved       (p-1)(F+B+W) / v                       1 / v        Narayanan 2021 Sec. 2.2
//   ZB-H1             (p-1)(F+B-W)                           1 - 2w       Qi et al. 2023 Sec. 3
//   ZB-V              about 0 (a V of 2 chunks per GPU)      0            Qi et al. 2024 Sec. 3
//   DualPipe          (p/2-1)(F&B + B_full - 3W)             (p/2-1)/(p-1) (2 - f - 3w)
//   DualPipeV         (P/2-1)(F&B + B_full - 3W), P = 2p     (2 - f - 3w) / 2
// DualPipe's F&B (DeepSeek-V3 Table 2, B_full = B + W the whole backward) counts as F + B_full:
// the pair's compute, its communication hidden (what it hides is the expert traffic,
// step_time.h). DualPipeV (DeepSeek's DualPipe repository, README) cuts DualPipe in half onto
// P = 2p stages of half a GPU's layers each, so F, B, W per stage are half a GPU's.
double bubble_scale(Schedule schedule, int pp, int v, double f, double w);

// The pipeline's span when its micro-batches are few for the schedule's own bubble formula,
// which assumes the steady state (0 when that formula holds). T is the longest stage's
// micro-batch (F + B + W), f and w its forward and weight-gradient shares, and P = sum_i T_i / T
// (p for equal stages); m micro-batches:
//   interleaved, m < p   P T + (m - 1) T / v: each micro-batch laps the p stages v times, one
//                        chunk apart, with no other micro-batch to fill the laps (Narayanan
//                        et al. 2021 Sec. 2.2's schedule drawn with m < p; at m = p it is the
//                        formula's m T + (p - 1) T / v)
//   ZB-V, m < p          (P + m - 1) F + max((P + m - 1) B + W / 2, (P - 1) B / 2 + m (B + W)):
//                        every forward through the V, micro-batches one GPU's forward apart
//                        (its two chunks never meet: their slots differ in parity), then every
//                        backward one GPU's B apart, each W in a free slot after its B; where
//                        the two chunks' B fill the V's turn, that GPU's W wait: its
//                        (P - 1) B / 2 start and m (B + W) of work (timeline.h draws it; at m = 1
//                        it is one micro-batch's critical path, P (F + B) + W / 2)
//   ZB-V, m >= p         that span for p - 1 micro-batches, the longest of fewer than p (more
//                        micro-batches never finish sooner: floor(m / 2) there, once, let m = p
//                        finish before p - 1, a law), but never past ZB-H1's m T + (sum_i T_i -
//                        T)(1 - 2w) on the same stages, which the V fills and more (W <= F; a law
//                        too). The V's zero bubble needs many micro-batches: with F = B = W from
//                        about 1.5 (p - 1); from p = 8 ZB-H1's bound at m = p is under what p - 1
//                        span, the one place a micro-batch more shortens this span
// Every other schedule either has its formula hold for any m (1F1B: (m + p - 1) T) or refuses
// few micro-batches (schedule_problem: ZB-H1 m >= p, DualPipe and DualPipeV m >= 2p).
// Every stage's F, B and W summed (sum_i) and the longest stage's own take P F, P B, P W and
// F, B, W in those formulas: stages whose shares differ from the longest's then still span at
// least one micro-batch's chain, sum_i (F_i + B_i) + W / 2 at m = 1.
struct Passes {
  double forward_s = 0, backward_s = 0, weight_grad_s = 0;
};
double few_microbatch_span(Schedule schedule, int pp, int v, int m, const Passes& sum,
                           const Passes& longest);
// The same for equal stages' shares: sum_i = stages x the longest's, T = F + B + W, f = F / T,
// w = W / T.
double few_microbatch_span(Schedule schedule, int pp, int v, int m, double stages, double T,
                           double f, double w);

// Micro-batches whose activations stage i holds at its peak, in units of the stage's own
// layers' activations for one micro-batch:
//   1F1B, ZB-H1   min(p - i, m)               (Narayanan Sec. 2.2.1; Qi et al. 2023 Sec. 3: p)
//   interleaved   1F1B's x (1 + (p-1)/(p v))  (Korthikanti Sec. 4.2.3)
//   ZB-V          min(p, m) on every stage    (Qi et al. 2024: 1F1B's peak, balanced)
//   DualPipe      min(p + 1, m) on every rank (DeepSeek-V3 Table 2: PP + 1)
//   DualPipeV     (2p + 1) / 2 on every rank  (DualPipe README: PP + 1 chunks of half a GPU's)
double inflight_microbatches(const Scenario& s, const Degrees& d, int stage, int microbatches);

// Why the schedule cannot run this layout ("" when it can), what its paper or repository
// requires: ZB-H1 m >= p (Qi et al. 2023 Sec. 3); a V an even number of layers on every
// stage (2 chunks per GPU); DualPipe an even p, an even m and m >= 2p (DualPipe repository,
// dualpipe.py); DualPipeV m >= 2p (dualpipev.py).
std::string schedule_problem(const Scenario& s, const Degrees& d, int microbatches);
// Whether schedule_problem refuses, without its words: the planner asks it of every layout and
// micro-batch count, and most split schedules are refused there.
bool schedule_refused(const Scenario& s, const Degrees& d, int microbatches);

// The two parts of that rule that need no model, which the timeline's drawing applies too
// (timeline.h timeline_problem): on the stages, DualPipe's even p; on the micro-batches,
// DualPipe's and DualPipeV's m >= 2p (DualPipe's even) and ZB-H1's m >= p. `what_m` follows m
// in the words ("4" + " micro-batches").
std::string schedule_stages_problem(Schedule schedule, int stages);
std::string schedule_microbatches_problem(Schedule schedule, int stages, int microbatches,
                                          const char* what_m);

}  // namespace pe
