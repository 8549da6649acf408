#include "model/layout.h"

#include <algorithm>
#include <initializer_list>

namespace pe {

int degree_of(const Degrees& d, Seam seam) {
  switch (seam) {
    case Seam::kTensor:
      return d.tp;
    case Seam::kPipeline:
      return d.pp;
    case Seam::kData:
      return d.dp;
    case Seam::kContext:
      return d.cp;
  }
  return 1;
}

long long stride_of(const Degrees& d, const SeamOrder& order, Seam seam) {
  long long stride = 1;
  for (Seam inner : order) {
    if (inner == Seam::kTensor) {
      if (seam == Seam::kContext) return stride * d.tp;
      if (seam != Seam::kTensor) stride *= d.cp;
    }
    if (inner == seam) break;
    stride *= degree_of(d, inner);
  }
  return stride;
}

int rank_of(const Degrees& d, int dp, int tp, int pp, const SeamOrder& order, int cp) {
  return static_cast<int>(
      dp * stride_of(d, order, Seam::kData) + tp * stride_of(d, order, Seam::kTensor) +
      pp * stride_of(d, order, Seam::kPipeline) + cp * stride_of(d, order, Seam::kContext));
}

RankPlace place_of(const Degrees& d, int gpus_per_node, int rank, const SeamOrder& order) {
  auto coordinate = [&](Seam seam) {
    return static_cast<int>(rank / stride_of(d, order, seam) % degree_of(d, seam));
  };
  const int dp = coordinate(Seam::kData), cp = coordinate(Seam::kContext);
  return {rank,
          dp,
          coordinate(Seam::kTensor),
          coordinate(Seam::kPipeline),
          cp,
          (cp + d.cp * dp) % d.ep,
          rank / gpus_per_node,
          (cp + d.cp * dp) / d.ep};
}

const char* seam_name(Seam seam) {
  switch (seam) {
    case Seam::kTensor:
      return "tp";
    case Seam::kPipeline:
      return "pp";
    case Seam::kData:
      return "dp";
    case Seam::kContext:
      return "cp";
  }
  return "";
}

std::string order_text(const SeamOrder& order) {
  std::string text;
  for (Seam seam : order) text += (text.empty() ? "" : ",") + std::string(seam_name(seam));
  return text;
}

std::optional<SeamOrder> order_from_text(const std::string& text) {
  SeamOrder order{};
  size_t start = 0, count = 0;
  bool seen[3] = {false, false, false};
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, comma - start);
    int found = -1;
    for (Seam seam : kBookOrder) {
      if (part == seam_name(seam)) found = static_cast<int>(seam);
    }
    if (found < 0 || seen[found] || count == order.size()) return std::nullopt;
    seen[found] = true;
    order[count++] = static_cast<Seam>(found);
    start = comma + 1;
  }
  if (count != order.size()) return std::nullopt;
  return order;
}

std::optional<long long> rank_count(const Degrees& d, long long most) {
  long long n = 1;
  for (int degree : {d.dp, d.tp, d.pp, d.cp}) {
    if (degree < 1 || degree > most || n * degree > most) return std::nullopt;
    n *= degree;
  }
  return n;
}

std::vector<RankPlace> layout(const Degrees& d, int gpus_per_node, const SeamOrder& order) {
  const int n = static_cast<int>(d.product());
  std::vector<RankPlace> ranks;
  ranks.reserve(n);
  for (int r = 0; r < n; ++r) ranks.push_back(place_of(d, gpus_per_node, r, order));
  return ranks;
}

namespace {

// The residues modulo the node size of sum c_s stride_s over the coordinates of every seam but
// `a` and `b`: where the lowest rank of a group of a and b can fall within its node. c_s
// beyond the node size repeats a residue, so each seam costs O(gpus_per_node^2) at most.
std::vector<char> base_residues(const Degrees& d, long long per_node, const SeamOrder& order,
                                Seam a, Seam b) {
  std::vector<char> at(static_cast<size_t>(per_node), 0);
  at[0] = 1;
  for (Seam seam : {Seam::kTensor, Seam::kPipeline, Seam::kData, Seam::kContext}) {
    if (seam == a || seam == b) continue;
    const long long stride = stride_of(d, order, seam) % per_node;
    const long long count = std::min<long long>(degree_of(d, seam), per_node);
    std::vector<char> next(at.size(), 0);
    for (long long r = 0; r < per_node; ++r) {
      if (!at[static_cast<size_t>(r)]) continue;
      for (long long c = 0; c < count; ++c) {
        next[static_cast<size_t>((r + c * stride) % per_node)] = 1;
      }
    }
    at.swap(next);
  }
  return at;
}

// Some group whose lowest rank falls at a residue in `at` and whose members lie from
// `low` to `high` ranks above it crosses a node boundary.
bool any_crosses(const std::vector<char>& at, long long per_node, long long low, long long high) {
  for (long long r = 0; r < per_node; ++r) {
    if (at[static_cast<size_t>(r)] && ((r + low) % per_node) + (high - low) >= per_node)
      return true;
  }
  return false;
}

// EP group g holds x in [g ep, (g+1) ep), x = cp + CP dp, at tp and pp fixed. Rank grows with
// each coordinate, so the group's lowest and highest ranks are those of its lowest and highest
// (cp, dp) within each run of one dp. Groups g and g + CP N shift every rank by a multiple of
// N (dp moves by N ep), so min(groups, CP N) of them cover every case.
bool ep_group_spans_nodes(const Degrees& d, long long per_node, const SeamOrder& order) {
  if (d.ep == 1) return false;
  const long long CP = d.cp, EP = d.ep;
  const long long s_cp = stride_of(d, order, Seam::kContext);
  const long long s_dp = stride_of(d, order, Seam::kData);
  const std::vector<char> at = base_residues(d, per_node, order, Seam::kData, Seam::kContext);
  const long long groups = CP * d.dp / EP;
  for (long long g = 0; g < std::min(groups, CP * per_node); ++g) {
    const long long first = g * EP, last = first + EP - 1;
    long long low = -1, high = 0;
    for (long long dp = first / CP; dp <= last / CP; ++dp) {
      const long long c_lo = dp == first / CP ? first % CP : 0;
      const long long c_hi = dp == last / CP ? last % CP : CP - 1;
      const long long lo = dp * s_dp + c_lo * s_cp, hi = dp * s_dp + c_hi * s_cp;
      low = low < 0 ? lo : std::min(low, lo);
      high = std::max(high, hi);
    }
    if (any_crosses(at, per_node, low, high)) return true;
  }
  return false;
}

// Every group of `seam` and `also` (the same seam for a group of one) is its members' offsets
// from its lowest rank, i s1 + j s2 (i < n1, j < n2), moved to a base that sums the other
// seams' coordinates times their strides; only the base modulo the domain (base_residues)
// changes how the group falls into domains. A domain holding fewer of a group's members than
// another (a group starting mid-domain, a partial domain) is the one whose NICs a ring through
// every domain is bound by (comms.h collective_rate). Over the groups that leave their domain:
// the fewest members one holds in a domain it touches, and the most domains one touches; a
// group inside one domain: n1 n2, 1.
DomainSplit domain_split(const Degrees& d, int domain, const SeamOrder& order, Seam seam,
                         Seam also) {
  const std::vector<char> at = base_residues(d, domain, order, seam, also);
  int n1 = degree_of(d, seam), n2 = also == seam ? 1 : degree_of(d, also);
  int s1 = static_cast<int>(stride_of(d, order, seam));
  int s2 = static_cast<int>(stride_of(d, order, also));
  if (s1 > s2) std::swap(n1, n2), std::swap(s1, s2);
  // A group inside one domain holds n1 n2 there, more than any group that leaves it holds in
  // its fewest, so the least over every group is the least over those that leave.
  DomainSplit out{n1 * n2, 1};
  for (int r = 0; r < domain; ++r) {
    if (!at[static_cast<size_t>(r)]) continue;
    int last = -1, run = 0, domains = 0;
    // The larger stride outer: its block n1 s1 fits inside s2 (mixed radix), so ranks rise.
    for (int j = 0; j < n2; ++j) {
      for (int i = 0; i < n1; ++i) {
        const int in = (r + i * s1 + j * s2) / domain;
        if (in != last) {
          if (run > 0) out.in_domain = std::min(out.in_domain, run);
          run = 0, last = in, ++domains;
        }
        ++run;
      }
    }
    if (domains > 1) out.in_domain = std::min(out.in_domain, run);
    out.domains = std::max(out.domains, domains);
  }
  return out;
}

// An EP group's members x = cp + CP dp, x < ep, below `domain`.
int ep_members_in_domain(const Degrees& d, long long domain, const SeamOrder& order) {
  const long long s_cp = stride_of(d, order, Seam::kContext);
  const long long s_dp = stride_of(d, order, Seam::kData);
  long long count = 0;
  for (long long x = 0; x < d.ep; ++x) {
    const long long dp = x / d.cp;
    if (dp * s_dp >= domain) break;
    if ((x % d.cp) * s_cp + dp * s_dp < domain) ++count;
  }
  return static_cast<int>(std::max(1LL, count));
}

// The expert-data-parallel group of EP coordinate 0: x = 0, ep, 2 ep, ... below dp x cp.
void expert_data_group(const Degrees& d, long long domain, int gpus_per_node,
                       const SeamOrder& order, NodeSpans& out) {
  const long long s_cp = stride_of(d, order, Seam::kContext);
  const long long s_dp = stride_of(d, order, Seam::kData);
  const long long members = 1LL * d.dp * d.cp / d.ep;
  long long in_domain = 0;
  for (long long j = 0; j < members; ++j) {
    const long long x = j * d.ep;
    const long long rank = (x % d.cp) * s_cp + (x / d.cp) * s_dp;
    if (rank < domain) ++in_domain;
    if (rank >= domain) out.edp_spans_nodes = true;
    if (rank % gpus_per_node != 0) out.edp_off_rail = true;
    if (out.edp_spans_nodes && out.edp_off_rail && (x / d.cp) * s_dp >= domain) break;
  }
  out.edp_in_domain = static_cast<int>(std::max(1LL, in_domain));
}

}  // namespace

NodeSpans node_spans(const Degrees& d, int gpus_per_node, const SeamOrder& order, int domain_gpus) {
  const int domain = domain_gpus > 0 ? domain_gpus : gpus_per_node;
  NodeSpans s;
  s.tp = domain_split(d, domain, order, Seam::kTensor, Seam::kTensor);
  s.cp = domain_split(d, domain, order, Seam::kContext, Seam::kContext);
  s.dp_cp = domain_split(d, domain, order, Seam::kContext, Seam::kData);
  s.tp_group_spans_nodes = s.tp.domains > 1;
  s.pp_neighbours_span_nodes =
      domain_split(d, domain, order, Seam::kPipeline, Seam::kPipeline).domains > 1;
  s.dp_group_spans_nodes = domain_split(d, domain, order, Seam::kData, Seam::kData).domains > 1;
  s.cp_group_spans_nodes = s.cp.domains > 1;
  s.dp_cp_group_spans_nodes = s.dp_cp.domains > 1;
  s.ep_group_spans_nodes = ep_group_spans_nodes(d, domain, order);
  s.ep_in_domain = d.ep > 1 ? ep_members_in_domain(d, domain, order) : 1;
  if (d.ep > 1) expert_data_group(d, domain, gpus_per_node, order, s);
  for (int part = domain / 2; s.parts < NodeSpans::kParts && part >= gpus_per_node &&
                              part % gpus_per_node == 0 && domain % part == 0;
       part /= 2) {
    s.ep_in_part[s.parts] = d.ep > 1 ? ep_members_in_domain(d, part, order) : 1;
    s.cp_in_part[s.parts] = domain_split(d, part, order, Seam::kContext, Seam::kContext).in_domain;
    ++s.parts;
    if (part % 2 != 0) break;
  }
  // Rail k holds the ranks r with r mod gpus_per_node = k, so a group stays on one rail when
  // every stride it moves along is a multiple of the node.
  const auto off = [&](Seam seam) {
    return degree_of(d, seam) > 1 && stride_of(d, order, seam) % gpus_per_node != 0;
  };
  s.tp_off_rail = off(Seam::kTensor);
  s.pp_off_rail = off(Seam::kPipeline);
  s.dp_off_rail = off(Seam::kData);
  s.cp_off_rail = off(Seam::kContext);
  s.dp_cp_off_rail = s.dp_off_rail || s.cp_off_rail;
  // An EP group (a run of ep consecutive x = cp + CP dp) moves along cp when CP > 1, and along
  // dp unless ep divides CP (then each group lies inside one dp).
  s.ep_off_rail =
      d.ep > 1 && ((d.cp > 1 && s.cp_off_rail) ||
                   (d.cp % d.ep != 0 && stride_of(d, order, Seam::kData) % gpus_per_node != 0));
  return s;
}

}  // namespace pe
