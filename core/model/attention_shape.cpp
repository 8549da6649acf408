#include "model/attention_shape.h"

namespace pe {
namespace {

AttentionShape latent_attention(const ModelSpec& m, int seq_len) {
  const double h = m.hidden, a = m.heads;
  const LatentAttentionShape mla;
  AttentionShape at;
  at.matmul_params = h * mla.q_rank + mla.q_rank * a * (mla.qk_nope + mla.qk_rope) +
                     h * (mla.kv_rank + mla.qk_rope) + mla.kv_rank * a * (mla.qk_nope + mla.v) +
                     a * mla.v * h;
  at.other_params = mla.q_rank + mla.kv_rank;  // the two latent RMSNorms
  at.up_proj_params = 1.0 * mla.q_rank * a * (mla.qk_nope + mla.qk_rope) +
                      1.0 * mla.kv_rank * a * (mla.qk_nope + mla.v);
  at.core_flops_per_token = 2.0 * seq_len * m.heads * (mla.qk_nope + mla.qk_rope + mla.v);
  at.kv_elements_per_token = 1.0 * m.heads * (mla.qk_nope + mla.qk_rope + mla.v);
  at.q_and_o_elements_per_token = at.kv_elements_per_token;
  return at;
}

}  // namespace

AttentionShape attention_shape(const ModelSpec& m, int seq_len) {
  AttentionShape at =
      m.attention == Attention::kLatent ? latent_attention(m, seq_len) : AttentionShape{};
  at.kv_fraction = 1.0 * m.kv() / m.heads;  // latent attention's, counted as multi-head's
  if (m.attention == Attention::kLatent) return at;
  const double h = m.hidden;
  const double q_width = 1.0 * m.heads * m.head(), kv_width = 1.0 * m.kv() * m.head();
  at.matmul_params = 2 * h * q_width + 2 * h * kv_width;
  if (m.activation == Activation::kGelu) at.other_params = q_width + 2 * kv_width + h;  // biases
  at.core_flops_per_token = 4.0 * seq_len * q_width;
  at.kv_elements_per_token = 2.0 * kv_width;
  at.q_and_o_elements_per_token = 2.0 * q_width;
  at.q_fraction = q_width / h;
  at.kv_fraction = kv_width / h;
  return at;
}

}  // namespace pe
