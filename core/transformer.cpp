#include "transformer.h"

namespace pe {
namespace {

bool gpt_style(const ModelSpec& m) { return m.activation == Activation::kGelu; }

// Parameters the layer's matmuls use (no biases, no norms): what its FLOPs follow.
double layer_matmul_params(const ModelSpec& m) {
  const double h = m.hidden, f = m.ffn(), kv_width = 1.0 * m.kv() * (h / m.heads);
  const double attention = 2 * h * h + 2 * h * kv_width;
  const double mlp = (gpt_style(m) ? 2 : 3) * h * f;
  return attention + mlp;
}

double norm_params(const ModelSpec& m) { return gpt_style(m) ? 2.0 * m.hidden : 1.0 * m.hidden; }

}  // namespace

double layer_params(const ModelSpec& m) {
  const double h = m.hidden, f = m.ffn(), kv_width = 1.0 * m.kv() * (h / m.heads);
  double p = layer_matmul_params(m) + 2 * norm_params(m);
  if (gpt_style(m)) p += (h + 2 * kv_width + h) + (f + h);  // biases
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
  return m.layers * layer_params(m) + embedding_params(m, seq_len) + output_params(m);
}

double param_scale(const ModelSpec& m, int seq_len) {
  const double shape = shape_params(m, seq_len);
  return m.params > 0 && shape > 0 ? m.params / shape : 1.0;
}

double attention_core_flops_per_token(const ModelSpec& m, int seq_len) {
  return 4.0 * seq_len * m.hidden;
}

double layer_forward_flops_per_token(const ModelSpec& m, int seq_len) {
  return 2.0 * layer_matmul_params(m) * param_scale(m, seq_len) +
         attention_core_flops_per_token(m, seq_len);
}

double output_forward_flops_per_token(const ModelSpec& m, int seq_len) {
  return 2.0 * m.hidden * m.vocab * param_scale(m, seq_len);
}

double model_flops_per_step(const ModelSpec& m, int seq_len, double global_batch) {
  const double tokens = global_batch * seq_len;
  return 3.0 * tokens *
         (m.layers * layer_forward_flops_per_token(m, seq_len) +
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
                               Recompute recompute, bool flash_attention) {
  return model_flops_per_step(m, seq_len, global_batch) +
         global_batch * seq_len * m.layers *
             recompute_flops_per_token(m, seq_len, recompute, flash_attention);
}

}  // namespace pe
