#include "model/memory.h"

#include <gtest/gtest.h>

#include "model/activations.h"
#include "model/presets.h"
#include "scenario_builders.h"

namespace pe {
namespace {

using test::report_of;
using test::with_degrees;
using test::with_seams;

// The book: 16e9 params x 16 B/param = 256 GB; params per GPU = N / (TP x PP).
TEST(BookMemory, DataParallelDoesNotShrinkModelStates) {
  const Report r = report_of(with_seams(true, false, false));
  EXPECT_DOUBLE_EQ(r.memory.per_gpu_bytes, 256e9);
  EXPECT_DOUBLE_EQ(r.memory.params_per_gpu, 16e9);
  EXPECT_EQ(r.memory.shard_factor, 1);
  EXPECT_FALSE(r.memory.fits);  // "far past an 80 GB GPU"
}

TEST(BookMemory, SixteenWayModelSplitHoldsOneBillionParamsIn16GB) {
  for (const Scenario& s : {with_seams(false, true, false), with_seams(false, false, true),
                            with_seams(false, true, true)}) {
    const Report r = report_of(s);
    EXPECT_DOUBLE_EQ(r.memory.per_gpu_bytes, 16e9);
    EXPECT_DOUBLE_EQ(r.memory.params_per_gpu, 1e9);
    EXPECT_EQ(r.memory.shard_factor, 16);
    EXPECT_TRUE(r.memory.fits);
  }
}

TEST(BookMemory, AllThreeSeamsHold2BParamsIn32GB) {
  const Report r = report_of(with_seams(true, true, true));
  EXPECT_DOUBLE_EQ(r.memory.per_gpu_bytes, 32e9);
  EXPECT_EQ(r.memory.shard_factor, 8);
}

TEST(BookMemory, FivePartBreakdownOf16BytesPerParam) {
  const MemoryBreakdown b = report_of(with_seams(true, false, false)).memory.breakdown;
  EXPECT_DOUBLE_EQ(b.weights_bytes, 32e9);  // bf16 weight 2
  EXPECT_DOUBLE_EQ(b.grads_bytes, 32e9);    // bf16 grad 2
  EXPECT_DOUBLE_EQ(b.master_bytes, 64e9);   // fp32 master 4
  EXPECT_DOUBLE_EQ(b.adam_m_bytes, 64e9);   // Adam m 4
  EXPECT_DOUBLE_EQ(b.adam_v_bytes, 64e9);   // Adam v 4
  EXPECT_DOUBLE_EQ(b.activations_bytes, 0);
}

// ZeRO paper Fig. 1: Psi = 7.5B, N_d = 64, K = 12 -> 120, 31.4, 16.6, 1.9 GB.
TEST(Zero, Figure1OfTheZeroPaper) {
  const Precision mixed;
  const double expected_gb[] = {120, 31.4, 16.6, 1.9};
  for (int stage = 0; stage <= 3; ++stage) {
    const double gb = model_state_bytes(7.5e9, mixed, stage, 64).total_bytes() / 1e9;
    EXPECT_NEAR(gb, expected_gb[stage], 0.05) << "stage " << stage;
  }
}

TEST(Zero, MegatronDistributedOptimizerIs6Plus12OverD) {
  // Megatron-LM docs (dist_optimizer.md): 18 B/param plain, 6 + 12/d distributed.
  const Precision megatron{"megatron_fp32_grads", 2, 4, 4, 4, 4};
  EXPECT_DOUBLE_EQ(model_state_bytes(1, megatron, 0, 8).total_bytes(), 18);
  EXPECT_DOUBLE_EQ(model_state_bytes(1, megatron, 1, 8).total_bytes(), 6 + 12.0 / 8);
}

// Korthikanti et al. Table 2, per layer, 16-bit activations; values worked by hand.
// 22B (Table 3): s = 2048, b = 4, h = 6144, a = 64, t = 8 -> sbh = 50,331,648, 5as/h = 106.67.
// 175B: s = 2048, b = 1, h = 12288, a = 96, t = 8 -> sbh = 25,165,824, 5as/h = 80.
struct Table2Row {
  const char* row;
  int tp;
  bool sp;
  Recompute recompute;
  double bytes_22b;
  double bytes_175b;
};

void PrintTo(const Table2Row& r, std::ostream* os) { *os << r.row; }

class KorthikantiTable2 : public ::testing::TestWithParam<Table2Row> {};

TEST_P(KorthikantiTable2, PerLayerBytes) {
  const Table2Row r = GetParam();
  EXPECT_NEAR(activation_bytes_per_layer(2048, 4, 6144, 64, r.tp, r.sp, r.recompute), r.bytes_22b,
              1e3)
      << r.row;
  EXPECT_NEAR(activation_bytes_per_layer(2048, 1, 12288, 96, r.tp, r.sp, r.recompute), r.bytes_175b,
              1e3)
      << r.row;
}

INSTANTIATE_TEST_SUITE_P(
    EveryRow, KorthikantiTable2,
    ::testing::Values(
        // sbh (34 + 5as/h)
        Table2Row{"no parallelism", 1, false, Recompute::kNone, 7079985152, 2868903936},
        // sbh (10 + 24/t + 5as/(ht))
        Table2Row{"tensor", 8, false, Recompute::kNone, 1325400064, 578813952},
        // sbh/t (34 + 5as/h)
        Table2Row{"tensor + sequence", 8, true, Recompute::kNone, 884998144, 358612992},
        // sbh (10 + 24/t)
        Table2Row{"tensor + selective", 8, false, Recompute::kSelective, 654311424, 327155712},
        // sbh 34/t
        Table2Row{"tensor + sequence + selective", 8, true, Recompute::kSelective, 213909504,
                  106954752},
        // 2 sbh
        Table2Row{"full recompute", 8, false, Recompute::kFull, 100663296, 50331648}));

TEST(FullMemory, FirstStageHoldsPInFlightMicroBatchesOfItsLayers) {
  Scenario s = with_degrees(1, 1, 4);
  s.recipe.memory_model = MemoryModel::kFull;
  s.recipe.flash_attention = false;  // Korthikanti's accounting, scores stored
  const Report r = report_of(s);
  ASSERT_EQ(r.memory.stages.size(), 4u);
  EXPECT_EQ(r.memory.stages[0].inflight_microbatches, 4);
  EXPECT_EQ(r.memory.stages[3].inflight_microbatches, 1);
  // 50 layers over 4 stages: 12, 13, 13, 12 (Megatron's uneven split closest to even: the
  // middle stages take ceil(50/4) = 13 and the end stages share the other 24).
  EXPECT_EQ(r.memory.stages[0].layers, 12);
  EXPECT_EQ(r.memory.stages[1].layers, 13);
  EXPECT_EQ(r.memory.stages[3].layers, 12);
  const double per_layer =
      activation_bytes_per_layer(2048, 1, 5120, 80, 1, false, Recompute::kNone);
  // 12 layers x 4 in flight + embedding dropout s b h p / t.
  EXPECT_DOUBLE_EQ(r.memory.stages[0].breakdown.activations_bytes,
                   12 * 4 * per_layer + 2048.0 * 5120 * 4);
  EXPECT_EQ(r.memory.peak_stage, 0);
}

TEST(FullMemory, WithFewerMicroBatchesThanStagesOnlyThoseAreInFlight) {
  Scenario s = with_degrees(1, 1, 4);
  s.recipe.memory_model = MemoryModel::kFull;
  s.recipe.flash_attention = false;
  s.batch.global_batch = 2;  // m = 2 < p = 4
  const Report r = report_of(s);
  EXPECT_EQ(r.memory.stages[0].inflight_microbatches, 2);
  const double per_layer =
      activation_bytes_per_layer(2048, 1, 5120, 80, 1, false, Recompute::kNone);
  // 12 layers x 2 in flight + embedding dropout s b h x 2 / t.
  EXPECT_DOUBLE_EQ(r.memory.stages[0].breakdown.activations_bytes,
                   12 * 2 * per_layer + 2048.0 * 5120 * 2);
}

TEST(FullMemory, MemoryNeverGrowsWithMoreZero) {
  Scenario s = with_degrees(8, 2, 1);
  s.recipe.memory_model = MemoryModel::kFull;
  double previous = 1e300;
  for (int z = 0; z <= 3; ++z) {
    s.recipe.zero_stage = z;
    const double bytes = report_of(s).memory.per_gpu_bytes;
    EXPECT_LT(bytes, previous) << "stage " << z;
    previous = bytes;
  }
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

// Korthikanti et al. 2022 Table 2 split by Megatron-Core's recompute_modules, worked by hand
// for the 22B model (h 6144, a 64, GELU, f = 4h), s 2048, b 4, TP 8 with SP: every part / 8.
TEST(ActivationsByModule, EachModuleDropsItsOwnTensors) {
  const ModelShape shape(*find_model("megatron-22b"), 2048);
  const double sbh = 2048.0 * 4 * 6144, t = 8, scores = 5.0 * 64 * 2048 * 2048 * 4;
  ActivationCase c{4, 8, 1, true, /*flash_attention=*/false, /*fp8=*/false};
  const LayerShape& layer = shape.dense_layer();
  const auto stored = [&](unsigned modules) {
    return layer_stored_bytes(shape, layer, c, modules);
  };
  EXPECT_DOUBLE_EQ(stored(0), (34 * sbh + scores) / t);            // Table 2: TP + SP
  EXPECT_DOUBLE_EQ(stored(kCoreAttn), 34 * sbh / t);               // + selective
  EXPECT_DOUBLE_EQ(stored(kCoreAttn | kLayernorm), 30 * sbh / t);  // the norms' outputs, 4sbh
  EXPECT_DOUBLE_EQ(stored(kCoreAttn | kLayernorm | kMlp), 14 * sbh / t);  // the MLP's 16sbh
  EXPECT_DOUBLE_EQ(layer_checkpoint_bytes(shape, c), 2 * sbh / t);        // full: the input
  // Fused attention keeps no scores: core_attn saves nothing.
  c.flash_attention = true;
  EXPECT_DOUBLE_EQ(stored(0), stored(kCoreAttn));
  // FP8 caches the matmuls' inputs at 1 byte: the norms' outputs 4 -> 2, the output
  // projection's input 2 -> 1, the second MLP matmul's input 8 -> 4 (2f bytes, f = 4h).
  c.fp8 = true;
  EXPECT_DOUBLE_EQ(stored(0), 27 * sbh / t);
  // NVFP4 at 0.5625 bytes (4-bit values, an E4M3 scale per 16): 4 -> 1.125, 2 -> 0.5625,
  // 8 -> 2.25.
  c.fp8 = false;
  c.fp4 = true;
  EXPECT_DOUBLE_EQ(stored(0), 23.9375 * sbh / t);
}

// Side by side with Megatron-LM's megatron/training/theoretical_memory_usage.py (its
// compute_activation_memory: SP and selective recomputation assumed), Llama 3 405B (h 16384,
// a 128, 8 KV heads, SwiGLU f 53248), s 8192, b 1, TP 8 + SP, core_attn recomputed. Megatron
// counts s b h (18 + 4 f/h) / t = 31 s b h / t per layer; this model (8 + 4 + 4 g/a + 6 f/h)
// = 31.75 s b h / t. They disagree three times: Megatron keeps K and V at full width (its code
// notes query_projection_size as a TODO; GQA's 8 of 128 heads save 3.75 s b h here); it
// counts SwiGLU's MLP as two f-wide tensors, 4 f/h, where the gate, the up projection and
// their product are three, 6 f/h (6.5 s b h more); and it counts Korthikanti's two dropout
// masks, which Llama, trained without dropout, does not keep (2 s b h less). llm-analysis
// (cli99/llm-analysis, analysis.py) keeps the norms' inputs in fp32 and, under full recomputation,
// divides the layer input by TP even without SP; this model keeps them 16-bit and divides only with
// SP.
TEST(ActivationsByModule, Llama3PerLayerBesideMegatronsTheoreticalMemory) {
  const ModelShape shape(*find_model("llama3-405b"), 8192);
  const double sbh = 8192.0 * 16384, t = 8;
  const ActivationCase c{1, 8, 1, true, true, false};
  const double ours = layer_stored_bytes(shape, shape.dense_layer(), c, kCoreAttn);
  EXPECT_DOUBLE_EQ(ours, 31.75 * sbh / t);
  const double megatron = sbh * (18 + 4 * 53248.0 / 16384) / t;
  // the MLP over; K, V and the masks under
  EXPECT_DOUBLE_EQ(ours - megatron, (6.5 - 3.75 - 2) * sbh / t);
}

// The planner sums a stage's memory from its model states' sum (stage_total_bytes); the plans
// it ranks must hold the bytes memory_report gives, to the bit.
TEST(StageMemory, TotalFromTheStatesSumIsTheBreakdownsTotal) {
  MemoryBreakdown states;
  states.weights_bytes = 1.1e9;
  states.grads_bytes = 2.3e9 / 3;
  states.master_bytes = 4.7e9 / 7;
  states.adam_m_bytes = 0.3e9 / 11;
  states.adam_v_bytes = 5.9e9 / 13;
  const StageActivations acts{7.7e9 / 3, 1.5e9, 0.9e9 / 7};
  for (const double gathered : {0.0, 1.7e9 / 3}) {
    const double total = stage_breakdown(states, acts, 2e9, gathered).total_bytes();
    EXPECT_EQ(stage_total_bytes(states.model_state_bytes(), acts, 2e9, gathered), total);
  }
}

}  // namespace
}  // namespace pe
