// Small GEMMs run below a large GEMM's rate: a layer's linear GEMMs (QKV, the output
// projection, the MLP's two) at the efficiency a published GEMM benchmark measured for their
// size, against its largest. The GPU's calibrated matmul efficiency (scenario.h) stays the
// efficiency of large GEMMs; this scales it down for the layouts whose GEMMs are small (few
// tokens per micro-batch, wide TP).
#pragma once

#include <array>

#include "model/model_shape.h"
#include "model/scenario.h"

namespace pe {

// ln x (x > 0) from frexp and arithmetic alone, the same bits in the native build and the
// wasm one (whose libm rounds differently; gemm_shape.cpp says how).
double log_same_everywhere(double x);

// One GEMM's efficiency against the curve's largest, by its size m n k (its 2 m n k FLOPs):
// cuBLAS's measured BF16 rate over every shape of that size in OpenXLA's GPU cost-model table,
// its median, a power law between the table's sizes (2^24 to 2^38, linear on log-log axes),
// proportional below them, 1 above (gemm_shape.cpp cites the table). Never less for a larger GEMM,
// nor more than twice for a GEMM twice as large (so a larger GEMM never takes less time). 1 on a
// GPU without a measured curve (kNone: A100 and custom GPUs keep the single calibrated efficiency).
double gemm_shape_efficiency(GemmCurve curve, double mnk);

// The linear GEMMs of one layer on one TP rank: each weight's input width K and output width N
// (the token count is the third dimension). Multi-head and grouped-query attention: QKV h x
// (h + 2 g h/a)/t (one fused GEMM), the output projection h/t x h; latent attention (DeepSeek):
// its down projections h x q_r and h x (kv_r + r) whole on each rank, its up projections
// q_r x a(n + r)/t and kv_r x a(n + v)/t and the output a v/t x h. MLP: GELU h x f/t, f/t x h;
// SwiGLU h x 2f/t (gate and up fused, Megatron-Core's linear_fc1), f/t x h. An MoE layer: the
// router h x E and its shared experts (the routed experts' grouped GEMMs are moe.h's).
// S shared experts are one GEMM pair of S copies.
struct GemmDims {
  double k = 0;
  double n = 0;
  double copies = 1;
};
struct LayerGemms {
  std::array<GemmDims, 8> dims{};
  int count = 0;
  void add(double k, double n, double copies = 1) {
    dims[static_cast<size_t>(count++)] = {k, n, copies};
  }
  double weights() const;  // sum of K N: the layer's linear weights on the rank
};
LayerGemms layer_gemms(const ModelSpec& m, bool moe_layer, int tp);

// A layer's GEMMs at `rows` tokens each (Megatron-Core's s b / c per micro-batch, whole on
// every TP rank: sequence parallelism gathers them before the GEMM): their FLOPs, in proportion
// to K N, over the sum of each one's FLOPs over its efficiency. 1 when every GEMM is large.
struct GemmCost {
  double weights = 0;       // sum of K N
  double slow_weights = 0;  // sum of K N / efficiency(rows K N)
  double efficiency() const { return slow_weights > 0 ? weights / slow_weights : 1; }
};
GemmCost layer_gemm_cost(GemmCurve curve, const LayerGemms& g, double rows);

// The linear GEMMs of the scenario's layers at their size: s b / c rows each (b the micro-batch),
// the dense layer's and the MoE layer's (its routed experts aside: moe.h) on one TP rank, and
// the output layer's h x V/t. A stage's non-routed GEMM FLOPs run at the rate a large GEMM
// reaches divided by slowdown(its dense layers, its MoE layers), the output layer's times
// output_efficiency; the GPU's calibrated efficiency stays a large GEMM's.
struct LinearGemmShapes {
  double rows = 0;
  GemmCost dense, moe;
  double output_efficiency = 1;
  // Over that many layers: the GEMMs' K N, and the same each over its efficiency.
  double weights(int dense_layers, int moe_layers) const;
  double slow_weights(int dense_layers, int moe_layers) const;
  double slowdown(int dense_layers, int moe_layers) const;
};
LinearGemmShapes linear_gemm_shapes(const Scenario& s, const ModelShape& shape, const Degrees& d,
                                    int micro_batch);

}  // namespace pe
