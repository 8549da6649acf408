#include "model/factorize.h"

#include <numeric>
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

// The largest divisor of n that also divides m.
int largest_common_divisor(long long n, int m) { return static_cast<int>(std::gcd(n, 1LL * m)); }

}  // namespace

Degrees auto_factor(const Scenario& s) {
  Degrees d;
  const Seams& seams = s.recipe.seams;
  if (!seams.any()) return d;
  const int per_node = s.fleet.gpus_per_node, layers = s.model.layers, seq = s.batch.seq_len;
  // TP inside the fast domain (the chapter's rule): on a domain wider than the node (GB200
  // NVL72: 72 GPUs over trays of 4) TP may fill it, up to what the heads allow and so that
  // its runs of consecutive ranks never straddle two domains; a domain that is the node keeps
  // the node rule, so nothing moves there.
  const int domain = s.domain_gpus(), heads_tp = s.model.heads;
  auto tp_inside = [&](int next) {
    return per_node % next == 0 ||
           (domain > per_node && domain % next == 0 && heads_tp % next == 0);
  };
  const int heads = s.recipe.context_parallel == ContextParallel::kUlysses ? s.model.heads : 0;
  // may_take: the seam wants the factor; can_run: it could run it at all.
  struct Slot {
    bool on;
    int* degree;
    bool preferred_only_by_node;  // TP: outside its domain is slow, not wrong
  };
  Slot slots[] = {
      {seams.tensor, &d.tp, true},
      {seams.context, &d.cp, false},
      {seams.pipeline, &d.pp, false},
      {seams.data, &d.dp, false},
  };
  auto can_run = [&](const Slot& slot, int next) {
    if (slot.degree == &d.pp) return next <= layers;
    if (slot.degree == &d.cp) return seq % next == 0 && (heads == 0 || heads % next == 0);
    return true;
  };
  auto may_take = [&](const Slot& slot, int next) {
    return can_run(slot, next) && (!slot.preferred_only_by_node || tp_inside(next));
  };
  for (int factor : prime_factors_descending(s.fleet.gpus)) {
    Slot* best = nullptr;      // a seam that may take the factor
    Slot* fallback = nullptr;  // else: one that can (TP leaving its node is slow, not wrong)
    for (Slot& slot : slots) {
      if (!slot.on) continue;
      const int next = *slot.degree * factor;
      if (can_run(slot, next) && (!fallback || *slot.degree < *fallback->degree)) fallback = &slot;
      if (may_take(slot, next) && (!best || *slot.degree < *best->degree)) best = &slot;
    }
    // Nothing can take it (pipeline alone on more GPUs than layers, a sequence CP cannot
    // split): the first enabled seam takes it and evaluate() says why that layout fails.
    if (!best && !fallback) {
      for (Slot& slot : slots) {
        if (slot.on) {
          fallback = &slot;
          break;
        }
      }
    }
    *(best ? best : fallback)->degree *= factor;
  }
  if (seams.expert && s.model.moe())
    d.ep = largest_common_divisor(1LL * d.dp * d.cp, s.model.experts);
  return d;
}

Degrees auto_factor(int gpus, int gpus_per_node, int layers, const Seams& seams) {
  Scenario s;
  s.fleet.gpus = gpus;
  s.fleet.gpus_per_node = gpus_per_node;
  s.model.layers = layers;
  s.recipe.seams = seams;
  s.recipe.seams.context = s.recipe.seams.expert = false;
  return auto_factor(s);
}

}  // namespace pe
