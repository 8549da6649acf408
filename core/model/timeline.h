// The 1F1B schedule laid out in time, for drawing: which stage runs which micro-batch when.
#pragma once

#include <vector>

namespace pe {

struct TimelineBlock {
  int stage;
  int microbatch;
  bool backward;
  int start;     // in units of one forward pass of one stage
  int duration;  // forward 1, backward 2 (the backward pass costs twice the forward)
};

// PipeDream-Flush / 1F1B (Narayanan et al. 2021, Sec. 2.2.1, Fig. 4): stage i runs
// min(p-i-1, m) warm-up forwards, then alternates one forward and one backward, then drains
// the remaining backwards. Each op starts when its stage is free and its input has arrived
// (forward from stage i-1, backward from stage i+1). The idle gaps are the bubble: the span is
// 3 (m + p - 1) units against 3 m of work.
std::vector<TimelineBlock> one_f_one_b_timeline(int stages, int microbatches);

}  // namespace pe
