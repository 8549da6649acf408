// Every derivation recomputes its number from the terms it shows; it must be the number the
// report gives, or the page would explain a number it does not show.
#include "explain/explain.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "contract/contract.h"
#include "formula_eval.h"
#include "model/explorer.h"
#include "model/text.h"

namespace pe {
namespace {

using nlohmann::json;

class Explained : public ::testing::TestWithParam<const char*> {};

TEST_P(Explained, EveryFormulaComputesTheReportsNumberFromItsTerms) {
  const Result<Scenario> s = parse_scenario(GetParam());
  ASSERT_TRUE(s.ok()) << s.problem().message;
  const Result<Report> r = evaluate(s.value());
  ASSERT_TRUE(r.ok()) << r.problem().message;
  test::expect_formulas_compute(s.value(), r.value(), json::parse(evaluate_json(GetParam())));
}

// The check fails a formula that does not compute its number: a coefficient changed in the
// formula (or in the model, which the formula no longer follows) or a symbol with no term.
TEST(Explain, AFormulaThatDoesNotComputeItsNumberIsCaught) {
  const Result<Scenario> s = parse_scenario("{}");
  const Result<Report> r = evaluate(s.value());
  Derivation d = *derivation(s.value(), r.value(), "comms.data.bytes_per_message");
  ASSERT_EQ(d.formula, "2 × (N − 1) ÷ N × Ψ × g");
  EXPECT_TRUE(test::agree(*test::FormulaReader(d.formula, d.terms).value(), d.result));
  d.formula = "3 × (N − 1) ÷ N × Ψ × g";
  EXPECT_FALSE(test::agree(*test::FormulaReader(d.formula, d.terms).value(), d.result));
  d.formula = "2 × (N − 1) ÷ N × Ψ × bytes";
  test::FormulaReader unknown(d.formula, d.terms);
  EXPECT_FALSE(unknown.value());
  EXPECT_EQ(unknown.error(), "no term named bytes");
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, Explained,
    ::testing::Values("{}", R"({"seams":{"data":true,"tensor":true,"pipeline":true}})",
                      R"({"seams":{"data":true,"tensor":true,"pipeline":true},"zero_stage":1})",
                      R"({"gpus":64,"seams":{"data":true,"tensor":true},"zero_stage":3})",
                      R"({"seams":{"data":true,"tensor":true,"pipeline":true},"order":"dp,pp,tp"})",
                      R"({"gpus":10240,"degrees":{"dp":80,"tp":8,"pp":16},"global_batch":2560,
                          "order":"pp,dp,tp","recompute":"full"})",
                      R"({"model":{"preset":"book-16b","layers":32,"hidden":4096,"heads":32}})",
                      R"({"gpus":64,"memory_model":"full","recompute":"selective",
                          "seams":{"data":true,"tensor":true,"pipeline":true},"zero_stage":2})",
                      R"({"model":"gpt3-175b","gpus":64,"degrees":{"dp":1,"tp":8,"pp":8},
                          "schedule":"interleaved","virtual_stages":3,"global_batch":64,
                          "memory_model":"full","sequence_parallel":true})",
                      R"({"gpus":64,"seq_len":32768,"memory_model":"full","zero_stage":1,
                          "seams":{"data":true,"tensor":true,"pipeline":true,"context":true}})",
                      R"({"model":"mixtral-8x7b","gpus":64,"memory_model":"full","zero_stage":1,
                          "seams":{"data":true,"tensor":true,"expert":true}})",
                      R"({"model":"mixtral-8x7b","gpus":64,"seams":{"data":true,"expert":true}})",
                      // FP8 on H100, four layers per stage offloaded over a slow host link.
                      R"({"gpu":"H100-80GB","precision":"fp8_hybrid","memory_model":"full",
                          "offload_layers":4,"host_link_gb_s":1,
                          "seams":{"data":true,"pipeline":true}})"));

// The FP8 MFU and the offload's host bytes and exposed time are explained where they apply.
TEST(Explain, Fp8AndOffloadAreExplained) {
  const json r = json::parse(explain_json(
      R"({"gpu":"H100-80GB","precision":"fp8_hybrid","memory_model":"full","offload_layers":4,
          "host_link_gb_s":1,"seams":{"data":true,"pipeline":true}})",
      ""));
  for (const char* key :
       {"time.mfu_fp8_peak", "memory.offloaded_bytes", "time.exposed_offload_s"}) {
    EXPECT_TRUE(r["explain"].contains(key)) << key;
  }
}

// The book's own numbers, as the chapter would write them.
TEST(Explain, TheBooksNumbersReadAsTheChapterWritesThem) {
  const json r = json::parse(explain_json("{}", ""));
  EXPECT_EQ(r["explain"]["memory.per_gpu_bytes"]["text"],
            "256 GB = 16 billion params × 16 B/param");
  EXPECT_EQ(r["explain"]["memory.params_per_gpu"]["text"],
            "16 billion = 16 billion params ÷ (TP 1 × PP 1)");
  EXPECT_EQ(r["explain"]["comms.data.bytes_per_gpu_per_step"]["text"],
            "60 GB = 2 × (16 − 1) ÷ 16 × 16 billion params × 2 B × 1 per step");
}

// On a GB200 NVL72 a TP group of 8 spans two trays of 4 yet stays in the 72-GPU NVLink domain;
// DP, 16 ranks apart (TP 8 x PP 2), keeps each member at the same index of its tray of 4: one
// rail, which skips an oversubscribed spine. Checkable by hand: 144 ranks, domains 0-71 and
// 72-143, and 16 a multiple of 4.
TEST(Explain, LinksSayWhichLevelOfTheFleetTheyRide) {
  const json r = json::parse(explain_json(
      R"({"gpu":"GB200-NVL72","gpus":144,"network_oversubscription":4,
          "degrees":{"dp":9,"tp":8,"pp":2}})",
      ""));
  EXPECT_EQ(r["comms"]["tensor"]["level"], "nvlink_domain");
  EXPECT_EQ(r["explain"]["comms.tensor.link_bytes_per_s"]["text"],
            "720 GB/s = 900 GB/s × 0.8, NVLink: TP groups of 8 GPUs, neighbouring ranks, each sit "
            "in one NVLink domain of 72 GPUs (NVLink across its trays of 4)");
  EXPECT_EQ(r["comms"]["data"]["level"], "rail");
  // DP 9, 16 ranks apart, on the two domains of 72: 5 and 4 members (ranks 0 to 64, 80 to 128),
  // or 4 and 5 from rank 8. The 4 NICs bound the ring across the two domains (an uneven split:
  // no tree, comms.h): 4 x 50 GB/s.
  EXPECT_EQ(r["comms"]["data"]["nics"], 4);
  EXPECT_EQ(r["comms"]["data"]["link_bytes_per_s"], 200e9);
  const json spine = json::parse(explain_json(
      R"({"gpu":"GB200-NVL72","gpus":144,"network_oversubscription":4,"order":"dp,pp,tp",
          "degrees":{"dp":9,"tp":8,"pp":2}})",
      ""));
  EXPECT_EQ(spine["comms"]["tensor"]["level"], "spine");
  EXPECT_EQ(spine["explain"]["comms.tensor.link_bytes_per_s"]["text"],
            "87.5 GB/s = 4 NICs × 50 GB/s ÷ 4 × 2 × (8 GPUs − 1) ÷ 8 GPUs, the network: TP groups "
            "of 8 GPUs, 18 ranks apart (DP 9 × PP 2 nested inside), span NVLink domains of 72 "
            "GPUs, members on different rails, so through the spine");
}

// Where each seam's groups sit, in words that follow the nesting order.
TEST(Explain, LinksAndGroupsFollowTheNestingOrder) {
  const json rule =
      json::parse(explain_json(R"({"seams":{"data":true,"tensor":true,"pipeline":true}})", ""));
  EXPECT_EQ(
      rule["explain"]["comms.tensor.link_bytes_per_s"]["text"],
      "240 GB/s = 300 GB/s × 0.8, NVLink: TP groups of 4 GPUs, neighbouring ranks, each sit in one "
      "node of 8 GPUs");
  EXPECT_EQ(rule["explain"]["comms.data.group_size"]["text"],
            "2 GPUs = DP 2, members are 8 ranks apart (TP 4 × PP 2 nested inside), order tp,pp,dp");
  EXPECT_EQ(rule["explain"]["order.order_cost_s"]["text"],
            "0 s = 38.6 s − 38.6 s, tp,pp,dp is the chapter's order");

  const json broken = json::parse(explain_json(
      R"({"seams":{"data":true,"tensor":true,"pipeline":true},"order":"dp,pp,tp"})", ""));
  EXPECT_EQ(broken["explain"]["comms.tensor.link_bytes_per_s"]["text"],
            "75 GB/s = 2 NICs × 25 GB/s × 2 × (4 GPUs − 1) ÷ 4 GPUs, the network: TP groups of 4 "
            "GPUs, 4 ranks apart (DP 2 × PP 2 nested inside), span nodes of 8 GPUs, members on "
            "different rails, so through the spine");
  EXPECT_GT(broken["explain"]["order.order_cost_s"]["result"].get<double>(), 0);
}

// The network's term says where its value comes from: the GPU preset's fleet, or the scenario.
TEST(Explain, TheNetworkSaysWhereItsValueComesFrom) {
  const auto network = [](const char* scenario) {
    const json d = json::parse(explain_json(scenario, "comms.data.link_bytes_per_s"));
    for (const json& term : d["terms"]) {
      if (term["symbol"] == "W") return term["name"];
    }
    return json();
  };
  // TP 8 in each node leaves DP one member, one NIC, per node: the network's rate, not NVLink's.
  EXPECT_EQ(network(R"({"gpu":"H100-80GB","degrees":{"dp":2,"tp":8}})"),
            "the network per GPU per direction: the H100-80GB preset's 400 Gb/s (DGX H100: 8 × "
            "ConnectX-7 400 Gb/s, one per GPU)");
  EXPECT_EQ(network(R"({"degrees":{"dp":2,"tp":8}})"),
            "the network per GPU per direction: the A100-80GB preset's 200 Gb/s (DGX A100: 8 × "
            "HDR InfiniBand 200 Gb/s, one per GPU)");
  EXPECT_EQ(network(R"({"gpu":"H100-80GB","network_gb_s":25,"degrees":{"dp":4,"tp":4}})"),
            "the network per GPU per direction, as set");
}

// MFU's derivation names the peak its P is: NVFP4 on a DGX B200 is against the FP4 peak,
// 9,000 TFLOP/s, not BF16's 2,250.
TEST(Explain, MfuNamesThePeakItDividesBy) {
  const json r = json::parse(explain_json(
      R"({"gpu":"B200-DGX","gpus":8,"precision":"nvfp4","memory_model":"full"})", "time.mfu"));
  const json& peak = r["terms"][3];
  EXPECT_EQ(peak["symbol"], "P");
  EXPECT_EQ(peak["value"], 9e15);
  EXPECT_EQ(peak["name"], "the GPU's dense FP4 peak, which its GEMMs run at");
}

TEST(Explain, TheBooksFactorsAndMessages) {
  const json r =
      json::parse(explain_json(R"({"seams":{"data":true,"tensor":true,"pipeline":true}})", ""));
  EXPECT_EQ(r["explain"]["memory.shard_factor"]["text"], "8 = TP 4 × PP 2");
  EXPECT_EQ(r["explain"]["precision.bytes_per_param"]["text"],
            "16 B/param = 2 weight + 2 grad + 4 master + 4 Adam m + 4 Adam v");
  EXPECT_EQ(r["explain"]["model_params"]["text"], "16 billion params, the preset's count");
  // In words and units as the page writes them: no "1.07e17", no "0.0224 s".
  EXPECT_EQ(r["explain"]["time.mfu"]["text"],
            "55.63% = 107 quadrillion FLOPs ÷ (38.6 s × 16 GPUs × 312 trillion FLOP/s)");
  EXPECT_EQ(r["explain"]["comms.pipeline.time_s"]["text"],
            "22.4 ms = 21 MB × 256 × (1 ÷ 240 GB/s + 0 ÷ 240 GB/s), stage 0");
  EXPECT_EQ(r["explain"]["memory.headroom_bytes"]["text"], "48 GB = 80 GB − 32 GB");
  EXPECT_EQ(r["explain"]["comms.tensor.messages_per_step"]["text"],
            "25600 = 4 per layer × 25 layers × 256 micro-batches, stage 0");
}

// A report lists the numbers it explains; each is derived on its own when asked for, the same
// derivation as in the whole list; a key it does not explain is refused, naming the ones it does.
TEST(Explain, OneNumberAtATime) {
  const char* scenario = R"({"seams":{"data":true,"tensor":true,"pipeline":true}})";
  const json report = json::parse(evaluate_json(scenario));
  const json all = json::parse(explain_json(scenario, ""))["explain"];
  EXPECT_FALSE(report.contains("explain"));
  ASSERT_EQ(report["explained"].size(), all.size());
  for (const auto& key : report["explained"]) {
    EXPECT_EQ(json::parse(explain_json(scenario, key.get<std::string>())),
              all[key.get<std::string>()])
        << key;
  }
  EXPECT_FALSE(all.contains("comms.context.time_s"));  // CP is off: nothing to explain
  const json e = json::parse(explain_json(scenario, "comms.context.time_s"))["error"];
  EXPECT_EQ(e["key"], "key");
  EXPECT_NE(e["message"].get<std::string>().find("allowed memory.per_gpu_bytes"), std::string::npos)
      << e;
}

// A duration is written in one unit chosen by its size, in the facts as in the derivations:
// the order's cost of 116 ms on a 25 GB/s network reads "116 ms", not "0.116 s".
TEST(Explain, TheOrdersCostSpeaksMilliseconds) {
  const Result<Scenario> s = parse_scenario(
      R"({"gpus":16,"gpus_per_node":8,"order":"dp,pp,tp","global_batch":16,"network_gb_s":25,
          "seams":{"data":true,"tensor":true,"pipeline":true}})");
  ASSERT_TRUE(s.ok()) << s.problem().message;
  const Result<Report> r = evaluate(s.value());
  ASSERT_TRUE(r.ok()) << r.problem().message;
  ASSERT_LT(r.value().order_cost_s, 1.0);
  bool found = false;
  for (const std::string& w : r.value().facts) {
    if (w.rfind("Nesting order", 0) != 0) continue;
    found = true;
    EXPECT_NE(w.find(" ms per step"), std::string::npos) << w;
    EXPECT_EQ(w.find("0.0"), std::string::npos) << w;
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(seconds_text(0.0203), "20.3 ms");
  EXPECT_EQ(seconds_text(28.4), "28.4 s");
  EXPECT_EQ(seconds_text(2e-5), "20 µs");
}

}  // namespace
}  // namespace pe
