#include "model/activations.h"

namespace pe {

double activation_bytes_per_layer(const ModelShape& shape, int micro_batch, int tp,
                                  bool sequence_parallel, Recompute recompute,
                                  bool flash_attention) {
  const double s = shape.seq_len(), b = micro_batch, h = shape.hidden(), a = shape.heads();
  const double t = tp;
  const double sbh = s * b * h, g = shape.attention().kv_fraction;
  if (recompute == Recompute::kFull) return sequence_parallel ? 2.0 * sbh / t : 2.0 * sbh;
  const double outside = 10.0 * sbh;
  const double mlp = shape.dense_layer().mlp.stored_bytes_per_token * s * b;
  double inside = (4.0 + 4.0 * g) * sbh + mlp;
  if (recompute == Recompute::kNone && !flash_attention) inside += 5.0 * a * s * s * b;
  return sequence_parallel ? (outside + inside) / t : outside + inside / t;
}

double activation_bytes_per_layer(int seq_len, int micro_batch, int hidden, int heads, int tp,
                                  bool sequence_parallel, Recompute recompute) {
  ModelSpec gpt;
  gpt.hidden = hidden;
  gpt.heads = heads;
  return activation_bytes_per_layer(ModelShape(gpt, seq_len), micro_batch, tp, sequence_parallel,
                                    recompute, false);
}

double moe_layer_extra_tensor_bytes(const ModelShape& shape, int micro_batch, int tp, int cp) {
  if (!shape.moe()) return 0;
  const double tokens = 1.0 * shape.seq_len() * micro_batch / (1.0 * cp * tp);
  return tokens * (shape.moe_layer().mlp.stored_bytes_per_token -
                   shape.dense_layer().mlp.stored_bytes_per_token);
}

double moe_layer_extra_activation_bytes(const ModelShape& shape, int micro_batch, int tp, int cp,
                                        Recompute recompute) {
  if (recompute == Recompute::kFull) return 0;
  return moe_layer_extra_tensor_bytes(shape, micro_batch, tp, cp);
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
