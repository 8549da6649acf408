// Calibration (model/calibrate.h): one measured run refits the constants, the refit run meets
// its measured step, bad figures are refused by key, and, left one out, a fleet's other
// published runs are predicted better than by the presets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "contract/contract.h"
#include "contract/reference_runs.h"
#include "model/calibrate.h"

namespace pe {
namespace {

using json = nlohmann::json;

// Llama 3 8B on one 8-GPU H100 node, TP 2 with SP x DP 4 with ZeRO-1: a run a user could
// measure (about 52 GB per GPU in the model).
const char* kRun = R"({"gpus":8,"gpu":"H100-80GB","degrees":{"dp":4,"tp":2},"model":"llama3-8b",)"
                   R"("seq_len":8192,"global_batch":64,"sequence_parallel":true,"zero_stage":1,)"
                   R"("memory_model":"full"})";

json evaluated(const std::string& calibration, const std::string& rest = R"("gpu":"H100-80GB")") {
  return json::parse(
      evaluate_json("{\"calibration\":" + calibration + (rest.empty() ? "" : "," + rest) + "}"));
}

double model_step_s(const std::string& scenario) {
  return json::parse(evaluate_json(scenario))["time"]["step_s"].get<double>();
}

std::string block(double step_s, const std::string& extra = "") {
  return std::string("{\"scenario\":") + kRun + ",\"step_time_s\":" + std::to_string(step_s) +
         extra + "}";
}

// ---- The fit ---------------------------------------------------------------------------------

TEST(Calibration, ASlowerRunLowersTheMatmulEfficiencyAndMeetsItsStep) {
  const double model = model_step_s(kRun);
  const json r = evaluated(block(1.2 * model), std::string("\"gpus\":8,\"gpu\":\"H100-80GB\","
                                                           "\"degrees\":{\"dp\":4,\"tp\":2},"
                                                           "\"model\":\"llama3-8b\",\"seq_len\":"
                                                           "8192,\"global_batch\":64,"
                                                           "\"sequence_parallel\":true,"
                                                           "\"zero_stage\":1"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  const json& c = r["calibration"];
  EXPECT_EQ(c["says"], "calibrated to your run: 8 × H100-80GB");
  EXPECT_EQ(c["constants"][0]["key"], "efficiency");
  EXPECT_DOUBLE_EQ(c["constants"][0]["before"].get<double>(), 0.57);  // H100's preset
  EXPECT_LT(c["constants"][0]["after"].get<double>(), 0.57);
  // The same layout as the run: its step is the measured one, within 0.5%.
  EXPECT_NEAR(r["time"]["step_s"].get<double>() / (1.2 * model), 1, 0.005);
  EXPECT_NEAR(c["residuals"][0]["error"].get<double>(), 0, 0.005);
  EXPECT_EQ(r["scenario"]["efficiency"], c["constants"][0]["after"]);
}

TEST(Calibration, BusBandwidthsSetTheLinksAndPeakMemoryTheOverhead) {
  const double model = model_step_s(kRun);
  const json r =
      evaluated(block(model, R"(,"nvlink_bus_gb_s":360,"peak_memory_gb":70,"name":"ours")"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  std::map<std::string, json> by_key;
  for (const json& c : r["calibration"]["constants"]) by_key[c["key"]] = c;
  EXPECT_DOUBLE_EQ(by_key["nvlink_efficiency"]["after"].get<double>(), 360.0 / 450);
  EXPECT_GT(by_key["overhead_gb"]["after"].get<double>(), 2);
  // The peak: the run's full memory model with the fitted overhead is the measured 70 GB.
  for (const json& res : r["calibration"]["residuals"]) {
    if (res["key"] == "peak_memory_gb") EXPECT_NEAR(res["after"].get<double>(), 70, 1e-6);
  }
  EXPECT_EQ(r["calibration"]["title"], "8 × H100-80GB, ours");
}

// torchtitan prints tokens per second per GPU: the core turns it into the step it measures,
// the run's tokens a step (64 sequences of 8,192) over all its GPUs' tokens per second.
TEST(Calibration, TokensPerSecondPerGpuGiveTheStep) {
  const double step_s = 1.2 * model_step_s(kRun);
  const double tps = 64.0 * 8192 / (8 * step_s);
  const json by_step = evaluated(block(step_s));
  const json by_tps = evaluated(std::string("{\"scenario\":") + kRun +
                                ",\"tokens_per_s_per_gpu\":" + json(tps).dump() + "}");
  ASSERT_FALSE(by_tps.contains("error")) << by_tps.dump().substr(0, 300);
  EXPECT_NEAR(by_tps["calibration"]["residuals"][0]["measured"].get<double>(), step_s, 1e-9);
  EXPECT_NEAR(by_tps["scenario"]["efficiency"].get<double>(),
              by_step["scenario"]["efficiency"].get<double>(), 1e-6);  // block() writes 6 digits
}

TEST(Calibration, TravelsInTheEchoAndReadsBackToTheSameReport) {
  const json r = evaluated(block(1.1 * model_step_s(kRun)));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  ASSERT_TRUE(r["scenario"].contains("calibration"));
  const json again = json::parse(evaluate_json(r["scenario"].dump()));
  EXPECT_EQ(again["time"], r["time"]);
  EXPECT_EQ(again["calibration"], r["calibration"]);
}

TEST(Calibration, ThePlannerUsesTheFittedConstants) {
  const std::string scenario = "{\"calibration\":" + block(1.3 * model_step_s(kRun)) +
                               R"(,"gpus":8,"gpu":"H100-80GB",)" +
                               R"("model":"llama3-8b","seq_len":8192,"global_batch":64})";
  const json plans = json::parse(plan_json(scenario, 3));
  ASSERT_FALSE(plans.contains("error")) << plans.dump().substr(0, 300);
  const json& best = plans["plans"][0];
  const double fitted = json::parse(evaluate_json(scenario))["scenario"]["efficiency"];
  EXPECT_DOUBLE_EQ(best["scenario"]["efficiency"].get<double>(), fitted);
  EXPECT_NEAR(model_step_s(best["scenario"].dump()) / best["step_s"].get<double>(), 1, 1e-9);
}

// ---- Refusals, each naming its key -----------------------------------------------------------

// The error names `key` (null for the scenario as a whole: "").
void refused(const json& r, const std::string& key, const std::string& says) {
  ASSERT_TRUE(r.contains("error")) << r.dump().substr(0, 300);
  EXPECT_EQ(r["error"]["key"], key.empty() ? json() : json(key));
  EXPECT_NE(r["error"]["message"].get<std::string>().find(says), std::string::npos)
      << r["error"]["message"];
}

TEST(Calibration, RefusesWhatNoPhysicalConstantReaches) {
  const double model = model_step_s(kRun);
  refused(evaluated(block(0.3 * model)), "calibration.step_time_s",
          "even with its matmuls at 100%");
  refused(evaluated(std::string("{\"scenario\":") + kRun + ",\"tokens_per_s_per_gpu\":5e6}"),
          "calibration.tokens_per_s_per_gpu", "even with its matmuls at 100%");
  refused(evaluated(block(model, R"(,"nvlink_bus_gb_s":500)")), "calibration.nvlink_bus_gb_s",
          "allowed 0.1% to 100% of the run's NVLink per direction, 450 GB/s");
  refused(evaluated(block(model, R"(,"network_bus_gb_s":0.01)")), "calibration.network_bus_gb_s",
          "allowed 0.1% to 100% of the run's network per direction, 50 GB/s");
  refused(evaluated(block(model, R"(,"peak_memory_gb":81)")), "calibration.peak_memory_gb",
          "allowed at most the run's GPU memory, 80 GB");
}

// A measured TFLOP/s and step must describe one run: TFLOP/s x step is the FLOPs each GPU did,
// which the run's scenario counts. Measured 20% slower than the model, the run did the model's
// FLOPs at 1/1.2 of its rate: agreed. At twice that rate, the two figures imply twice the
// FLOPs: refused, the contradiction named. Above the GPU's BF16 peak (H100: 989): refused.
TEST(Calibration, RefusesATflopsAndAStepThatContradictEachOther) {
  const json model = json::parse(evaluate_json(kRun))["time"];
  const double step_s = 1.2 * model["step_s"].get<double>();
  const double rate = model["tflops_per_gpu"].get<double>() / 1.2;
  const auto with_rate = [&](double tflops) {
    return evaluated(block(step_s, ",\"tflops_per_gpu\":" + json(tflops).dump()));
  };
  const json agreed = with_rate(rate);
  ASSERT_FALSE(agreed.contains("error")) << agreed.dump().substr(0, 300);
  EXPECT_NEAR(agreed["calibration"]["residuals"][1]["error"].get<double>(), 0, 0.01);
  refused(with_rate(2 * rate), "calibration.tflops_per_gpu",
          "the two figures contradict each other");
  refused(with_rate(1000), "calibration.tflops_per_gpu",
          "allowed at most the run's GPU peak, 989 TFLOP/s");
}

TEST(Calibration, RefusesAnIncompleteOrMisplacedRun) {
  refused(evaluated(block(1), R"("gpu":"A100-80GB")"), "calibration.scenario.gpu",
          "allowed the scenario's own GPU, \"A100-80GB\"");
  refused(evaluated(R"({"step_time_s":1})"), "calibration.scenario", "needs the measured run");
  refused(evaluated(std::string("{\"scenario\":") + kRun + "}"), "calibration.step_time_s",
          "needs the run's measured time per step");
  refused(evaluated(R"({"scenario":{"gpus":0},"step_time_s":1})"), "calibration.scenario.gpus",
          "in calibration.scenario, gpus is 0");
  refused(evaluated(R"({"scenario":{"calibration":{}},"step_time_s":1})"),
          "calibration.scenario.calibration", "no calibration inside a calibration");
  refused(evaluated(R"({"scenario":[],"step_time_s":1})"), "calibration.scenario",
          "allowed a scenario object");
}

// A calibration belongs to its GPU: one whose peaks, memory or links differ from the run's,
// custom or not, is refused under the run's field that differs (a fit on a 100
// TFLOP/s custom GPU was applied to a 5,000 TFLOP/s one).
TEST(Calibration, RefusesAnotherGpuByTheFieldThatDiffers) {
  const std::string slow = std::string("{\"scenario\":") + R"({"gpus":8,"gpu":"H100-80GB",)" +
                           R"("gpu_peak_tflops":100,"model":"llama3-8b"},"step_time_s":140})";
  refused(evaluated(slow, R"("gpu":"H100-80GB","gpu_peak_tflops":5000)"),
          "calibration.scenario.gpu_peak_tflops",
          "calibration.scenario.gpu_peak_tflops is 100 TFLOP/s: allowed the scenario's own "
          "gpu_peak_tflops, 5000 TFLOP/s");
  const double model = model_step_s(kRun);
  for (const auto& [rest, key] : std::vector<std::pair<std::string, std::string>>{
           {R"("gpu":"H100-80GB","gpu_memory_gb":94)", "gpu_memory_gb"},
           {R"("gpu":"H100-80GB","gpu_fp8_tflops":0)", "gpu_fp8_tflops"},
           {R"("gpu":"H100-80GB","nvlink_gb_s":900)", "nvlink_gb_s"},
           {R"("gpu":"H100-80GB","network_gb_s":25)", "network_gb_s"},
           {R"("gpu":"H200-141GB")", "gpu"}}) {
    refused(evaluated(block(1.1 * model), rest), "calibration.scenario." + key,
            "(a run on one GPU cannot calibrate another)");
  }
  // The same custom GPU on both sides calibrates.
  const std::string custom = R"("gpu":"H100-80GB","gpu_peak_tflops":100)";
  EXPECT_FALSE(evaluated(slow, custom).contains("error"));
}

// A constant the user set is never replaced silently: one the run does not measure keeps the
// user's value (and the fit holds it there), one it measures is listed with the value it
// replaced (a step time alone once turned 0.3, 0.2 and 9 GB into 0.8, 1.0 and 2 GB).
TEST(Calibration, KeepsOrNamesEveryConstantTheUserSet) {
  const double model = model_step_s(kRun);
  const std::string mine =
      R"("gpu":"H100-80GB","nvlink_efficiency":0.3,"network_efficiency":0.2,"overhead_gb":9,)"
      R"("efficiency":0.5)";
  const json r = evaluated(block(1.1 * model), mine);
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 300);
  EXPECT_EQ(r["scenario"]["nvlink_efficiency"], 0.3);
  EXPECT_EQ(r["scenario"]["network_efficiency"], 0.2);
  EXPECT_EQ(r["scenario"]["overhead_gb"], 9);
  std::map<std::string, json> by_key;
  for (const json& c : r["calibration"]["constants"]) by_key[c["key"]] = c;
  EXPECT_EQ(by_key["nvlink_efficiency"]["how"],
            "held at the 0.3 you set (the run does not measure it)");
  EXPECT_EQ(by_key["overhead_gb"]["how"], "held at the 9 GB you set (the run does not measure it)");
  EXPECT_FALSE(by_key["nvlink_efficiency"].contains("replaced"));
  EXPECT_EQ(by_key["efficiency"]["replaced"], 0.5);
  EXPECT_NE(by_key["efficiency"]["how"].get<std::string>().find("replaces the 0.5 you set"),
            std::string::npos);
  // The fit holds the user's slower links: the matmuls need less of the measured step.
  const json plain = evaluated(block(1.1 * model));
  EXPECT_GT(r["scenario"]["efficiency"].get<double>(),
            plain["scenario"]["efficiency"].get<double>());
  // A measured bus bandwidth and peak replace the user's, and say so.
  const json measured =
      evaluated(block(1.1 * model, R"(,"nvlink_bus_gb_s":360,"peak_memory_gb":70)"), mine);
  by_key.clear();
  for (const json& c : measured["calibration"]["constants"]) by_key[c["key"]] = c;
  EXPECT_EQ(by_key["nvlink_efficiency"]["replaced"], 0.3);
  EXPECT_DOUBLE_EQ(by_key["nvlink_efficiency"]["after"].get<double>(), 0.8);
  EXPECT_EQ(by_key["overhead_gb"]["replaced"], 9);
  EXPECT_EQ(by_key["network_efficiency"]["how"],
            "held at the 0.2 you set (the run does not measure it)");
  // Read back, the echo gives the same report: its values are the calibration's own.
  const json again = json::parse(evaluate_json(r["scenario"].dump()));
  EXPECT_EQ(again["time"], r["time"]);
  EXPECT_EQ(again["scenario"]["nvlink_efficiency"], 0.3);
}

TEST(Calibration, TheCliSplicesARunIntoAScenario) {
  const double model = model_step_s(kRun);
  const json r = json::parse(calibrated_json(block(1.1 * model), R"({"gpu":"H100-80GB"})"));
  EXPECT_TRUE(r.contains("calibration")) << r.dump().substr(0, 300);
  const json empty = json::parse(calibrated_json(block(1.1 * model), " { } "));
  refused(empty, "calibration.scenario.gpu", "allowed the scenario's own GPU");
  refused(json::parse(calibrated_json(block(1), "[]")), "", "scenario is []: allowed one JSON");
  // Two documents, each read whole: what follows the run's object is refused, by key, and
  // never becomes the scenario's (it once gave a scenario of 4,096 GPUs).
  refused(json::parse(calibrated_json(block(1.1 * model) + R"(, "gpus": 4096)", "{}")),
          "calibration",
          "calibration (the run) is not one JSON document: bytes after the document");
  refused(json::parse(calibrated_json(block(1), R"({"gpus": 8} {"gpus": 16})")), "",
          "scenario is not one JSON document: bytes after the document");
  refused(json::parse(calibrated_json(block(1), R"({"calibration": null})")), "calibration",
          "is given twice");
}

// ---- Two runs --------------------------------------------------------------------------------

// The same run at PP 4 (its bubble 3 micro-batches in 8 + 3: about a quarter of its step) and at
// PP 1 (none): the first measured as the model has it, the second 10% slower, so the fit must
// find slower matmuls (the PP 1 run has no bubble to blame) and less of the bubble paid.
const char* kDeepRun = R"({"gpus":8,"gpu":"H100-80GB","degrees":{"dp":1,"tp":2,"pp":4},)"
                       R"("model":"llama3-8b","seq_len":8192,"global_batch":8,)"
                       R"("sequence_parallel":true,"memory_model":"full"})";
const char* kFlatRun = R"({"gpus":8,"gpu":"H100-80GB","degrees":{"dp":4,"tp":2},)"
                       R"("model":"llama3-8b","seq_len":8192,"global_batch":8,)"
                       R"("sequence_parallel":true,"memory_model":"full"})";

std::string two_runs(double deep_s, const std::string& second, double second_s) {
  return std::string("{\"scenario\":") + kDeepRun + ",\"step_time_s\":" + json(deep_s).dump() +
         ",\"second_scenario\":" + second + ",\"second_step_time_s\":" + json(second_s).dump() +
         "}";
}

std::map<std::string, json> constants_of(const json& r) {
  std::map<std::string, json> out;
  for (const json& c : r["calibration"]["constants"]) out[c["key"]] = c;
  return out;
}

TEST(Calibration, TwoRunsWhoseBubblesDifferFitTheBubblePaidAndMeetBothSteps) {
  const double deep = model_step_s(kDeepRun), flat = model_step_s(kFlatRun);
  const json r = evaluated(two_runs(deep, kFlatRun, 1.1 * flat));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  std::map<std::string, json> k = constants_of(r);
  EXPECT_LT(k["efficiency"]["after"].get<double>(), 0.57);
  EXPECT_LT(k["bubble_paid"]["after"].get<double>(), 1);
  EXPECT_EQ(k["bubble_paid"]["how"], "fitted with the matmul efficiency to both runs' steps");
  for (const json& res : r["calibration"]["residuals"]) {
    if (res["key"] == "step_time_s" || res["key"] == "second_step_time_s") {
      EXPECT_NEAR(res["error"].get<double>(), 0, 1e-3) << res.dump();
    }
  }
  EXPECT_EQ(r["scenario"]["bubble_paid"], k["bubble_paid"]["after"]);
}

TEST(Calibration, OneRunOrTwoAlikeHoldTheBubblePaidAndSayWhy) {
  const double deep = model_step_s(kDeepRun);
  std::map<std::string, json> k = constants_of(evaluated(
      std::string("{\"scenario\":") + kDeepRun + ",\"step_time_s\":" + json(deep).dump() + "}"));
  EXPECT_EQ(k["bubble_paid"]["after"], 1);
  EXPECT_NE(k["bubble_paid"]["how"].get<std::string>().find("a second run"), std::string::npos);
  // The same run twice: the same bubble, nothing to tell it from the matmuls by.
  k = constants_of(evaluated(two_runs(deep, kDeepRun, deep)));
  EXPECT_EQ(k["bubble_paid"]["after"], 1);
  EXPECT_NE(k["bubble_paid"]["how"].get<std::string>().find("too alike"), std::string::npos);
}

// Two runs measured exactly as the model has them at a 90% matmul efficiency, all of the
// bubble paid: the fit finds both constants back. (It once refitted the efficiency at shares
// where no efficiency met the first run, so the second run's miss turned, and it refused.)
TEST(Calibration, TwoRunsTheModelDescribesExactlyGiveItsConstantsBack) {
  std::string half = kDeepRun;  // PP 2: a bubble of 1 in 5, against PP 4's 3 in 11
  half.replace(half.find(R"("dp":1,"tp":2,"pp":4)"), 20, R"("dp":2,"tp":2,"pp":2)");
  const auto at_90 = [](std::string run) { return run.insert(1, R"("efficiency":0.9,)"); };
  const double deep = model_step_s(at_90(kDeepRun)), shallow = model_step_s(at_90(half));
  const json r = evaluated(two_runs(deep, half, shallow));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  std::map<std::string, json> k = constants_of(r);
  EXPECT_NEAR(k["efficiency"]["after"].get<double>(), 0.9, 1e-3);
  EXPECT_NEAR(k["bubble_paid"]["after"].get<double>(), 1, 1e-3);
  // The second run's step before the fit is its scenario's as given (H100's 0.57).
  EXPECT_DOUBLE_EQ(r["calibration"]["residuals"].back()["before"].get<double>(),
                   model_step_s(half));
}

TEST(Calibration, ASharedYouSetIsHeldWhereTheTwoRunsCannotTellIt) {
  const double deep = model_step_s(kDeepRun);
  std::map<std::string, json> k = constants_of(
      evaluated(two_runs(deep, kDeepRun, deep), R"("gpu":"H100-80GB","bubble_paid":0.6)"));
  EXPECT_EQ(k["bubble_paid"]["after"], 0.6);
  EXPECT_EQ(k["bubble_paid"]["how"], "held at the 0.6 you set (the run does not measure it)");
}

TEST(Calibration, ASecondRunIsRefusedByKey) {
  const double deep = model_step_s(kDeepRun), flat = model_step_s(kFlatRun);
  std::string without_step = two_runs(deep, kFlatRun, flat);
  without_step = without_step.substr(0, without_step.find(",\"second_step_time_s\"")) + "}";
  refused(evaluated(without_step), "calibration.second_step_time_s", "is missing");
  std::string other_gpu = kFlatRun;
  other_gpu.replace(other_gpu.find("H100-80GB"), 9, "A100-80GB");
  refused(evaluated(two_runs(deep, other_gpu, flat)), "calibration.second_scenario.gpu",
          "a run on one GPU cannot calibrate another");
  std::string with_fp4 = kFlatRun;  // H100 with FP4 tensor cores: another GPU
  with_fp4.insert(1, R"("gpu_fp4_tflops":4000,)");
  refused(evaluated(two_runs(deep, with_fp4, flat)), "calibration.second_scenario.gpu_fp4_tflops",
          "allowed the scenario's own");
  // The PP 1 run a tenth of the PP 4 run's model step: at any share of the bubble the first
  // run needs its matmuls above 100% of peak for the second to be met.
  refused(evaluated(two_runs(deep, kFlatRun, 0.1 * flat)), "calibration.second_step_time_s",
          "contradict each other");
}

// ---- Leave one out ---------------------------------------------------------------------------

// Each fleet's published runs (core/contract/reference_runs.cpp, typed from the papers and
// checked by reference_runs_test): one cluster and software stack each. Llama 3's 131K-context
// run is left out: the paper does not say how it recomputed, so its scenario is an assumption
// (reference_runs.cpp), no measurement to calibrate on.
const std::map<std::string, std::vector<std::string>> kFleets = {
    {"Selene, Megatron-LM 2022 (Korthikanti Table 5)", {"Korthikanti et al. 2022, Table 5"}},
    {"Selene, Megatron-LM 2021 (Narayanan Table 1)", {"Narayanan et al. 2021, Table 1"}},
    {"Meta's H100 fleet (Llama 3 Table 4)", {"Llama 3 405B"}},
};

struct Predicted {
  double step_s, published_step_s;  // the run's published figure as a step time
};

// A fleet's runs: those of its tables.
std::vector<ReferenceRun> fleet_runs(const std::vector<std::string>& tables) {
  std::vector<ReferenceRun> runs;
  for (const ReferenceRun& run : reference_runs()) {
    if (std::find(tables.begin(), tables.end(), run.table) != tables.end()) runs.push_back(run);
  }
  return runs;
}

// A run's model step, and its published figure as a step time: for TFLOP/s and MFU the step
// at which the model's own FLOP count meets the published rate.
Predicted predict(const ReferenceRun& run, const std::string& calibration) {
  std::string text = run.scenario_json;
  if (!calibration.empty()) text = "{\"calibration\":" + calibration + "," + text.substr(1);
  const json r = json::parse(evaluate_json(text, /*with_ranks=*/false));
  EXPECT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  const double step = r["time"]["step_s"].get<double>();
  const double model = r["time"][metric_key(run.metric)].get<double>();
  return {step, run.metric == Metric::kStepSeconds ? run.published : step * model / run.published};
}

// The constants a calibration block fits on its own run: {"efficiency": 0.61, ...}.
json fitted_constants(const ReferenceRun& run, const std::string& calibration) {
  const std::string text = "{\"calibration\":" + calibration + "," + run.scenario_json.substr(1);
  const json r = json::parse(evaluate_json(text, /*with_ranks=*/false));
  EXPECT_TRUE(r.contains("calibration")) << r.dump().substr(0, 400);
  json out = json::object();
  for (const json& c : r["calibration"]["constants"]) out[c["key"].get<std::string>()] = c["after"];
  return out;
}

// A run's prediction with those constants set as its scenario's fields.
Predicted predict_with(const ReferenceRun& run, const json& constants) {
  json scenario = json::parse(run.scenario_json);
  for (const auto& [key, value] : constants.items()) scenario[key] = value;
  const json r = json::parse(evaluate_json(scenario.dump(), /*with_ranks=*/false));
  EXPECT_FALSE(r.contains("error")) << r.dump().substr(0, 400);
  const double step = r["time"]["step_s"].get<double>();
  const double model = r["time"][metric_key(run.metric)].get<double>();
  return {step, run.metric == Metric::kStepSeconds ? run.published : step * model / run.published};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The goal is a median error of 3% after calibration. One step time fits one constant, the
// matmul efficiency, so what is left is the model's spread within a fleet: on Selene 2022 it
// runs from -5.6% (22B, one node) to +9.8% (1T, 64 stages), so calibrating on either end moves
// the rest away (core/README.md has the table). What holds: across the fleets, the runs are
// predicted better calibrated on one other run than with the presets, whose A100 efficiency
// was itself fitted to these Selene rows.
TEST(Calibration, LeftOneOutItPredictsAFleetsOtherRunsBetterThanThePresets) {
  std::vector<double> all_before, all_after;
  for (const auto& [fleet, tables] : kFleets) {
    const std::vector<ReferenceRun> runs = fleet_runs(tables);
    ASSERT_GE(runs.size(), 2u) << fleet;
    std::vector<double> before, after;
    std::vector<Predicted> plain;
    for (const ReferenceRun& run : runs) plain.push_back(predict(run, ""));
    for (size_t held = 0; held < runs.size(); ++held) {
      const std::string calibration =
          "{\"scenario\":" + runs[held].scenario_json +
          ",\"step_time_s\":" + json(plain[held].published_step_s).dump() + "}";
      // The fit depends on the held run alone: fitted once, its constants set on each other
      // run are what the calibration block would set (apply_calibration). Fitting it again
      // for each other run made this the sanitized suite's longest test by far (97 s).
      const json constants = fitted_constants(runs[held], calibration);
      for (size_t i = 0; i < runs.size(); ++i) {
        if (i == held) continue;
        const Predicted fitted = predict_with(runs[i], constants);
        before.push_back(std::fabs(plain[i].step_s / plain[i].published_step_s - 1));
        after.push_back(std::fabs(fitted.step_s / fitted.published_step_s - 1));
      }
    }
    std::cout << "[ calibration ] " << fleet << ": " << runs.size() << " runs, median error "
              << 100 * median(before) << "% uncalibrated, " << 100 * median(after)
              << "% calibrated on one other run\n";
    all_before.insert(all_before.end(), before.begin(), before.end());
    all_after.insert(all_after.end(), after.begin(), after.end());
  }
  std::cout << "[ calibration ] all fleets: median " << 100 * median(all_before) << "% -> "
            << 100 * median(all_after) << "%\n";
  EXPECT_LT(median(all_after), median(all_before));
}

// Two runs of a fleet fit the matmul efficiency and the share of the pipeline bubble paid
// (calibrate.h): every ordered pair of a fleet's runs whose bubbles differ predicts the fleet's
// other runs. The goal is a median error of 3% on each fleet; the table in core/README.md.
TEST(Calibration, TwoRunsPredictAFleetsOtherRunsBetterThanOne) {
  std::vector<double> all_one, all_two;
  for (const auto& [fleet, tables] : kFleets) {
    const std::vector<ReferenceRun> runs = fleet_runs(tables);
    std::vector<Predicted> plain;
    for (const ReferenceRun& run : runs) plain.push_back(predict(run, ""));
    std::vector<double> one, two;
    for (size_t a = 0; a < runs.size(); ++a) {
      const std::string first = "{\"scenario\":" + runs[a].scenario_json +
                                ",\"step_time_s\":" + json(plain[a].published_step_s).dump();
      const json alone = fitted_constants(runs[a], first + "}");
      for (size_t b = 0; b < runs.size(); ++b) {
        if (b == a) continue;
        const json both = fitted_constants(
            runs[a], first + ",\"second_scenario\":" + runs[b].scenario_json +
                         ",\"second_step_time_s\":" + json(plain[b].published_step_s).dump() + "}");
        if (both["bubble_paid"] == alone["bubble_paid"]) continue;  // bubbles too alike
        for (size_t i = 0; i < runs.size(); ++i) {
          if (i == a || i == b) continue;
          const Predicted p1 = predict_with(runs[i], alone), p2 = predict_with(runs[i], both);
          one.push_back(std::fabs(p1.step_s / p1.published_step_s - 1));
          two.push_back(std::fabs(p2.step_s / p2.published_step_s - 1));
        }
      }
    }
    if (one.empty()) continue;
    std::cout << "[ calibration ] " << fleet << ": median error " << 100 * median(one)
              << "% on one run, " << 100 * median(two) << "% on two (" << two.size()
              << " predictions)\n";
    EXPECT_LT(median(two), median(one)) << fleet;
    all_one.insert(all_one.end(), one.begin(), one.end());
    all_two.insert(all_two.end(), two.begin(), two.end());
  }
  std::cout << "[ calibration ] all fleets: median " << 100 * median(all_one) << "% -> "
            << 100 * median(all_two) << "%\n";
  EXPECT_LT(median(all_two), median(all_one));
}

}  // namespace
}  // namespace pe
