#include "model/timeline.h"

#include <algorithm>

namespace pe {

std::vector<TimelineBlock> one_f_one_b_timeline(int p, int m) {
  // Each stage's op order: warm-up forwards, then 1F1B pairs, then the last backwards.
  std::vector<std::vector<TimelineBlock>> order(p);
  for (int i = 0; i < p; ++i) {
    const int warmup = std::min(p - i - 1, m);
    int next_f = 0, next_b = 0;
    for (; next_f < warmup; ++next_f) order[i].push_back({i, next_f, false, 0, 1});
    while (next_b < m) {
      if (next_f < m) order[i].push_back({i, next_f++, false, 0, 1});
      order[i].push_back({i, next_b++, true, 0, 2});
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
        int ready;
        if (!blk.backward) {
          ready = i == 0 ? 0 : f_end[(i - 1) * m + j];
        } else {
          ready = i == p - 1 ? f_end[i * m + j] : b_end[(i + 1) * m + j];
        }
        if (ready < 0) break;  // its input has not been computed yet
        blk.start = std::max(ready, stage_free[i]);
        stage_free[i] = blk.start + blk.duration;
        (blk.backward ? b_end : f_end)[i * m + j] = stage_free[i];
        out.push_back(blk);
        ++next[i];
        progressed = true;
      }
    }
  }
  return out;
}

}  // namespace pe
