// libFuzzer target: scenario JSON text -> pe::evaluate_json. Nothing a reader types or shares
// in a URL may crash, hang, or produce a report with NaN, infinite or negative numbers; the
// checks are in report_checks.h. Build and run: scripts/fuzz [SECONDS].
// Another entry point (the planner) is one more NAME_fuzz.cpp like this one and one pe_fuzz()
// line in CMakeLists.txt; scripts/fuzz picks it up.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "contract/contract.h"
#include "report_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string problem = pe::fuzz::check_scenario_text(
      text, [](std::string_view t) { return pe::evaluate_json(t, /*with_ranks=*/true); });
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz check failed: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
