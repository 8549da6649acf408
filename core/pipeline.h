// The pipeline schedule: micro-batches per step and the bubble.
#pragma once

#include "report.h"
#include "scenario.h"

namespace pe {

// m = B / (b d), rounded up so every replica gets whole micro-batches (the report then
// states the effective global batch).
int microbatches_per_step(const Scenario& s, const Degrees& d);

// Bubble as a fraction of the ideal compute time: (p-1)/m for GPipe and 1F1B, (p-1)/(v m)
// interleaved (Narayanan et al. 2021, Sec. 2.2.1-2.2.2).
PipelineReport pipeline_report(const Scenario& s, const Degrees& d);

}  // namespace pe
