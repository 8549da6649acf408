#include "model/gemm_shape.h"

#include <algorithm>
#include <cmath>

#include "model/attention_shape.h"

namespace pe {
namespace {

// cuBLAS's measured BF16 GEMM throughput (TFLOP/s) by size, from OpenXLA's GPU cost model
// (xla/service/gpu/model/matmul_interpolator_data.h, kDefaultMatmulPTable, the 2025 table
// with "sm_90" and "sm_100" entries, as TensorFlow vendors it in third_party/xla): every
// batched GEMM b x (m x k) x (k x n) with b in {1, 2, 4} and m, n, k in {256, ..., 4096},
// 375 shapes per GPU, measured on an H100 (sm_90) and a B200 (sm_100). Typed here as the median
// over the shapes of each size b m n k = 2^24, 2^25, ..., 2^38 (a GEMM's rate follows its size
// within about 5% once K and N are 1,024 or more; narrower K, memory-bound, runs slower at the
// same size). The B200's is still rising at 2^38 (16,384 x 4,096 x 4,096: 1,691 TFLOP/s, 75% of
// the 2,250 peak, where NVIDIA measures a 1,745 ceiling); the H100's levels off from 2^36 near
// 800 (81% of 989).
constexpr int kFirstLog2 = 24;
constexpr int kPoints = 15;
// The H100's last size measured 793.1, under the size before it: held at 804.8, so a larger
// GEMM is never less efficient.
constexpr double kHopper[kPoints] = {6.5,   11.5,  21.9,  41.8,  78.8,  138.7, 216.8, 335.5,
                                     462.0, 598.2, 712.7, 730.1, 775.6, 804.8, 804.8};
constexpr double kBlackwell[kPoints] = {6.0,   11.8,  21.7,   42.4,   81.0,   149.5,  255.3, 426.0,
                                        633.8, 934.3, 1142.7, 1278.2, 1402.8, 1460.6, 1690.7};

}  // namespace

// x = m 2^e with m in [1/sqrt 2, sqrt 2), and ln m = 2 atanh z = 2 (z + z^3/3 + z^5/5 + ...) for
// z = (m - 1)/(m + 1), |z| < 0.172: twelve terms leave under 1e-18. The wasm build's libm
// (Emscripten's musl) and glibc's give different last bits for std::log10 on about 1 input in
// 60 (std::log on about 1 in a million), which made a step differ between the native CLI and
// the page (Mixtral 8x7B at 1,024 tokens with capacity factor 1.43 on 8 H100s:
// 3.1379111854122477 s against ...247); these operations round the same way in both.
double log_same_everywhere(double x) {
  int e = 0;
  double m = std::frexp(x, &e);
  if (m < 0.70710678118654752) {
    m *= 2;
    --e;
  }
  const double z = (m - 1) / (m + 1);
  const double z2 = z * z;
  double series = 0;
  for (int k = 23; k >= 1; k -= 2) series = series * z2 + 1.0 / k;
  return e * 0.69314718055994531 + 2 * z * series;
}

// e^x for |x| <= ln 2 by its Taylor series, arithmetic alone (as log_same_everywhere): 25
// terms leave under 1e-20.
double exp_same_everywhere(double x) {
  double term = 1, sum = 1;
  for (int k = 1; k <= 25; ++k) sum += term *= x / k;
  return sum;
}

// Between two sizes a power law through both points (straight on log-log axes), below the
// smallest the rate in proportion to the size: so, as the points rise by at most 2x per
// doubling, twice the GEMM is never more than twice as efficient anywhere.
double gemm_shape_efficiency(GemmCurve curve, double mnk) {
  if (curve == GemmCurve::kNone || !(mnk > 0)) return 1;
  const double* rates = curve == GemmCurve::kHopper ? kHopper : kBlackwell;
  const double top = rates[kPoints - 1];
  const double first = std::ldexp(1.0, kFirstLog2);
  if (mnk < first) return rates[0] / top * mnk / first;
  const double x = log_same_everywhere(mnk / first) / 0.69314718055994531;  // log2, from 0
  if (x >= kPoints - 1) return 1;
  const int i = static_cast<int>(x);
  const double lo = rates[i], hi = rates[i + 1];
  return lo * exp_same_everywhere((x - i) * log_same_everywhere(hi / lo)) / top;
}

double LayerGemms::weights() const {
  double w = 0;
  for (int i = 0; i < count; ++i) {
    const GemmDims& d = dims[static_cast<size_t>(i)];
    w += d.copies * d.k * d.n;
  }
  return w;
}

LayerGemms layer_gemms(const ModelSpec& m, bool moe_layer, int tp) {
  const double h = m.hidden, a = m.heads, t = tp;
  LayerGemms g;
  if (m.attention == Attention::kLatent) {
    const LatentAttentionShape mla;
    g.add(h, mla.q_rank);
    g.add(mla.q_rank, a * (mla.qk_nope + mla.qk_rope) / t);
    g.add(h, mla.kv_rank + mla.qk_rope);
    g.add(mla.kv_rank, a * (mla.qk_nope + mla.v) / t);
    g.add(a * mla.v / t, h);
  } else {
    const double q_width = a * m.head(), kv_width = 1.0 * m.kv() * m.head();
    g.add(h, (q_width + 2.0 * kv_width) / t);
    g.add(q_width / t, h);
  }
  const bool gelu = m.activation == Activation::kGelu;
  const auto mlp = [&](double f, double copies) {
    g.add(h, (gelu ? 1.0 : 2.0) * f / t, copies);
    g.add(f / t, h, copies);
  };
  if (!moe_layer) {
    mlp(m.ffn(), 1);
    return g;
  }
  g.add(h, m.experts);  // the router
  if (m.shared_experts > 0) mlp(m.expert_ffn(), m.shared_experts);
  return g;
}

GemmCost layer_gemm_cost(GemmCurve curve, const LayerGemms& g, double rows) {
  GemmCost c;
  for (int i = 0; i < g.count; ++i) {
    const GemmDims& d = g.dims[static_cast<size_t>(i)];
    const double w = d.k * d.n;
    c.weights += d.copies * w;
    c.slow_weights += d.copies * w / gemm_shape_efficiency(curve, rows * w);
  }
  return c;
}

LinearGemmShapes linear_gemm_shapes(const Scenario& s, const ModelShape& shape, const Degrees& d,
                                    int micro_batch) {
  const GemmCurve curve = s.gpu.gemm_curve;
  const double rows = 1.0 * micro_batch * s.batch.seq_len / d.cp;
  LinearGemmShapes g;
  g.rows = rows;
  g.dense = layer_gemm_cost(curve, layer_gemms(s.model, false, d.tp), rows);
  g.moe = shape.moe() ? layer_gemm_cost(curve, layer_gemms(s.model, true, d.tp), rows) : g.dense;
  // The output layer's logits GEMM, h x V/t.
  g.output_efficiency = gemm_shape_efficiency(curve, rows * s.model.hidden * s.model.vocab / d.tp);
  return g;
}

double LinearGemmShapes::weights(int dense_layers, int moe_layers) const {
  return dense_layers * dense.weights + moe_layers * moe.weights;
}
double LinearGemmShapes::slow_weights(int dense_layers, int moe_layers) const {
  return dense_layers * dense.slow_weights + moe_layers * moe.slow_weights;
}
double LinearGemmShapes::slowdown(int dense_layers, int moe_layers) const {
  const double w = weights(dense_layers, moe_layers);
  return w > 0 ? slow_weights(dense_layers, moe_layers) / w : 1;
}

}  // namespace pe
