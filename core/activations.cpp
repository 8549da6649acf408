#include "activations.h"

namespace pe {

double activation_bytes_per_layer(int seq_len, int micro_batch, int hidden, int heads, int tp,
                                  bool sequence_parallel, Recompute recompute) {
  const double s = seq_len, b = micro_batch, h = hidden, a = heads, t = tp;
  const double sbh = s * b * h;
  switch (recompute) {
    case Recompute::kFull:
      return sequence_parallel ? 2.0 * sbh / t : 2.0 * sbh;
    case Recompute::kSelective:
      return sequence_parallel ? sbh * 34.0 / t : sbh * (10.0 + 24.0 / t);
    case Recompute::kNone:
      break;
  }
  return sequence_parallel ? sbh / t * (34.0 + 5.0 * a * s / h)
                           : sbh * (10.0 + 24.0 / t + 5.0 * a * s / (h * t));
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
