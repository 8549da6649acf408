// The planner against the layouts experts published: NVIDIA's Megatron-Bridge performance
// recipes for Llama 3 8B, 70B and 3.1 405B on H100, B200 and GB200 in FP8, each with its layout
// and its measured throughput. Typed here from the tables (NVIDIA-NeMo/Megatron-Bridge,
// docs/performance-summary.md, "25.11 NeMo Container", and docs/performance-summary-archive.md,
// "26.02" and "25.09"), never read from the core. Each table prints tokens per second per
// GPU; a step is global batch x sequence length / (tokens per second per GPU x GPUs).
//
// For each run the planner gets what the experts were given (model, GPUs, GPU, global batch,
// sequence length, precision) and must
// - rank its best no slower than the experts' layout, within the model's tie (kTieWithin):
//   it finds what the experts found, or something the model holds as good;
// - promise no step below 0.85 x the measured one: it invents no gain the run could not have;
// - call the experts' layout, which ran, "fits" or "tight".
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "contract/contract.h"
#include "planner/planner.h"

namespace pe {
namespace {

using nlohmann::json;

struct ExpertRun {
  const char* name;  // container, system, model
  const char* gpu;
  const char* model;
  int gpus, global_batch, micro_batch;
  bool fsdp;  // Megatron-FSDP: weights, gradients and optimizer sharded (ZeRO-3)
  int tp, pp, cp, vp;
  double tokens_per_s_per_gpu;
  int offload_layers = 0;  // cpu_offloading_num_layers: activations held in Grace's memory
};

// Sequences of 8,192 tokens; FP8 (current scaling, MXFP8 on the 26.02 GB200 70B row);
// sequence parallelism and TP communication overlap where TP > 1; the distributed optimizer
// (ZeRO-1) with its gradient reduction and weight gather overlapped, or FSDP. The GB200 FSDP
// rows hold some layers' activations in the Grace CPU's memory: 40 of Llama 3 70B's 80, 92 of
// 405B's 126 (Megatron-Bridge scripts/performance/configs/llama/llama3_workload_base_configs.py
// LLAMA3_70B_PRETRAIN_CONFIG_GB200_FP8_CS_V1/V2 and llama31_workload_base_configs.py
// LLAMA31_405B_PRETRAIN_CONFIG_GB200_FP8_CS_V1, cpu_offloading_num_layers).
const std::vector<ExpertRun>& runs() {
  static const std::vector<ExpertRun> all = {
      // 25.11, performance-summary.md.
      {"25.11 H100 Llama 3 8B", "H100-80GB", "llama3-8b", 8, 128, 1, true, 1, 1, 1, 1, 14451},
      {"25.11 H100 Llama 3 70B", "H100-80GB", "llama3-70b", 64, 128, 1, false, 4, 8, 1, 5, 1602},
      {"25.11 H100 Llama 3.1 405B", "H100-80GB", "llama3-405b", 1024, 512, 1, false, 8, 8, 2, 8,
       292},
      {"25.11 B200 Llama 3 8B", "B200-DGX", "llama3-8b", 8, 128, 2, false, 1, 1, 1, 1, 30624},
      {"25.11 B200 Llama 3.1 405B", "B200-DGX", "llama3-405b", 128, 64, 1, false, 4, 8, 2, 8, 661},
      {"25.11 GB200 Llama 3 8B", "GB200-NVL72", "llama3-8b", 8, 128, 2, false, 1, 1, 1, 1, 31508},
      {"25.11 GB200 Llama 3 70B", "GB200-NVL72", "llama3-70b", 64, 256, 2, true, 1, 1, 1, 1, 4312,
       40},
      {"25.11 GB200 Llama 3.1 405B", "GB200-NVL72", "llama3-405b", 256, 1536, 1, false, 4, 16, 1, 4,
       813},
      // 26.02, performance-summary-archive.md.
      {"26.02 H100 Llama 3 70B", "H100-80GB", "llama3-70b", 64, 256, 1, false, 4, 8, 1, 5, 1621},
      {"26.02 H100 Llama 3.1 405B", "H100-80GB", "llama3-405b", 1024, 1536, 1, false, 8, 8, 2, 8,
       311},
      {"26.02 GB200 Llama 3 70B", "GB200-NVL72", "llama3-70b", 64, 256, 2, true, 1, 1, 1, 1, 4040,
       40},
      {"26.02 GB200 Llama 3 70B MXFP8", "GB200-NVL72", "llama3-70b", 64, 256, 1, false, 2, 4, 1, 5,
       3613},
      {"26.02 GB200 Llama 3.1 405B", "GB200-NVL72", "llama3-405b", 256, 1536, 1, false, 4, 16, 1, 4,
       793},
      // 25.09, performance-summary-archive.md.
      {"25.09 GB200 Llama 3 70B", "GB200-NVL72", "llama3-70b", 64, 128, 2, true, 1, 1, 1, 1, 3986,
       40},
      {"25.09 GB200 Llama 3.1 405B", "GB200-NVL72", "llama3-405b", 128, 64, 1, true, 2, 1, 1, 1,
       729, 92},
  };
  return all;
}

constexpr int kSeqLen = 8192;

double measured_step_s(const ExpertRun& r) {
  return 1.0 * r.global_batch * kSeqLen / (r.tokens_per_s_per_gpu * r.gpus);
}

// What the experts were given; the planner chooses the rest.
json given(const ExpertRun& r) {
  json s = {
      {"model", r.model},
      {"gpu", r.gpu},
      {"gpus", r.gpus},
      {"seq_len", kSeqLen},
      {"global_batch", r.global_batch},
      // Transformer Engine's FP8 GEMMs with BF16 gradients: every recipe sets
      // grad_reduce_in_fp32 = False (Megatron-Bridge perf_recipes/_common.py
      // _benchmark_common); main weights and Adam's moments in FP32.
      {"precision",
       {{"weight", 2}, {"grad", 2}, {"master", 4}, {"adam_m", 4}, {"adam_v", 4}, {"fp8", true}}},
      {"tp_comm_overlap", true},
      // Transformer Engine's cross entropy (Megatron-Bridge's GPTModelProvider
      // cross_entropy_loss_fusion = True; perf_recipes/_common.py sets its impl "te").
      {"cross_entropy", "te"},
      {"overlap_grad_reduce", true},
      {"overlap_param_gather", true},
      {"memory_model", "full"}};
  // Past one rack, NVIDIA's GB200 runs use 64 of each 72 GPUs as a model's NVLink domain.
  if (std::string(r.gpu) == "GB200-NVL72" && r.gpus > 64) s["nvlink_domain_gpus"] = 64;
  return s;
}

// The experts' own layout and choices.
json experts(const ExpertRun& r) {
  json s = given(r);
  const int dp = r.gpus / (r.tp * r.pp * r.cp);
  s["degrees"] = {{"dp", dp}, {"tp", r.tp}, {"pp", r.pp}, {"cp", r.cp}};
  s["micro_batch"] = r.micro_batch;
  s["zero_stage"] = r.fsdp ? 3 : 1;
  s["sequence_parallel"] = r.tp > 1;
  if (r.vp > 1) s["schedule"] = "interleaved", s["virtual_stages"] = r.vp;
  if (r.offload_layers > 0) s["offload_layers"] = r.offload_layers;
  return s;
}

struct Outcome {
  double measured_s, experts_s, best_s;
  std::string verdict, best;
};

Outcome outcome(const ExpertRun& r) {
  const json report = json::parse(evaluate_json(experts(r).dump()));
  const json plans = json::parse(plan_json(given(r).dump(), 1));
  Outcome o{measured_step_s(r), NAN, NAN, "", ""};
  if (report.contains("error") || plans.contains("error") || plans["plans"].empty()) {
    ADD_FAILURE() << r.name << ": " << report.dump().substr(0, 300) << plans.dump().substr(0, 300);
    return o;
  }
  o.experts_s = report["time"]["step_s"];
  o.verdict = report["memory"]["verdict"];
  const json& best = plans["plans"][0];
  o.best_s = best["step_s"];
  o.best = best["degrees"].dump() + " " + best["schedule"].get<std::string>() + " v" +
           std::to_string(best["virtual_stages"].get<int>()) + " b" +
           std::to_string(best["micro_batch"].get<int>()) + " ZeRO-" +
           std::to_string(best["zero_stage"].get<int>());
  std::printf("%-32s measured %7.3f s  experts' layout %7.3f s (%s)  planner %7.3f s  %s\n", r.name,
              o.measured_s, o.experts_s, o.verdict.c_str(), o.best_s, o.best.c_str());
  return o;
}

TEST(ExpertLayouts, ThePlannersBestIsAsGoodAsTheExpertsAndPromisesNoMoreThanRan) {
  ASSERT_GE(runs().size(), 15u);
  for (const ExpertRun& r : runs()) {
    const Outcome o = outcome(r);
    EXPECT_NE(o.verdict, "over") << r.name << ": the experts' layout ran";
    EXPECT_LE(o.best_s, (1 + kTieWithin) * o.experts_s) << r.name << ": best " << o.best;
    EXPECT_GE(o.best_s, 0.85 * o.measured_s) << r.name << ": best " << o.best;
  }
}

// A step from a table, worked by hand: 512 sequences of 8,192 tokens at 292 tokens per second
// on each of 1,024 GPUs take 14.03 s.
TEST(ExpertLayouts, AStepFromThroughput) {
  EXPECT_NEAR(measured_step_s(runs()[2]), 512.0 * 8192 / (292.0 * 1024), 1e-12);
  EXPECT_NEAR(measured_step_s(runs()[2]), 14.03, 0.01);
}

}  // namespace
}  // namespace pe
