// The context and expert seams against published runs (tables derived by hand from the papers;
// the same runs the page's reference panel shows, core/contract/reference_runs.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "contract/contract.h"
#include "contract/reference_runs.h"

namespace pe {
namespace {

using nlohmann::json;

json report_of(const std::string& name) {
  for (const ReferenceRun& run : reference_runs()) {
    if (run.name == name) return json::parse(evaluate_json(run.scenario_json));
  }
  ADD_FAILURE() << "no reference run " << name;
  return {};
}

// Llama 3 405B's long-context stage: 131,072 tokens over CP 16 x TP 8 x PP 16 x DP 8 on 16,384
// H100 (Dubey et al. 2024, Table 4): it fitted in 80 GB at 38% MFU (380 TFLOP/s per GPU).
TEST(FiveSeamRuns, LlamaLongContextFitsAndBracketsThePublishedMfu) {
  json r = report_of("Llama 3 405B long context (CP 16) on 16,384 H100");
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["degrees"], json({{"dp", 8}, {"tp", 8}, {"pp", 16}, {"cp", 16}, {"ep", 1}}));
  EXPECT_EQ(r["active_gpus"], 16384);
  EXPECT_TRUE(r["memory"]["fits"]);
  EXPECT_LT(r["memory"]["per_gpu_bytes"].get<double>(), 80e9);
  // Each GPU holds 131072 / 16 = 8,192 tokens of every sequence: the context seam moves the
  // keys and values of 8 KV heads (2 x 8 x 128 values a token, a TP rank's 1/8 of them).
  EXPECT_EQ(r["comms"]["context"]["group_size"], 16);
  EXPECT_EQ(r["comms"]["context"]["bytes_per_message"], 8192.0 * 2 * 8 * 128 / 8 * 15 * 2);
  EXPECT_EQ(r["comms"]["context"]["link"], "network");
  EXPECT_EQ(r["comms"]["tensor"]["link"], "nvlink");
  const double full_recompute_mfu = r["time"]["mfu"];
  // With full recomputation the MFU is a lower bound; without any, an upper bound that does
  // not fit. The published 38% lies between them.
  json none = r["scenario"];
  none["recompute"] = "none";
  const json upper = json::parse(evaluate_json(none.dump()));
  EXPECT_FALSE(upper["memory"]["fits"]);
  EXPECT_LT(full_recompute_mfu, 0.38);
  EXPECT_GT(upper["time"]["mfu"].get<double>(), 0.38);
  EXPECT_NEAR(full_recompute_mfu / 0.38, 1, 0.15);
}

// DeepSeek-V3 on 2,048 H800: PP 16, EP 64 (over 8 nodes), ZeRO-1; 180K GPU-hours per trillion
// tokens (arXiv:2412.19437, Sec. 1).
TEST(FiveSeamRuns, DeepSeekV3GpuHoursPerTrillionTokens) {
  const json r = report_of("DeepSeek-V3 on 2,048 H800");
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["degrees"], json({{"dp", 128}, {"tp", 1}, {"pp", 16}, {"cp", 1}, {"ep", 64}}));
  EXPECT_NEAR(r["model_params"].get<double>() / 671e9, 1, 0.03);
  EXPECT_NEAR(r["model_active_params"].get<double>() / 37e9, 1, 0.03);
  // EP 64 with TP 1: 64 consecutive data-parallel ranks, 8 nodes of 8 GPUs.
  EXPECT_EQ(r["comms"]["expert"]["group_size"], 64);
  EXPECT_EQ(r["comms"]["expert"]["link"], "network");
  // One all-to-all: 4,096 tokens x top-8 x 7,168 x 2 B x 63/64.
  EXPECT_EQ(r["comms"]["expert"]["bytes_per_message"], 4096.0 * 8 * 7168 * 2 * 63 / 64);
  EXPECT_NEAR(r["cost"]["gpu_hours_per_trillion_tokens"].get<double>() / 180e3, 1, 0.15);
}

// The reference panel carries the published counts; each within 3%.
TEST(FiveSeamRuns, MoeCountsWithinThreePercent) {
  const json runs = json::parse(reference_runs_json());
  int counts = 0;
  for (const json& run : runs) {
    if (run["table"] != "MoE parameter counts") continue;
    ++counts;
    EXPECT_LT(std::fabs(run["error"].get<double>()), 0.03) << run["name"];
  }
  EXPECT_EQ(counts, 6);
}

}  // namespace
}  // namespace pe
