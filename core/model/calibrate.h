// Calibration: one measured step on the user's own fleet refits the constants no analytic
// model can know (how fast its matmuls run, how much of each link NCCL reaches, what the
// framework holds beyond the model's tensors), so every later number and the planner follow
// that fleet; a second run of another layout also tells how much of the pipeline bubble the
// fleet's runs pay. The scenario's `calibration` block holds the runs (scenario.h Calibration).
#pragma once

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "model/result.h"
#include "model/scenario.h"

namespace pe {

// One constant, before (the measured run's own value: its GPU preset's, or as set) and after.
struct FittedConstant {
  const char* key;  // the scenario field it sets: "efficiency", "nvlink_efficiency", ...
  double before = 0;
  double after = 0;
  const char* unit = "";
  std::string how;  // "fitted to the measured step time", or why it was held fixed
  // The value the user set in the scenario that the fit replaced (NaN: none). A constant the
  // user set that the run does not measure is held at the user's value instead.
  double replaced = std::nan("");
};

// A measured figure against the model's, before and after the fit.
struct Residual {
  const char* key;  // the calibration field: "step_time_s", "second_step_time_s", ...
  double measured = 0;
  double before = 0;
  double after = 0;
  double error() const { return after / measured - 1; }
};

struct CalibrationFit {
  std::string title;  // "8 × H100-80GB, 2026-11-28"
  std::vector<FittedConstant> constants;
  std::vector<Residual> residuals;
};

// "8 × H100-80GB" and the user's name for the run, if any: how a report names it.
std::string calibration_title(const Calibration& c);

// The constants the run reveals, each within its physical bound: the link efficiencies from
// measured bus bandwidths, the matmul efficiency so the model's step time meets the measured
// one, the memory overhead so its peak meets the measured peak; with a second run whose bubble
// differs, the share of the bubble paid and the matmul efficiency so both steps are met. A
// figure no constant within bounds can reach, two steps that contradict each other, or a run on
// another GPU than `s`'s (its name, peaks, memory or links differ), is a Problem naming its key.
// `user_set`: the scenario's keys the user gave; of the constants (efficiency,
// nvlink_efficiency, network_efficiency, overhead_gb, bubble_paid), one the runs measure
// replaces the user's value (FittedConstant::replaced), one they do not is held at it.
// Residuals: step_time_s, peak_memory_gb, tflops_per_gpu, second_step_time_s, as measured.
Result<CalibrationFit> fit_calibration(const Scenario& s,
                                       const std::set<std::string>& user_set = {});

// `s` with the fitted constants in place.
void apply_calibration(const CalibrationFit& fit, Scenario& s);

}  // namespace pe
