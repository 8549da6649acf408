#include "model/timeline.h"

#include <algorithm>

#include "model/pipeline.h"

namespace pe {
namespace {

// One pass in a stage's order: phase is the chunk (a V) or the direction (DualPipe) it
// belongs to, k its k-th micro-batch there. A full backward (B then W at once) is kFull.
enum class Op { kF, kB, kW, kFull };
struct Step {
  Op op;
  int phase;
  int k;
};
using Orders = std::vector<std::vector<Step>>;

// Where each micro-batch goes: chains of (stage, phase) positions, the forward running along a
// chain and the backward back. chain_of[stage][phase] and position[stage][phase] index it.
struct Route {
  std::vector<std::vector<std::pair<int, int>>> chains;  // (stage, phase) per position
  std::vector<int> first_microbatch;                     // of each chain, for the labels
};

// Lays out the orders: each pass starts when its stage is free and its input is there (the
// forward from the previous position, the backward from the next, or the forward at the
// chain's last position; W after its own B).
std::vector<TimelineBlock> lay_out(int p, const Orders& orders, const Route& route, int per_chain) {
  const int chains = static_cast<int>(route.chains.size());
  std::vector<int> chain_of(2 * p, -1), position(2 * p, -1);
  for (int c = 0; c < chains; ++c) {
    for (size_t j = 0; j < route.chains[c].size(); ++j) {
      const auto [stage, phase] = route.chains[c][j];
      chain_of[2 * stage + phase] = c;
      position[2 * stage + phase] = static_cast<int>(j);
    }
  }
  const auto at = [&](int c, int j, int k) { return (c * 2 * p + j) * per_chain + k; };
  std::vector<int> f_end(chains * 2 * p * per_chain, -1), b_end(f_end.size(), -1);
  std::vector<int> free(p, 0);
  std::vector<size_t> next(p, 0);
  std::vector<TimelineBlock> out;
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (int i = 0; i < p; ++i) {
      while (next[i] < orders[i].size()) {
        const Step st = orders[i][next[i]];
        const int c = chain_of[2 * i + st.phase], j = position[2 * i + st.phase];
        const int last = static_cast<int>(route.chains[c].size()) - 1;
        int ready;
        if (st.op == Op::kF) {
          ready = j == 0 ? 0 : f_end[at(c, j - 1, st.k)];
        } else if (st.op == Op::kW) {
          ready = b_end[at(c, j, st.k)];
        } else {
          ready = j == last ? f_end[at(c, j, st.k)] : b_end[at(c, j + 1, st.k)];
        }
        if (ready < 0) break;  // its input has not been computed yet
        const int start = std::max(ready, free[i]);
        const int mb = route.first_microbatch[c] + st.k * chains;
        if (st.op == Op::kF) {
          out.push_back({i, mb, Pass::kForward, start, 1});
          f_end[at(c, j, st.k)] = start + 1;
        } else if (st.op == Op::kW) {
          out.push_back({i, mb, Pass::kWeight, start, 1});
        } else {
          out.push_back({i, mb, Pass::kBackward, start, 1});
          b_end[at(c, j, st.k)] = start + 1;  // the input gradient goes on before W
          if (st.op == Op::kFull) out.push_back({i, mb, Pass::kWeight, start + 1, 1});
        }
        free[i] = start + (st.op == Op::kFull ? 2 : 1);
        ++next[i];
        progressed = true;
      }
    }
  }
  return out;
}

// ZB-H1: 1F1B's order with stage i's W deferred by i micro-batches.
Orders zb_h1_orders(int p, int m) {
  Orders orders(p);
  for (int i = 0; i < p; ++i) {
    std::vector<Step>& o = orders[i];
    int f = 0, b = 0, w = 0;
    for (; f < std::min(p - i - 1, m); ++f) o.push_back({Op::kF, 0, f});
    while (b < m) {
      if (f < m) o.push_back({Op::kF, 0, f++});
      o.push_back({Op::kB, 0, b++});
      if (b - w > i) o.push_back({Op::kW, 0, w++});
    }
    while (w < m) o.push_back({Op::kW, 0, w++});
  }
  return orders;
}

// DualPipe's per-rank order (dualpipe.py; dualpipev.py with n = ranks, r = rank): n ranks of a
// half (DualPipe) or of the V, r the rank's place in it, m micro-batches per phase.
std::vector<Step> dual_order(int n, int r, int m) {
  std::vector<Step> o;
  int f[2] = {0, 0}, b[2] = {0, 0};
  std::vector<std::pair<int, int>> deferred;  // zero-bubble backwards whose W waits
  const auto F = [&](int ph) { o.push_back({Op::kF, ph, f[ph]++}); };
  const auto B = [&](int ph, bool zero_bubble) {
    if (zero_bubble) deferred.push_back({ph, b[ph]});
    o.push_back({zero_bubble ? Op::kB : Op::kFull, ph, b[ph]++});
  };
  const auto W = [&] {
    if (deferred.empty()) return;  // an order the requirements rule out: drawn as far as it goes
    o.push_back({Op::kW, deferred.front().first, deferred.front().second});
    deferred.erase(deferred.begin());
  };
  for (int i = 0; i < (n - r - 1) * 2; ++i) F(0);             // 1: F0
  for (int i = 0; i < r + 1; ++i) F(0), F(1);                 // 2: F0 F1
  for (int i = 0; i < n - r - 1; ++i) B(1, true), W(), F(1);  // 3: B1 W F1
  for (int i = 0; i < m - 2 * n + r + 1; ++i) {               // 4: F0&B1, F1&B0
    F(0), B(1, false), F(1), B(0, false);
  }
  for (int i = 0; i < n - r - 1; ++i) B(1, false), F(1), B(0, false);  // 5: B1, F1&B0
  bool zero_bubble = false;                                            // 6: B1 B0
  for (int i = 0; i < r + 1; ++i) {
    if (i == (r + 1) / 2 && r % 2 == 1) zero_bubble = true;
    B(1, zero_bubble);
    if (i == (r + 1) / 2 && r % 2 == 0) zero_bubble = true;
    B(0, zero_bubble);
  }
  for (int i = 0; i < n - r - 1; ++i) W(), B(0, true);  // 7: W B0
  while (!deferred.empty()) W();                        // 8: W
  return o;
}

// ZB-V with m < p (timeline.h): the passes at the times the schedule gives them, in units of
// one chunk's pass, each stage's in time order. Forwards of micro-batch k at chain position j
// start at j + 2k, backwards at t0 + (2p - 1 - j) + 2k with t0 = 2 (p + m - 1): a GPU's two
// chunks take slots of opposite parity, so they never meet. Each W takes the first slot after
// its B that no B holds.
Orders v_few_orders(int p, int m) {
  Orders orders(p);
  const int t0 = 2 * (p + m - 1);
  for (int i = 0; i < p; ++i) {
    std::vector<std::pair<int, Step>> timed;
    for (int k = 0; k < m; ++k) {
      timed.push_back({i + 2 * k, {Op::kF, 0, k}});
      timed.push_back({2 * p - 1 - i + 2 * k, {Op::kF, 1, k}});
    }
    // Chunk 1 sits at chain position 2p - 1 - i (its backward first), chunk 0 at i.
    std::vector<std::pair<int, Step>> backward;
    for (int k = 0; k < m; ++k) {
      backward.push_back({t0 + i + 2 * k, {Op::kB, 1, k}});
      backward.push_back({t0 + 2 * p - 1 - i + 2 * k, {Op::kB, 0, k}});
    }
    std::sort(backward.begin(), backward.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Step> waiting;  // W whose B is done
    size_t next = 0;
    for (int t = t0; next < backward.size() || !waiting.empty(); ++t) {
      if (next < backward.size() && backward[next].first == t) {
        timed.push_back(backward[next]);
        waiting.push_back({Op::kW, backward[next].second.phase, backward[next].second.k});
        ++next;
      } else if (!waiting.empty()) {
        timed.push_back({t, waiting.front()});
        waiting.erase(waiting.begin());
      }
    }
    std::stable_sort(timed.begin(), timed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [t, st] : timed) orders[static_cast<size_t>(i)].push_back(st);
  }
  return orders;
}

// ZB-V from 2p micro-batches on (timeline.h): slot by slot, each GPU runs the first of its
// passes that is ready, in this order: a backward (the oldest micro-batch, the later chunk
// first, so gradients drain), a forward while fewer than 2p chunks' activations wait for their
// backward (1F1B's peak, which ZB-V keeps: Qi et al. 2024), the oldest waiting W. Each GPU then
// runs without a gap from its first forward (GPU i at slot i) to its last W, 6m slots later:
// the V's zero bubble, which the step's ends overlap with the steps before and after.
std::vector<TimelineBlock> v_steady_blocks(int p, int m) {
  const int chain = 2 * p;
  std::vector<int> f_end(chain * m, -1), b_end(chain * m, -1);
  std::vector<int> next_f(chain, 0), next_b(chain, 0), held(p, 0);
  std::vector<std::vector<std::pair<int, int>>> waiting(p);  // (position, micro-batch) of a W
  std::vector<TimelineBlock> out;
  const int total = 3 * chain * m;
  const auto done_by = [](int end, int t) { return end >= 0 && end <= t; };
  for (int t = 0; static_cast<int>(out.size()) < total && t <= 6 * m + chain; ++t) {
    for (int i = 0; i < p; ++i) {
      const int at[2] = {chain - 1 - i, i};  // the later chunk's place in the chain first
      int pick = -1;
      Pass pass = Pass::kWeight;
      for (int j : at) {  // a backward: the oldest micro-batch, the later chunk on a tie
        const int k = next_b[j];
        if (k >= m) continue;
        const int input = j == chain - 1 ? f_end[j * m + k] : b_end[(j + 1) * m + k];
        if (done_by(input, t) && (pick < 0 || k < next_b[pick])) pick = j, pass = Pass::kBackward;
      }
      for (int j : at) {  // else a forward, within the activations 1F1B holds
        const int k = next_f[j];
        if (pick >= 0 && pass == Pass::kBackward) break;
        if (k >= m || held[i] >= chain) continue;
        if ((j == 0 || done_by(f_end[(j - 1) * m + k], t)) && (pick < 0 || k < next_f[pick])) {
          pick = j, pass = Pass::kForward;
        }
      }
      if (pick >= 0 && pass == Pass::kForward) {
        const int k = next_f[pick]++;
        f_end[pick * m + k] = t + 1;
        ++held[i];
        out.push_back({i, k, Pass::kForward, t, 1});
      } else if (pick >= 0) {
        const int k = next_b[pick]++;
        b_end[pick * m + k] = t + 1;
        --held[i];
        waiting[i].push_back({pick, k});
        out.push_back({i, k, Pass::kBackward, t, 1});
      } else if (!waiting[i].empty()) {
        out.push_back({i, waiting[i].front().second, Pass::kWeight, t, 1});
        waiting[i].erase(waiting[i].begin());
      }
    }
  }
  return out;
}

}  // namespace

int drawn_microbatches(Schedule schedule, int p, int m) {
  if (schedule == Schedule::kZbV && p > 1 && m < p) return m;
  return std::max(m, least_drawn_microbatches(schedule, p));
}

bool ends_overlap(Schedule schedule, int p, int m) {
  return schedule == Schedule::kZbV && p > 1 && m >= p;
}

int least_drawn_microbatches(Schedule schedule, int p) {
  if (p <= 1) return 1;
  switch (schedule) {
    case Schedule::kZbH1:
      return p;
    case Schedule::kZbV:
    case Schedule::kDualPipe:
    case Schedule::kDualPipeV:
      return 2 * p;
    default:
      return 1;
  }
}

Problem timeline_problem(Schedule schedule, int p, int m) {
  if (std::string why = schedule_stages_problem(schedule, p); !why.empty()) {
    return {"stages", why};
  }
  return {"microbatches", schedule_microbatches_problem(schedule, p, m, " micro-batches")};
}

std::vector<TimelineBlock> schedule_timeline(Schedule schedule, int p, int m) {
  m = drawn_microbatches(schedule, p, m);
  if (p <= 1 || !splits_weight_grad(schedule)) return one_f_one_b_timeline(p, m);
  Route route;
  Orders orders(p);
  if (schedule == Schedule::kZbH1) {
    route.chains.resize(1);
    for (int i = 0; i < p; ++i) route.chains[0].push_back({i, 0});
    route.first_microbatch = {0};
    return lay_out(p, zb_h1_orders(p, m), route, m);
  }
  if (schedule == Schedule::kDualPipe) {
    // Direction 0 runs from rank 0, direction 1 from rank p-1; the first half of the ranks
    // calls direction 0 its phase 0, the second half direction 1.
    m += m % 2;
    route.chains.resize(2);
    for (int i = 0; i < p; ++i) {
      route.chains[0].push_back({i, i < p / 2 ? 0 : 1});
      route.chains[1].push_back({p - 1 - i, p - 1 - i < p / 2 ? 1 : 0});
      orders[i] = dual_order(p / 2, std::min(i, p - 1 - i), m / 2);
    }
    route.first_microbatch = {0, 1};
    return lay_out(p, orders, route, m / 2);
  }
  // A V: chunk 0 down the ranks, chunk 1 back up.
  route.chains.resize(1);
  for (int i = 0; i < p; ++i) route.chains[0].push_back({i, 0});
  for (int i = p - 1; i >= 0; --i) route.chains[0].push_back({i, 1});
  route.first_microbatch = {0};
  if (schedule == Schedule::kZbV) {
    return m < p ? lay_out(p, v_few_orders(p, m), route, m) : v_steady_blocks(p, m);
  }
  for (int i = 0; i < p; ++i) orders[i] = dual_order(p, i, m);
  return lay_out(p, orders, route, m);
}

std::vector<TimelineBlock> one_f_one_b_timeline(int p, int m) {
  // Each stage's op order: warm-up forwards, then 1F1B pairs, then the last backwards.
  std::vector<std::vector<TimelineBlock>> order(p);
  for (int i = 0; i < p; ++i) {
    const int warmup = std::min(p - i - 1, m);
    int next_f = 0, next_b = 0;
    for (; next_f < warmup; ++next_f) order[i].push_back({i, next_f, Pass::kForward, 0, 1});
    while (next_b < m) {
      if (next_f < m) order[i].push_back({i, next_f++, Pass::kForward, 0, 1});
      order[i].push_back({i, next_b++, Pass::kBackward, 0, 2});
    }
  }
  // Finish times of each (stage, micro-batch) forward and backward; -1 = not yet run.
  std::vector<int> f_end(p * m, -1), b_end(p * m, -1), stage_free(p, 0);
  std::vector<size_t> next(p, 0);
  std::vector<TimelineBlock> out;
  out.reserve(3 * p * m);
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (int i = 0; i < p; ++i) {
      while (next[i] < order[i].size()) {
        TimelineBlock blk = order[i][next[i]];
        const int j = blk.microbatch;
        const bool backward = blk.pass == Pass::kBackward;
        int ready;
        if (!backward) {
          ready = i == 0 ? 0 : f_end[(i - 1) * m + j];
        } else {
          ready = i == p - 1 ? f_end[i * m + j] : b_end[(i + 1) * m + j];
        }
        if (ready < 0) break;  // its input has not been computed yet
        blk.start = std::max(ready, stage_free[i]);
        stage_free[i] = blk.start + blk.duration;
        (backward ? b_end : f_end)[i * m + j] = stage_free[i];
        out.push_back(blk);
        ++next[i];
        progressed = true;
      }
    }
  }
  return out;
}

}  // namespace pe
