#include "planner/dropped.h"

#include <string>

#include "model/context.h"
#include "model/pipeline.h"
#include "model/text.h"

namespace pe {

unsigned lever_bits(const Scenario& s, const Degrees& d) {
  unsigned bits = 0;
  if (d.ep > 1) bits |= 1u << kEp;
  if (d.cp > 1) bits |= 1u << kCp;
  if (s.recipe.precision.fp8) bits |= 1u << kFp8;
  if (s.recipe.recompute == Recompute::kFull) bits |= 1u << kFull;
  if (s.recipe.recompute == Recompute::kSelective) bits |= 1u << kSelective;
  if (s.recipe.offload_layers > 0) bits |= 1u << kOffload;
  if (d.pp > 1 && splits_weight_grad(s.recipe.schedule)) bits |= 1u << kSplitBackward;
  return bits;
}

namespace {

std::string layout_text(const Degrees& d) {
  return "DP " + std::to_string(d.dp) + " x TP " + std::to_string(d.tp) + " x PP " +
         std::to_string(d.pp) + (d.cp > 1 ? " x CP " + std::to_string(d.cp) : std::string()) +
         (d.ep > 1 ? " (EP " + std::to_string(d.ep) + ")" : std::string());
}

// Long steps as whole seconds ("11,400 s"), short ones as the page writes them ("11.5 s").
std::string step_text(double s) {
  return s >= 1000 ? count_text(std::llround(s)) + " s" : seconds_text(s);
}

std::string what_of(Lever lever, const Degrees& d) {
  switch (lever) {
    case kEp:
      return "EP " + std::to_string(d.ep);
    case kCp:
      return "CP " + std::to_string(d.cp);
    case kFp8:
      return "FP8";
    case kFull:
      return "full recomputation";
    case kSelective:
      return "selective recomputation";
    case kOffload:
      return "activation offload";
    case kSplitBackward:
      return "zero-bubble and DualPipe schedules";
    default:
      return "";
  }
}

// The scenario's own rule against a lever the search never tried, or "" if none applies.
std::string ruled_out(const Scenario& base, Lever lever) {
  if (lever == kCp) {
    Degrees d;
    d.cp = 2;
    return context_problem(base, d).message;  // the core's rule, as evaluate gives it
  }
  if (lever == kFp8 && base.gpu.fp8_tflops <= 0) {
    return "the " + base.gpu.name + " has no FP8 peak (gpu_fp8_tflops 0)";
  }
  return "";
}

}  // namespace

DroppedList dropped_levers(const Scenario& base, const PlanResult& r, const LeversSeen& seen,
                           PlanRank ranked_by) {
  DroppedList out;
  if (r.top.empty()) return out;
  const Plan& best = r.top.front();
  const unsigned used = lever_bits(scenario_of(base, best), best.degrees);
  double closest = INFINITY;  // memory-refused ones rank by bytes / limit, below 1e9 + slowdown
  for (int i = 0; i < kLevers; ++i) {
    const Lever lever = static_cast<Lever>(i);
    if (used & (1u << i)) continue;
    if (lever == kEp && !base.model.moe()) continue;
    const LeversSeen::Seen& s = seen.by[static_cast<size_t>(i)];
    double rank = INFINITY;
    Dropped d;
    if (std::isfinite(s.step_s)) {
      // Slower by what the plans are ranked by: with failures a plan with a shorter step can
      // rank below the best (its checkpoints pause it longer).
      const double slower = s.rank_s / best.figures.rank_s - 1;
      const char* by =
          ranked_by == PlanRank::kTimeWithFailures ? "% slower to train with failures" : "% slower";
      d = {what_of(lever, s.fastest), "its fastest plan, " + layout_text(s.fastest) + ", takes " +
                                          step_text(s.step_s) + " a step, " +
                                          short_number(100 * slower) + by};
      rank = 1e9 + slower;
    } else if (std::isfinite(s.least_bytes)) {
      d = {what_of(lever, s.least_at), "needs " + bytes_text(s.least_bytes) + " per GPU against " +
                                           bytes_text(r.memory_limit_bytes) + " usable"};
      rank = s.least_bytes / r.memory_limit_bytes;
    } else {
      const std::string why = ruled_out(base, lever);
      if (why.empty()) continue;
      d = {what_of(lever, Degrees{}), why};
      if (lever == kCp) d.what = "CP";
    }
    if (rank < closest) {
      closest = rank;
      out.decisive = static_cast<int>(out.list.size());
    }
    out.list.push_back(std::move(d));
  }
  return out;
}

}  // namespace pe
