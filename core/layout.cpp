#include "layout.h"

#include <algorithm>

namespace pe {

const char* seam_name(Seam seam) {
  return seam == Seam::kTensor ? "tp" : seam == Seam::kPipeline ? "pp" : "dp";
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

std::vector<RankPlace> layout(const Degrees& d, int gpus_per_node, const SeamOrder& order) {
  const int n = static_cast<int>(d.product());
  std::vector<RankPlace> ranks;
  ranks.reserve(n);
  for (int r = 0; r < n; ++r) ranks.push_back(place_of(d, gpus_per_node, r, order));
  return ranks;
}

// A group of `seam` is the ranks base + i * stride, i < degree. Its base is an inner offset in
// [0, stride) plus a multiple k of the block stride * degree. Members are increasing, so the
// group stays in one node iff its first and last do. Only base modulo the node size matters,
// and the block offsets k * block modulo the node size repeat within gpus_per_node steps, so
// the check costs O(gpus_per_node x min(stride, gpus_per_node)) whatever the fleet size.
bool group_spans_nodes(const Degrees& d, int gpus_per_node, const SeamOrder& order, Seam seam) {
  const long long degree = degree_of(d, seam);
  if (degree == 1) return false;
  const long long per_node = gpus_per_node;
  const long long stride = stride_of(d, order, seam);
  if (stride >= per_node) return true;  // neighbours are a node or more apart
  const long long block = stride * degree;
  const long long blocks = d.product() / block;
  const long long reach = (degree - 1) * stride;
  for (long long k = 0; k < std::min(blocks, per_node); ++k) {
    for (long long inner = 0; inner < stride; ++inner) {
      const long long first = (k * block + inner) % per_node;
      if (first + reach >= per_node) return true;
    }
  }
  return false;
}

NodeSpans node_spans(const Degrees& d, int gpus_per_node, const SeamOrder& order) {
  NodeSpans s;
  s.tp_group_spans_nodes = group_spans_nodes(d, gpus_per_node, order, Seam::kTensor);
  s.pp_neighbours_span_nodes = group_spans_nodes(d, gpus_per_node, order, Seam::kPipeline);
  s.dp_group_spans_nodes = group_spans_nodes(d, gpus_per_node, order, Seam::kData);
  return s;
}

}  // namespace pe
