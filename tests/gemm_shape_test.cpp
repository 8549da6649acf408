// Small GEMMs: the measured curve by size, a layer's GEMMs, and what they do to a step.
#include "model/gemm_shape.h"

#include <gtest/gtest.h>

#include <cmath>

#include "model/model_shape.h"
#include "model/presets.h"
#include "model/step_time.h"
#include "scenario_builders.h"

namespace pe {
namespace {

using test::report_of;
using test::with_degrees;

ModelSpec preset(const char* name) { return *find_model(name); }

// The table's points, each its size's median over OpenXLA's shapes, over the largest (the
// B200's 1,690.7 TFLOP/s at 2^38; the H100's 804.8 at 2^37, its 793.1 at 2^38 held at 804.8).
TEST(GemmShape, TheTablesPointsOverTheirLargest) {
  EXPECT_DOUBLE_EQ(gemm_shape_efficiency(GemmCurve::kBlackwell, std::ldexp(1, 38)), 1);
  EXPECT_DOUBLE_EQ(gemm_shape_efficiency(GemmCurve::kBlackwell, std::ldexp(1, 36)),
                   1402.8 / 1690.7);
  EXPECT_DOUBLE_EQ(gemm_shape_efficiency(GemmCurve::kBlackwell, std::ldexp(1, 33)), 934.3 / 1690.7);
  EXPECT_DOUBLE_EQ(gemm_shape_efficiency(GemmCurve::kHopper, std::ldexp(1, 34)), 712.7 / 804.8);
  EXPECT_DOUBLE_EQ(gemm_shape_efficiency(GemmCurve::kHopper, std::ldexp(1, 37)), 1);
  EXPECT_DOUBLE_EQ(gemm_shape_efficiency(GemmCurve::kHopper, std::ldexp(1, 38)), 1);
  EXPECT_DOUBLE_EQ(gemm_shape_efficiency(GemmCurve::kHopper, std::ldexp(1, 45)), 1);
}

// Between two sizes a power law: 3 x 2^34 is log2(3) - 1 = 0.585 of the way from 2^35
// (1,278.2) to 2^36 (1,402.8) on log-log axes. Below 2^24, proportional to the size.
TEST(GemmShape, PowerLawBetweenPointsProportionalBelow) {
  const double x = std::log2(3.0) - 1;
  EXPECT_NEAR(gemm_shape_efficiency(GemmCurve::kBlackwell, 3 * std::ldexp(1, 34)),
              1278.2 * std::pow(1402.8 / 1278.2, x) / 1690.7, 1e-12);
  EXPECT_NEAR(gemm_shape_efficiency(GemmCurve::kHopper, std::ldexp(1, 23)), 6.5 / 804.8 / 2, 1e-15);
}

// A GPU without a measured curve (A100, custom) runs every GEMM at its calibrated efficiency.
TEST(GemmShape, NoCurveNoSlowdown) {
  EXPECT_EQ(gemm_shape_efficiency(GemmCurve::kNone, 1e3), 1);
  EXPECT_EQ(find_gpu("A100-80GB")->gemm_curve, GemmCurve::kNone);
  EXPECT_EQ(find_gpu("H100-80GB")->gemm_curve, GemmCurve::kHopper);
  EXPECT_EQ(find_gpu("GB300-NVL72")->gemm_curve, GemmCurve::kBlackwell);
}

// A larger GEMM is never less efficient, nor more than twice as efficient at twice the size:
// twice the GEMM never takes less time.
TEST(GemmShape, LargerNeverLessEfficientNorFaster) {
  for (GemmCurve c : {GemmCurve::kHopper, GemmCurve::kBlackwell}) {
    for (double e = 20; e < 42; e += 0.0625) {
      const double mnk = std::exp2(e);
      const double here = gemm_shape_efficiency(c, mnk), twice = gemm_shape_efficiency(c, 2 * mnk);
      EXPECT_LE(here, twice) << e;
      EXPECT_LE(twice, 2 * here * (1 + 1e-12)) << e;
      EXPECT_LE(twice, 1);
    }
  }
}

// A layer's GEMMs are its matmul weights, split as TP splits them: Llama 3 8B's QKV 4,096 x
// 6,144, output 4,096 x 4,096, fused gate and up 4,096 x 28,672, down 14,336 x 4,096; at TP 2
// each halves; DeepSeek-V3's MoE layer: MLA, the router and its shared expert.
TEST(GemmShape, ALayersGemmsAreItsMatmulWeights) {
  const LayerGemms g = layer_gemms(preset("llama3-8b"), false, 1);
  ASSERT_EQ(g.count, 4);
  EXPECT_EQ(g.dims[0].k * g.dims[0].n, 4096.0 * 6144);
  EXPECT_EQ(g.dims[2].n, 28672);
  EXPECT_EQ(g.weights(),
            ModelShape(preset("llama3-8b"), 8192).dense_layer().attention.matmul_params +
                ModelShape(preset("llama3-8b"), 8192).dense_layer().mlp.matmul_params);
  EXPECT_EQ(layer_gemms(preset("llama3-8b"), false, 2).weights(), g.weights() / 2);
  const ModelShape ds(preset("deepseek-v3"), 4096);
  const LayerShape& moe = ds.moe_layer();
  EXPECT_EQ(layer_gemms(preset("deepseek-v3"), true, 1).weights(),
            moe.attention.matmul_params + moe.mlp.matmul_params + moe.mlp.expert_matmul_params);
  EXPECT_EQ(layer_gemms(preset("gpt3-175b"), false, 1).weights(),
            ModelShape(preset("gpt3-175b"), 2048).dense_layer().attention.matmul_params +
                ModelShape(preset("gpt3-175b"), 2048).dense_layer().mlp.matmul_params);
}

// Llama 3 8B on B200 with one 8,192-token sequence split over CP 2: 4,096 rows. QKV 2^36.58
// (0.850 of a large GEMM), the output projection 2^36 (1,402.8 / 1,690.7 = 0.830), gate and up
// 2^38.8 (1), down 2^37.8 (0.972): by their FLOPs 0.958. At 16,384 rows every one is large.
TEST(GemmShape, Llama8bAtFourThousandTokensOnB200) {
  const LayerGemms g = layer_gemms(preset("llama3-8b"), false, 1);
  const GemmCost c = layer_gemm_cost(GemmCurve::kBlackwell, g, 4096);
  double slow = 0;
  for (int i = 0; i < g.count; ++i) {
    const double w = g.dims[static_cast<size_t>(i)].k * g.dims[static_cast<size_t>(i)].n;
    slow += w / gemm_shape_efficiency(GemmCurve::kBlackwell, 4096 * w);
  }
  EXPECT_DOUBLE_EQ(c.efficiency(), g.weights() / slow);
  EXPECT_NEAR(c.efficiency(), 0.958, 0.001);
  EXPECT_NEAR(gemm_shape_efficiency(GemmCurve::kBlackwell, 4096.0 * 4096 * 4096), 0.830, 0.001);
  EXPECT_DOUBLE_EQ(layer_gemm_cost(GemmCurve::kBlackwell, g, 16384).efficiency(), 1);
}

// TP 8 on an 8B model narrows its output projection to 512 x 4,096: on Hopper at 8,192 rows
// 2^34, 712.7 / 804.8 of a large GEMM's rate; the step slows with it.
TEST(GemmShape, WideTensorParallelismSlowsASmallModelsGemms) {
  Scenario s = with_degrees(1, 8, 1);
  s.model = preset("llama3-8b");
  s.model.params = shape_params(s.model, 8192);
  s.gpu = *find_gpu("H100-80GB");
  s.batch.seq_len = 8192;
  s.batch.global_batch = 8;
  const ModelShape shape(s);
  const LinearGemmShapes g = linear_gemm_shapes(s, shape, {1, 8, 1}, 1);
  EXPECT_EQ(g.rows, 8192);
  EXPECT_LT(g.dense.efficiency(), 0.97);
  const Report slow = report_of(s);
  s.gpu.gemm_curve = GemmCurve::kNone;
  const Report flat = report_of(s);
  EXPECT_GT(slow.time.compute_s, flat.time.compute_s);
  EXPECT_NEAR(slow.time.gemm_shape_efficiency, g.dense.efficiency(), 1e-12);
  EXPECT_EQ(flat.time.gemm_shape_efficiency, 1);
}

}  // namespace
}  // namespace pe
