#include "model/timeline.h"

#include <gtest/gtest.h>

namespace pe {
namespace {

int span(const std::vector<TimelineBlock>& blocks) {
  int end = 0;
  for (const TimelineBlock& b : blocks) end = std::max(end, b.start + b.duration);
  return end;
}

TEST(Timeline, EveryStageRunsEveryMicroBatchForwardAndBackward) {
  const auto blocks = one_f_one_b_timeline(4, 8);
  EXPECT_EQ(blocks.size(), 4u * 8 * 2);
}

TEST(Timeline, SpanIsThreeTimesMPlusPMinusOne) {
  // Ideal work per stage is m x (1 + 2) units; 1F1B adds (p-1) x 3 units of bubble, so the
  // bubble fraction (p-1)/m of Narayanan Sec. 2.2.1 shows up in the drawing.
  for (int p : {1, 2, 4, 8}) {
    for (int m : {1, 4, 8, 16}) {
      if (m < p) continue;
      EXPECT_EQ(span(one_f_one_b_timeline(p, m)), 3 * (m + p - 1)) << p << " " << m;
    }
  }
}

TEST(Timeline, FirstStageHoldsPMicroBatchesBeforeItsFirstBackward) {
  const auto blocks = one_f_one_b_timeline(4, 8);
  int forwards_before_first_backward = 0;
  for (const TimelineBlock& b : blocks) {
    if (b.stage != 0) continue;
    if (b.backward) break;
    ++forwards_before_first_backward;
  }
  EXPECT_EQ(forwards_before_first_backward, 4);
}

TEST(Timeline, NoStageRunsTwoBlocksAtOnce) {
  const auto blocks = one_f_one_b_timeline(6, 12);
  for (const TimelineBlock& a : blocks) {
    for (const TimelineBlock& b : blocks) {
      if (&a == &b || a.stage != b.stage) continue;
      EXPECT_TRUE(a.start + a.duration <= b.start || b.start + b.duration <= a.start);
    }
  }
}

}  // namespace
}  // namespace pe
