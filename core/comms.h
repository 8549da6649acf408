// What crosses the wire, per GPU per training step, for each seam.
#pragma once

#include "report.h"
#include "scenario.h"

namespace pe {

// `grad_params` is the parameter shard whose gradients the DP group reduces (the most-loaded
// GPU's); `stage_layers` the layers on the most-loaded stage; `microbatches` is m.
CommsReport comms_report(const Scenario& s, const Degrees& d, double grad_params,
                         int stage_layers, int microbatches);

}  // namespace pe
