#include "layout.h"

namespace pe {

std::vector<RankPlace> layout(const Degrees& d, int gpus_per_node) {
  const int n = static_cast<int>(d.product());
  std::vector<RankPlace> ranks;
  ranks.reserve(n);
  for (int r = 0; r < n; ++r) ranks.push_back(place_of(d, gpus_per_node, r));
  return ranks;
}

NodeSpans node_spans(const Degrees& d, int gpus_per_node) {
  // Ranks grow with the node index, so a group stays in one node iff its first and last
  // members do.
  auto node = [&](int rank) { return rank / gpus_per_node; };
  NodeSpans s;
  for (int dp = 0; dp < d.dp; ++dp) {
    for (int pp = 0; pp < d.pp; ++pp) {
      const int first = rank_of(d, dp, 0, pp);
      if (node(first) != node(first + d.tp - 1)) s.tp_group_spans_nodes = true;
      if (pp + 1 < d.pp && node(first) != node(rank_of(d, dp, 0, pp + 1) + d.tp - 1)) {
        s.pp_neighbours_span_nodes = true;
      }
    }
  }
  for (int pp = 0; pp < d.pp; ++pp) {
    for (int tp = 0; tp < d.tp; ++tp) {
      if (node(rank_of(d, 0, tp, pp)) != node(rank_of(d, d.dp - 1, tp, pp))) {
        s.dp_group_spans_nodes = true;
      }
    }
  }
  return s;
}

}  // namespace pe
