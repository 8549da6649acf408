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

}  // namespace
}  // namespace pe
