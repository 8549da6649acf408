// One kind of attention, answered once per scenario: multi-head (g = a key/value heads),
// grouped-query (g < a, Ainslie et al. 2023, arXiv:2305.13245) or DeepSeek's multi-head latent
// attention. What it holds, computes, stores and exchanges per token; ModelShape
// (model_shape.h) puts it in a layer beside an MLP.
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

struct AttentionShape {
  // Weights of the attention's matmuls: Q and O 2 h a d and K, V 2 h g d with a heads and g
  // key/value heads of width d (h / a unless model.head_dim); or MLA's projections h q_r + q_r a (n
  // + r) + h (kv_r + r) + kv_r a (n + v) + a v h.
  double matmul_params = 0;
  // Its parameters beside the matmuls: GPT's biases h + 2 g head_dim + h (Narayanan et al.
  // 2021, arXiv:2104.04473, Eq. 2); MLA's two latent RMSNorms q_r + kv_r; none for Llama.
  double other_params = 0;
  // FLOPs per token of the attention core: QK^T and attention x V, 2 s a d each (2 s h when
  // d = h / a), no causal halving (Narayanan Eq. 3's 1 + s/(6h) term); MLA's core is
  // 2 s a (192 + 128).
  double core_flops_per_token = 0;
  // Keys and values of one token, in elements: 2 g head_dim (2h for multi-head attention);
  // for latent attention the per-head keys (128 + 64) and values (128) Megatron-Core
  // materialises. What context parallelism exchanges (context.h).
  double kv_elements_per_token = 0;
  // Queries and attention outputs of one token, in elements: a d each (h when d = h / a), or
  // latent attention's per-head sizes (what Ulysses' all-to-alls move besides K and V).
  double q_and_o_elements_per_token = 0;
  // Weights of MLA's up projections (queries from their latent, keys and values from theirs),
  // what mla_up_proj recomputation re-runs; 0 for multi-head attention.
  double up_proj_params = 0;
  // The stored K and V's width against h, g d / h (g / a when d = h / a), and Q's and the
  // attention output's, a d / h (activations.h: Q, K and V store (2 q + 4 kv) s b h bytes).
  double kv_fraction = 1;
  double q_fraction = 1;
};

AttentionShape attention_shape(const ModelSpec& m, int seq_len);

}  // namespace pe
