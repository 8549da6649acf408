// Goodput (model/goodput.h) against the two published accounts of failures at scale: the
// Llama 3 405B run (Dubey et al. 2024, arXiv:2407.21783, Sec. 3.3.4, Table 5) and Meta's
// research clusters (Kokolis et al., HPCA 2025, arXiv:2410.21680), and the interval formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "contract/contract.h"

namespace pe {
namespace {

using json = nlohmann::json;

json goodput_of(const std::string& scenario) {
  const json r = json::parse(evaluate_json(scenario, /*with_ranks=*/false));
  EXPECT_FALSE(r.contains("error")) << r.dump().substr(0, 300);
  return r["goodput"];
}

// Llama 3 405B's 8K stage on 16,384 H100 (TP 8, PP 16, DP 128), the paper's failure rates (the
// defaults): 419 unexpected interruptions in 54 days is one every 54 x 24 / 419 = 3.09 hours.
// The paper reports an effective training time above 90%; the model gives 94.5%, between.
TEST(Goodput, Llama3On16384H100FailsEveryThreeHoursAndStaysAbove90Percent) {
  const json g = goodput_of(
      R"({"model":"llama3-405b","gpu":"H100-80GB","gpus":16384,"degrees":{"dp":128,"tp":8,)"
      R"("pp":16},"seq_len":8192,"global_batch":2048,"zero_stage":1,"train_tokens":15e12})");
  EXPECT_NEAR(g["job_mtbf_s"].get<double>() / 3600, 54.0 * 24 / 419, 1e-6);
  EXPECT_NEAR(g["failures_per_day"].get<double>(), 419.0 / 54, 1e-9);
  EXPECT_GT(g["effective_time"].get<double>(), 0.90);
  EXPECT_LT(g["effective_time"].get<double>(), 0.97);
  // 405 billion parameters x 12 bytes (fp32 master, Adam's m and v) = 4.87 TB, over Tectonic's
  // sustained 2 TB/s: 2.4 s a write.
  EXPECT_NEAR(g["checkpoint_bytes"].get<double>() / 1e12, 4.87, 0.01);
  EXPECT_NEAR(g["checkpoint_write_s"].get<double>(), 2.435, 0.001);
}

// Kokolis et al.: RSC-1 fails 6.50 times per 1,000 node-days (8 A100 a node): 6.5e-3 / 192
// per GPU-hour, 33.85 per million. A 16,384-GPU job's MTTF is then 1.8 hours (their
// projection, Fig. 7), and with a 5-minute restart and non-blocking checkpoints its expected
// ETTR is about 0.7 at hourly checkpoints and 0.93 at 5-minute ones (Sec. V).
const std::string kRsc1 =
    R"({"model":"llama3-8b","gpu":"A100-80GB","gpus":16384,"degrees":{"dp":16384},)"
    R"("global_batch":16384,"zero_stage":1,"host_link_gb_s":100000,)"
    R"("reliability":{"gpu_failures_per_million_gpu_hours":33.854,)"
    R"("host_failures_per_million_gpu_hours":0,"network_failures_per_million_gpu_hours":0,)"
    R"("software_failures_per_million_gpu_hours":0,"storage_gb_s":1000000,"restart_s":300)";

TEST(Goodput, Rsc1sRateGivesKokolisMttfAndEttr) {
  const json hourly = goodput_of(kRsc1 + R"(,"checkpoint_interval_s":3600}})");
  EXPECT_NEAR(hourly["job_mtbf_s"].get<double>() / 3600, 1.8, 0.01);
  EXPECT_NEAR(hourly["effective_time"].get<double>(), 0.7, 0.03);
  const json five = goodput_of(kRsc1 + R"(,"checkpoint_interval_s":300}})");
  EXPECT_NEAR(five["effective_time"].get<double>(), 0.93, 0.005);
}

// The best interval: Young's sqrt(2 x pause x MTBF) when the pause is small against the MTBF
// (a synchronous 8B checkpoint: 96 GB at 50 GB/s, 1.92 s, against the 3.09-hour MTBF of
// 16,384 GPUs: sqrt(2 x 1.92 x 11,135) = 206.8 s, within 1%); async, never under the write.
TEST(Goodput, TheBestIntervalIsYoungsForASmallPauseAndAsyncAtLeastTheWrite) {
  const std::string run =
      R"({"model":"llama3-8b","gpu":"H100-80GB","gpus":16384,"degrees":{"dp":16384},)"
      R"("global_batch":16384,"zero_stage":1,"reliability":{"storage_gb_s":50,)"
      R"("restart_s":0,"async_checkpoint":)";
  const json sync = goodput_of(run + "false}}");
  const double pause = sync["checkpoint_pause_s"].get<double>();
  EXPECT_NEAR(pause, sync["checkpoint_write_s"].get<double>(), 1e-12);
  const double young = std::sqrt(2 * pause * sync["job_mtbf_s"].get<double>());
  EXPECT_NEAR(sync["best_interval_s"].get<double>() / young, 1, 0.01);
  const json async = goodput_of(run + "true}}");
  EXPECT_GE(async["best_interval_s"].get<double>(), async["checkpoint_write_s"].get<double>());
  EXPECT_GT(async["effective_time"].get<double>(), sync["effective_time"].get<double>());
}

// Without failures only the checkpoints' pauses cost; hot spares are paid for.
TEST(Goodput, NoFailuresCostOnlyPausesAndSparesArePaid) {
  const json g = goodput_of(
      R"({"gpus":16,"reliability":{"gpu_failures_per_million_gpu_hours":0,)"
      R"("host_failures_per_million_gpu_hours":0,"network_failures_per_million_gpu_hours":0,)"
      R"("software_failures_per_million_gpu_hours":0,"hot_spares":8}})");
  EXPECT_EQ(g["job_mtbf_s"].get<double>(), 0);
  EXPECT_EQ(g["failures_per_day"].get<double>(), 0);
  EXPECT_GT(g["effective_time"].get<double>(), 0.99);
  EXPECT_NEAR(g["usd_per_day"].get<double>(), (16 + 8) * 24 * 2.0, 1e-9);
}

// A precision with no bytes to save (a fuzzer's): no pause at any interval, so the whole running
// time is work; the failures still cost their restarts. 16 GPUs at the default rates (419 per
// 21.23 M GPU-hours) fail every 21.233664e6 / 419 / 16 h; each loses the 600 s restart.
TEST(Goodput, NothingToSaveCostsNoPause) {
  const json g =
      goodput_of(R"({"precision":{"weight":0,"grad":1,"master":0,"adam_m":0,"adam_v":0}})");
  const double mtbf_s = 21.233664e6 / 419 / 16 * 3600;
  EXPECT_NEAR(g["job_mtbf_s"].get<double>(), mtbf_s, 1e-6 * mtbf_s);
  EXPECT_EQ(g["checkpoint_pause_s"].get<double>(), 0);
  EXPECT_NEAR(g["effective_time"].get<double>(), 1 - 600 / mtbf_s, 1e-12);
  EXPECT_NEAR(g["day"]["checkpoint_s"].get<double>(), 0, 1e-9);
  EXPECT_NEAR(g["day"]["work_s"].get<double>() + g["day"]["restart_s"].get<double>() +
                  g["day"]["redone_s"].get<double>(),
              86400, 1e-6);
}

}  // namespace
}  // namespace pe
