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

struct LeversSeen {
  struct Seen {
    double step_s = INFINITY;  // the fastest configuration with the lever that fits
    Degrees fastest;
    double least_bytes = INFINITY;  // the least memory a configuration with it needed
    Degrees least_at;
  };
  std::array<Seen, kLevers> by{};
  void fastest(unsigned bits, double step_s, const Degrees& d) {
    for (int i = 0; bits != 0; ++i, bits >>= 1) {
      if ((bits & 1u) && step_s < by[static_cast<size_t>(i)].step_s) {
        by[static_cast<size_t>(i)].step_s = step_s;
        by[static_cast<size_t>(i)].fastest = d;
      }
    }
  }
  void least(unsigned bits, double bytes, const Degrees& d) {
    for (int i = 0; bits != 0; ++i, bits >>= 1) {
      if ((bits & 1u) && bytes < by[static_cast<size_t>(i)].least_bytes) {
        by[static_cast<size_t>(i)].least_bytes = bytes;
        by[static_cast<size_t>(i)].least_at = d;
      }
    }
  }
};

// The levers the best plan (r.top[0]) does not pull, each with why: "needs 95 GB per GPU
// against 64 GB usable" when no configuration with it fits, "its fastest plan ... takes 12.3 s
// a step, 4.1% slower" when one fits, or why the core rules it out for the scenario (CP 2
// not dividing the sequence; "the A100-80GB has no FP8 peak"). `decisive` indexes the one
// why_best names: the one memory refused with the least memory, else the one that came
// closest to the best's step; -1 when only the scenario's rules dropped levers.
struct DroppedList {
  std::vector<Dropped> list;
  int decisive = -1;
};
DroppedList dropped_levers(const Scenario& base, const PlanResult& r, const LeversSeen& seen);

}  // namespace pe
