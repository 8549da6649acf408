// Step time, MFU and throughput.
#pragma once

#include "report.h"
#include "scenario.h"

namespace pe {

// step = compute + bubble + exposed traffic, where
//   compute = hardware FLOPs / (GPUs x peak x efficiency)     (efficiency is an input)
//   bubble  = compute x bubble fraction                       (Narayanan Sec. 2.2)
//   exposed = TP + PP + DP traffic times, none overlapped: TP all-reduces and PP sends sit on
//             the critical path of every micro-batch, and the DP all-reduce is taken after
//             the pipeline flush as in Megatron-LM 2021. A conservative upper bound.
// MFU = model FLOPs (no recompute) / (step x GPUs x peak) (Korthikanti Sec. 6.3; PaLM App. B).
TimeReport time_report(const Scenario& s, int active_gpus, const PipelineReport& pipeline,
                       const CommsReport& comms, int effective_global_batch);

}  // namespace pe
