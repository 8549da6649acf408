#include "model/activations.h"

#include <algorithm>
#include <array>

#include "model/mlp_shape.h"

namespace pe {

ActivationCase activation_case(const Scenario& s, int tp, int cp) {
  return {s.recipe.micro_batch,
          tp,
          cp,
          s.recipe.sequence_parallel,
          s.recipe.flash_attention,
          s.recipe.precision.fp8,
          s.recipe.precision.fp4};
}

EveryOtherMatmul every_other_matmul(const ModelShape& shape, const LayerShape& layer) {
  const double h = shape.hidden(), kv = h * layer.attention.kv_fraction;
  const double qw = h * layer.attention.q_fraction;
  // Each matmul's output width per token and its weights: Q, K, V, O, then a dense MLP's.
  struct Matmul {
    double out, params;
  };
  std::array<Matmul, 7> mm{};
  size_t n = 0;
  for (const Matmul m :
       {Matmul{qw, h * qw}, Matmul{kv, h * kv}, Matmul{kv, h * kv}, Matmul{h, qw * h}})
    mm[n++] = m;
  const MlpShape& mlp = layer.mlp;
  if (!mlp.moe) {
    const double f = mlp.fc2_input_bytes / kActivationBytes;
    const bool swiglu = mlp.inner_bytes > 2 * mlp.fc2_input_bytes;
    for (int i = swiglu ? 0 : 1; i < 2; ++i) mm[n++] = {f, h * f};
    mm[n++] = {h, f * h};
  }
  double odd = 0, even = 0, odd_params = 0, even_params = 0;
  for (size_t i = 0; i < n; ++i) {
    (i % 2 == 0 ? odd : even) += mm[i].out;
    (i % 2 == 0 ? odd_params : even_params) += mm[i].params;
  }
  const bool odd_saved = n % 2 == 0 || odd >= even;
  EveryOtherMatmul e;
  e.saved_bytes_per_token = kActivationBytes * (odd_saved ? odd : even);
  e.recomputed_params = odd_saved ? even_params : odd_params;
  if (mlp.moe) {
    e.saved_bytes_per_token += mlp.stored_bytes_per_token / 2;
    e.recomputed_params +=
        (mlp.matmul_params +
         (mlp.experts_per_token * mlp.capacity + mlp.shared_experts) * mlp.expert_matmul_params) /
        2;
  }
  return e;
}

double layer_stored_bytes(const ModelShape& shape, const LayerShape& layer, const ActivationCase& c,
                          unsigned modules) {
  const double s = shape.seq_len(), b = c.micro_batch, h = shape.hidden(), a = shape.heads();
  const double t = c.tp, sb = s * b, sbh = sb * h;
  if (modules & kEveryOtherMatmul) {
    // The layer's input (outside the TP region), the attention kernel's output and the saved
    // matmul outputs (inside).
    const double inside = 2.0 * sbh + every_other_matmul(shape, layer).saved_bytes_per_token * sb;
    const double input = 2.0 * sbh;
    return (c.sequence_parallel ? (input + inside) / t : input + inside / t) / c.cp;
  }
  const AttentionShape& at = layer.attention;
  const double q = c.gemm_input_bytes();  // the GEMMs' cached inputs' bytes per element
  const double norm_outputs = modules & kLayernorm ? 0.0 : 2 * q * sbh;
  // MLA's latents, the up projections' inputs, are kept whatever is recomputed and, as the rest
  // of MLA's activations are counted as multi-head attention's, not counted.
  const bool up_proj = at.up_proj_params > 0 && (modules & kMlaUpProj);
  // The two norms' inputs, their outputs, and the masks of the dropouts after attention and
  // after the MLP, when the model drops out.
  const double masks = shape.dropout() ? 2.0 * sbh : 0.0;
  const double outside = 4.0 * sbh + norm_outputs + masks;
  const double qkv = up_proj ? 0.0 : (2.0 * at.q_fraction + 4.0 * at.kv_fraction) * sbh;
  const double attn_out = q * at.q_fraction * sbh;
  const double scores =
      c.flash_attention || (modules & kCoreAttn) ? 0.0 : attention_scores_bytes(a, s, b);
  const double mlp = mlp_stored_bytes_per_token(layer.mlp, modules, q) * sb;
  const double inside = qkv + attn_out + scores + mlp;
  const double on_gpu = c.sequence_parallel ? (outside + inside) / t : outside + inside / t;
  return on_gpu / c.cp;
}

double layer_checkpoint_bytes(const ModelShape& shape, const ActivationCase& c) {
  const double sbh = 1.0 * shape.seq_len() * c.micro_batch * shape.hidden();
  return (c.sequence_parallel ? 2.0 * sbh / c.tp : 2.0 * sbh) / c.cp;
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
                                         int tp, CrossEntropy loss) {
  const double s = seq_len, b = micro_batch;
  const double logits = loss == CrossEntropy::kTe ? 2.0 : 4.0;
  return (4.0 * s * b * hidden + logits * s * b * vocab) / tp;
}

double loss_backward_transient_bytes(int seq_len, int micro_batch, int vocab, int tp) {
  return 8.0 * seq_len * micro_batch * vocab / tp;
}

}  // namespace pe
