#include "layout.h"

#include <algorithm>

namespace pe {

std::vector<RankPlace> layout(const Degrees& d, int gpus_per_node) {
  const int n = static_cast<int>(d.product());
  std::vector<RankPlace> ranks;
  ranks.reserve(n);
  for (int r = 0; r < n; ++r) ranks.push_back(place_of(d, gpus_per_node, r));
  return ranks;
}

// Each check walks one period of the rank pattern rather than every group, so it costs
// O(gpus_per_node x PP) at most, whatever the fleet size: the planner calls it per candidate.
NodeSpans node_spans(const Degrees& d, int gpus_per_node) {
  const long long per_node = gpus_per_node;
  auto crosses = [per_node](long long first, long long last) {
    return first / per_node != last / per_node;
  };
  NodeSpans s;
  // TP groups are runs [k tp, (k+1) tp - 1]; their start modulo the node size repeats after
  // gpus_per_node groups.
  const long long tp_groups = 1LL * d.dp * d.pp;
  for (long long k = 0; k < std::min(tp_groups, per_node); ++k) {
    if (crosses(k * d.tp, (k + 1) * d.tp - 1)) s.tp_group_spans_nodes = true;
  }
  // Adjacent stages k and k+1 of a replica cover ranks [k tp, (k+2) tp - 1]; the pattern
  // (stage index, start modulo node size) repeats after PP x gpus_per_node blocks.
  for (long long k = 0; k < std::min(tp_groups, d.pp * per_node); ++k) {
    if (k % d.pp != d.pp - 1 && crosses(k * d.tp, (k + 2) * d.tp - 1)) {
      s.pp_neighbours_span_nodes = true;
    }
  }
  // The DP group of offset c = pp tp + tp_rank holds ranks c + i TP PP, i < DP: it stays in
  // a node iff its first and last members do.
  const long long stride = 1LL * d.tp * d.pp;
  for (long long c = 0; c < std::min(stride, per_node); ++c) {
    if (crosses(c, c + (d.dp - 1) * stride)) s.dp_group_spans_nodes = true;
  }
  return s;
}

}  // namespace pe
