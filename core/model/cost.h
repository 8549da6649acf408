// What a run costs: GPU-hours and money per step, per day and for a token budget. Every GPU
// in the fleet is paid for, idle or not.
#pragma once

#include "report.h"
#include "scenario.h"

namespace pe {

CostReport cost_report(const Scenario& s, const TimeReport& time);

// GPU-hours per trillion tokens: gpus x (1e12 / tokens per second) / 3,600 (DeepSeek-V3's unit,
// arXiv:2412.19437 Sec. 1). The planner's plans use it too.
double gpu_hours_per_trillion_tokens(int gpus, double tokens_per_s);

}  // namespace pe
