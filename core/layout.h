// Where each rank sits: its (dp, tp, pp) coordinate and its node. The scenario's `order` says
// which coordinate varies fastest. The book's (and Megatron-LM's, Narayanan et al. 2021,
// Sec. 3.3) is TP fastest, then PP, then DP, so a TP group is a run of consecutive ranks and
// lands inside one node whenever TP divides gpus_per_node. Node = rank / gpus_per_node.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenario.h"

namespace pe {

struct RankPlace {
  int rank;
  int dp;
  int tp;
  int pp;
  int node;
};

inline int degree_of(const Degrees& d, Seam seam) {
  return seam == Seam::kTensor ? d.tp : seam == Seam::kPipeline ? d.pp : d.dp;
}

// The rank distance between neighbours of `seam`'s group: the product of the degrees of the
// seams inside it.
inline long long stride_of(const Degrees& d, const SeamOrder& order, Seam seam) {
  long long stride = 1;
  for (Seam inner : order) {
    if (inner == seam) break;
    stride *= degree_of(d, inner);
  }
  return stride;
}

inline int rank_of(const Degrees& d, int dp, int tp, int pp,
                   const SeamOrder& order = kBookOrder) {
  return static_cast<int>(dp * stride_of(d, order, Seam::kData) +
                          tp * stride_of(d, order, Seam::kTensor) +
                          pp * stride_of(d, order, Seam::kPipeline));
}

inline RankPlace place_of(const Degrees& d, int gpus_per_node, int rank,
                          const SeamOrder& order = kBookOrder) {
  auto coordinate = [&](Seam seam) {
    return static_cast<int>(rank / stride_of(d, order, seam) % degree_of(d, seam));
  };
  return {rank, coordinate(Seam::kData), coordinate(Seam::kTensor), coordinate(Seam::kPipeline),
          rank / gpus_per_node};
}

// "tp,pp,dp" <-> an order: every seam once, innermost first. nullopt for anything else.
std::optional<SeamOrder> order_from_text(const std::string& text);
std::string order_text(const SeamOrder& order);
const char* seam_name(Seam seam);  // "tp", "pp", "dp"

std::vector<RankPlace> layout(const Degrees& d, int gpus_per_node,
                              const SeamOrder& order = kBookOrder);

// Whether any group of a seam has members on two different nodes. A group's members are
// evenly spaced ranks, so a group spans nodes exactly when two of its neighbours do: for PP,
// when some adjacent stages sit on different nodes.
struct NodeSpans {
  bool tp_group_spans_nodes = false;
  bool pp_neighbours_span_nodes = false;
  bool dp_group_spans_nodes = false;
};
NodeSpans node_spans(const Degrees& d, int gpus_per_node, const SeamOrder& order = kBookOrder);

// Whether some group of `seam` has members on two nodes.
bool group_spans_nodes(const Degrees& d, int gpus_per_node, const SeamOrder& order, Seam seam);

}  // namespace pe
