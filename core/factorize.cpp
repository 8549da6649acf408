#include "factorize.h"

#include <vector>

namespace pe {
namespace {

std::vector<int> prime_factors_descending(int n) {
  std::vector<int> factors;
  for (int p = 2; 1LL * p * p <= n; ++p) {
    while (n % p == 0) {
      factors.push_back(p);
      n /= p;
    }
  }
  if (n > 1) factors.push_back(n);
  return {factors.rbegin(), factors.rend()};
}

}  // namespace

Degrees auto_factor(int gpus, int gpus_per_node, int layers, const Seams& seams) {
  Degrees d;
  if (!seams.any()) return d;
  // Tie order TP, PP, DP: the innermost seam takes a contested factor first.
  struct Slot {
    bool on;
    int* degree;
    bool (*may_take)(int next, int gpus_per_node, int layers);
  };
  Slot slots[] = {
      {seams.tensor, &d.tp, [](int next, int per_node, int) { return per_node % next == 0; }},
      {seams.pipeline, &d.pp, [](int next, int, int max_stages) { return next <= max_stages; }},
      {seams.data, &d.dp, [](int, int, int) { return true; }},
  };
  for (int factor : prime_factors_descending(gpus)) {
    Slot* best = nullptr;      // a seam that may take the factor
    Slot* fallback = nullptr;  // else: one that can (TP leaving its node is slow, not wrong)
    for (Slot& s : slots) {
      if (!s.on) continue;
      const int next = *s.degree * factor;
      const bool possible = s.degree != &d.pp || next <= layers;
      if (possible && (!fallback || *s.degree < *fallback->degree)) fallback = &s;
      if (!s.may_take(next, gpus_per_node, layers)) continue;
      if (!best || *s.degree < *best->degree) best = &s;
    }
    // Pipeline alone on more GPUs than layers: nothing can take it; evaluate() says so.
    if (!best && !fallback) fallback = &slots[1];
    *(best ? best : fallback)->degree *= factor;
  }
  return d;
}

}  // namespace pe
