#include "model/model_shape.h"

#include <algorithm>

#include "model/activations.h"

namespace pe {
namespace {

// Forward FLOPs per token of one layer: 2 x the matmul weights a token uses, scaled by
// param_scale, + the attention core (Korthikanti Eq. 7 per layer; Narayanan Eq. 3). An MoE
// layer's routed experts are weighted by `capacity`: padded expert buffers compute on their
// padding; below 1 dropped token copies skip their experts through the residual connection
// (GShard Sec. 2.2).
double forward_flops_per_token(const LayerShape& layer, double capacity, double scale) {
  const MlpShape& mlp = layer.mlp;
  const double weights =
      layer.attention.matmul_params + mlp.matmul_params +
      (mlp.experts_per_token * capacity + mlp.shared_experts) * mlp.expert_matmul_params;
  return 2.0 * weights * scale + layer.attention.core_flops_per_token;
}

}  // namespace

ModelShape::ModelShape(const Scenario& s)
    : ModelShape(s.model, s.batch.seq_len, s.recipe.expert_capacity(), s.recipe.expert_tp) {}

ModelShape::ModelShape(const ModelSpec& m, int seq_len, double capacity, int expert_tp)
    : seq_len_(seq_len),
      hidden_(m.hidden),
      heads_(m.heads),
      vocab_(m.vocab),
      layers_(m.layers),
      dense_layers_(m.dense_layers),
      dropout_(m.dropout()) {
  const double h = m.hidden;
  const double norm = m.activation == Activation::kGelu ? 2.0 * h : 1.0 * h;
  dense_.attention = attention_shape(m, seq_len);
  dense_.mlp = dense_mlp_shape(m);
  dense_.params = dense_.attention.matmul_params + dense_.mlp.params + 2 * norm;
  dense_.params += dense_.attention.other_params;
  moe_ = dense_;
  if (m.moe()) {
    moe_.mlp = moe_mlp_shape(m, capacity, expert_tp);
    moe_.params = dense_.params - dense_.mlp.params + moe_.mlp.params;
    moe_.expert_params = moe_.mlp.expert_params;
  }

  embedding_params_ = 1.0 * m.vocab * h + (m.position == Position::kLearned ? seq_len * h : 0.0);
  output_params_ = (m.tied_embeddings ? 0.0 : 1.0 * m.vocab * h) + norm;
  const double layers = moe() ? run_params(0, m.layers).total() : m.layers * dense_.params;
  params_ = layers + embedding_params_ + output_params_;
  param_scale_ = m.params > 0 && params_ > 0 ? m.params / params_ : 1.0;

  const double kept = std::min(capacity, 1.0);
  for (LayerShape* layer : {&dense_, &moe_}) {
    layer->kept_forward_flops_per_token = forward_flops_per_token(*layer, kept, param_scale_);
    layer->padded_forward_flops_per_token = forward_flops_per_token(*layer, capacity, param_scale_);
  }
  moe_.routed_forward_flops_per_token =
      2.0 * moe_.mlp.experts_per_token * capacity * moe_.mlp.expert_matmul_params * param_scale_;
  output_flops_ = 2.0 * m.hidden * m.vocab * param_scale_;
}

int ModelShape::moe_layers_in(int first, int count) const {
  if (!moe() || count <= 0) return 0;
  const int dense_here = std::max(0, std::min(dense_layers_, first + count) - first);
  return count - std::min(count, dense_here);
}

LayerParams ModelShape::run_params(int first, int count) const {
  const int moe = moe_layers_in(first, count), dense = count - moe;
  LayerParams p;
  p.dense = dense * dense_.params + (moe > 0 ? moe * moe_.params : 0.0);
  p.expert = moe * moe_.expert_params;
  return p;
}

double ModelShape::active_params() const {
  return params_ - moe_layers() * moe_.mlp.unused_expert_params;
}

double ModelShape::run_forward_flops_per_token(int first, int count, bool padded) const {
  const int moe = moe_layers_in(first, count), dense = count - moe;
  if (moe == 0) return count * dense_.kept_forward_flops_per_token;
  return dense * dense_.kept_forward_flops_per_token +
         moe * (padded ? moe_.padded_forward_flops_per_token : moe_.kept_forward_flops_per_token);
}

double ModelShape::module_recompute_flops_per_token(const LayerShape& layer,
                                                    unsigned modules) const {
  // torchtitan's per-op policy is a policy of its own: the modules beside it change nothing.
  if (modules & kEveryOtherMatmul) {
    return 2.0 * every_other_matmul(*this, layer).recomputed_params * param_scale_;
  }
  const MlpShape& mlp = layer.mlp;
  double weights = modules & kMlaUpProj ? layer.attention.up_proj_params : 0.0;
  if (!mlp.moe && (modules & kMlp)) weights += mlp.matmul_params;
  if (mlp.moe && (modules & kMoe)) {
    weights += mlp.matmul_params + (mlp.experts_per_token * mlp.capacity + mlp.shared_experts) *
                                       mlp.expert_matmul_params;
  } else if (mlp.moe && (modules & kSharedExperts)) {
    weights += mlp.shared_experts * mlp.expert_matmul_params;
  }
  const double core = modules & kCoreAttn ? layer.attention.core_flops_per_token : 0.0;
  return 2.0 * weights * param_scale_ + core;
}

ModelShape::StepFlops ModelShape::run_step_flops_per_token(int first, int count, unsigned modules,
                                                           int full) const {
  const int rest = count - full;
  const int moe_rest = moe_layers_in(first + full, rest);
  const double core = attention().core_flops_per_token;
  StepFlops f;
  f.total = 3 * run_forward_flops_per_token(first, count, true) +
            run_forward_flops_per_token(first, full, true) +
            (rest - moe_rest) * module_recompute_flops_per_token(dense_, modules) +
            (moe_rest > 0 ? moe_rest * module_recompute_flops_per_token(moe_, modules) : 0.0);
  // The parts of that total which the attention core and the routed experts take, counted as
  // the total counts them: beside torchtitan's per-op policy Megatron's modules re-run nothing
  // (module_recompute_flops_per_token). Counting their re-runs here too charged FP8 runs a
  // BF16 attention core, and capacity a routed GEMM, the total never had (laws).
  const unsigned again = modules & kEveryOtherMatmul ? 0u : modules;
  f.core = core * (3 * count + full + (again & kCoreAttn ? rest : 0));
  const int moe_runs =
      3 * moe_layers_in(first, count) + moe_layers_in(first, full) + (again & kMoe ? moe_rest : 0);
  f.routed = moe_runs > 0 ? moe_runs * moe_.routed_forward_flops_per_token : 0.0;
  return f;
}

double ModelShape::model_flops_per_step(double global_batch) const {
  const double tokens = global_batch * seq_len_;
  return 3.0 * tokens * (run_forward_flops_per_token(0, layers_, false) + output_flops_);
}

double shape_params(const ModelSpec& m, int seq_len) { return ModelShape(m, seq_len).params(); }

}  // namespace pe
