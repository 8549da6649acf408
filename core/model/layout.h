// Where each rank sits: its (dp, tp, pp, cp, ep) coordinate, its node and its expert group. The
// scenario's `order` says which of TP, PP and DP varies fastest. The book's (and Megatron-LM's,
// Narayanan et al. 2021, Sec. 3.3) is TP fastest, then PP, then DP, so a TP group is a run of
// consecutive ranks and lands inside one node whenever TP divides gpus_per_node. Node = rank /
// gpus_per_node.
//
// Context parallelism always sits just outside TP, wherever the order puts TP: Megatron-Core's
// default order is "tp-cp-ep-dp-pp" (parallel_state.py), TP then CP, and CP passes keys and
// values every layer, the chattiest seam after TP. With the chapter's order the ranks run
// tp, cp, pp, dp, fastest first: Megatron-Core's order with the pipeline moved inside data
// parallelism, as the chapter's rule (the chattiest seam innermost) puts it. With cp = 1 this
// is exactly the book's numbering.
//
// Expert parallelism takes no coordinate of its own: its groups are carved out of the dp x cp
// ranks of a stage (Megatron-Core builds expert groups inside the tp x cp x dp ranks of each
// pipeline stage). Number those ranks x = cp + CP dp, cp fastest as in Megatron's cp-before-dp;
// an EP group is a run of ep consecutive x (same tp and pp), and a rank's ep coordinate is
// x mod ep. So ep divides dp x cp.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "model/scenario.h"

namespace pe {

struct RankPlace {
  int rank;
  int dp;
  int tp;
  int pp;
  int cp;
  int ep;
  int node;
  // Which expert group of its stage and tensor rank it belongs to: the run of EP consecutive
  // x = cp + CP dp holding it, x / ep. An expert group's members share tp, pp and this.
  int expert_group;
};

// A seam's degree in d.
int degree_of(const Degrees& d, Seam seam);

// The rank distance between neighbours of `seam`'s group: the product of the degrees of the
// seams inside it (CP counts as inside every seam outside TP).
long long stride_of(const Degrees& d, const SeamOrder& order, Seam seam);

// A GPU's rank from its coordinates, and its coordinates, node and expert group from its rank.
int rank_of(const Degrees& d, int dp, int tp, int pp, const SeamOrder& order = kBookOrder,
            int cp = 0);
RankPlace place_of(const Degrees& d, int gpus_per_node, int rank,
                   const SeamOrder& order = kBookOrder);

// "tp,pp,dp" <-> an order: every seam once, innermost first. nullopt for anything else.
std::optional<SeamOrder> order_from_text(const std::string& text);
std::string order_text(const SeamOrder& order);
const char* seam_name(Seam seam);  // "tp", "pp", "dp", "cp"

std::vector<RankPlace> layout(const Degrees& d, int gpus_per_node,
                              const SeamOrder& order = kBookOrder);

// dp x tp x pp x cp when every degree is at least 1 and the product at most `most`, else
// nullopt; multiplied one factor at a time, so degrees from anywhere (the wasm module's
// ranks() takes any 32-bit ints) never overflow. Degrees::product() of four degrees near 2^31
// wrapped negative, passed a "more than 16,384" check and aborted in reserve().
std::optional<long long> rank_count(const Degrees& d, long long most);

// The level of the fleet a group's traffic rides, the fastest it stays inside: one NVLink
// domain (scale-up: NVLink, even across the trays of a GB200 NVL72); one rail, when every member
// sits at the same local index of its node (a rail-optimised network wires GPU k of every node
// to rail switch k, so that traffic never climbs to the spine: Wang et al. 2023, "Rail-only",
// arXiv:2307.12169, Sec. 2; Gangidi et al. 2024, Meta's RoCE fabric, SIGCOMM, Sec. 3); else
// across rails, through the spine, which may be oversubscribed (link_rate in comms.h).
enum class Fabric : signed char { kDomain, kRail, kSpine };
// Inline: the planner names the level of every seam of every configuration it tries.
inline const char* fabric_name(Fabric f) {
  return f == Fabric::kDomain ? "nvlink_domain" : f == Fabric::kRail ? "rail" : "spine";
}

// Over a seam's groups that leave their NVLink domain: the fewest members one holds in a domain
// it touches (a ring passes through each of its domains, so the one with the fewest members,
// and NICs, bounds it), and the most domains one touches. Groups inside one domain: the
// group's size, one domain.
struct DomainSplit {
  int in_domain = 1;
  int domains = 1;
};

// Whether any group of a seam has members in two different NVLink domains (one node each
// unless the GPU's domain is larger), and, for such a group, whether its members sit on more
// than one rail (GPUs at different local indices of their nodes). A group's members are
// evenly spaced ranks, so a group spans domains exactly when two of its neighbours do: for PP,
// when some adjacent stages sit in different domains. The names keep "nodes" from when the
// node was the domain.
struct NodeSpans {
  bool tp_group_spans_nodes = false;
  bool pp_neighbours_span_nodes = false;
  bool dp_group_spans_nodes = false;  // the ranks with the same tp, pp and cp
  bool cp_group_spans_nodes = false;
  bool ep_group_spans_nodes = false;
  // The ranks that reduce the same gradients: dp x cp (Megatron-Core reduces over the data
  // and context ranks together, since each CP rank saw part of every sequence).
  bool dp_cp_group_spans_nodes = false;
  // Members on more than one rail: neighbours whose rank distance is no multiple of the node.
  bool tp_off_rail = false, pp_off_rail = false, dp_off_rail = false, cp_off_rail = false,
       ep_off_rail = false, dp_cp_off_rail = false;
  // How a seam's groups fall into NVLink domains (layout.cpp domain_split): the NICs a
  // collective of a group that spans domains spreads over, one per GPU (comms.h
  // collective_rate). An EP group's members in the first domain it touches (at least 1).
  DomainSplit tp, cp, dp_cp;
  int ep_in_domain = 1;
  // The expert-data-parallel group (the dp x cp ranks at the same EP coordinate, x = cp + CP dp
  // stepping by ep, at one tp): whether it spans domains and rails, and its members in one
  // domain. Expert gradients reduce over it, times TP / expert TP (moe.h).
  bool edp_spans_nodes = false, edp_off_rail = false;
  int edp_in_domain = 1;
  // A domain of several nodes, halved while it stays whole nodes (domain / 2, / 4, ... down
  // to the node): the EP and CP groups' members in each such block. An all-to-all may treat
  // each block as its domain and send between blocks over their NICs (comms.h
  // all_to_all_rate).
  static constexpr int kParts = 12;
  int parts = 0;
  std::array<int, kParts> ep_in_part{}, cp_in_part{};
};
// `domain_gpus` 0: the node is the domain.
NodeSpans node_spans(const Degrees& d, int gpus_per_node, const SeamOrder& order = kBookOrder,
                     int domain_gpus = 0);

// The level a group rides: its domain, else its rail, else the spine.
inline Fabric fabric_of(bool spans_domains, bool off_rail) {
  return !spans_domains ? Fabric::kDomain : off_rail ? Fabric::kSpine : Fabric::kRail;
}

}  // namespace pe
