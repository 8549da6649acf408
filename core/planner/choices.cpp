#include "planner/choices.h"

#include "model/presets.h"

namespace pe {

std::vector<RecomputeChoice> recompute_choices(const Scenario& base, int most_layers, int pp) {
  std::vector<RecomputeChoice> out;
  out.push_back({});
  auto selective = [&](unsigned modules) {
    RecomputeChoice c;
    c.recompute = Recompute::kSelective;
    c.modules = modules;
    out.push_back(c);
  };
  if (!base.recipe.flash_attention) selective(kCoreAttn);
  selective(kEveryOtherMatmul);
  const ModelSpec& m = base.model;
  unsigned light = kLayernorm;
  if (m.moe()) light |= kMoeAct;
  if (!m.moe() || m.dense_layers > 0) light |= kMlp;
  if (m.attention == Attention::kLatent) light |= kMlaUpProj;
  selective(light);
  for (int k = 0; k < most_layers; k = k == 0 ? 1 : 2 * k) {
    RecomputeChoice c;
    c.recompute = Recompute::kFull;
    c.layers = k;
    c.method = k == 0 ? RecomputeMethod::kUniform : RecomputeMethod::kBlock;
    out.push_back(c);
  }
  if (base.gpu.host_link_gb_s > 0 && pp == 1) {
    // 1, 2, 4, ... below the stage's size, then the whole stage.
    for (int k = 1; k <= most_layers;
         k = k < most_layers && 2 * k >= most_layers ? most_layers : 2 * k) {
      RecomputeChoice c;
      c.offload_layers = k;
      out.push_back(c);
      if (k == most_layers) break;
    }
  }
  return out;
}

std::vector<Precision> precision_choices(const Scenario& base) {
  std::vector<Precision> out = {base.recipe.precision};
  if (base.gpu.fp8_tflops <= 0) return out;
  Precision other = base.recipe.precision;
  other.fp8 = !other.fp8 || other.fp4;  // FP4's alternative: the same bytes in FP8
  other.fp4 = false;
  other.name = "custom";
  for (const Precision& p : precision_presets()) {
    if (p.fp8 == other.fp8 && !p.fp4 && p.total_bytes() == other.total_bytes() &&
        p.weight_bytes == other.weight_bytes && p.grad_bytes == other.grad_bytes &&
        p.master_bytes == other.master_bytes && p.adam_m_bytes == other.adam_m_bytes) {
      other.name = p.name;
    }
  }
  out.push_back(other);
  return out;
}

}  // namespace pe
