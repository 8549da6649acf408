// Pipeline schedules laid out in time, for drawing: which stage runs which pass of which
// micro-batch when.
#pragma once

#include <vector>

#include "model/result.h"
#include "model/scenario.h"

namespace pe {

// A block's pass: the forward (F), the backward (B: the input gradient, or the whole backward
// where the schedule does not split it) and the weight gradient (W).
enum class Pass { kForward, kBackward, kWeight };

struct TimelineBlock {
  int stage;  // the GPU's pipeline rank
  int microbatch;
  Pass pass;
  int start;     // in units of one forward pass of one stage (of one chunk in a V)
  int duration;  // 1F1B: forward 1, backward 2; the others split it, every pass 1
};

// PipeDream-Flush / 1F1B (Narayanan et al. 2021, Sec. 2.2.1, Fig. 4): stage i runs
// min(p-i-1, m) warm-up forwards, then alternates one forward and one backward, then drains
// the remaining backwards. Each op starts when its stage is free and its input has arrived
// (forward from stage i-1, backward from stage i+1). The idle gaps are the bubble: the span is
// 3 (m + p - 1) units against 3 m of work.
std::vector<TimelineBlock> one_f_one_b_timeline(int stages, int microbatches);

// The schedule's own order, F = B = W = 1 unit (the tables' assumption, pipeline.h):
//   1F1B, interleaved   one_f_one_b_timeline (interleaving drawn as plain 1F1B)
//   ZB-H1               1F1B's order, B in the backward's place and stage i's W i micro-batches
//                       later (Qi et al. 2023 Sec. 3): span 3m + (p-1), the bubble (p-1)(F+B-W)
//   DualPipe            DeepSeek's per-rank order (DualPipe repository, dualpipe.py: 8 steps of
//                       forwards, zero-bubble backwards and forward-backward pairs, drawn one
//                       after the other) over two directions of m/2 micro-batches each
//   DualPipeV           the same order cut in half onto a V of 2 chunks per GPU (dualpipev.py)
//   ZB-V, m >= 2p       its own V (Qi et al. 2024): each slot a ready backward first, else a
//                       forward within 1F1B's activations (2p chunks), else a waiting W; GPU i
//                       runs from slot i to slot 6m + i without a gap, so the span is
//                       6m + p - 1 and the slanted ends are the steps before and after
//                       (ends_overlap); drawn from m >= p on with 2p micro-batches
//   ZB-V, m < p         every forward through the V one GPU's forward apart, then every
//                       backward one B apart, each W in the first free slot after its B: the
//                       span pipeline.h few_microbatch_span counts, 4 (p + m - 1) + 1 units or,
//                       where the W wait at the V's turn, 2 (p + m - 1) + p - 1 + 4m
std::vector<TimelineBlock> schedule_timeline(Schedule schedule, int stages, int microbatches);

// Whether the drawing's slanted start and end belong to the steps before and after it, not to
// the bubble: ZB-V's V from p micro-batches on, whose GPUs each run one slot after the last
// and stop one slot after it. The zero-bubble schedules' optimizer step runs without a barrier
// across the stages (Qi et al. 2023, arXiv:2401.10241: bypassing optimizer synchronizations),
// so the next step's first forwards fill the end; the model counts no bubble for it
// (pipeline.h bubble_scale).
bool ends_overlap(Schedule schedule, int stages, int microbatches);

// The fewest micro-batches the schedule's drawing lays out (its requirement, pipeline.h).
int least_drawn_microbatches(Schedule schedule, int stages);
// The micro-batches the drawing of m lays out: m, or the fewest it needs (ZB-V draws m < p as
// it runs them, and from p on its gapless V, which needs 2p).
int drawn_microbatches(Schedule schedule, int stages, int microbatches);

// Why the schedule cannot run `stages` stages and `microbatches` micro-batches, under the key
// at fault ("stages" or "microbatches"), or an empty Problem: evaluate's own rule
// (pipeline.h schedule_stages_problem, schedule_microbatches_problem), so a drawing never
// shows what a scenario is refused for (DualPipe on 3 stages).
Problem timeline_problem(Schedule schedule, int stages, int microbatches);

}  // namespace pe
