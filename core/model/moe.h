// Mixture-of-experts models: where their parameters sit, what each token uses, the FLOPs and
// activations of their layers, and the expert all-to-alls.
//
// An MoE layer (Shazeer et al. 2017; Lepikhin et al. 2020, GShard; Mixtral, Jiang et al. 2024,
// arXiv:2401.04088; DeepSeek-V3, arXiv:2412.19437) keeps a dense layer's attention and norms
// and replaces its MLP by a router (an h x E matrix), E routed experts of which each token uses
// k, and S shared experts every token uses; each expert is an MLP of width f_e. The leading
// `dense_layers` layers keep the dense MLP (DeepSeek-V3: 3). A dense model (E = 0) is a run of
// dense layers: every function here then gives transformer.h's numbers.
#pragma once

#include "model/report.h"
#include "model/result.h"
#include "model/scenario.h"

namespace pe {

// ---- Where the parameters sit ----------------------------------------------------------------

int moe_layers(const ModelSpec& m);                           // L - dense_layers; 0 when dense
int moe_layers_in(const ModelSpec& m, int first, int count);  // among layers [first, +count)
// One MoE layer's routed experts, E x one expert MLP: what EP and expert_tp shard.
double routed_expert_params(const ModelSpec& m);
// All of one MoE layer: attention and norms, router h E, S shared experts, routed experts.
double moe_layer_params(const ModelSpec& m);

// The parameters of layers [first, first + count), unscaled (transformer.h param_scale):
// `expert` is what the routed experts hold (sharded by EP x expert_tp), `dense` the rest
// (sharded by TP, as Megatron-Core shards shared experts).
struct LayerParams {
  double dense = 0;
  double expert = 0;
  double total() const { return dense + expert; }
};
LayerParams layer_run_params(const ModelSpec& m, int first, int count);

// The parameters one token uses: each MoE layer's k routed experts instead of all E. With
// shape_params (transformer.h), the "total" and "active" counts papers quote: Mixtral 8x7B
// 46.7B and 12.9B, DeepSeek-V3 671B and 37B.
double active_params(const ModelSpec& m, int seq_len);

// ---- FLOPs -----------------------------------------------------------------------------------

// Forward FLOPs per token of layers [first, first + count): 2 x the matmul weights a token uses
// (scaled by param_scale) + the attention core. `capacity` multiplies the routed experts' work:
// padded expert buffers compute on their padding (1 for model FLOPs).
double layer_run_forward_flops_per_token(const ModelSpec& m, int seq_len, int first, int count,
                                         double capacity = 1);

// FLOPs per token the GPUs execute for layers [first, first + count) in one training step:
// 3 x the padded forward (the backward costs twice the forward) + what recomputation re-runs
// (transformer.h recompute_flops_per_token).
double layer_run_step_flops_per_token(const Scenario& s, int first, int count);

// ---- Activations -----------------------------------------------------------------------------

// What an MoE layer stores for its backward pass beyond a dense layer, per GPU per micro-batch
// (negative when its experts store less than the dense MLP). 16-bit activations; routing
// assumed balanced, so each GPU of a stage's tp x cp x dp ranks keeps an even share:
//   routed experts   k c (s b / (cp tp)) (4 h etp + w f_e): each token copy's input and
//                    output (4h bytes, repeated on the expert's etp ranks) and the expert MLP's
//                    inner tensors, w f_e (w = 4 for GELU, 6 for SwiGLU, as activations.h
//                    counts a dense MLP)
//   shared experts   S (s b / (cp tp)) w f_e
//   router           4 E s b / (cp tp)  (fp32 probabilities: Megatron-Core routes in fp32)
// minus the dense MLP's w f s b / (cp tp), which an MoE layer does not have. With full
// recomputation a layer keeps only its input: no difference.
double moe_layer_extra_activation_bytes(const Scenario& s, const Degrees& d);
// The same tensors whatever is kept for the backward: what the layer's elementwise kernels
// write and read in any case (step_time.h), recomputation or not.
double moe_layer_extra_tensor_bytes(const Scenario& s, const Degrees& d);

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
// further over tp / etp ranks when expert TP is narrower than TP.
double expert_all_to_all_bytes(const Scenario& s, const Degrees& d);

// The expert seam's traffic per GPU per step on a stage holding `moe_layers` MoE layers, m
// micro-batches: a dispatch and a combine all-to-all per MoE layer forward, and again backward
// (the gradients retrace both), 4 per layer per micro-batch; full recomputation adds the
// forward pair again. comms.cpp puts it on its link. Idle when ep = 1.
SeamTraffic expert_traffic(const Scenario& s, const Degrees& d, int moe_layers, int microbatches);

// Why the core refuses an expert degree d.ep or expert_tp for this scenario (empty when it
// accepts): ep > 1 needs an MoE model, divides dp x cp (EP groups are carved out of the data
// and context ranks, as in Megatron-Core) and the experts (each rank holds whole experts);
// expert_tp divides tp (the expert's TP group sits inside the layer's). Explicit degrees name
// degrees.ep, auto-factored ones seams.expert.
Problem expert_problem(const Scenario& s, const Degrees& d);

}  // namespace pe
