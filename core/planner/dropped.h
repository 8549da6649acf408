// What the best plan leaves out, and why, with numbers: the levers the scenario allows (EP, CP,
// FP8, full or selective recomputation, activation offload, a schedule that splits the backward),
// the fastest plan that pulled each one and the least memory any configuration with it needed, kept
// as the search goes.
#pragma once

#include <array>
#include <cmath>
#include <vector>

#include "planner/planner.h"

namespace pe {

enum Lever { kEp, kCp, kFp8, kFull, kSelective, kOffload, kSplitBackward, kLevers };

// The levers a configuration pulls, one bit each (1u << Lever).
unsigned lever_bits(const Scenario& s, const Degrees& d);

// Per lever, its fastest plan and its least memory, each chosen by the planner's total order
// (planner.cpp `better`: step, memory, then layout_key), so that on an exact tie the layout
// named is the one the order puts first, not the one the search happened to visit first.
struct LeversSeen {
  struct Seen {
    // The fastest configuration with the lever that fits, by what the plans are ranked by (the
    // step, or the time to train with failures: planner.h PlanRank): that figure, its step and
    // its memory.
    double rank_s = INFINITY;
    double step_s = INFINITY;
    double step_bytes = INFINITY;
    Degrees fastest;
    double least_bytes = INFINITY;  // the least memory a configuration with it needed
    Degrees least_at;
  };
  std::array<Seen, kLevers> by{};
  void fastest(unsigned bits, double rank_s, double step_s, double bytes, const Degrees& d) {
    for (int i = 0; bits != 0; ++i, bits >>= 1) {
      Seen& s = by[static_cast<size_t>(i)];
      if ((bits & 1u) && faster(rank_s, bytes, d, s)) {
        s.rank_s = rank_s;
        s.step_s = step_s;
        s.step_bytes = bytes;
        s.fastest = d;
      }
    }
  }
  void least(unsigned bits, double bytes, const Degrees& d) {
    for (int i = 0; bits != 0; ++i, bits >>= 1) {
      Seen& s = by[static_cast<size_t>(i)];
      if ((bits & 1u) && (bytes != s.least_bytes ? bytes < s.least_bytes
                                                 : layout_key(d) < layout_key(s.least_at))) {
        s.least_bytes = bytes;
        s.least_at = d;
      }
    }
  }

 private:
  // Compares the ranked figure first, as `better` does: the search calls this for every
  // configuration.
  static bool faster(double rank_s, double bytes, const Degrees& d, const Seen& s) {
    if (rank_s != s.rank_s) return rank_s < s.rank_s;
    if (bytes != s.step_bytes) return bytes < s.step_bytes;
    return layout_key(d) < layout_key(s.fastest);
  }
};

// The levers the best plan (r.top[0]) does not pull, each with why: "needs 95 GB per GPU
// against 64 GB usable" when no configuration with it fits, "its fastest plan ... takes 12.3 s
// a step, 4.1% slower" when one fits (ranked by failures: "... 4.1% slower to train with
// failures", the time the plans are ranked by), or why the core rules it out for the scenario (CP 2
// not dividing the sequence; "the A100-80GB has no FP8 peak"). `decisive` indexes the one
// why_best names: the one memory refused with the least memory, else the one that came
// closest to the best's step; -1 when only the scenario's rules dropped levers.
struct DroppedList {
  std::vector<Dropped> list;
  int decisive = -1;
};
DroppedList dropped_levers(const Scenario& base, const PlanResult& r, const LeversSeen& seen,
                           PlanRank rank);

}  // namespace pe
