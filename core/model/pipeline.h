// The pipeline: how the layers are split over the stages, micro-batches per step, and the
// schedule's shape. The bubble's length depends on the stages' times (step_time.h).
#pragma once

#include <string>

#include "model/report.h"
#include "model/scenario.h"

namespace pe {

// Layers per stage as Megatron-Core places them (transformer_block.py get_num_layers_to_build):
// first_stage_layers / last_stage_layers set the end stages and the rest divide evenly over the
// middle ones. Without them p must divide L; when it does not but divides L + 2, the embedding
// and the loss count as a layer each (--account-for-embedding/loss-in-pipeline-split): 126
// layers on 16 stages give 7 + 14 x 8 + 7, Llama 3 405B's split. Otherwise Megatron refuses,
// and the extra layers go one each to the last middle stages (the report warns).
StageSplit stage_split(const Scenario& s, int pp);

// Why the split cannot be built ("" when it can): explicit end stages must leave at least one
// layer for each middle stage, and the rest must divide over them (Megatron's assertion).
std::string split_problem(const Scenario& s, int pp);

// m = B / (b d), rounded up so every replica gets whole micro-batches (the report then
// states the effective global batch).
int microbatches_per_step(const Scenario& s, const Degrees& d);

// Micro-batches, virtual stages and the split; bubble_fraction is filled in by step_time.
PipelineReport pipeline_report(const Scenario& s, const Degrees& d);

}  // namespace pe
