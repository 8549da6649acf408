// The core's one entry point: a scenario in, a report out.
#pragma once

#include <string>
#include <vector>

#include "model/report.h"
#include "model/result.h"
#include "model/scenario.h"

namespace pe {

// The degrees a scenario runs with: its explicit degrees, else the seams auto-factored.
Degrees resolve_degrees(const Scenario& s);

// Why the core would refuse degrees d for this scenario (empty when it accepts them): the
// product must be the GPU count, and PP (times the virtual stages when interleaved) at most
// the layer count, since every stage needs a layer.
Problem layout_problem(const Scenario& s, const Degrees& d);

// Every DP x TP x PP the core accepts for the scenario's GPU count and model, TP then PP
// ascending: what a page may offer as explicit degrees.
std::vector<Degrees> accepted_layouts(const Scenario& s);

// Validates the scenario (validate.h) and computes the report. `with_ranks` = false skips the
// per-rank list, which the planner and the page's fleet-scale view do not need.
Result<Report> evaluate(const Scenario& s, bool with_ranks = true);

}  // namespace pe
