// Sizes and FLOPs of a GPT-style decoder, from its architecture.
#pragma once

#include "scenario.h"

namespace pe {

// Parameters of one transformer layer: 12h^2 + 13h (attention 4h^2 + 4h, MLP 8h^2 + 5h,
// two layer norms 4h). Narayanan et al. 2021 (arXiv:2104.04473), derivation of Eq. 2.
inline double layer_params(int hidden) {
  const double h = hidden;
  return 12.0 * h * h + 13.0 * h;
}

// Word embedding V*h plus learned positions s*h; the output layer shares (ties) the word
// embedding. Narayanan Eq. 2.
inline double embedding_params(int vocab, int hidden, int seq_len) {
  return (static_cast<double>(vocab) + seq_len) * hidden;
}

// P = 12 L h^2 (1 + 13/(12h) + (V+s)/(12 L h)), Narayanan Eq. 2.
inline double gpt_params(const ModelSpec& m, int seq_len) {
  return m.layers * layer_params(m.hidden) + embedding_params(m.vocab, m.hidden, seq_len);
}

// Model FLOPs of one step with no recomputation: 72 B s L h^2 (1 + s/(6h) + V/(12 L h)).
// Korthikanti et al. 2022 (arXiv:2205.05198) Eq. 7 / Narayanan Eq. 3 without the recompute
// forward pass. This is what MFU counts.
double model_flops_per_step(const ModelSpec& m, int seq_len, double global_batch);

// FLOPs the GPUs actually execute, recomputation included. Full recompute is Narayanan Eq. 3,
// 96 B s L h^2 (1 + s/(6h) + V/(16 L h)); selective recompute re-runs only the attention core's
// forward, 4 B s^2 h per layer (QK^T and attention x V, 2 B s^2 h each; Korthikanti Sec. 5).
double hardware_flops_per_step(const ModelSpec& m, int seq_len, double global_batch,
                               Recompute recompute);

}  // namespace pe
