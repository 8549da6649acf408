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

// ---- Time -------------------------------------------------------------------------------------

// Rows of one expert's grouped GEMM per micro-batch on one GPU: the s b / cp tokens a GPU
// routes (split over tp / etp ranks when expert TP is narrower than TP), k copies each, from
// the ep ranks of its EP group, spread over the E experts, c times padded:
//   M = s b / cp x etp / tp x ep x k c / E.
// 0 for a dense MLP.
double tokens_per_expert(const Scenario& s, const MlpShape& moe, const Degrees& d);

// The grouped GEMM's efficiency against a large GEMM's (1 at 4,096 rows or more), by its rows
// M: DeepGEMM's FP8 GEMMs on H800 with DeepSeek-V3's expert shape (N 7,168, K 2,048; DeepGEMM
// README, "Performance", before commit 37aa127): 1,214 TFLOP/s grouped at M 4,096 (and
// 8,192); 925 at 1,024, 916 at 512, 815 at 256 (masked layout); the dense kernel 295 at 64 and
// 510 at 128 against its 1,168 at 4,096. Linear in log M between them, in M below 64 (the
// weights' reads then bound it). The same ratio is taken for BF16 GEMMs.
struct GemmPoint {
  double rows;
  double efficiency;
};
double grouped_gemm_efficiency(double rows);
// The two points M lies between and its place between them on a log scale (0 to 1), for the
// derivation; below the first point `lo` is {0, 0}.
struct GemmBracket {
  GemmPoint lo, hi;
  double position = 0;
};
GemmBracket grouped_gemm_bracket(double rows);

// The busiest EP rank's routed tokens against an even share: dropless, the busiest expert
// takes lambda = moe_load_imbalance times its even share and the others the rest, so the rank
// holding it (with E/ep - 1 others) takes
//   1 + (lambda - 1) (ep - 1) / (E - 1)
// (lambda with one expert per rank, 1 with every expert on every rank). With a capacity
// factor every expert's buffer is padded to c times its share (its FLOPs count c already) and
// the busiest is capped there: 1. Every rank waits for it in the all-to-alls.
double expert_load(const Scenario& s, const Degrees& d);

// Bytes one GPU moves through HBM to permute its tokens into expert order before the dispatch
// and back after the combine, one pass (forward, or backward for the gradients), per MoE
// layer per micro-batch: each of its tokens' k c copies, h 16-bit values, read and written,
// twice (Megatron-Core moe_utils.permute / unpermute).
double permutation_bytes(const Scenario& s, const MlpShape& moe, const Degrees& d);

// Why the core refuses an expert degree d.ep or expert_tp for this scenario (empty when it
// accepts): ep > 1 needs an MoE model, divides dp x cp (EP groups are carved out of the data
// and context ranks, as in Megatron-Core) and the experts (each rank holds whole experts);
// expert_tp divides tp (the expert's TP group sits inside the layer's). Explicit degrees name
// degrees.ep, auto-factored ones seams.expert.
Problem expert_problem(const Scenario& s, const Degrees& d);

}  // namespace pe
