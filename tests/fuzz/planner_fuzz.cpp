// libFuzzer target: scenario JSON text -> pe::plan_json (the planner). Whatever the scenario,
// the planner answers with an error or with plans whose numbers are sane, fastest first, each
// fitting and each matching its own scenario's report; checks in report_checks.h.
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
  const std::string problem = pe::fuzz::check_plan_text(
      text, 5, [](std::string_view t, int k) { return pe::plan_json(t, k); },
      [](std::string_view t) { return pe::evaluate_json(t, false); });
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz check failed: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
