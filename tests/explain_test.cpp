// Every derivation recomputes its number from the terms it shows; it must be the number the
// report gives, or the page would explain a number it does not show.
#include "explain.h"

#include <gtest/gtest.h>

#include "contract.h"

namespace pe {
namespace {

using nlohmann::json;

class Explained : public ::testing::TestWithParam<const char*> {};

TEST_P(Explained, EveryDerivationGivesTheReportsNumber) {
  const json r = json::parse(evaluate_json(GetParam()));
  ASSERT_FALSE(r.contains("error")) << r["error"];
  ASSERT_GE(r["explain"].size(), 6u);
  for (const auto& [key, d] : r["explain"].items()) {
    std::string pointer = "/" + key;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    const double reported = r[json::json_pointer(pointer)].get<double>();
    EXPECT_NEAR(d["result"].get<double>(), reported, 1e-9 * std::max(1.0, std::fabs(reported)))
        << key << ": " << d["text"];
    EXPECT_FALSE(d["source"].get<std::string>().empty()) << key;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, Explained,
    ::testing::Values("{}", R"({"seams":{"data":true,"tensor":true,"pipeline":true}})",
                      R"({"seams":{"data":true,"tensor":true,"pipeline":true},"zero_stage":1})",
                      R"({"gpus":64,"seams":{"data":true,"tensor":true},"zero_stage":3})",
                      R"({"gpus":64,"memory_model":"full","recompute":"selective",
                          "seams":{"data":true,"tensor":true,"pipeline":true},"zero_stage":2})",
                      R"({"model":"gpt3-175b","gpus":64,"degrees":{"dp":1,"tp":8,"pp":8},
                          "schedule":"interleaved","virtual_stages":3,"global_batch":64,
                          "memory_model":"full","sequence_parallel":true})",
                      R"({"gpus":64,"seq_len":32768,"memory_model":"full","zero_stage":1,
                          "seams":{"data":true,"tensor":true,"pipeline":true,"context":true}})",
                      R"({"model":"mixtral-8x7b","gpus":64,"memory_model":"full","zero_stage":1,
                          "seams":{"data":true,"tensor":true,"expert":true}})",
                      R"({"model":"mixtral-8x7b","gpus":64,"seams":{"data":true,"expert":true}})"));

// The book's own numbers, as the chapter would write them.
TEST(Explain, TheBooksNumbersReadAsTheChapterWritesThem) {
  const json r = json::parse(evaluate_json("{}"));
  EXPECT_EQ(r["explain"]["memory.per_gpu_bytes"]["text"],
            "256 GB = 16e9 params × 16 B/param");
  EXPECT_EQ(r["explain"]["memory.params_per_gpu"]["text"],
            "16e9 = 16e9 params ÷ (TP 1 × PP 1)");
  EXPECT_EQ(r["explain"]["comms.data.bytes_per_gpu_per_step"]["text"],
            "60 GB = 2 × (16−1)/16 × 16e9 params × 2 B × 1 per step");
}

}  // namespace
}  // namespace pe
