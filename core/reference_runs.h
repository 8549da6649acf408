// Published training runs, to hold the model against. Each is a scenario in the contract's
// JSON and, where the paper states one, the throughput it reached.
#pragma once

#include <string>
#include <vector>

namespace pe {

struct ReferenceRun {
  std::string name;
  std::string source;
  std::string scenario_json;
  double published_tflops_per_gpu;  // 0 where the source gives none
};

const std::vector<ReferenceRun>& reference_runs();

// [{name, source, published_tflops_per_gpu, scenario, report}] with the model's report of each.
std::string reference_runs_json();

}  // namespace pe
