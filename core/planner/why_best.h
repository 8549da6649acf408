// The planner's answer in words: why its best plan wins (or why none fits), and what the batch
// costs the fleet.
#pragma once

#include <string>
#include <vector>

#include "model/scenario.h"
#include "planner/planner.h"

namespace pe {

// One sentence on why the first plan wins, in the page's words ("a 23.4% bubble", "72.6 GB"),
// or why the space is empty: the layers and heads, the batch, or memory, with its numbers.
std::string why_best(const Scenario& base, const PlanResult& r, PlanRank rank);

// The batch too small for the fleet: the best plan runs fewer micro-batches than stages, or the
// batch caps DP below one replica per node; each with the batch that would do better.
std::vector<std::string> batch_warnings(const Scenario& base, const PlanResult& r);

}  // namespace pe
