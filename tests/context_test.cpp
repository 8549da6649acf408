// Context parallelism: the K/V traffic of ring and Ulysses, the auto-factor with the context
// and expert seams, and the layouts a page may offer.
#include "model/context.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "contract/contract.h"
#include "model/explorer.h"
#include "model/factorize.h"
#include "model/model_shape.h"
#include "model/moe.h"
#include "model/presets.h"

namespace pe {
namespace {

using nlohmann::json;

// Llama 3 405B's long-context stage: s 131072, TP 8, CP 16, 8 KV heads of 128.
Scenario llama_long() {
  Scenario s;
  s.model.name = "llama3-405b-shape";
  s.model.layers = 126;
  s.model.hidden = 16384;
  s.model.heads = 128;
  s.model.kv_heads = 8;
  s.batch.seq_len = 131072;
  return s;
}

TEST(Context, KeysAndValuesPerToken) {
  Scenario s = llama_long();
  EXPECT_EQ(ModelShape(s).attention().kv_elements_per_token, 2.0 * 8 * 128);
  s.model.kv_heads = 0;
  EXPECT_EQ(ModelShape(s).attention().kv_elements_per_token, 2.0 * 16384);
}

// Ring: each of cp-1 passes moves (s/cp) b kv/tp 16-bit values; forward 1, backward 2.
TEST(Context, RingPassesKeysAndValuesAroundTheGroup) {
  const Scenario s = llama_long();
  const Degrees d{8, 8, 16, 16};
  const SeamTraffic t = context_traffic(s, ModelShape(s).attention(), d, 8, 16);
  EXPECT_TRUE(t.active);
  EXPECT_EQ(t.group_size, 16);
  EXPECT_EQ(t.bytes_per_message, 131072.0 / 16 * 2 * 8 * 128 / 8 * 2);  // 2 MiB
  EXPECT_EQ(t.messages_per_step, 3.0 * 15 * 8 * 16);
}

// Ulysses: (s/cp) b (2h + kv)/tp values, (cp-1)/cp of them leave; once forward, once backward.
TEST(Context, UlyssesAllToAllsQueriesKeysValuesAndTheOutput) {
  Scenario s = llama_long();
  s.recipe.context_parallel = ContextParallel::kUlysses;
  const Degrees d{8, 8, 16, 16};
  const SeamTraffic t = context_traffic(s, ModelShape(s).attention(), d, 8, 16);
  EXPECT_EQ(t.bytes_per_message, 131072.0 / 16 * (2.0 * 16384 + 2 * 8 * 128) / 8 * 15 / 16 * 2);
  EXPECT_EQ(t.messages_per_step, 2.0 * 8 * 16);
}

TEST(Context, NoContextParallelismNoTraffic) {
  const Scenario s = llama_long();
  EXPECT_FALSE(context_traffic(s, ModelShape(s).attention(), {8, 8, 16, 1}, 8, 16).active);
}

// The context seam joins the auto-factor: ties go TP, CP, PP, DP.
TEST(Context, AutoFactorDealsTheContextSeamItsShare) {
  Scenario s;
  s.recipe.seams = {true, true, true, true, false};
  s.fleet.gpus = 16;
  const Degrees d = auto_factor(s);
  EXPECT_EQ(d.dp * d.tp * d.pp * d.cp, 16);
  EXPECT_EQ(d.tp, 2);
  EXPECT_EQ(d.cp, 2);
  EXPECT_EQ(d.pp, 2);
  EXPECT_EQ(d.dp, 2);
  // 16,384 GPUs, all four seams, Llama's 126 layers and 131,072 tokens.
  s = llama_long();
  s.fleet.gpus = 16384;
  s.recipe.seams = {true, true, true, true, false};
  const Degrees big = auto_factor(s);
  EXPECT_EQ(big.product(), 16384);
  EXPECT_EQ(big.tp, 8);
  EXPECT_EQ(131072 % big.cp, 0);
}

// CP never splits a token: a factor the sequence cannot take goes to another seam.
TEST(Context, AutoFactorKeepsContextADivisorOfTheSequence) {
  Scenario s;
  s.fleet.gpus = 24;
  s.batch.seq_len = 2048;
  s.recipe.seams = {true, false, false, true, false};
  const Degrees d = auto_factor(s);
  EXPECT_EQ(d.cp * d.dp, 24);
  EXPECT_EQ(2048 % d.cp, 0);
  EXPECT_EQ(d.dp % 3, 0);
}

// The expert seam takes the largest degree dividing dp x cp and the experts.
TEST(Context, ExpertSeamIsCarvedOutOfDataAndContext) {
  Scenario s;
  s.model = *find_model("mixtral-8x7b");
  s.fleet.gpus = 64;
  s.recipe.seams = {true, true, false, false, true};
  const Degrees d = auto_factor(s);
  EXPECT_EQ(d.tp, 8);
  EXPECT_EQ(d.dp, 8);
  EXPECT_EQ(d.ep, 8);
  s.recipe.seams.expert = false;
  EXPECT_EQ(auto_factor(s).ep, 1);
  s.recipe.seams.expert = true;
  s.model = ModelSpec{};  // dense: nothing to split
  EXPECT_EQ(auto_factor(s).ep, 1);
}

// Layouts: [dp, tp, pp] as before; with CP or EP in play [dp, tp, pp, cp, ep].
TEST(Context, LayoutsListTheFiveSeamTuplesOnlyWhenTheSeamsAreOn) {
  const json book = json::parse(layouts_json("{}"))["layouts"];
  for (const json& l : book) EXPECT_EQ(l.size(), 3u);
  const json five = json::parse(layouts_json(
      R"({"gpus":8,"model":"mixtral-8x7b","seams":{"data":true,"context":true,"expert":true}})"))
      ["layouts"];
  bool found = false;
  for (const json& l : five) {
    ASSERT_TRUE(l.size() == 3 || l.size() == 5);
    if (l == json::array({2, 1, 1, 4, 8})) found = true;
  }
  EXPECT_TRUE(found) << five.dump();
}

// Every layout offered is one the core accepts.
TEST(Context, EveryOfferedLayoutEvaluates) {
  Scenario s;
  s.model = *find_model("mixtral-8x7b");
  s.fleet.gpus = 32;
  s.batch.seq_len = 4096;
  s.model.params = shape_params(s.model, s.batch.seq_len);  // what the reader counts for a preset
  s.recipe.seams = {true, true, true, true, true};
  for (const Degrees& d : accepted_layouts(s)) {
    Scenario e = s;
    e.recipe.degrees = d;
    const Result<Report> r = evaluate(e, false);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.value().degrees.ep, d.ep);
  }
}

}  // namespace
}  // namespace pe
