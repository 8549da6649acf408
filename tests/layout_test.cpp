#include "layout.h"

#include <gtest/gtest.h>

#include "scenario_builders.h"

namespace pe {
namespace {

TEST(Layout, TensorVariesFastestThenPipelineThenData) {
  // 2 x 4 x 2 on 16 GPUs: rank = (dp * PP + pp) * TP + tp.
  const auto ranks = layout({2, 4, 2}, 8);
  ASSERT_EQ(ranks.size(), 16u);
  EXPECT_EQ(ranks[0].tp, 0);
  EXPECT_EQ(ranks[3].tp, 3);
  EXPECT_EQ(ranks[4].tp, 0);
  EXPECT_EQ(ranks[4].pp, 1);
  EXPECT_EQ(ranks[8].pp, 0);
  EXPECT_EQ(ranks[8].dp, 1);
  EXPECT_EQ(ranks[13].dp, 1);
  EXPECT_EQ(ranks[13].pp, 1);
  EXPECT_EQ(ranks[13].tp, 1);
  for (const RankPlace& p : ranks) {
    EXPECT_EQ(rank_of({2, 4, 2}, p.dp, p.tp, p.pp), p.rank);
    EXPECT_EQ(p.node, p.rank / 8);
  }
}

TEST(Layout, DataOnlyReplicasSpanBothNodes) {
  const NodeSpans s = node_spans({16, 1, 1}, 8);
  EXPECT_TRUE(s.dp_group_spans_nodes);
  EXPECT_FALSE(s.tp_group_spans_nodes);
}

TEST(Layout, TensorOfFourStaysInItsNode) {
  const NodeSpans s = node_spans({4, 4, 1}, 8);
  EXPECT_FALSE(s.tp_group_spans_nodes);
  EXPECT_TRUE(s.dp_group_spans_nodes);
}

TEST(Layout, TensorOfSixteenSpansTwoNodes) {
  EXPECT_TRUE(node_spans({1, 16, 1}, 8).tp_group_spans_nodes);
}

TEST(Layout, PipelineOfFourOverTensorOfFourCrossesNodesBetweenStagesOneAndTwo) {
  // Stages 0,1 on node 0 and stages 2,3 on node 1.
  const NodeSpans s = node_spans({1, 4, 4}, 8);
  EXPECT_TRUE(s.pp_neighbours_span_nodes);
  EXPECT_FALSE(s.tp_group_spans_nodes);
}

TEST(Layout, TwoStagesInsideOneNodeTalkOverNvlink) {
  EXPECT_FALSE(node_spans({1, 4, 2}, 8).pp_neighbours_span_nodes);
}

// node_spans walks one period of the rank pattern; this checks it against every group.
NodeSpans brute_force_spans(const Degrees& d, int per_node, const SeamOrder& o = kBookOrder) {
  NodeSpans s;
  auto node = [&](int dp, int tp, int pp) { return rank_of(d, dp, tp, pp, o) / per_node; };
  for (const RankPlace& p : layout(d, per_node, o)) {
    EXPECT_EQ(rank_of(d, p.dp, p.tp, p.pp, o), p.rank);
    if (node(p.dp, d.tp - 1, p.pp) != p.node) s.tp_group_spans_nodes = true;
    if (p.pp + 1 < d.pp && node(p.dp, p.tp, p.pp + 1) != p.node) s.pp_neighbours_span_nodes = true;
    if (node(d.dp - 1, p.tp, p.pp) != p.node) s.dp_group_spans_nodes = true;
  }
  return s;
}

const SeamOrder kAllOrders[] = {
    {Seam::kTensor, Seam::kPipeline, Seam::kData}, {Seam::kTensor, Seam::kData, Seam::kPipeline},
    {Seam::kPipeline, Seam::kTensor, Seam::kData}, {Seam::kPipeline, Seam::kData, Seam::kTensor},
    {Seam::kData, Seam::kTensor, Seam::kPipeline}, {Seam::kData, Seam::kPipeline, Seam::kTensor}};

// DP innermost on 16 GPUs as 2x4x2: rank = dp + 2 (tp + 4 pp), so DP pairs share a node, a TP
// group (stride 2, 4 members) spans ranks 0..6 of one node, and PP's stride 8 is a node apart.
TEST(Layout, TheOrderSaysWhichCoordinateVariesFastest) {
  const SeamOrder dp_first = {Seam::kData, Seam::kTensor, Seam::kPipeline};
  const Degrees d{2, 4, 2};
  EXPECT_EQ(place_of(d, 8, 7, dp_first).dp, 1);
  EXPECT_EQ(place_of(d, 8, 7, dp_first).tp, 3);
  EXPECT_EQ(place_of(d, 8, 7, dp_first).pp, 0);
  const NodeSpans s = node_spans(d, 8, dp_first);
  EXPECT_FALSE(s.dp_group_spans_nodes);
  EXPECT_FALSE(s.tp_group_spans_nodes);
  EXPECT_TRUE(s.pp_neighbours_span_nodes);
  EXPECT_EQ(order_text(dp_first), "dp,tp,pp");
  EXPECT_EQ(order_from_text("dp,tp,pp"), dp_first);
  for (const char* bad : {"tp,pp", "tp,tp,dp", "tp,pp,dp,dp", "tp,pp,xp", "", "tp,,pp"}) {
    EXPECT_FALSE(order_from_text(bad)) << bad;
  }
}

TEST(Layout, NodeSpansAgreeWithAGroupByGroupCheckInEveryOrder) {
  for (const SeamOrder& o : kAllOrders) {
    for (int per_node : {1, 3, 4, 8}) {
      for (int dp = 1; dp <= 6; ++dp) {
        for (int tp = 1; tp <= 6; ++tp) {
          for (int pp = 1; pp <= 6; ++pp) {
            const Degrees d{dp, tp, pp};
            const NodeSpans fast = node_spans(d, per_node, o);
            const NodeSpans slow = brute_force_spans(d, per_node, o);
            ASSERT_EQ(fast.tp_group_spans_nodes, slow.tp_group_spans_nodes) << order_text(o);
            ASSERT_EQ(fast.pp_neighbours_span_nodes, slow.pp_neighbours_span_nodes);
            ASSERT_EQ(fast.dp_group_spans_nodes, slow.dp_group_spans_nodes);
          }
        }
      }
    }
  }
}

TEST(Layout, NodeSpansAgreeWithAGroupByGroupCheck) {
  for (int per_node : {1, 2, 3, 4, 6, 8, 16}) {
    for (int dp = 1; dp <= 12; ++dp) {
      for (int tp = 1; tp <= 12; ++tp) {
        for (int pp = 1; pp <= 12; ++pp) {
          const Degrees d{dp, tp, pp};
          const NodeSpans fast = node_spans(d, per_node), slow = brute_force_spans(d, per_node);
          ASSERT_EQ(fast.tp_group_spans_nodes, slow.tp_group_spans_nodes) << dp << tp << pp;
          ASSERT_EQ(fast.pp_neighbours_span_nodes, slow.pp_neighbours_span_nodes) << dp << tp << pp;
          ASSERT_EQ(fast.dp_group_spans_nodes, slow.dp_group_spans_nodes) << dp << tp << pp;
        }
      }
    }
  }
}

}  // namespace
}  // namespace pe
