// Published training runs, to hold the model against. Each is a scenario in the contract's
// JSON and the figure its paper reports: an iteration time, a throughput or an MFU.
#pragma once

#include <string>
#include <vector>

namespace pe {

enum class Metric {
  kStepSeconds,
  kTflopsPerGpu,
  kMfu,
  kGpuHoursPerTrillionTokens,  // report.cost (DeepSeek-V3's unit)
  kParams,                     // report.model_params
  kActiveParams,               // report.model_active_params
};

struct ReferenceRun {
  std::string name;
  std::string source;  // paper and table
  std::string table;   // the group the run is checked with ("Korthikanti et al. 2022, Table 5")
  std::string scenario_json;
  Metric metric = Metric::kTflopsPerGpu;
  double published = 0;  // 0 where the source gives no figure (then only the fit is checked)
};

const std::vector<ReferenceRun>& reference_runs();

// The model's value of a run's metric: report.time.<key> for times, throughputs and MFU,
// report.cost.<key> for GPU-hours, report.<key> for parameter counts.
const char* metric_key(Metric metric);      // "step_s", "tflops_per_gpu", "mfu", ...
const char* metric_section(Metric metric);  // "time", "cost" or "" (the report itself)

// [{name, source, table, metric, section, published, predicted, error, report}] with the
// model's report of each: predicted is report[section][metric] (report[metric] when section is
// ""); error = predicted / published - 1 (null without a published figure).
std::string reference_runs_json();

}  // namespace pe
