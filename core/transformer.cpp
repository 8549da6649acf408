#include "transformer.h"

namespace pe {

double model_flops_per_step(const ModelSpec& m, int seq_len, double global_batch) {
  const double s = seq_len, h = m.hidden, L = m.layers, V = m.vocab;
  return 72.0 * global_batch * s * L * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * L * h));
}

double hardware_flops_per_step(const ModelSpec& m, int seq_len, double global_batch,
                               Recompute recompute) {
  const double s = seq_len, h = m.hidden, L = m.layers, V = m.vocab;
  switch (recompute) {
    case Recompute::kFull:
      return 96.0 * global_batch * s * L * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * L * h));
    case Recompute::kSelective:
      return model_flops_per_step(m, seq_len, global_batch) + 4.0 * global_batch * s * s * h * L;
    case Recompute::kNone:
      break;
  }
  return model_flops_per_step(m, seq_len, global_batch);
}

}  // namespace pe
