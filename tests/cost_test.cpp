#include "model/cost.h"

#include <gtest/gtest.h>

namespace pe {
namespace {

// 1,024 GPUs at $2/GPU-hour, 10 s per step and 400,000 tokens/s: by hand, a step is
// 1,024 x 10 / 3,600 = 2.844 GPU-hours ($5.69), a day 24,576 GPU-hours ($49,152) and
// 34.56e9 tokens; a trillion tokens takes 2.5e6 s, so 1,024 x 2.5e6 / 3,600 = 711,111
// GPU-hours; a 1e12-token budget the same.
TEST(Cost, GpuHoursAndMoneyByHand) {
  Scenario s;
  s.fleet.gpus = 1024;
  s.economics.price_per_gpu_hour = 2;
  TimeReport t;
  t.step_s = 10;
  t.tokens_per_s = 400000;
  t.time_to_train_s = 1e12 / t.tokens_per_s;
  const CostReport c = cost_report(s, t);
  EXPECT_NEAR(c.gpu_hours_per_step, 2.8444, 1e-4);
  EXPECT_NEAR(c.usd_per_step, 5.6889, 1e-4);
  EXPECT_DOUBLE_EQ(c.gpu_hours_per_day, 24576);
  EXPECT_DOUBLE_EQ(c.usd_per_day, 49152);
  EXPECT_DOUBLE_EQ(c.tokens_per_day, 34.56e9);
  EXPECT_NEAR(c.gpu_hours_per_trillion_tokens, 711111.1, 0.1);
  EXPECT_NEAR(c.gpu_hours_to_train, c.gpu_hours_per_trillion_tokens, 1e-6);
  // A trillion tokens at $2 per GPU-hour: 711,111 x 2 = $1,422,222.
  EXPECT_NEAR(c.usd_per_trillion_tokens, 1422222.2, 0.1);
  EXPECT_NEAR(c.usd_to_train, 2 * c.gpu_hours_to_train, 1e-6);
}

TEST(Cost, NoBudgetNoTrainingCost) {
  Scenario s;
  TimeReport t;
  t.step_s = 1;
  t.tokens_per_s = 1;
  EXPECT_EQ(cost_report(s, t).usd_to_train, 0);
}

}  // namespace
}  // namespace pe
