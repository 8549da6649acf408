// Where each rank sits: its (dp, tp, pp) coordinate and its node. Megatron-LM's order
// (Narayanan et al. 2021, Sec. 3.3): TP varies fastest, then PP, then DP, so a TP group is a
// run of consecutive ranks and lands inside one node whenever TP divides gpus_per_node.
#pragma once

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

inline int rank_of(const Degrees& d, int dp, int tp, int pp) {
  return (dp * d.pp + pp) * d.tp + tp;
}

inline RankPlace place_of(const Degrees& d, int gpus_per_node, int rank) {
  return {rank, rank / (d.tp * d.pp), rank % d.tp, (rank / d.tp) % d.pp, rank / gpus_per_node};
}

std::vector<RankPlace> layout(const Degrees& d, int gpus_per_node);

// Whether any group of a seam has members on two different nodes.
struct NodeSpans {
  bool tp_group_spans_nodes = false;
  bool pp_neighbours_span_nodes = false;  // some adjacent stages sit on different nodes
  bool dp_group_spans_nodes = false;
};
NodeSpans node_spans(const Degrees& d, int gpus_per_node);

}  // namespace pe
