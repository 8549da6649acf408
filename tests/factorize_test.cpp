#include "model/factorize.h"

#include <gtest/gtest.h>

#include <string>

#include "model/layout.h"
#include "model/presets.h"
#include "scenario_builders.h"

namespace pe {
namespace {

struct SeamCase {
  bool data, tensor, pipeline;
  int dp, tp, pp;
};

void PrintTo(const SeamCase& c, std::ostream* os) {
  *os << (c.data ? "D" : "") << (c.tensor ? "T" : "") << (c.pipeline ? "P" : "");
}

// The book lab on 16 GPUs, 8 per node (core/README.md "The auto-factor rule").
class SixteenGpus : public ::testing::TestWithParam<SeamCase> {};

TEST_P(SixteenGpus, AutoFactorsLikeTheBook) {
  const SeamCase c = GetParam();
  const Degrees d = auto_factor(16, 8, 50, {c.data, c.tensor, c.pipeline});
  EXPECT_EQ(d.dp, c.dp);
  EXPECT_EQ(d.tp, c.tp);
  EXPECT_EQ(d.pp, c.pp);
}

INSTANTIATE_TEST_SUITE_P(SevenSeamCombinations, SixteenGpus,
                         ::testing::Values(SeamCase{true, false, false, 16, 1, 1},
                                           SeamCase{false, true, false, 1, 16, 1},
                                           SeamCase{false, false, true, 1, 1, 16},
                                           SeamCase{true, true, false, 4, 4, 1},
                                           SeamCase{true, false, true, 4, 1, 4},
                                           SeamCase{false, true, true, 1, 4, 4},
                                           SeamCase{true, true, true, 2, 4, 2}));

TEST(AutoFactor, NoSeamRunsOnOneGpu) {
  const Degrees d = auto_factor(16, 8, 50, {false, false, false});
  EXPECT_EQ(d.product(), 1);
}

TEST(AutoFactor, ProductIsTheGpuCountForEveryCountAndSeamSet) {
  for (int gpus = 1; gpus <= 4096; ++gpus) {
    for (int mask = 1; mask < 8; ++mask) {
      const Seams seams{(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
      const Degrees d = auto_factor(gpus, 8, 200, seams);
      ASSERT_EQ(d.product(), gpus) << "gpus " << gpus << " mask " << mask;
      if (!seams.data) ASSERT_EQ(d.dp, 1);
      if (!seams.tensor) ASSERT_EQ(d.tp, 1);
      if (!seams.pipeline) ASSERT_EQ(d.pp, 1);
    }
  }
  EXPECT_EQ(auto_factor(10240, 8, 200, {true, true, true}).product(), 10240);
}

TEST(AutoFactor, TensorStaysInsideANodeWhenAnotherSeamCanTakeTheRest) {
  for (int gpus : {24, 96, 10240, 16384}) {
    const Degrees d = auto_factor(gpus, 8, 200, {true, true, true});
    EXPECT_EQ(8 % d.tp, 0) << gpus;
  }
  // 24 = 3 x 2 x 2 x 2: the 3 cannot go to TP (it does not divide 8), so PP takes it.
  const Degrees d24 = auto_factor(24, 8, 50, {true, true, true});
  EXPECT_EQ(d24.dp, 2);
  EXPECT_EQ(d24.tp, 4);
  EXPECT_EQ(d24.pp, 3);
}

// TP inside the fast domain: on GB200 NVL72 (72 GPUs per NVLink domain over trays of 4) TP
// fills past the tray up to what the domain and the heads allow. 288 = 3 x 3 x 2^5: the 3s
// cannot go to TP (128 heads), so PP and DP take them; TP then takes 2, 2 and, balancing,
// a third 2: TP 8 across two trays, every group inside one domain (72 = 9 x 8).
TEST(AutoFactor, TensorFillsAnNvlinkDomainWiderThanTheNode) {
  Scenario s = test::with_seams(true, true, true, 288);
  s.gpu = *find_gpu("GB200-NVL72");
  s.fleet.gpus_per_node = 4;
  s.model = *find_model("llama3-405b");
  const Degrees d = auto_factor(s);
  EXPECT_EQ(d.dp, 6);
  EXPECT_EQ(d.tp, 8);
  EXPECT_EQ(d.pp, 6);
  EXPECT_FALSE(node_spans(d, 4, kBookOrder, 72).tp_group_spans_nodes);
  // The domain cut to one tray: the node rule, TP 4.
  s.gpu.nvlink_domain_gpus = 0;
  EXPECT_EQ(auto_factor(s).tp, 4);
}

// Nothing moves where the domain is the node, and wherever TP is past the node it stays inside
// one domain and divides the heads (when DP is on to take what TP refuses), for every count up
// to 2,048 and every seam set.
TEST(AutoFactor, TensorPastTheNodeOnlyInsideOneDomain) {
  for (int domain : {0, 8, 16, 72}) {
    for (int per_node : {4, 8}) {
      if (domain % per_node != 0) continue;
      for (int gpus = 1; gpus <= 2048; ++gpus) {
        for (int seams = 1; seams < 8; ++seams) {
          Scenario s = test::with_seams(seams & 1, seams & 2, seams & 4, gpus);
          s.fleet.gpus_per_node = per_node;
          s.model.layers = 126;
          s.model.heads = 96;  // divisible by 2, 3, 4, 6, 8, 12, 16...
          const Degrees node_rule = auto_factor(s);
          s.gpu.nvlink_domain_gpus = domain;
          const Degrees d = auto_factor(s);
          if (domain <= per_node) {
            EXPECT_EQ(d.tp, node_rule.tp) << gpus;
            EXPECT_EQ(d.dp, node_rule.dp) << gpus;
            EXPECT_EQ(d.pp, node_rule.pp) << gpus;
          } else if (d.tp > per_node && (seams & 1)) {  // DP can take what TP refuses
            EXPECT_EQ(domain % d.tp, 0) << gpus << " seams " << seams;
            EXPECT_EQ(96 % d.tp, 0) << gpus << " seams " << seams;
            EXPECT_FALSE(node_spans(d, per_node, kBookOrder, domain).tp_group_spans_nodes)
                << gpus << " seams " << seams;
          }
        }
      }
    }
  }
}

TEST(AutoFactor, TheBooksFleetSizeBalancesDataAndPipeline) {
  const Degrees d = auto_factor(10240, 8, 50, {true, true, true});
  EXPECT_EQ(d.tp, 8);
  EXPECT_EQ(d.dp, 32);
  EXPECT_EQ(d.pp, 40);
}

TEST(AutoFactor, PipelineNeverHasMoreStagesThanLayersWhileDataCanTakeTheRest) {
  const Degrees d = auto_factor(4096, 8, 32, {true, false, true});
  EXPECT_LE(d.pp, 32);
  EXPECT_EQ(d.product(), 4096);
}

}  // namespace
}  // namespace pe

namespace pe {
namespace {

TEST(AcceptedLayouts, EveryFactorizationWithNoMoreStagesThanLayers) {
  Scenario s;  // 16 GPUs, 50 layers: all 15 ordered factorizations of 16 into three
  EXPECT_EQ(accepted_layouts(s).size(), 15u);
  s.model.layers = 4;  // PP 8 and 16 are refused: (1,1,16),(2,1,8),(1,2,8) -> 12 left
  EXPECT_EQ(accepted_layouts(s).size(), 12u);
  s.recipe.schedule = Schedule::kInterleaved;
  s.recipe.virtual_stages = 2;  // PP x 2 <= 4: PP 1 or 2 only -> (16,1,1),(8,1,2),(8,2,1),(4,2,2),
                                // (4,4,1),(2,4,2),(2,8,1),(1,8,2),(1,16,1)
  EXPECT_EQ(accepted_layouts(s).size(), 9u);
  for (const Degrees& d : accepted_layouts(s)) EXPECT_TRUE(layout_problem(s, d).empty());
}

}  // namespace
}  // namespace pe
