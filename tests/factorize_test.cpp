#include "model/factorize.h"

#include <gtest/gtest.h>

#include <string>

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
  s.schedule = Schedule::kInterleaved;
  s.virtual_stages = 2;  // PP x 2 <= 4: PP 1 or 2 only -> (16,1,1),(8,1,2),(8,2,1),(4,2,2),
                         // (4,4,1),(2,4,2),(2,8,1),(1,8,2),(1,16,1)
  EXPECT_EQ(accepted_layouts(s).size(), 9u);
  for (const Degrees& d : accepted_layouts(s)) EXPECT_TRUE(layout_problem(s, d).empty());
}

}  // namespace
}  // namespace pe
