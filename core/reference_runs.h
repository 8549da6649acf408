// Published training runs, to hold the model against. Each is a scenario in the contract's
// JSON and the figure its paper reports: an iteration time, a throughput or an MFU.
#pragma once

#include <string>
#include <vector>

namespace pe {

enum class Metric { kStepSeconds, kTflopsPerGpu, kMfu };

struct ReferenceRun {
  std::string name;
  std::string source;   // paper and table
  std::string table;    // the group the run is checked with ("Korthikanti et al. 2022, Table 5")
  std::string scenario_json;
  Metric metric = Metric::kTflopsPerGpu;
  double published = 0;  // 0 where the source gives no figure (then only the fit is checked)
};

const std::vector<ReferenceRun>& reference_runs();

// The model's value of a run's metric, from its report's time section.
const char* metric_key(Metric metric);  // "step_s", "tflops_per_gpu", "mfu"

// [{name, source, table, metric, published, predicted, error, report}] with the model's report
// of each; error = predicted / published - 1 (null without a published figure).
std::string reference_runs_json();

}  // namespace pe
