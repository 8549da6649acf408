// Sizes and FLOPs of a decoder-only transformer, from its shape (ModelSpec).
#pragma once

#include "model/scenario.h"

namespace pe {

// Multi-head latent attention (DeepSeek-V2, arXiv:2405.04434, Sec. 2.1; V3, arXiv:2412.19437,
// Sec. 2.1) with the ranks and head sizes both models use: queries compressed to rank 1536,
// keys and values to a shared latent of rank 512, per head 128 dimensions without position
// plus 64 with RoPE for queries and keys, and 128 for values. Its parameters are counted
// exactly (the down and up projections and the two latent RMSNorms); its stored activations
// are counted as multi-head attention's; its keys and values, as Megatron-Core materialises
// them for attention, are heads x (128 + 64) and heads x 128 per token.
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
// One MLP with its biases (GELU: f + h) and one norm (LayerNorm 2h with GELU, RMSNorm h).
double mlp_params(const ModelSpec& m, int ffn);
double norm_params(const ModelSpec& m);

// Parameters of one dense transformer layer, head_dim = h/a, g = kv_heads:
//   attention  2h^2 (Q, O) + 2 h g head_dim (K, V)
//   MLP        GELU 2 h f, SwiGLU 3 h f (gate, up, down)
//   GELU/GPT also has biases, h + 2 g head_dim + h (attention) + f + h (MLP), and two
//   LayerNorms (4h); SwiGLU/Llama has no biases and two RMSNorms (2h).
// For GPT (g = a, f = 4h) this is 12h^2 + 13h, the layer term of Narayanan et al. 2021
// (arXiv:2104.04473) Eq. 2. Llama 3 8B/70B/405B come out at 8.03/70.6/405.9 B (Dubey et al.
// 2024, Table 3).
double layer_params(const ModelSpec& m);

// Word embedding V h, plus learned positions s h, plus V h for an untied output layer, plus the
// final norm (2h LayerNorm, h RMSNorm).
double embedding_params(const ModelSpec& m, int seq_len);  // first stage: words + positions
double output_params(const ModelSpec& m);                  // last stage: untied output + norm

// The shape's parameter count: the layers (L layer_params for a dense model; moe.h for a mixture
// of experts) + embedding + output.
double shape_params(const ModelSpec& m, int seq_len);

// params / shape_params: what parameter-proportional quantities (weights, matmul FLOPs) are
// scaled by so that they add up to the stated count. 1 when params was derived from the shape.
double param_scale(const ModelSpec& m, int seq_len);

// FLOPs per token of one dense layer's forward pass: 2 x its matmul weights (scaled by
// param_scale) + the attention core 4 s h (QK^T and attention x V, 2 s h each, no causal
// halving; Narayanan Eq. 3's 1 + s/(6h) term); MLA's core is 2 s a (192 + 128).
// moe.h layer_run_forward_flops_per_token covers runs of dense and MoE layers.
double layer_forward_flops_per_token(const ModelSpec& m, int seq_len);
double attention_core_flops_per_token(const ModelSpec& m, int seq_len);
// The output layer's forward, 2 h V per token (scaled by param_scale).
double output_forward_flops_per_token(const ModelSpec& m, int seq_len);

// Model FLOPs of one step, no recomputation: 3 x forward (the backward costs twice the
// forward) for every layer and the output layer. For GPT this is Korthikanti et al. 2022
// (arXiv:2205.05198) Eq. 7, 72 B s L h^2 (1 + s/(6h) + V/(12 L h)). What MFU counts.
// `capacity` (an MoE's capacity factor) counts only the routed work done: below 1 an expert
// takes capacity x its even share of tokens and the rest skip it through the residual
// connection (Fedus et al. 2021, Switch Transformer, arXiv:2101.03961, Sec. 2.1; Lepikhin et
// al. 2020, GShard, arXiv:2006.16668, Sec. 2.2), so min(capacity, 1) of the routed token
// copies are computed; padding above 1 is hardware work, not model work.
double model_flops_per_step(const ModelSpec& m, int seq_len, double global_batch,
                            double capacity = 1);

// Extra forward FLOPs per token of one layer that recomputation re-runs: full recompute the
// whole layer (Narayanan Eq. 3: 96 B s L h^2 (1 + s/(6h) + V/(16 L h)) in all for GPT),
// selective the attention core only, 4 s h (Korthikanti Sec. 5). Fused (flash) attention has
// nothing left to recompute selectively: its backward recomputes the scores inside the kernel,
// which the matmul efficiency covers.
double recompute_flops_per_token(const ModelSpec& m, int seq_len, Recompute recompute,
                                 bool flash_attention);

// FLOPs the GPUs execute: model FLOPs + recomputation. What HFU counts.
// `capacity` (an MoE's capacity factor) pads the routed experts' work.
double hardware_flops_per_step(const ModelSpec& m, int seq_len, double global_batch,
                               Recompute recompute, bool flash_attention, double capacity = 1);

}  // namespace pe
