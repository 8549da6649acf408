// What a run costs: GPU-hours and money per step, per day and for a token budget. Every GPU
// in the fleet is paid for, idle or not.
#pragma once

#include "report.h"
#include "scenario.h"

namespace pe {

CostReport cost_report(const Scenario& s, const TimeReport& time);

}  // namespace pe
