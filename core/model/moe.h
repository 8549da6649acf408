// Expert parallelism: the routed experts of a mixture of experts (mlp_shape.h) split over EP
// ranks carved out of the data and context ranks (Megatron-Core), their model states under
// ZeRO over the expert-data-parallel group, and the expert all-to-alls.
#pragma once

#include "model/mlp_shape.h"
#include "model/report.h"
#include "model/result.h"
#include "model/scenario.h"

namespace pe {

// ---- Memory ----------------------------------------------------------------------------------

// Model states of one GPU: `dense` parameters under ZeRO over the dp x cp ranks that hold the
// same weights (Megatron-Core reduces gradients over data and context ranks together) and
// `expert` parameters under ZeRO over the expert-data-parallel group, the dp cp tp / (ep etp)
// ranks that hold the same experts (Megatron-Core's expert_data_parallel_size).
MemoryBreakdown sharded_model_state_bytes(const Scenario& s, const Degrees& d, double dense_per_gpu,
                                          double expert_per_gpu);
int expert_data_parallel(const Scenario& s, const Degrees& d);

// ---- Traffic ---------------------------------------------------------------------------------

// One expert all-to-all (a dispatch or a combine) per GPU: each token a GPU holds goes to k
// experts, c times padded, h 16-bit values each, and (ep-1)/ep of them leave the GPU
// (Megatron-Core's all-to-all token dispatcher; GShard). A GPU holds s b / cp tokens, split
// further over tp / etp ranks when expert TP is narrower than TP. `moe` is the MoE layer's MLP
// (its k and c); 0 for a dense MLP.
double expert_all_to_all_bytes(const Scenario& s, const MlpShape& moe, const Degrees& d);

// The expert seam's traffic per GPU per step on a stage holding `moe_layers` MoE layers, m
// micro-batches: a dispatch and a combine all-to-all per MoE layer forward, and again backward
// (the gradients retrace both), 4 per layer per micro-batch; full recomputation adds the
// forward pair again. comms.cpp puts it on its link. Idle when ep = 1.
SeamTraffic expert_traffic(const Scenario& s, const MlpShape& moe, const Degrees& d, int moe_layers,
                           int microbatches);

// Why the core refuses an expert degree d.ep or expert_tp for this scenario (empty when it
// accepts): ep > 1 needs an MoE model, divides dp x cp (EP groups are carved out of the data
// and context ranks, as in Megatron-Core) and the experts (each rank holds whole experts);
// expert_tp divides tp (the expert's TP group sits inside the layer's). Explicit degrees name
// degrees.ep, auto-factored ones seams.expert.
Problem expert_problem(const Scenario& s, const Degrees& d);

}  // namespace pe
