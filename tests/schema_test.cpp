// The field table is the one place a scenario field is declared: core/README.md's table, the fuzz
// dictionary, the reader and the echo must all agree with it.
#include "model/schema.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "contract/contract.h"

namespace pe {
namespace {

using nlohmann::json;

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

json run(const std::string& scenario) { return json::parse(evaluate_json(scenario)); }

// core/README.md holds the table between two markers; `explore --schema-table` prints it anew.
TEST(Schema, ReadmeTableIsTheFieldTable) {
  const std::string readme = file_text(PE_SOURCE_DIR "/core/README.md");
  const std::string begin = "<!-- schema:begin -->\n", end = "<!-- schema:end -->";
  const size_t from = readme.find(begin), to = readme.find(end);
  ASSERT_NE(from, std::string::npos) << "core/README.md has no " << begin;
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(readme.substr(from + begin.size(), to - from - begin.size()), schema_markdown())
      << "regenerate with: build/native/core/explore --schema-table";
}

// Every key segment is in the fuzzer's dictionary, so it can build every field.
TEST(Schema, FuzzDictionaryHasEveryKey) {
  const std::string dict = file_text(PE_SOURCE_DIR "/tests/fuzz/scenario.dict");
  for (const Field& f : fields()) {
    std::string key = f.key;
    const std::string last = key.substr(key.rfind('.') + 1);
    EXPECT_NE(dict.find("\"\\\"" + last + "\\\"\""), std::string::npos) << last;
  }
}

TEST(Schema, JsonHasEveryRowWithItsDefaultAndRange) {
  const json schema = json::parse(schema_text());
  ASSERT_EQ(schema["fields"].size(), fields().size());
  for (const json& row : schema["fields"]) {
    if (row["key"] == "gpus") {
      EXPECT_EQ(row, json::parse(R"({"key":"gpus","type":"integer","group":"fleet","default":16,
        "min":1,"max":16384,"unit":"GPUs","doc":"GPUs in the fleet"})"));
    }
  }
  EXPECT_EQ(find_field("recompute")->choices,
            (std::vector<std::string>{"none", "selective", "full"}));
  EXPECT_EQ(find_field("degrees")->type, FieldType::kObject);
}

// Each row's default is what an empty scenario echoes back.
TEST(Schema, DefaultsAreWhatTheEmptyScenarioEchoes) {
  const json echo = run("{}")["scenario"];
  const json schema = json::parse(schema_text());  // the loop below reads into it
  for (const json& row : schema["fields"]) {
    std::string pointer = "/" + row["key"].get<std::string>();
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    const json::json_pointer at(pointer);
    // A group, or the model preset, which the echo writes out as its fields.
    if (row["type"] == "object" || !echo.contains(at) || echo[at].is_object()) continue;
    EXPECT_EQ(echo[at], row["default"]) << pointer;
  }
}

TEST(Schema, EveryNumericFieldRefusesOneStepPastItsRange) {
  for (const Field& f : fields()) {
    if (!f.get || !(f.type == FieldType::kInteger || f.type == FieldType::kNumber)) continue;
    std::string key = f.key;
    if (key.rfind("degrees.", 0) == 0) continue;  // the product rule speaks first
    std::string pointer = "/" + key;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    json scenario = json::object();
    scenario[json::json_pointer(pointer)] = f.max * 2 + 1;
    const json r = run(scenario.dump());
    ASSERT_TRUE(r.contains("error")) << key;
    EXPECT_EQ(r["error"]["key"], key) << r;
  }
}

// Kept, and said: a field with no effect, a preset overridden, bytes beside a precision.
TEST(Schema, WhatChangesMeaningIsKeptWithAWarning) {
  auto warnings = [](const char* s) { return run(s)["warnings"].dump(); };
  EXPECT_NE(warnings(R"({"virtual_stages":4})")
                .find("virtual_stages is ignored: it applies "
                      "only to the interleaved schedule"),
            std::string::npos);
  const json custom = run(R"({"model":{"preset":"gpt3-175b","layers":48}})");
  EXPECT_EQ(custom["scenario"]["model"]["name"], "custom (from gpt3-175b)");
  EXPECT_NE(custom["warnings"].dump().find("gpt3-175b preset is overridden"), std::string::npos);
  const json both = run(R"({"bytes_per_param":18,"precision":"mixed_bf16"})");
  EXPECT_EQ(both["precision"]["bytes_per_param"], 16);
  EXPECT_NE(both["warnings"].dump().find("bytes_per_param 18 is overridden by precision"),
            std::string::npos);
  // Agreeing values change nothing, so they say nothing (the book's default state that remains
  // has a fact, that it does not fit, and no warning).
  const json agreeing = run(R"({"bytes_per_param":16,"precision":"mixed_bf16"})");
  EXPECT_TRUE(agreeing["warnings"].empty()) << agreeing["warnings"];
  EXPECT_EQ(agreeing["facts"].size(), 1u);
}

TEST(Schema, LengthLimitsCountCharactersNotBytes) {
  std::string name;
  for (int i = 0; i < 64; ++i) name += "\u00e9";  // 64 characters, 128 bytes
  const json r = run(R"({"model":{"name":")" + name + "\"}}");
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(r["scenario"]["model"]["name"], name);
}

TEST(Schema, ANulByteAfterTheDocumentIsRefused) {
  const json r = run(std::string("{}\0", 3));
  EXPECT_EQ(r["error"]["key"], nullptr);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("NUL byte at byte 2"), std::string::npos);
}

TEST(Schema, TheReportCarriesTheLayoutsThePageMayOffer) {
  const json r = run(R"({"gpus":8,"model":{"layers":2,"hidden":1024,"heads":8,"vocab":1000}})");
  // 8 = dp x tp x pp with pp <= 2 layers: (8,1,1) (4,1,2) (4,2,1) (2,2,2) (2,4,1) (1,4,2) (1,8,1).
  EXPECT_EQ(r["layouts"], json::parse("[[8,1,1],[4,1,2],[4,2,1],[2,2,2],[2,4,1],[1,4,2],[1,8,1]]"));
}

}  // namespace
}  // namespace pe
