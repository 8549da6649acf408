#include "model/transformer.h"

#include <algorithm>

#include "model/moe.h"

namespace pe {
namespace {

bool gpt_style(const ModelSpec& m) { return m.activation == Activation::kGelu; }
bool latent(const ModelSpec& m) { return m.attention == Attention::kLatent; }

// Parameters the layer's matmuls use (no biases, no norms): what its FLOPs follow.
double layer_matmul_params(const ModelSpec& m) {
  return attention_matmul_params(m) + mlp_matmul_params(m, m.ffn());
}

}  // namespace

double attention_matmul_params(const ModelSpec& m) {
  const double h = m.hidden, a = m.heads;
  if (latent(m)) {
    const LatentAttentionShape mla;
    return h * mla.q_rank + mla.q_rank * a * (mla.qk_nope + mla.qk_rope) +
           h * (mla.kv_rank + mla.qk_rope) + mla.kv_rank * a * (mla.qk_nope + mla.v) +
           a * mla.v * h;
  }
  const double kv_width = 1.0 * m.kv() * (h / a);
  return 2 * h * h + 2 * h * kv_width;
}

double mlp_matmul_params(const ModelSpec& m, int ffn) {
  return (gpt_style(m) ? 2.0 : 3.0) * m.hidden * ffn;
}

double mlp_params(const ModelSpec& m, int ffn) {
  return mlp_matmul_params(m, ffn) + (gpt_style(m) ? 1.0 * ffn + m.hidden : 0.0);
}

double norm_params(const ModelSpec& m) { return gpt_style(m) ? 2.0 * m.hidden : 1.0 * m.hidden; }

double layer_params(const ModelSpec& m) {
  const double h = m.hidden, kv_width = 1.0 * m.kv() * (h / m.heads);
  double p = attention_matmul_params(m) + mlp_params(m, m.ffn()) + 2 * norm_params(m);
  if (gpt_style(m) && !latent(m)) p += h + 2 * kv_width + h;  // attention biases
  if (latent(m)) {
    const LatentAttentionShape mla;
    p += mla.q_rank + mla.kv_rank;  // the two latent RMSNorms
  }
  return p;
}

double embedding_params(const ModelSpec& m, int seq_len) {
  const double words = 1.0 * m.vocab * m.hidden;
  return words + (m.position == Position::kLearned ? 1.0 * seq_len * m.hidden : 0.0);
}

double output_params(const ModelSpec& m) {
  return (m.tied_embeddings ? 0.0 : 1.0 * m.vocab * m.hidden) + norm_params(m);
}

double shape_params(const ModelSpec& m, int seq_len) {
  const double layers =
      m.moe() ? layer_run_params(m, 0, m.layers).total() : m.layers * layer_params(m);
  return layers + embedding_params(m, seq_len) + output_params(m);
}

double param_scale(const ModelSpec& m, int seq_len) {
  const double shape = shape_params(m, seq_len);
  return m.params > 0 && shape > 0 ? m.params / shape : 1.0;
}

double attention_core_flops_per_token(const ModelSpec& m, int seq_len) {
  if (latent(m)) {
    const LatentAttentionShape mla;
    return 2.0 * seq_len * m.heads * (mla.qk_nope + mla.qk_rope + mla.v);
  }
  return 4.0 * seq_len * m.hidden;
}

double layer_forward_flops_per_token(const ModelSpec& m, int seq_len) {
  return 2.0 * layer_matmul_params(m) * param_scale(m, seq_len) +
         attention_core_flops_per_token(m, seq_len);
}

double output_forward_flops_per_token(const ModelSpec& m, int seq_len) {
  return 2.0 * m.hidden * m.vocab * param_scale(m, seq_len);
}

double model_flops_per_step(const ModelSpec& m, int seq_len, double global_batch, double capacity) {
  const double tokens = global_batch * seq_len;
  const double kept = std::min(capacity, 1.0);
  return 3.0 * tokens *
         (layer_run_forward_flops_per_token(m, seq_len, 0, m.layers, kept) +
          output_forward_flops_per_token(m, seq_len));
}

double recompute_flops_per_token(const ModelSpec& m, int seq_len, Recompute recompute,
                                 bool flash_attention) {
  switch (recompute) {
    case Recompute::kFull:
      return layer_forward_flops_per_token(m, seq_len);
    case Recompute::kSelective:
      return flash_attention ? 0.0 : attention_core_flops_per_token(m, seq_len);
    case Recompute::kNone:
      break;
  }
  return 0.0;
}

double hardware_flops_per_step(const ModelSpec& m, int seq_len, double global_batch,
                               Recompute recompute, bool flash_attention, double capacity) {
  const double tokens = global_batch * seq_len;
  if (m.moe()) {
    // Padded experts compute on their padding; full recomputation re-runs the padded forward.
    // Below capacity 1 the dropped tokens are neither model nor hardware work.
    const double padded = layer_run_forward_flops_per_token(m, seq_len, 0, m.layers, capacity);
    const double kept =
        layer_run_forward_flops_per_token(m, seq_len, 0, m.layers, std::min(capacity, 1.0));
    const double again =
        recompute == Recompute::kFull
            ? padded
            : m.layers * recompute_flops_per_token(m, seq_len, recompute, flash_attention);
    return model_flops_per_step(m, seq_len, global_batch, capacity) +
           tokens * (3 * (padded - kept) + again);
  }
  return model_flops_per_step(m, seq_len, global_batch) +
         tokens * m.layers * recompute_flops_per_token(m, seq_len, recompute, flash_attention);
}

}  // namespace pe
