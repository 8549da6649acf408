// Hostile input: every seed of the fuzz corpus (tests/fuzz/corpus/, the golden scenarios plus
// hostile ones, and every input the fuzzer has found) replays through the checks the fuzz
// targets make on the report and on the planner (tests/fuzz/report_checks.h), natively and
// under the sanitize preset. Then one test per defect found, with the input that found it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "contract/contract.h"
#include "fuzz/report_checks.h"

namespace pe {
namespace {

using nlohmann::json;

std::string evaluate_with_ranks(std::string_view text) { return evaluate_json(text, true); }

json run(const std::string& scenario) { return json::parse(evaluate_json(scenario)); }

TEST(FuzzCorpus, EverySeedGivesAnErrorOrASaneReportAndPlans) {
  int replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PE_GOLDEN_DIR "/../fuzz/corpus")) {
    std::ifstream file(entry.path(), std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_EQ(fuzz::check_scenario_text(text.str(), evaluate_with_ranks), "") << entry.path();
    EXPECT_EQ(fuzz::check_plan_text(
                  text.str(), 5, [](std::string_view t, int k) { return plan_json(t, k); },
                  [](std::string_view t) { return evaluate_json(t, false); }),
              "")
        << entry.path();
    ++replayed;
  }
  EXPECT_GE(replayed, 30);
}

// Found by the fuzzer: -0 passed the ">= 0" checks and came out as "-0.0" bytes.
TEST(FuzzFound, NegativeZeroReadsAsZero) {
  const json r = run(R"({"train_tokens":-0.0,"precision":{"weight":-0.0,"grad":2,"master":-0,
                         "adam_m":4,"adam_v":4}})");
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_FALSE(std::signbit(r["memory"]["breakdown"]["weights_bytes"].get<double>()));
  EXPECT_FALSE(std::signbit(r["scenario"]["train_tokens"].get<double>()));
  EXPECT_EQ(r["scenario"]["precision"]["weight"], 0.0);
}

// Found by the fuzzer: a rate or efficiency just above 0 (5e-324) passed validation and the
// step time overflowed to infinity (null in the JSON).
TEST(FuzzFound, RatesTooSmallToGiveAFiniteTimeAreRefused) {
  for (const char* key : {"gpu_peak_tflops", "nvlink_gb_s", "network_gb_s", "efficiency"}) {
    const json r = run(std::string("{\"") + key + "\":5e-324}");
    ASSERT_TRUE(r.contains("error")) << key;
    const std::string e = r["error"]["message"];
    EXPECT_EQ(e.rfind(std::string(key) + " is ", 0), 0u) << e;
    EXPECT_NE(e.find(": allowed 0.001 to"), std::string::npos) << e;
  }
  // The smallest allowed values everywhere still give finite, positive times.
  const json r = run(R"({"gpu_peak_tflops":0.001,"nvlink_gb_s":0.001,"network_gb_s":0.001,
                         "efficiency":0.001,"gpus":16,
                         "seams":{"data":true,"tensor":true,"pipeline":true},"model":"megatron-1t","seq_len":1048576,"global_batch":16777216,
                         "train_tokens":1e16})");
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(fuzz::check_report(r, true), "");
}

// Found by the fuzzer: an echoed value is cut to 40 bytes, and the cut fell inside a
// two-byte UTF-8 character; dumping the error then threw (the wasm build aborts instead).
TEST(FuzzFound, ErrorMessagesCutLongValuesAtACharacterBoundary) {
  std::string name;
  for (int i = 0; i < 30; ++i) name += "\u00e9";
  for (const std::string& s : {"{\"gpu\":\"" + name + "\"}", "{\"gpus\":\"a" + name + "\"}"}) {
    const std::string out = evaluate_json(s);
    const json r = json::parse(out, nullptr, false);
    ASSERT_FALSE(r.is_discarded()) << out;
    EXPECT_NE(r["error"]["message"].get<std::string>().find("...: allowed"), std::string::npos)
        << r;
  }
}

// Found by the fuzzer: an unknown key was echoed whole, so a 3,000-character key gave a
// 3,000-character message. It is cut like every other echoed value.
TEST(FuzzFound, UnknownKeysAreEchoedShort) {
  const json r = run("{\"" + std::string(3000, 'a') + "\":1}");
  const std::string e = r["error"]["message"];
  EXPECT_LT(e.size(), 700u);  // the cut key, then the list of allowed top-level keys
  EXPECT_EQ(e.rfind("unknown key \"aaaa", 0), 0u) << e;
}

// Found by the fuzzer: a key given twice was named whole, so a 1,100-character key holding
// an object with a repeated member gave a 1,100-character message. Cut like an unknown key.
TEST(FuzzFound, RepeatedKeysAreNamedShort) {
  const std::string key(1100, 'a');
  const json r = run("{\"" + key + "\":{\"x\":0,\"x\":0}}");
  const std::string e = r["error"]["message"];
  EXPECT_LT(e.size(), 700u);
  EXPECT_EQ(e.rfind("\"aaaa", 0), 0u) << e;
  EXPECT_NE(e.find("... is given twice: allowed once"), std::string::npos) << e;
  EXPECT_EQ(r["error"]["key"], key + ".x");  // the key itself stays whole, for the page
}

// Found by replaying the corpus under the sanitizer build: a deeply nested value was dumped
// whole to be quoted in the message, one stack frame per level; 32,000 levels (64 KB, the size
// limit) overflowed the stack. Nesting is now checked before parsing.
TEST(FuzzFound, DeepNestingIsRefusedBeforeParsing) {
  const std::string open(32000, '['), close(32000, ']');
  EXPECT_EQ(run(open + close)["error"]["message"],
            "scenario nests 32000 levels deep: allowed at most 16");
  const json gpus = run("{\"gpus\":" + open + close + "}");
  EXPECT_EQ(gpus["error"]["message"], "scenario nests 32001 levels deep: allowed at most 16");
  // Under the key it went too deep in, so a page puts back that field alone.
  EXPECT_EQ(gpus["error"]["key"], "gpus");
  EXPECT_EQ(run(open + close)["error"]["key"], nullptr);
  std::string nested = "{\"step_time_s\":4,\"scenario\":{\"model\":";
  for (int i = 0; i < 14; ++i) nested += "{\"model\":";
  nested += "1" + std::string(15, '}') + "}";
  EXPECT_EQ(run("{\"gpus\":32,\"calibration\":" + nested + "}")["error"]["key"],
            "calibration.scenario.model.model.model.model.model.model.model.model.model.model."
            "model.model.model.model");
  EXPECT_NE(
      run("{\"gpus\":" + std::string(15, '[') + std::string(15, ']') + "}")["error"]["message"],
      "scenario nests 16 levels deep: allowed at most 16");
  // Brackets and escaped quotes inside strings do not count.
  const json named = run(R"({"model":{"name":"[[[[[[[[[[[[[[[[[[[[\"{{{{{{{{{{{{{{{{{{{{"}})");
  ASSERT_FALSE(named.contains("error")) << named;
  EXPECT_EQ(named["scenario"]["model"]["name"], "[[[[[[[[[[[[[[[[[[[[\"{{{{{{{{{{{{{{{{{{{{");
}

}  // namespace
}  // namespace pe
