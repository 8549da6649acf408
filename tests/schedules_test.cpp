// The pipeline schedules (core/model/pipeline.h) against the tables their authors publish,
// typed here from the sources, each beside its rows. The model's bubble is 1F1B's
// (p-1)(F+B+W) scaled by bubble_scale from the forward (f) and weight-gradient (w) shares;
// with F = B = W (f = w = 1/3, the tables' assumption) it must give the tables' figures.
#include <gtest/gtest.h>

#include "contract/contract.h"
#include "model/explorer.h"
#include "model/model_shape.h"
#include "model/pipeline.h"

namespace pe {
namespace {

constexpr double kThird = 1.0 / 3;

// The bubble in units of one F (= B = W), from the model: 1F1B's (p - 1) x 3 times the scale.
double bubble_units(Schedule schedule, int p) {
  return 3.0 * (p - 1) * bubble_scale(schedule, p, 1, kThird, kThird);
}

// The zero-bubble authors' comparison "assuming T_F = T_B = T_W" (Sea AI Lab, Hugging Face
// space sail/zero-bubble-pipeline-parallellism, description2.md, the table beside Qi et al.
// 2023, arXiv:2401.10241, and 2024, arXiv:2405.15362): bubble rate 1F1B (p-1)/(m+p-1), ZB1P
// (ZB-H1) (p-1)/3(m+p-1), ZBV 0; activation memory 1F1B 1x, ZB1P 1x, ZBV 1x.
TEST(Schedules, ZeroBubbleRatesAreTheAuthorsTable) {
  for (int p : {2, 4, 8, 16}) {
    for (int m : {p, 2 * p, 3 * p, 64}) {
      const double span_1f1b = 3.0 * (m + p - 1);  // units of F
      EXPECT_NEAR(bubble_units(Schedule::kOneFOneB, p) / span_1f1b, (p - 1.0) / (m + p - 1), 1e-12);
      EXPECT_NEAR(bubble_units(Schedule::kZbH1, p) / span_1f1b, (p - 1.0) / (3.0 * (m + p - 1)),
                  1e-12);
      EXPECT_EQ(bubble_units(Schedule::kZbV, p), 0);
    }
  }
}

// DeepSeek-V3 Table 2 (arXiv:2412.19437 Sec. 3.2.1) in its notation (B the whole backward,
// F&B an overlapped forward and backward, here F + B): 1F1B (PP-1)(F+B), ZB1P (PP-1)(F+B-2W),
// DualPipe (PP/2-1)(F&B+B-3W); parameters 1x, 1x, 2x; activations PP, PP, PP+1. DualPipeV
// (DeepSeek's DualPipe repository, README, "based on the same number of PP stages"): the same
// bubble on PP stages held by PP/2 devices, 2x parameters per device of a stage's, PP + 1
// activations of a stage's. With F = W = 1 and B = 2 (input and weight gradients):
TEST(Schedules, DualPipeIsDeepSeekV3sTable2) {
  const double F = 1, B = 2, W = 1, FB = F + B;
  for (int p : {2, 4, 8, 16, 32}) {
    EXPECT_NEAR(bubble_units(Schedule::kOneFOneB, p), (p - 1) * (F + B), 1e-12);
    EXPECT_NEAR(bubble_units(Schedule::kZbH1, p), (p - 1) * (F + B - 2 * W), 1e-12);
    EXPECT_NEAR(bubble_units(Schedule::kDualPipe, p), (p / 2.0 - 1) * (FB + B - 3 * W), 1e-12);
    // DualPipeV on p GPUs: P = 2p stages, each half a GPU's layers (F, B, W halve).
    const int P = 2 * p;
    EXPECT_NEAR(bubble_units(Schedule::kDualPipeV, p), (P / 2.0 - 1) * (FB + B - 3 * W) / 2, 1e-12);
  }
}

Scenario pipeline_of(int pp, Schedule schedule, int global_batch = 64) {
  Scenario s;
  s.fleet.gpus = pp;
  s.recipe.degrees = Degrees{1, 1, pp, 1, 1};
  s.model.layers = 48;
  s.model.params = shape_params(s.model, s.batch.seq_len);
  s.batch.global_batch = global_batch;
  s.recipe.schedule = schedule;
  s.recipe.memory_model = MemoryModel::kFull;
  return s;
}

TEST(Schedules, ActivationsInFlightAndWeightsAreTheTables) {
  const int p = 8, m = 64;
  const Degrees d{1, 1, p, 1, 1};
  const auto inflight = [&](Schedule schedule, int stage) {
    return inflight_microbatches(pipeline_of(p, schedule), d, stage, m);
  };
  EXPECT_EQ(inflight(Schedule::kOneFOneB, 0), p);
  EXPECT_EQ(inflight(Schedule::kZbH1, 0), p);              // ZB1P: 1x
  EXPECT_EQ(inflight(Schedule::kZbV, p - 1), p);           // ZBV: 1x, on every stage
  EXPECT_EQ(inflight(Schedule::kDualPipe, p - 1), p + 1);  // PP + 1 on every rank
  EXPECT_EQ(inflight(Schedule::kDualPipeV, 3), p + 0.5);   // 2p + 1 chunks of half a GPU's
  EXPECT_EQ(parameter_copies(pipeline_of(p, Schedule::kDualPipe), p), 2);
  EXPECT_EQ(parameter_copies(pipeline_of(p, Schedule::kDualPipeV), p), 1);
}

// What each schedule requires, refused under the key `schedule` with what is allowed.
TEST(Schedules, ALayoutTheScheduleCannotRunIsRefusedNamingTheKey) {
  struct Row {
    Scenario s;
    const char* says;
  };
  Scenario v = pipeline_of(4, Schedule::kZbV);
  v.model.layers = 30;
  const Row rows[] = {
      {pipeline_of(8, Schedule::kZbH1, 4), "schedule zb_h1 needs at least PP = 8 micro-batches"},
      {v, "schedule zb_v needs the layers per stage to split into 2 chunks: 30 layers on PP 4"},
      {pipeline_of(3, Schedule::kDualPipe),
       "schedule dualpipe needs an even number of pipeline "
       "stages: PP is 3"},
      {pipeline_of(8, Schedule::kDualPipe, 15),
       "schedule dualpipe needs an even number of at "
       "least 2 x PP = 16 micro-batches"},
      {pipeline_of(8, Schedule::kDualPipeV, 8), "schedule dualpipe_v needs at least 2 x PP = 16"},
  };
  for (const Row& row : rows) {
    const Problem p = layout_problem(row.s, *row.s.recipe.degrees);
    EXPECT_EQ(p.key, "schedule") << row.says;
    EXPECT_EQ(p.message.rfind(row.says, 0), 0u) << p.message;
  }
  for (Schedule ok : {Schedule::kZbH1, Schedule::kZbV, Schedule::kDualPipe, Schedule::kDualPipeV}) {
    EXPECT_TRUE(layout_problem(pipeline_of(8, ok), Degrees{1, 1, 8, 1, 1}).empty());
  }
}

// Through the whole model, on the book's 16 GPUs with PP 4: W is the linear layers' forward
// FLOPs again, so its share lies under a third (the attention core's backward and the
// elementwise kernels are B's); ZB-H1 cuts 1F1B's bubble by 1 - 2w, ZB-V to none.
TEST(Schedules, OnTheBooksGpusZeroBubbleCutsTheBubbleByItsWeightGradientShare) {
  Scenario s = pipeline_of(4, Schedule::kOneFOneB, 512);
  s.fleet.gpus = 16;
  s.recipe.degrees = Degrees{1, 4, 4, 1, 1};
  const Report one = evaluate(s).value();
  s.recipe.schedule = Schedule::kZbH1;
  const Report zb = evaluate(s).value();
  const double w = zb.time.weight_grad_share;
  EXPECT_GT(w, 0.2);
  EXPECT_LT(w, kThird);
  EXPECT_NEAR(zb.time.bubble_s, zb.time.bubble_1f1b_s * (1 - 2 * w), 1e-12);
  EXPECT_LT(zb.time.bubble_s, one.time.bubble_s);
  s.recipe.schedule = Schedule::kZbV;
  EXPECT_EQ(evaluate(s).value().time.bubble_s, 0);
}

// A fleet that pays more than the schedule's bubble (bubble_paid above 1, from a two-run
// calibration) pays at most all of the V's: its bubble is the span's excess at every m, and
// the span of 2 micro-batches on 4 stages (46.7 s past their 60.2 s of compute, Megatron 1T at
// DP 16 x TP 2, micro-batch 4) is mostly filled at 4 (what 3 micro-batches span, 15.5 s past
// 4's work). Paying it twice took the step to 174.6 s, where twice the batch took 142.0 s.
TEST(Schedules, ABubblePaidPastAllOfTheVsNeverLetsADoubledBatchFinishSooner) {
  auto step_s = [](int global_batch) {
    const Result<Scenario> s = parse_scenario(
        R"({"model":"megatron-1t","gpus":128,"degrees":{"dp":16,"tp":2,"pp":4},"micro_batch":4,
            "schedule":"zb_v","bubble_paid":2,"global_batch":)" +
        std::to_string(global_batch) + "}");
    return evaluate(s.value()).value().time;
  };
  const TimeReport two = step_s(128), four = step_s(256);
  EXPECT_NEAR(two.bubble_s, 46.7, 0.05);  // all of it, not twice
  EXPECT_LT(four.bubble_s, two.bubble_s);
  EXPECT_LE(two.step_s, four.step_s);
}

// The V's span never shrinks as micro-batches are added: with p stages of F = B = W = 1, m
// micro-batches span at least what m - 1 do, and 2m at least what m do. (At m = p it once took
// floor(p / 2)'s span: 3 micro-batches on 3 stages spanned 6.5 units where 2 had spanned 9.)
// From m = p the span is also held to ZB-H1's, 3m + (p - 1); from p = 8 that is below what
// p - 1 micro-batches span as the V runs few (31 against 31.5 units at p = 8), so there the
// step to m = p is checked only as the laws check it, doubled.
TEST(Schedules, TheVsSpanNeverShrinksWithMoreMicroBatches) {
  const auto span = [](int p, int m) {
    return few_microbatch_span(Schedule::kZbV, p, 1, m, p, 3.0, kThird, kThird);
  };
  for (int p = 2; p <= 16; ++p) {
    for (int m = 1; m <= 3 * p; ++m) {
      if (m > 1 && (p < 8 || m != p))
        EXPECT_GE(span(p, m), span(p, m - 1)) << "p " << p << ", m " << m;
      EXPECT_GE(span(p, 2 * m), span(p, m)) << "p " << p << ", m " << m;
      if (m >= p) EXPECT_LE(span(p, m), 3.0 * m + (p - 1)) << "p " << p << ", m " << m;
    }
  }
}

}  // namespace
}  // namespace pe
