#include "model/timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "model/pipeline.h"

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
    if (b.pass == Pass::kBackward) break;
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

// The schedules that split the backward (timeline.h), with F = B = W = 1 unit: their span
// against the core's bubble formula (pipeline.h bubble_scale at f = w = 1/3), which the tables
// it comes from assume too.
int busy(const std::vector<TimelineBlock>& blocks, int stage) {
  int units = 0;
  for (const TimelineBlock& b : blocks) units += b.stage == stage ? b.duration : 0;
  return units;
}
double formula_bubble(Schedule schedule, int p) {
  return 3.0 * (p - 1) * bubble_scale(schedule, p, 1, 1.0 / 3, 1.0 / 3);
}

TEST(Timeline, ZbH1SpansItsBubbleFormulaExactly) {
  for (int p : {2, 4, 8, 16}) {
    for (int m : {p, 2 * p, 3 * p + 1}) {
      const auto blocks = schedule_timeline(Schedule::kZbH1, p, m);
      EXPECT_EQ(span(blocks), 3 * m + formula_bubble(Schedule::kZbH1, p)) << p << " " << m;
    }
  }
}

// DeepSeek's orders drawn one pass after another (their F&B pairs unoverlapped) leave at most
// the bubble DeepSeek-V3 Table 2 and the DualPipe README print: DualPipe's ranks each run m
// micro-batch-stages, DualPipeV's 2m chunks of half a stage (its units are halves).
TEST(Timeline, DualPipesStayWithinTheirPublishedBubble) {
  for (int p : {2, 4, 8, 16}) {
    for (int m : {2 * p, 4 * p}) {
      const auto dual = schedule_timeline(Schedule::kDualPipe, p, m);
      EXPECT_EQ(busy(dual, 0), 3 * m);
      EXPECT_LE(span(dual) - 3 * m, formula_bubble(Schedule::kDualPipe, p)) << p << " " << m;
      const auto v = schedule_timeline(Schedule::kDualPipeV, p, m);
      EXPECT_EQ(busy(v, 0), 6 * m);
      EXPECT_LE(span(v) - 6 * m, 2 * formula_bubble(Schedule::kDualPipeV, p)) << p << " " << m;
    }
  }
}

// ZB-V from 2p micro-batches on: the core counts no bubble (pipeline.h bubble_scale), and the
// drawing shows none: GPU i starts at slot i (its first input's arrival) and then runs its 6m
// chunk passes without an idle slot, never holding more than 1F1B's 2p chunks' activations.
// The slanted ends are the steps before and after (ends_overlap), not idle time.
TEST(Timeline, ZbVRunsEveryGpuWithoutAGap) {
  for (int p : {2, 3, 4, 5, 8, 16, 32}) {
    for (int m : {2 * p, 2 * p + 1, 3 * p}) {
      const auto blocks = schedule_timeline(Schedule::kZbV, p, m);
      ASSERT_EQ(blocks.size(), 3u * 2 * p * m) << p << " " << m;
      EXPECT_EQ(span(blocks), 6 * m + p - 1) << p << " " << m;
      std::vector<std::vector<const TimelineBlock*>> by_gpu(p);
      for (const TimelineBlock& b : blocks) by_gpu[b.stage].push_back(&b);
      for (int i = 0; i < p; ++i) {
        std::vector<const TimelineBlock*>& own = by_gpu[i];
        std::sort(own.begin(), own.end(),
                  [](const auto* a, const auto* b) { return a->start < b->start; });
        EXPECT_EQ(own.front()->start, i) << p << " " << m;
        int held = 0, most = 0;
        for (size_t j = 0; j < own.size(); ++j) {
          EXPECT_EQ(own[j]->start, i + static_cast<int>(j)) << "a gap on GPU " << i;
          held += own[j]->pass == Pass::kForward ? 1 : own[j]->pass == Pass::kBackward ? -1 : 0;
          most = std::max(most, held);
        }
        EXPECT_LE(most, 2 * p) << p << " " << m;
      }
      EXPECT_TRUE(ends_overlap(Schedule::kZbV, p, m));
    }
  }
  // With fewer micro-batches than stages the bubble is counted, and drawn.
  EXPECT_FALSE(ends_overlap(Schedule::kZbV, 8, 4));
  EXPECT_FALSE(ends_overlap(Schedule::kDualPipeV, 4, 8));
}

// ZB-V with fewer micro-batches than stages (the formula once gave it no bubble, 0.043
// s where 1F1B takes 0.199): the drawing's span is the span the model counts
// (pipeline.h few_microbatch_span at f = w = 1/3, in units of one chunk's pass: a GPU's
// micro-batch is 6), every pass once, and never shorter than one micro-batch's chain.
TEST(Timeline, ZbVWithFewMicroBatchesSpansWhatTheModelCounts) {
  for (int p = 2; p <= 32; ++p) {
    for (int m = 1; m < p; ++m) {
      const auto blocks = schedule_timeline(Schedule::kZbV, p, m);
      ASSERT_EQ(blocks.size(), 3u * 2 * p * m) << p << " " << m;
      const double counted = few_microbatch_span(Schedule::kZbV, p, 2, m, p, 6, 1.0 / 3, 1.0 / 3);
      EXPECT_NEAR(span(blocks), counted, 1e-9) << p << " " << m;
      // One micro-batch's chain: F through 2p chunks, B back through them, the last W.
      EXPECT_GE(span(blocks), 2 * p + 2 * p + 1) << p << " " << m;
      EXPECT_EQ(busy(blocks, 0), 6 * m);
    }
  }
  // m = 1 is exactly the chain; the V never takes longer than 1F1B's (m + p - 1) T.
  EXPECT_EQ(span(schedule_timeline(Schedule::kZbV, 8, 1)), 33);
  for (int p : {4, 8}) {
    for (int m = 1; m < p; ++m) {
      EXPECT_LE(few_microbatch_span(Schedule::kZbV, p, 2, m, p, 1, 0.3, 0.25), m + p - 1.0);
    }
  }
}

// Interleaved with m < p: the span p T + (m - 1) T / v, the formula's m T + (p - 1) T / v at
// m = p; from m = p on the formula holds (few_microbatch_span gives 0).
TEST(Timeline, InterleavedWithFewMicroBatchesLapsTheStages) {
  EXPECT_DOUBLE_EQ(few_microbatch_span(Schedule::kInterleaved, 8, 2, 1, 8, 1, 0.3, 0.3), 8);
  EXPECT_DOUBLE_EQ(few_microbatch_span(Schedule::kInterleaved, 8, 4, 5, 8, 1, 0.3, 0.3), 9);
  EXPECT_DOUBLE_EQ(few_microbatch_span(Schedule::kInterleaved, 8, 4, 8, 8, 1, 0.3, 0.3), 0);
  EXPECT_DOUBLE_EQ(few_microbatch_span(Schedule::kOneFOneB, 8, 1, 1, 8, 1, 0.3, 0.3), 0);
}

// Every stage runs each micro-batch's F, B and W once (a V twice: two chunks), W only where the
// schedule splits the backward; a B after its F, a W after its B.
TEST(Timeline, EveryPassOnceInOrderAndWOnlyWhereSplit) {
  for (Schedule s : {Schedule::kOneFOneB, Schedule::kZbH1, Schedule::kZbV, Schedule::kDualPipe,
                     Schedule::kDualPipeV}) {
    const int p = 4, m = 8, chunks = v_shape(s) ? 2 : 1;
    std::vector<int> f(p * m, 0), b(p * m, 0), w(p * m, 0), f_end(p * m, -1), b_end(p * m, -1);
    for (const TimelineBlock& x : schedule_timeline(s, p, m)) {
      const int at = x.stage * m + x.microbatch;
      if (x.pass == Pass::kForward) ++f[at], f_end[at] = std::max(f_end[at], x.start + 1);
      if (x.pass == Pass::kBackward) {
        ++b[at];
        EXPECT_GE(x.start, f_end[at]) << "a backward before its forward";
        if (b_end[at] < 0) b_end[at] = x.start + 1;  // the first (a V's second chunk's)
      }
      if (x.pass == Pass::kWeight) {
        ++w[at];
        EXPECT_GE(x.start, b_end[at]) << "a weight gradient before its backward";
      }
    }
    for (int i = 0; i < p * m; ++i) {
      EXPECT_EQ(f[i], chunks);
      EXPECT_EQ(b[i], chunks);
      EXPECT_EQ(w[i], splits_weight_grad(s) ? chunks : 0);
    }
  }
}

// The drawing refuses what evaluate refuses, by the same rule (pipeline.h), under the
// argument at fault: DualPipe on 3 stages once drew.
TEST(Timeline, RefusesWhatEvaluateRefusesNamingTheArgument) {
  const Problem odd = timeline_problem(Schedule::kDualPipe, 3, 4);
  EXPECT_EQ(odd.key, "stages");
  EXPECT_EQ(odd.message,
            "schedule dualpipe needs an even number of pipeline stages: PP is 3 (each rank holds "
            "stage i and stage PP - 1 - i)");
  const Problem few = timeline_problem(Schedule::kDualPipe, 4, 7);
  EXPECT_EQ(few.key, "microbatches");
  EXPECT_EQ(few.message,
            "schedule dualpipe needs an even number of at least 2 x PP = 8 micro-batches: 7 "
            "micro-batches");
  EXPECT_EQ(timeline_problem(Schedule::kZbH1, 4, 3).key, "microbatches");
  EXPECT_EQ(timeline_problem(Schedule::kDualPipeV, 4, 6).key, "microbatches");
  for (Schedule s : {Schedule::kOneFOneB, Schedule::kZbH1, Schedule::kZbV, Schedule::kDualPipe,
                     Schedule::kDualPipeV}) {
    EXPECT_TRUE(timeline_problem(s, 4, 8).empty());
    EXPECT_TRUE(timeline_problem(s, 1, 1).empty());
  }
  // The scenario's words are the same rule's: a scenario on PP 3 with DualPipe is refused so.
  Scenario sc;
  sc.recipe.schedule = Schedule::kDualPipe;
  EXPECT_EQ(schedule_problem(sc, Degrees{1, 1, 3, 1, 1}, 8), odd.message);
}

}  // namespace
}  // namespace pe
