// The model against NVIDIA's published Llama 3 runs on Blackwell (B200, GB200) and Blackwell
// Ultra (GB300), in FP8 and NVFP4: Megatron-Bridge's performance summary, typed here from its
// tables (NVIDIA-NeMo/Megatron-Bridge, docs/performance-summary.md as of the 25.11 container,
// and docs/performance-summary-archive.md, "26.02 NeMo Container"), never read from the core.
// Each table prints tokens per second per GPU; a step is global batch x sequence length /
// (tokens per second per GPU x GPUs). A second table holds the later containers' runs (26.04.01,
// 26.06), their H100 rows too, held out from every fit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "contract/contract.h"

namespace pe {
namespace {

using nlohmann::json;

struct PublishedRun {
  const char* name;  // release, system, model, precision
  const char* gpu;
  const char* model;
  int gpus;
  bool fp4;  // NVFP4; else FP8 (current scaling, or MXFP8)
  int global_batch, micro_batch, tp, pp, cp, vp;
  double tokens_per_s_per_gpu;  // as published
  int seq_len = 8192;
};

// Every run: sequences of 8,192 tokens, no FSDP (the distributed optimizer: ZeRO-1 with its
// gradient reduction and weight gather overlapped), sequence parallelism and TP communication
// overlap where TP > 1, no recomputation, 16 B of states per parameter (BF16 gradients).
// On GB200 and GB300 racks, 64 of each 72 GPUs form a model's NVLink domain beyond 64 GPUs.
// Left out: the 70B runs with FSDP over 64 GPUs, which offload 20 to 30 layers' activations
// to the Grace CPU in the recipes of later containers and print neither.
const std::vector<PublishedRun>& runs() {
  static const std::vector<PublishedRun> all = {
      // 25.11 container, FP8 current scaling ("FP8-CS"), DGX-GB300, DGX-GB200, DGX-B200.
      {"25.11 GB300 Llama 3 8B FP8", "GB300-NVL72", "llama3-8b", 8, false, 128, 2, 1, 1, 1, 1,
       37556},
      {"25.11 GB300 Llama 3.1 405B FP8", "GB300-NVL72", "llama3-405b", 256, false, 1536, 1, 2, 8, 2,
       4, 999},
      {"25.11 GB200 Llama 3 8B FP8", "GB200-NVL72", "llama3-8b", 8, false, 128, 2, 1, 1, 1, 1,
       31508},
      {"25.11 GB200 Llama 3.1 405B FP8", "GB200-NVL72", "llama3-405b", 256, false, 1536, 1, 4, 16,
       1, 4, 813},
      {"25.11 B200 Llama 3 8B FP8", "B200-DGX", "llama3-8b", 8, false, 128, 2, 1, 1, 1, 1, 30624},
      {"25.11 B200 Llama 3.1 405B FP8", "B200-DGX", "llama3-405b", 128, false, 64, 1, 4, 8, 2, 8,
       661},
      // 26.02 container: NVFP4, MXFP8 and FP8, DGX-GB300 and DGX-GB200.
      {"26.02 GB300 Llama 3 70B NVFP4", "GB300-NVL72", "llama3-70b", 64, true, 256, 1, 1, 4, 1, 5,
       6798},
      {"26.02 GB200 Llama 3 70B NVFP4", "GB200-NVL72", "llama3-70b", 64, true, 256, 1, 2, 4, 1, 5,
       4458},
      {"26.02 GB300 Llama 3 70B MXFP8", "GB300-NVL72", "llama3-70b", 64, false, 256, 1, 1, 4, 1, 5,
       4596},
      {"26.02 GB200 Llama 3 70B MXFP8", "GB200-NVL72", "llama3-70b", 64, false, 256, 1, 2, 4, 1, 5,
       3613},
      {"26.02 GB300 Llama 3.1 405B NVFP4", "GB300-NVL72", "llama3-405b", 256, true, 1536, 1, 4, 8,
       1, 4, 1333},
      {"26.02 GB200 Llama 3.1 405B NVFP4", "GB200-NVL72", "llama3-405b", 256, true, 1536, 1, 4, 16,
       1, 8, 1076},
      {"26.02 GB300 Llama 3.1 405B MXFP8", "GB300-NVL72", "llama3-405b", 256, false, 1536, 1, 2, 8,
       2, 4, 931},
      {"26.02 GB200 Llama 3.1 405B MXFP8", "GB200-NVL72", "llama3-405b", 256, false, 1536, 1, 4, 16,
       1, 8, 786},
      {"26.02 GB300 Llama 3.1 405B FP8", "GB300-NVL72", "llama3-405b", 256, false, 1536, 1, 4, 8, 1,
       4, 988},
      {"26.02 GB200 Llama 3.1 405B FP8", "GB200-NVL72", "llama3-405b", 256, false, 1536, 1, 4, 16,
       1, 4, 793},
  };
  return all;
}

// Held out: the same recipes' runs in later containers (performance-summary-archive.md, "26.06
// NeMo Container" for Llama 3.1 405B and "26.04.01" for Llama 3 70B: each layout's latest
// figure), their H100 rows, and 26.06's Llama 3 70B fine-tuning runs. No constant was fitted to
// them. Left out as above: the 70B FSDP rows (CPU offload); and the LoRA rows (a frozen model:
// no weight gradients, no optimizer over it).
const std::vector<PublishedRun>& later_runs() {
  static const std::vector<PublishedRun> all = {
      {"26.06 GB300 Llama 3.1 405B FP8", "GB300-NVL72", "llama3-405b", 256, false, 1536, 1, 4, 8, 1,
       4, 1048},
      {"26.06 GB300 Llama 3.1 405B MXFP8", "GB300-NVL72", "llama3-405b", 256, false, 1536, 1, 2, 8,
       2, 4, 952},
      {"26.06 GB300 Llama 3.1 405B NVFP4", "GB300-NVL72", "llama3-405b", 256, true, 1536, 1, 4, 8,
       1, 4, 1413},
      {"26.06 GB200 Llama 3.1 405B FP8", "GB200-NVL72", "llama3-405b", 256, false, 1536, 1, 4, 16,
       1, 4, 843},
      {"26.06 GB200 Llama 3.1 405B MXFP8", "GB200-NVL72", "llama3-405b", 256, false, 1536, 1, 4, 16,
       1, 8, 783},
      {"26.06 GB200 Llama 3.1 405B NVFP4", "GB200-NVL72", "llama3-405b", 256, true, 1536, 1, 4, 16,
       1, 8, 1166},
      {"26.06 H100 Llama 3.1 405B FP8", "H100-80GB", "llama3-405b", 1024, false, 1536, 1, 8, 8, 2,
       8, 326},
      {"26.04.01 GB300 Llama 3 70B MXFP8", "GB300-NVL72", "llama3-70b", 64, false, 256, 1, 1, 4, 1,
       5, 4864},
      {"26.04.01 GB300 Llama 3 70B NVFP4", "GB300-NVL72", "llama3-70b", 64, true, 256, 1, 1, 4, 1,
       5, 7296},
      {"26.04.01 GB200 Llama 3 70B MXFP8", "GB200-NVL72", "llama3-70b", 64, false, 256, 1, 2, 4, 1,
       5, 3712},
      {"26.04.01 GB200 Llama 3 70B NVFP4", "GB200-NVL72", "llama3-70b", 64, true, 256, 1, 2, 4, 1,
       5, 4864},
      {"26.04.01 H100 Llama 3 70B FP8", "H100-80GB", "llama3-70b", 64, false, 256, 1, 4, 8, 1, 5,
       1664},
      // 26.06, "SFT Performance": Llama 3 70B fine-tuned on 32 GPUs, packed sequences padded to
      // 4,096 tokens, GBS 32.
      {"26.06 GB300 Llama 3 70B SFT FP8", "GB300-NVL72", "llama3-70b", 32, false, 32, 1, 1, 2, 1,
       20, 4819, 4096},
      {"26.06 GB300 Llama 3 70B SFT MXFP8", "GB300-NVL72", "llama3-70b", 32, false, 32, 1, 1, 2, 1,
       20, 4312, 4096},
      {"26.06 GB200 Llama 3 70B SFT FP8", "GB200-NVL72", "llama3-70b", 32, false, 32, 1, 1, 8, 1,
       10, 3864, 4096},
      {"26.06 GB200 Llama 3 70B SFT MXFP8", "GB200-NVL72", "llama3-70b", 32, false, 32, 1, 1, 8, 1,
       10, 3593, 4096},
      {"26.06 H100 Llama 3 70B SFT FP8", "H100-80GB", "llama3-70b", 32, false, 32, 1, 4, 4, 1, 5,
       1638, 4096},
  };
  return all;
}

json scenario_of(const PublishedRun& r) {
  const int dp = r.gpus / (r.tp * r.pp * r.cp);
  json s = {{"model", r.model},
            {"gpu", r.gpu},
            {"gpus", r.gpus},
            {"degrees", {{"dp", dp}, {"tp", r.tp}, {"pp", r.pp}, {"cp", r.cp}}},
            {"seq_len", r.seq_len},
            {"micro_batch", r.micro_batch},
            {"global_batch", r.global_batch},
            // The recipes' precision: BF16 weights (FP8 or NVFP4 GEMMs), BF16 gradients
            // (Megatron-Bridge perf_recipes/_common.py _benchmark_common and _perf_precision set
            // grad_reduce_in_fp32 = False), FP32 main weights and Adam states.
            {"precision",
             {{"weight", 2},
              {"grad", 2},
              {"master", 4},
              {"adam_m", 4},
              {"adam_v", 4},
              {r.fp4 ? "fp4" : "fp8", true}}},
            {"zero_stage", 1},
            {"sequence_parallel", r.tp > 1},
            {"tp_comm_overlap", r.tp > 1},
            {"overlap_grad_reduce", true},
            {"overlap_param_gather", true},
            {"memory_model", "full"}};
  if (r.vp > 1) s["schedule"] = "interleaved", s["virtual_stages"] = r.vp;
  if (std::string(r.gpu).rfind("GB", 0) == 0 && r.gpus > 64) s["nvlink_domain_gpus"] = 64;
  return s;
}

double measured_step_s(const PublishedRun& r) {
  return 1.0 * r.global_batch * r.seq_len / (r.tokens_per_s_per_gpu * r.gpus);
}

// The errors of every run, in the table's order.
std::vector<double> errors(const std::vector<PublishedRun>& table) {
  std::vector<double> out;
  for (const PublishedRun& r : table) {
    const json report = json::parse(evaluate_json(scenario_of(r).dump()));
    if (report.contains("error")) {
      ADD_FAILURE() << r.name << ": " << report.dump();
      out.push_back(NAN);
      continue;
    }
    const double step_s = report["time"]["step_s"];
    // Every run ran: the model must not call it over the GPU.
    EXPECT_NE(report["memory"]["verdict"], "over")
        << r.name << ": " << report["memory"]["per_gpu_bytes"].get<double>() / 1e9 << " GB";
    out.push_back(step_s / measured_step_s(r) - 1);
    std::printf("%-34s measured %7.3f s  model %7.3f s  %+6.1f%%\n", r.name, measured_step_s(r),
                step_s, 100 * out.back());
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

TEST(BlackwellRuns, StepTimesWithinFivePercentAtTheMedianAndFifteenAtWorst) {
  std::vector<double> abs_errors;
  for (double e : errors(runs())) abs_errors.push_back(std::fabs(e));
  ASSERT_EQ(abs_errors.size(), runs().size());
  EXPECT_LE(median(abs_errors), 0.05);
  EXPECT_LE(*std::max_element(abs_errors.begin(), abs_errors.end()), 0.15);
}

// The held-out runs: median 5.0%, worst 22.2% (Llama 3 70B in NVFP4 on GB300, as in the fitted
// table; core/README.md says why). Asserted at what they measure, so the model does not drift
// from them: the goal of 5% and 15% is not met here.
TEST(BlackwellRuns, LaterContainersHeldOutWithinSixPercentAtTheMedianAndTwentyFiveAtWorst) {
  std::vector<double> abs_errors;
  for (double e : errors(later_runs())) abs_errors.push_back(std::fabs(e));
  ASSERT_EQ(abs_errors.size(), later_runs().size());
  EXPECT_LE(median(abs_errors), 0.06);
  EXPECT_LE(*std::max_element(abs_errors.begin(), abs_errors.end()), 0.25);
}

// The step a table prints, worked by hand: 1,536 sequences of 8,192 tokens at 1,333 tokens per
// second on each of 256 GPUs is 36.87 s.
TEST(BlackwellRuns, AStepFromThroughput) {
  EXPECT_NEAR(measured_step_s(runs()[10]), 1536.0 * 8192 / (1333.0 * 256), 1e-12);
  EXPECT_NEAR(measured_step_s(runs()[10]), 36.87, 0.01);
}

// NVFP4 beats MXFP8 on the same layout and GPUs, as published (GB300 70B 6,798 against 4,596
// tokens/s/GPU; GB200 4,458 against 3,613), and the model agrees.
TEST(BlackwellRuns, Nvfp4IsFasterThanMxfp8OnTheSameLayout) {
  for (int fp4 : {6, 7}) {
    const PublishedRun& a = runs()[fp4];
    const PublishedRun& b = runs()[fp4 + 2];
    ASSERT_EQ(a.tp, b.tp);
    const json ra = json::parse(evaluate_json(scenario_of(a).dump()));
    const json rb = json::parse(evaluate_json(scenario_of(b).dump()));
    EXPECT_TRUE(ra["precision"]["fp4"].get<bool>());
    EXPECT_LT(ra["time"]["step_s"].get<double>(), rb["time"]["step_s"].get<double>()) << a.name;
  }
}

}  // namespace
}  // namespace pe
