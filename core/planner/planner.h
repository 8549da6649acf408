// The planner: every layout of a run, ranked by estimated step time.
#pragma once

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "model/report.h"
#include "model/scenario.h"

namespace pe {

// What the model says of one configuration: the numbers evaluate() reports for it, as the plan's
// list shows them.
struct Figures {
  double per_gpu_bytes = 0;
  const char* verdict = "fits";  // memory.h fit_verdict: "fits" or "tight" (past 80%)
  double step_s = 0;
  // The share of the wall clock that is new work with failures and checkpoints (goodput.h),
  // and what the plans are ranked by (PlanOptions::rank): the step, or the step over it.
  double effective_time = 1;
  double rank_s = 0;
  double bubble_fraction = 0;
  double mfu = 0;
  double tokens_per_s = 0;
  double usd_per_trillion_tokens = 0;  // cost.h, at the scenario's price per GPU-hour
  CommsReport comms;
};

// One evaluated configuration: its layout, its recipe (the base scenario's with the planner's
// choices, its degrees the layout's and its memory model the full one), and what the model says
// of them. Its scenario is the base scenario with the recipe swapped in (scenario_of).
struct Plan {
  Degrees degrees;
  Recipe recipe;
  Figures figures;
};

// A layout's place in the planner's total order (core/README.md "The planner") among plans of
// equal step and memory: fewer GPUs per model replica (TP x PP x CP: the GPUs one copy of the
// model and one sequence span), then the degrees in the layout's name's order, smaller first.
// The plans (planner.cpp `better`) and the levers the best one drops (dropped.h LeversSeen) break
// ties by it, so no answer depends on the order the search visits layouts in.
inline auto layout_key(const Degrees& d) {
  return std::make_tuple(d.tp * d.pp * d.cp, d.dp, d.tp, d.pp, d.cp, d.ep);
}

// How many variants (ZeRO, recompute, offload, FP8, SP, micro-batch, schedule) each layout keeps.
inline constexpr int kVariantsPerLayout = 8;

// Plans whose step time is within this share of the best one's are ties: the model cannot tell
// them apart. Its step times against published runs (core/README.md, "Validation against
// published runs") are off by 5.0% on average on Korthikanti et al. 2022 Table 5 and by a
// median 5.6% over the three fleets of the leave-one-out table; a lead smaller than that is
// within the model's own error.
inline constexpr double kTieWithin = 0.05;
inline bool ties_with_best(double step_s, double best_step_s) {
  return step_s / best_step_s - 1 < kTieWithin;
}

// A lever the scenario allows that the best plan does not pull (EP, CP, FP8, selective or full
// recomputation, activation offload), and why, with numbers: "EP 8", "needs 95 GB per GPU
// against 64 GB usable".
struct Dropped {
  std::string what;
  std::string why;
};

struct PlanResult {
  long long evaluated = 0;  // configurations whose memory and step time were computed
  long long feasible = 0;   // of those, the ones within GPU memory less the margin
  // One plan per distinct DP x TP x PP layout, the layout's fastest, at most top_k of them:
  // fastest first, in the planner's total order (planner.cpp `better`: step, memory, GPUs per
  // model replica, degrees, choices).
  std::vector<Plan> top;
  // variants[i]: the next fastest configurations of top[i]'s layout (up to
  // kVariantsPerLayout - 1), fastest first.
  std::vector<std::vector<Plan>> variants;
  std::string why_best;               // one sentence on why the first one wins, or why none fits
  std::vector<std::string> warnings;  // the batch too small for the fleet, with a better one
  // What the best plan leaves out and why; the decisive one (see planner.cpp) is also named in
  // why_best. Empty when nothing fits.
  std::vector<Dropped> dropped;
  // Why the space may be empty: layouts (DP x TP x PP) the heads and layers allow, those the
  // global batch does not divide, and the least memory any configuration needed.
  int layouts = 0;
  int layouts_batch_refused = 0;
  int batch_suggested = 0;  // when the batch refuses every layout: the smallest one above it
                            // that some layout's DP divides
  double least_bytes = 0;
  double memory_limit_bytes = 0;  // GPU memory less the headroom margin
  bool cancelled = false;         // the progress callback stopped the search
};

// What the planner ranks by: the step time, or the time to train with failures and checkpoints
// (the step over the effective time, goodput.h), which favours a layout whose checkpoint pauses
// training less (ZeRO shards what each GPU saves).
enum class PlanRank { kStep, kTimeWithFailures };

struct PlanOptions {
  PlanRank rank = PlanRank::kStep;
  // Fraction of GPU memory a plan leaves free: 0 keeps every plan within the GPU, those past
  // safe_memory_fraction() (80%, memory.h) marked tight; 0.2 keeps only plans that fit under
  // it; 0.3 keeps a plan under 70%. (The margin once counted beyond the 80% rule, and
  // the planner never showed a tight plan, though tuned runs run there.)
  double headroom = 0;
  // The largest margin a search takes (plan_json refuses more, naming `headroom`): a plan
  // keeps at least 30% of GPU memory to hold its model.
  static constexpr double kMaxHeadroom = 0.7;
  // Called as the search goes: layouts done, layouts in all, configurations evaluated. It
  // returns false to stop the search: the result is then `cancelled`, with no plans.
  std::function<bool(int, int, long long)> progress;
};

// The space, exhaustively: every (DP, TP, PP, CP) with DP x TP x PP x CP = gpus, TP dividing
// the head count, PP at most the layer count, every CP the core accepts (context.h
// context_problem, with the scenario's context_parallel method), and for an MoE
// every EP dividing DP x CP and the experts (the scenario's expert_tp, which must divide TP);
// ZeRO 0-3; recomputation, activation offload and FP8 from choices.h's small sets; sequence
// parallel off / on (with TP); micro-batch sizes b (powers of two up to 64) that divide the
// global batch per replica; 1F1B, interleaved with every v whose chunks the core accepts
// and Megatron-Core builds by default (pipeline.h chunks_problem, chunks_even), and the
// split-backward schedules where schedule_problem allows them: a layout or configuration is left
// out only by the core's own rules; a layout is kept when it stays within GPU memory less the
// headroom margin (memory.h fit_verdict marks those past the safe fraction tight). The base
// scenario supplies the model, the GPUs, the sequence length and the global batch.
PlanResult plan(const Scenario& base, int top_k, const PlanOptions& options = {});

// A plan as a full scenario, to evaluate or show.
Scenario scenario_of(const Scenario& base, const Plan& p);

}  // namespace pe
