// Mixture-of-experts models: where their parameters sit, what each token uses, the activations
// of an MoE layer and the expert all-to-alls. Also DeepSeek's multi-head latent attention,
// which the DeepSeek MoE models use.
//
// An MoE layer (Shazeer et al. 2017; GShard; Mixtral, Jiang et al. 2024, arXiv:2401.04088;
// DeepSeek-V3, arXiv:2412.19437) keeps the dense layer's attention and norms and replaces its
// MLP by a router (an h x E matrix), E routed experts of which each token uses k, and S shared
// experts every token uses; each expert is an MLP of width f_e. The leading `dense_layers`
// layers keep the dense MLP (DeepSeek-V3: 3).
#pragma once

#include "report.h"
#include "result.h"
#include "scenario.h"

namespace pe {

// ---- Shapes ----------------------------------------------------------------------------------

// Multi-head latent attention (DeepSeek-V2, arXiv:2405.04434, Sec. 2.1; V3 Sec. 2.1) with the
// ranks and head sizes both models use: queries compressed to rank 1536, keys and values to a
// shared latent of rank 512, per head 128 dimensions without position plus 64 with RoPE for
// queries and keys, and 128 for values. Counted exactly (its down and up projections and the
// two latent RMSNorms); its activations are counted as multi-head attention's and its keys and
// values, as Megatron-Core materialises them for attention, as heads x (128 + 64) and
// heads x 128 per token.
struct LatentAttentionShape {
  int q_rank = 1536;
  int kv_rank = 512;
  int qk_nope = 128;
  int qk_rope = 64;
  int v = 128;
};

// Weights of the attention's matmuls: Q and O 2h^2 and K, V 2 h g head_dim with g key/value
// heads; or MLA's projections h q_r + q_r a (n + r) + h (kv_r + r) + kv_r a (n + v) + a v h.
double attention_matmul_params(const ModelSpec& m);
// One MLP's matmuls of width f: GELU 2hf (up, down), SwiGLU 3hf (gate, up, down).
double mlp_matmul_params(const ModelSpec& m, int ffn);
// A dense layer: attention + MLP + two norms (LayerNorm 2h with GELU, RMSNorm h with SwiGLU),
// + GPT's biases (attention h + 2 g head_dim + h, MLP f + h). GPT's is 12h^2 + 13h (Narayanan
// et al. 2021, Eq. 2).
double dense_layer_params(const ModelSpec& m);

// MoE layers, and the part of one that experts hold: E x one expert MLP (+ biases with GELU).
// The rest of an MoE layer (attention, norms, router h E, S shared experts) is sharded like a
// dense layer.
int moe_layers(const ModelSpec& m);  // layers - dense_layers; 0 for a dense model
int moe_layers_in(const ModelSpec& m, int first, int count);  // among layers [first, +count)
double routed_expert_params(const ModelSpec& m);
double moe_layer_params(const ModelSpec& m);

// The parameters of layers [first, first + count): `expert` is what the routed experts hold,
// `dense` everything else.
struct LayerParams {
  double dense = 0;
  double expert = 0;
  double total() const { return dense + expert; }
};
LayerParams layer_run_params(const ModelSpec& m, int first, int count);

// Word embedding V h, learned positions s h, untied output layer V h, final norm.
double embedding_and_output_params(const ModelSpec& m, int seq_len);

// Every parameter; and the parameters one token uses (each MoE layer's k routed experts
// instead of all E): the "total" and "active" counts papers quote (Mixtral 8x7B: 46.7B and
// 12.9B; DeepSeek-V3: 671B and 37B).
double shape_params(const ModelSpec& m, int seq_len);
double active_params(const ModelSpec& m, int seq_len);

// The count a model without an explicit `params` gets: Narayanan's Eq. 2 for GPT shapes (the
// book's convention, without the final norm), shape_params for every other.
double counted_params(const ModelSpec& m, int seq_len);

// ---- FLOPs -----------------------------------------------------------------------------------

// Forward FLOPs per token of layers [first, first + count): 2 x the matmul weights a token
// uses, plus the attention core, 2 s a (d_qk + d_v) (QK^T and scores x V; 4 s h for multi-head
// attention, Narayanan Eq. 3). `capacity` multiplies the routed experts' work: padded
// buffers compute on their padding (1 for model FLOPs).
double layer_run_forward_flops_per_token(const ModelSpec& m, int seq_len, int first, int count,
                                         double capacity = 1);

// ---- Activations -----------------------------------------------------------------------------

// What an MoE layer stores for its backward pass beyond a dense layer, per GPU per micro-batch
// (may be negative: fewer, narrower experts than the dense MLP). 16-bit activations; routing
// assumed balanced, so each GPU of the stage's tp x cp x dp ranks keeps an even share:
//   routed experts   k c (s b / (cp tp)) (4 h etp + w f_e)  -- each token copy's input and
//                    output (4h, repeated across the expert's etp ranks) and the expert MLP's
//                    inner tensors, w f_e (GELU w = 4, SwiGLU 6, as for a dense MLP)
//   shared experts   S (s b / (cp tp)) w f_e
//   router           4 s b E / (cp tp) (fp32 probabilities, Megatron-Core keeps them in fp32)
// minus the dense MLP's w f s b / (cp tp), which the MoE layer does not have.
// Full recomputation keeps only each layer's input: no difference.
double moe_layer_extra_activation_bytes(const Scenario& s, const Degrees& d);

// ---- Traffic ---------------------------------------------------------------------------------

// One expert all-to-all (a dispatch or a combine) per GPU: each token a GPU holds goes to k
// experts, c times padded, h 16-bit values each, and (ep-1)/ep of them leave the GPU
// (Megatron-Core's all-to-all token dispatcher; Lepikhin et al. 2020, GShard). A GPU holds
// s b / cp tokens, split further over tp / etp ranks when expert TP is narrower than TP.
double expert_all_to_all_bytes(const Scenario& s, const Degrees& d);

// The expert seam's traffic per GPU per step on a stage holding `moe_layers` MoE layers, m
// micro-batches: a dispatch and a combine all-to-all per MoE layer forward, and again backward
// (the gradients retrace both), 4 per layer per micro-batch; full recomputation adds the
// forward pair again. The fields comms.cpp does not fill (link, time). Idle when ep = 1.
SeamTraffic expert_traffic(const Scenario& s, const Degrees& d, int moe_layers,
                           int microbatches);

// Why the core refuses an expert degree d.ep or expert_tp for this scenario (empty when it
// accepts): ep > 1 needs an MoE model, divides dp x cp (EP groups are carved out of the data
// and context ranks, as in Megatron-Core) and the experts (each rank holds whole experts);
// expert_tp divides tp (the expert's TP group sits inside the layer's).
Problem expert_problem(const Scenario& s, const Degrees& d);

}  // namespace pe
