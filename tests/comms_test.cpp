#include "comms.h"

#include <gtest/gtest.h>

#include "scenario_builders.h"

namespace pe {
namespace {

using test::report_of;
using test::with_degrees;
using test::with_seams;

// Book defaults: b = 1, s = 2048, h = 5120, L = 50, B = 512; b s h = 10,485,760 elements.
constexpr double kBsh = 2048.0 * 5120;

TEST(DataTraffic, RingAllReduceSendsTwiceTheGradientShare) {
  // 2 (d-1)/d x 16e9 params x 2 B = 2 x 15/16 x 32 GB = 60 GB per GPU per step.
  const CommsReport c = report_of(with_seams(true, false, false)).comms;
  EXPECT_DOUBLE_EQ(c.data.bytes_per_gpu_per_step, 60e9);
  EXPECT_STREQ(c.data.link, "network");  // 16 replicas on two 8-GPU nodes
  EXPECT_EQ(c.data.group_size, 16);
  EXPECT_FALSE(c.tensor.active);
  EXPECT_STREQ(c.tensor.link, "none");
  EXPECT_EQ(c.pipeline.bytes_per_gpu_per_step, 0);
}

TEST(DataTraffic, ZeroThreeMovesOneAndAHalfTimesAsMuch) {
  Scenario s = with_seams(true, false, false);
  const double plain = report_of(s).comms.data.bytes_per_gpu_per_step;
  s.zero_stage = 1;
  EXPECT_DOUBLE_EQ(report_of(s).comms.data.bytes_per_gpu_per_step, plain);
  s.zero_stage = 2;
  EXPECT_DOUBLE_EQ(report_of(s).comms.data.bytes_per_gpu_per_step, plain);
  s.zero_stage = 3;
  EXPECT_DOUBLE_EQ(report_of(s).comms.data.bytes_per_gpu_per_step, 1.5 * plain);
}

TEST(TensorTraffic, EightBshTimesTMinusOneOverTPerLayerPerMicroBatch) {
  // TP = 16 alone: m = 512 micro-batches, 50 layers, 2-byte activations.
  // 8 x bsh x 15/16 x 2 B = 157,286,400 B per layer per micro-batch; x 50 x 512 = 4.03 TB.
  const CommsReport c = report_of(with_seams(false, true, false)).comms;
  EXPECT_DOUBLE_EQ(c.tensor.bytes_per_gpu_per_step, 8 * kBsh * 15 / 16 * 2 * 50 * 512);
  EXPECT_STREQ(c.tensor.link, "network");  // 16 GPUs cannot share one 8-GPU node
}

TEST(TensorTraffic, FourWayTensorInsideANodeRidesNvlink) {
  // D+T = 4x4: m = 512 / 4 = 128; 8 x bsh x 3/4 x 2 B x 50 layers x 128 = 805 GB.
  const CommsReport c = report_of(with_seams(true, true, false)).comms;
  EXPECT_DOUBLE_EQ(c.tensor.bytes_per_gpu_per_step, 8 * kBsh * 3 / 4 * 2 * 50 * 128);
  EXPECT_STREQ(c.tensor.link, "nvlink");
  EXPECT_DOUBLE_EQ(c.tensor.time_s, c.tensor.bytes_per_gpu_per_step / 300e9);
}

TEST(PipelineTraffic, MiddleStagesSendActivationsForwardAndGradientsBack) {
  // P = 16: each of 512 micro-batches sends bsh x 2 B = 21 MB each way.
  const CommsReport c = report_of(with_seams(false, false, true)).comms;
  EXPECT_DOUBLE_EQ(c.pipeline.bytes_per_message, kBsh * 2);
  EXPECT_DOUBLE_EQ(c.pipeline.bytes_per_gpu_per_step, 2 * 512 * kBsh * 2);
  EXPECT_STREQ(c.pipeline.link, "network");  // stage 7 -> 8 leaves the node
}

TEST(PipelineTraffic, FourStagesOfOneReplicaShareANode) {
  const CommsReport c = report_of(with_seams(true, false, true)).comms;
  EXPECT_STREQ(c.pipeline.link, "nvlink");
  EXPECT_DOUBLE_EQ(c.pipeline.bytes_per_gpu_per_step, 2 * 128 * kBsh * 2);
}

TEST(PipelineTraffic, TensorRanksEachSendTheirSlice) {
  // 1x4x4: each of 4 TP ranks sends bsh/4 (Megatron's scatter/gather).
  const CommsReport c = report_of(with_seams(false, true, true)).comms;
  EXPECT_DOUBLE_EQ(c.pipeline.bytes_per_message, kBsh * 2 / 4);
}

TEST(Pipeline, BubbleIsPMinusOneOverM) {
  const Report r = report_of(with_degrees(4, 1, 4));
  EXPECT_EQ(r.pipeline.microbatches, 128);
  EXPECT_DOUBLE_EQ(r.pipeline.bubble_fraction, 3.0 / 128);
  Scenario s = with_degrees(4, 1, 4);
  s.schedule = Schedule::kInterleaved;
  s.virtual_stages = 2;
  EXPECT_DOUBLE_EQ(report_of(s).pipeline.bubble_fraction, 3.0 / (2 * 128));
}

}  // namespace
}  // namespace pe
