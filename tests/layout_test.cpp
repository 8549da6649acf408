#include "model/layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <string>

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

// A seam's groups in NVLink domains, walked group by group: among the groups with members in
// more than one domain, the fewest members one holds in a domain it touches, and the most
// domains one touches (layout.h DomainSplit); a group inside one domain: its size, one.
DomainSplit brute_force_split(const Degrees& d, int domain, const SeamOrder& o,
                              std::array<int, 4> (*key)(const RankPlace&)) {
  std::map<std::array<int, 4>, std::map<int, int>> groups;  // group -> domain -> members
  for (const RankPlace& p : layout(d, domain, o)) ++groups[key(p)][p.rank / domain];
  DomainSplit out{static_cast<int>(d.product() / groups.size()), 1};
  for (const auto& [group, domains] : groups) {
    if (domains.size() < 2) continue;
    int fewest = std::numeric_limits<int>::max();
    for (const auto& [index, members] : domains) fewest = std::min(fewest, members);
    out.in_domain = out.domains == 1 ? fewest : std::min(out.in_domain, fewest);
    out.domains = std::max(out.domains, static_cast<int>(domains.size()));
  }
  return out;
}

TEST(Layout, DomainSplitsAgreeWithAGroupByGroupWalk) {
  const auto tp_group = [](const RankPlace& p) { return std::array<int, 4>{p.dp, p.pp, p.cp, 0}; };
  const auto cp_group = [](const RankPlace& p) { return std::array<int, 4>{p.dp, p.pp, p.tp, 0}; };
  const auto dp_cp_group = [](const RankPlace& p) { return std::array<int, 4>{p.tp, p.pp, 0, 0}; };
  for (const SeamOrder& o : kAllOrders) {
    for (int domain : {3, 4, 8}) {
      for (int dp = 1; dp <= 7; dp += 2) {
        for (int tp = 1; tp <= 4; ++tp) {
          for (int pp = 1; pp <= 3; ++pp) {
            for (int c = 1; c <= 3; ++c) {
              const Degrees d{dp, tp, pp, c};
              const NodeSpans fast = node_spans(d, domain, o);
              const std::string at = std::to_string(domain) + " " + std::to_string(dp) +
                                     std::to_string(tp) + std::to_string(pp) + std::to_string(c);
              for (const auto& [got, want] :
                   {std::pair{fast.tp, brute_force_split(d, domain, o, tp_group)},
                    std::pair{fast.cp, brute_force_split(d, domain, o, cp_group)},
                    std::pair{fast.dp_cp, brute_force_split(d, domain, o, dp_cp_group)}}) {
                ASSERT_EQ(got.in_domain, want.in_domain) << order_text(o) << " " << at;
                ASSERT_EQ(got.domains, want.domains) << order_text(o) << " " << at;
              }
            }
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

// The five seams: every group of every seam, built from the rank list alone, against
// node_spans. A group is the ranks that share every coordinate but the seam's own (for EP, the
// same run of ep consecutive x = cp + CP dp).
NodeSpans five_seam_brute_force(const Degrees& d, int per_node, const SeamOrder& o) {
  const std::vector<RankPlace> ranks = layout(d, per_node, o);
  // A group spans nodes when one of its ranks sits on another node than the group's first.
  auto spans = [&](auto key) {
    std::map<std::array<int, 3>, int> first_node;
    for (const RankPlace& p : ranks) {
      const auto [it, first] = first_node.emplace(key(p), p.node);
      if (!first && it->second != p.node) return true;
    }
    return false;
  };
  using V = std::array<int, 3>;
  NodeSpans s;
  s.tp_group_spans_nodes = spans([](const RankPlace& p) { return V{p.dp, p.pp, p.cp}; });
  s.cp_group_spans_nodes = spans([](const RankPlace& p) { return V{p.dp, p.pp, p.tp}; });
  s.dp_group_spans_nodes = spans([](const RankPlace& p) { return V{p.cp, p.pp, p.tp}; });
  s.pp_neighbours_span_nodes = spans([](const RankPlace& p) { return V{p.dp, p.cp, p.tp}; });
  s.dp_cp_group_spans_nodes = spans([](const RankPlace& p) { return V{p.pp, p.tp, 0}; });
  s.ep_group_spans_nodes = spans([&](const RankPlace& p) {
    return V{(p.cp + d.cp * p.dp) / d.ep, p.pp, p.tp};
  });
  for (const RankPlace& p : ranks) {
    EXPECT_EQ(rank_of(d, p.dp, p.tp, p.pp, o, p.cp), p.rank);
    EXPECT_EQ(p.ep, (p.cp + d.cp * p.dp) % d.ep);
  }
  return s;
}

// The chapter's order with CP: tp, cp, pp, dp, fastest first; EP runs over x = cp + CP dp.
TEST(Layout, RankOrderIsTensorContextPipelineData) {
  const Degrees d{2, 2, 2, 2, 4};
  const auto ranks = layout(d, 8);
  ASSERT_EQ(ranks.size(), 16u);
  EXPECT_EQ(ranks[1].tp, 1);
  EXPECT_EQ(ranks[2].cp, 1);
  EXPECT_EQ(ranks[4].pp, 1);
  EXPECT_EQ(ranks[8].dp, 1);
  // EP 4 over x = cp + 2 dp: ranks 0, 2, 8 and 10 (tp 0, pp 0) form one EP group.
  EXPECT_EQ(ranks[0].ep, 0);
  EXPECT_EQ(ranks[2].ep, 1);
  EXPECT_EQ(ranks[8].ep, 2);
  EXPECT_EQ(ranks[10].ep, 3);
  // CP stays just outside TP in any order: DP innermost gives dp, tp, cp, pp.
  const SeamOrder dp_first = {Seam::kData, Seam::kTensor, Seam::kPipeline};
  EXPECT_EQ(stride_of(d, dp_first, Seam::kContext), 4);
  EXPECT_EQ(stride_of(d, dp_first, Seam::kPipeline), 8);
}

// Llama 3's long-context layout on 16,384 GPUs, 8 per node: TP 8 fills a node, so CP, PP and
// DP groups all cross nodes.
TEST(Layout, LlamaLongContextKeepsOnlyTensorParallelismInsideANode) {
  const NodeSpans s = node_spans({8, 8, 16, 16}, 8);
  EXPECT_FALSE(s.tp_group_spans_nodes);
  EXPECT_TRUE(s.cp_group_spans_nodes);
  EXPECT_TRUE(s.pp_neighbours_span_nodes);
  EXPECT_TRUE(s.dp_group_spans_nodes);
}

// CP 4 under TP 2 on 8-GPU nodes: the CP group (stride 2) stays in a node; EP 2 over it too.
TEST(Layout, ContextGroupsInsideANodeRideNvlink) {
  const NodeSpans s = node_spans({4, 2, 1, 4, 2}, 8);
  EXPECT_FALSE(s.cp_group_spans_nodes);
  EXPECT_FALSE(s.ep_group_spans_nodes);
  EXPECT_TRUE(s.dp_cp_group_spans_nodes);
}

TEST(Layout, FiveSeamNodeSpansAgreeWithAGroupByGroupCheckInEveryOrder) {
  for (const SeamOrder& o : kAllOrders) {
    for (int per_node : {1, 3, 4, 8}) {
      for (int dp : {1, 2, 3, 4, 6}) {
        for (int tp : {1, 2, 3}) {
          for (int pp : {1, 2, 3}) {
            for (int cp : {1, 2, 3, 4}) {
              for (int ep = 1; ep <= dp * cp; ++ep) {
                if ((dp * cp) % ep != 0) continue;
                const Degrees d{dp, tp, pp, cp, ep};
                const NodeSpans fast = node_spans(d, per_node, o);
                const NodeSpans slow = five_seam_brute_force(d, per_node, o);
                // Written only when an assertion fails.
                const auto at = [&] {
                  return order_text(o) + " on " + std::to_string(per_node) + ": " +
                         std::to_string(dp) + "x" + std::to_string(tp) + "x" + std::to_string(pp) +
                         "x" + std::to_string(cp) + " ep " + std::to_string(ep);
                };
                ASSERT_EQ(fast.tp_group_spans_nodes, slow.tp_group_spans_nodes) << at();
                ASSERT_EQ(fast.cp_group_spans_nodes, slow.cp_group_spans_nodes) << at();
                ASSERT_EQ(fast.pp_neighbours_span_nodes, slow.pp_neighbours_span_nodes) << at();
                ASSERT_EQ(fast.dp_group_spans_nodes, slow.dp_group_spans_nodes) << at();
                ASSERT_EQ(fast.dp_cp_group_spans_nodes, slow.dp_cp_group_spans_nodes) << at();
                ASSERT_EQ(fast.ep_group_spans_nodes, slow.ep_group_spans_nodes) << at();
              }
            }
          }
        }
      }
    }
  }
}

// The level each seam's traffic rides, as the report names it (comms.*.level), against a walk
// over every group of the rank table: a group inside one NVLink domain rides the domain; a
// group across domains whose members all sit at one local index of their nodes rides that
// rail; any other the spine. The pipeline's level is its reported stage's sends (to the next
// stage and back to the previous one, as 1F1B sends them), the slowest pair over every
// pipeline. Fleets: 8-GPU nodes (the node is the domain), GB200 NVL72 (72 GPUs over trays of
// 4) and a 16-GPU domain over nodes of 8; every nesting order.
enum class Level { kDomain, kRail, kSpine };
Level level_of(const std::vector<const RankPlace*>& members, int per_node, int domain) {
  Level worst = Level::kDomain;
  for (const RankPlace* m : members) {
    if (m->rank / domain == members[0]->rank / domain) continue;
    worst = std::max(worst, Level::kRail);
    for (const RankPlace* n : members) {
      if (n->rank % per_node != members[0]->rank % per_node) return Level::kSpine;
    }
  }
  return worst;
}
// The slowest level over every group of `key`'s groups.
template <class Key>
Level slowest(const std::vector<RankPlace>& ranks, int per_node, int domain, Key key) {
  std::map<std::array<int, 3>, std::vector<const RankPlace*>> groups;
  for (const RankPlace& p : ranks) groups[key(p)].push_back(&p);
  Level worst = Level::kDomain;
  for (const auto& [k, members] : groups)
    worst = std::max(worst, level_of(members, per_node, domain));
  return worst;
}
const char* level_name(Level l) {
  return l == Level::kDomain ? "nvlink_domain" : l == Level::kRail ? "rail" : "spine";
}

TEST(Layout, ReportedLevelsAgreeWithAWalkOverEveryGroupInEveryOrder) {
  struct Fleet {
    int per_node, domain;
    std::vector<Degrees> layouts;
  };
  const Fleet fleets[] = {
      {8, 8, {{2, 8, 4}, {4, 4, 4}, {8, 2, 4}, {4, 2, 8}, {16, 1, 4}, {2, 4, 8}}},
      {4, 72, {{2, 8, 9}, {3, 8, 6}, {6, 4, 6}, {9, 4, 4}, {4, 2, 18}, {2, 4, 18}, {18, 1, 8}}},
      {8, 16, {{2, 8, 4}, {4, 4, 4}, {8, 2, 4}, {4, 2, 8}, {2, 4, 8}, {16, 4, 1}}},
  };
  int checked = 0;
  std::map<std::string, int> seen;  // every level turns up, so the walk is tested on each
  for (const Fleet& f : fleets) {
    for (const SeamOrder& o : kAllOrders) {
      for (const Degrees& d : f.layouts) {
        Scenario s;
        s.fleet.gpus = d.dp * d.tp * d.pp;
        s.recipe.degrees = d;
        s.recipe.order = o;
        s.fleet.gpus_per_node = f.per_node;
        s.gpu.nvlink_domain_gpus = f.domain;
        const Report r = test::report_of(s);
        const std::vector<RankPlace> ranks = layout(d, f.per_node, o);
        using V = std::array<int, 3>;
        const std::string at = order_text(o) + " on " + std::to_string(f.per_node) + "/" +
                               std::to_string(f.domain) + ": " + std::to_string(d.dp) + "x" +
                               std::to_string(d.tp) + "x" + std::to_string(d.pp);
        if (d.tp > 1) {
          EXPECT_STREQ(r.comms.tensor.level, level_name(slowest(ranks, f.per_node, f.domain,
                                                                [](const RankPlace& p) {
                                                                  return V{p.dp, p.pp, p.cp};
                                                                })))
              << at;
        }
        if (d.dp > 1) {
          EXPECT_STREQ(r.comms.data.level, level_name(slowest(ranks, f.per_node, f.domain,
                                                              [](const RankPlace& p) {
                                                                return V{p.tp, p.pp, p.cp};
                                                              })))
              << at;
        }
        if (d.pp > 1) {
          // The reported stage's pairs: with the next stage (unless it is the last) and the
          // previous one (unless it is the first).
          const int k = r.comms.stage;
          Level worst = Level::kDomain;
          for (int other : {k - 1, k + 1}) {
            if (other < 0 || other >= d.pp) continue;
            worst = std::max(worst, slowest(ranks, f.per_node, f.domain, [&](const RankPlace& p) {
                               // Only the two stages' members form a pair; the rest stand alone.
                               const bool pair = p.pp == k || p.pp == other;
                               return V{p.dp, p.tp, pair ? -1 : p.rank};
                             }));
          }
          EXPECT_STREQ(r.comms.pipeline.level, level_name(worst)) << at << " stage " << k;
        }
        for (const SeamTraffic* t : {&r.comms.tensor, &r.comms.data, &r.comms.pipeline}) {
          ++seen[t->level];
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 19 * 6);
  EXPECT_GT(seen["nvlink_domain"], 0);
  EXPECT_GT(seen["rail"], 0);
  EXPECT_GT(seen["spine"], 0);
}

// The ranks of degrees from anywhere: any int, never an overflow. Before: the wasm
// module's ranks({dp: 1722007169, tp: 714156689, pp: 15}) multiplied past 2^63, the product
// wrapped, and reserve() aborted the module.
TEST(Layout, RankCountRefusesWhatNoScenarioHoldsWithoutOverflow) {
  EXPECT_EQ(rank_count({2, 4, 2}, 16384), 16);
  EXPECT_EQ(rank_count({16384, 1, 1}, 16384), 16384);
  EXPECT_EQ(rank_count({2, 2, 2, 2}, 16), 16);
  EXPECT_EQ(rank_count({2, 2, 2, 3}, 16), std::nullopt);
  EXPECT_EQ(rank_count({1722007169, 714156689, 15}, 16384), std::nullopt);
  const int most = std::numeric_limits<int>::max();
  EXPECT_EQ(rank_count({most, most, most, most}, 16384), std::nullopt);
  EXPECT_EQ(rank_count({0, 4, 2}, 16384), std::nullopt);
  EXPECT_EQ(rank_count({-2, -4, 2}, 16384), std::nullopt);  // a product of 16, from nonsense
}

}  // namespace
}  // namespace pe
