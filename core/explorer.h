// The core's one entry point: a scenario in, a report out.
#pragma once

#include "report.h"
#include "result.h"
#include "scenario.h"

namespace pe {

// The degrees a scenario runs with: its explicit degrees, else the seams auto-factored.
Degrees resolve_degrees(const Scenario& s);

// Validates the scenario (validate.h) and computes the report. `with_ranks` = false skips the
// per-rank list, which the planner and the page's fleet-scale view do not need.
Result<Report> evaluate(const Scenario& s, bool with_ranks = true);

}  // namespace pe
