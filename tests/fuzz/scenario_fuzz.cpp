// libFuzzer target: scenario JSON text -> pe::evaluate_json. Nothing a reader types or shares
// in a URL may crash, hang, or produce a report with NaN, infinite or negative numbers.
// Build and run: scripts/fuzz [SECONDS]. Checks: report_checks.h.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "contract.h"
#include "report_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string out = pe::evaluate_json(text, /*with_ranks=*/true);
  const nlohmann::json first = pe::fuzz::check_output(out, /*with_ranks=*/true);
  if (first.contains("error")) return 0;

  // The resolved scenario reads back to the same report (README: "reading it back gives the
  // same report"), and from then on to the same scenario too. Not the same scenario at once: a
  // custom GPU whose numbers equal the default preset's reads back under the preset's name.
  const std::string again = pe::evaluate_json(first["scenario"].dump(), true);
  nlohmann::json second = pe::fuzz::check_output(again, true);
  if (second.contains("error")) pe::fuzz::fail("the resolved scenario is refused: " + again, "/scenario", out);
  nlohmann::json report = first, report_again = second;
  report.erase("scenario");
  report_again.erase("scenario");
  if (report != report_again) {
    pe::fuzz::fail("the resolved scenario reads back to a different report:\n" + again.substr(0, 400),
                   "/scenario", out);
  }
  if (pe::evaluate_json(second["scenario"].dump(), true) != again) {
    pe::fuzz::fail("the resolved scenario is not a fixed point", "/scenario", again);
  }
  return 0;
}
