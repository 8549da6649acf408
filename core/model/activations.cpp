#include "model/activations.h"

#include <algorithm>

#include "model/mlp_shape.h"

namespace pe {

ActivationCase activation_case(const Scenario& s, int tp, int cp) {
  return {s.micro_batch, tp, cp, s.sequence_parallel, s.flash_attention, s.precision.fp8};
}

double layer_stored_bytes(const ModelShape& shape, const LayerShape& layer, const ActivationCase& c,
                          unsigned modules) {
  const double s = shape.seq_len(), b = c.micro_batch, h = shape.hidden(), a = shape.heads();
  const double t = c.tp, sb = s * b, sbh = sb * h;
  const AttentionShape& at = layer.attention;
  const double norm_outputs = modules & kLayernorm ? 0.0 : (c.fp8 ? 2.0 : 4.0) * sbh;
  // MLA's latents, the up projections' inputs, are kept whatever is recomputed and, as the rest
  // of MLA's activations are counted as multi-head attention's, not counted.
  const bool up_proj = at.up_proj_params > 0 && (modules & kMlaUpProj);
  const double outside = 4.0 * sbh + norm_outputs + 2.0 * sbh;
  const double qkv = up_proj ? 0.0 : (2.0 + 4.0 * at.kv_fraction) * sbh;
  const double attn_out = (c.fp8 ? 1.0 : 2.0) * sbh;
  const double scores = c.flash_attention || (modules & kCoreAttn) ? 0.0 : 5.0 * a * s * s * b;
  const double mlp = mlp_stored_bytes_per_token(layer.mlp, modules, c.fp8) * sb;
  const double inside = qkv + attn_out + scores + mlp;
  const double on_gpu = c.sequence_parallel ? (outside + inside) / t : outside + inside / t;
  return on_gpu / c.cp;
}

double layer_checkpoint_bytes(const ModelShape& shape, const ActivationCase& c) {
  const double sbh = 1.0 * shape.seq_len() * c.micro_batch * shape.hidden();
  return (c.sequence_parallel ? 2.0 * sbh / c.tp : 2.0 * sbh) / c.cp;
}

int fully_recomputed_layers(const Scenario& s, Recompute r, int layers) {
  if (r != Recompute::kFull) return 0;
  if (s.recompute_layers == 0 || s.recompute_method == RecomputeMethod::kUniform) return layers;
  return std::min(s.recompute_layers, layers);
}

double activation_bytes_per_layer(const ModelShape& shape, int micro_batch, int tp,
                                  bool sequence_parallel, Recompute recompute,
                                  bool flash_attention) {
  const ActivationCase c{micro_batch, tp, 1, sequence_parallel, flash_attention, false};
  if (recompute == Recompute::kFull) return layer_checkpoint_bytes(shape, c);
  const unsigned modules = recompute == Recompute::kSelective ? kCoreAttn : 0u;
  return layer_stored_bytes(shape, shape.dense_layer(), c, modules);
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
