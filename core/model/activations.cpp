#include "model/activations.h"

namespace pe {

double activation_bytes_per_layer(const ModelSpec& m, int seq_len, int micro_batch, int tp,
                                  bool sequence_parallel, Recompute recompute,
                                  bool flash_attention) {
  const double s = seq_len, b = micro_batch, h = m.hidden, a = m.heads, t = tp;
  const double sbh = s * b * h, g = 1.0 * m.kv() / m.heads;
  if (recompute == Recompute::kFull) return sequence_parallel ? 2.0 * sbh / t : 2.0 * sbh;
  const double outside = 10.0 * sbh;
  const double mlp = (m.activation == Activation::kSwiglu ? 6.0 : 4.0) * s * b * m.ffn();
  double inside = (4.0 + 4.0 * g) * sbh + mlp;
  if (recompute == Recompute::kNone && !flash_attention) inside += 5.0 * a * s * s * b;
  return sequence_parallel ? (outside + inside) / t : outside + inside / t;
}

double activation_bytes_per_layer(int seq_len, int micro_batch, int hidden, int heads, int tp,
                                  bool sequence_parallel, Recompute recompute) {
  ModelSpec gpt;
  gpt.hidden = hidden;
  gpt.heads = heads;
  return activation_bytes_per_layer(gpt, seq_len, micro_batch, tp, sequence_parallel, recompute,
                                    false);
}

double first_stage_extra_activation_bytes(int seq_len, int micro_batch, int hidden, int tp,
                                          int inflight) {
  return static_cast<double>(seq_len) * micro_batch * hidden * inflight / tp;
}

double last_stage_extra_activation_bytes(int seq_len, int micro_batch, int hidden, int vocab,
                                         int tp) {
  const double s = seq_len, b = micro_batch;
  return (4.0 * s * b * hidden + 4.0 * s * b * vocab) / tp;
}

}  // namespace pe
