// Properties over thousands of random valid scenarios (seeded std::mt19937: every run sees the
// same scenarios). Each test counts the scenarios evaluate() refuses (a pipeline deeper than
// the model, say) and requires that most are accepted, so a generator that drifts into invalid
// territory cannot make a test pass vacuously.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "contract/contract.h"
#include "fuzz/report_checks.h"
#include "model/explorer.h"
#include "model/model_shape.h"
#include "model/presets.h"

namespace pe {
namespace {

using nlohmann::json;

// The core's JSON, written as text and read back.
json read_back(const Json& j) { return json::parse(j.dump()); }

// 3,000 in the optimised build; the sanitized build (tests/CMakeLists.txt) draws fewer, since
// there each scenario costs ~20x as much and its job is to catch memory errors on every path,
// which a few hundred scenarios already walk.
#ifndef PE_PROPERTY_SCENARIOS
#define PE_PROPERTY_SCENARIOS 3000
#endif
constexpr int kScenarios = PE_PROPERTY_SCENARIOS;

template <class T>
const T& one_of(std::mt19937& g, const std::vector<T>& items) {
  return items[std::uniform_int_distribution<size_t>(0, items.size() - 1)(g)];
}

int between(std::mt19937& g, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(g);
}
bool coin(std::mt19937& g) { return between(g, 0, 1) == 1; }

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

// 1..16384, spread over every scale: half products of small primes (many divisors, like real
// fleets), half uniform in a random power-of-two band (primes and odd counts too).
int random_gpus(std::mt19937& g) {
  if (coin(g)) {
    int n = 1;
    for (;;) {
      const int p = one_of(g, std::vector<int>{2, 2, 2, 3, 5, 7});
      if (n * p > 16384 || between(g, 0, 9) == 0) return n;
      n *= p;
    }
  }
  const int band = between(g, 0, 14);
  return between(g, 1 << band, std::min((2 << band) - 1, 16384));
}

// A valid-looking scenario: every field in range, degrees (when explicit) multiplying to the
// GPU count with PP at most the layer count. evaluate() may still refuse a few (auto-factored
// pipelines deeper than the model, PP x v above the layer count).
Scenario random_scenario(std::mt19937& g) {
  Scenario s;
  s.batch.seq_len = one_of(g, std::vector<int>{512, 1024, 2048, 4096, 8192});
  s.model = one_of(g, model_presets());
  if (s.model.params == 0) s.model.params = shape_params(s.model, s.batch.seq_len);
  s.fleet.gpus = random_gpus(g);
  s.fleet.gpus_per_node = one_of(g, std::vector<int>{1, 2, 4, 8, 8, 8, 16});
  s.gpu = one_of(g, gpu_presets());
  s.recipe.precision = one_of(g, precision_presets());
  // NVFP4 where the GPU has FP4 tensor cores (Blackwell), else the same bytes in BF16.
  if (s.recipe.precision.fp4 && s.gpu.fp4_tflops <= 0)
    s.recipe.precision = *find_precision("megatron_fp32_grads");
  s.gpu.network_gb_s = one_of(g, std::vector<double>{12.5, 25, 50, 100});
  s.recipe.zero_stage = between(g, 0, 3);
  s.recipe.recompute = static_cast<Recompute>(between(g, 0, 2));
  s.recipe.sequence_parallel = coin(g);
  s.recipe.memory_model = coin(g) ? MemoryModel::kFull : MemoryModel::kBook;
  if (coin(g)) {
    s.recipe.schedule = Schedule::kInterleaved;
    s.recipe.virtual_stages = between(g, 1, 4);
  }
  s.recipe.micro_batch = one_of(g, std::vector<int>{1, 1, 2, 4, 8});
  s.batch.global_batch =
      std::max(s.recipe.micro_batch, one_of(g, std::vector<int>{1, 8, 64, 512, 1536, 4096}));
  s.gpu.matmul_efficiency = std::uniform_real_distribution<double>(0.2, 0.7)(g);
  s.economics.train_tokens = coin(g) ? 0 : 300e9;
  if (coin(g)) {
    std::vector<int> pps;
    for (int d : divisors(s.fleet.gpus)) {
      if (d <= s.model.layers) pps.push_back(d);
    }
    const int pp = one_of(g, pps);
    const int tp = one_of(g, divisors(s.fleet.gpus / pp));
    s.recipe.degrees = Degrees{s.fleet.gpus / (pp * tp), tp, pp};
  } else {
    s.recipe.seams = {coin(g), coin(g), coin(g)};
  }
  return s;
}

// Draws kScenarios scenarios and hands the ones evaluate() accepts to `check`.
template <class Check>
void for_random_scenarios(unsigned seed, Check check) {
  std::mt19937 g(seed);
  int accepted = 0;
  for (int i = 0; i < kScenarios; ++i) {
    const Scenario s = random_scenario(g);
    const Result<Report> r = evaluate(s, /*with_ranks=*/false);
    if (!r.ok()) continue;
    ++accepted;
    check(s, r.value());
  }
  std::cout << "[ property ] " << accepted << " of " << kScenarios << " scenarios accepted\n";
  EXPECT_GE(accepted, kScenarios * 8 / 10);
}

TEST(Property, DegreesMultiplyToTheGpuCount) {
  for_random_scenarios(1, [](const Scenario& s, const Report& r) {
    const Degrees d = r.degrees;
    if (s.recipe.degrees || s.recipe.seams.any()) {
      EXPECT_EQ(d.product(), s.fleet.gpus) << scenario_json(s).dump();
      EXPECT_EQ(r.active_gpus, s.fleet.gpus);
    } else {
      EXPECT_EQ(d.product(), 1);  // no seam: one GPU trains, the rest sit idle
      EXPECT_EQ(r.active_gpus, 1);
    }
    if (s.recipe.degrees) EXPECT_EQ(d.product(), s.recipe.degrees->product());
    EXPECT_LE(d.pp, s.model.layers);
  });
}

// Every byte count, time, FLOP count and rate in the report is finite and not negative (the
// headroom alone may be negative), checked on the report's JSON, which holds every one of them;
// plus the C++ values that matter most, in case a field is ever left out of the JSON.
TEST(Property, EveryNumberIsFiniteAndNotNegative) {
  for_random_scenarios(2, [](const Scenario& s, const Report& r) {
    json out = read_back(report_json(r));
    out["scenario"] = read_back(scenario_json(s));
    EXPECT_EQ(fuzz::check_report(out, /*with_ranks=*/false), "") << scenario_json(s).dump();
    const auto sane = [](double v) { return std::isfinite(v) && v >= 0; };
    EXPECT_TRUE(sane(r.memory.per_gpu_bytes) && sane(r.memory.params_per_gpu));
    for (const StageMemory& st : r.memory.stages) EXPECT_TRUE(sane(st.breakdown.total_bytes()));
    for (const SeamTraffic* t : {&r.comms.data, &r.comms.tensor, &r.comms.pipeline}) {
      EXPECT_TRUE(sane(t->bytes_per_gpu_per_step) && sane(t->time_s));
    }
    const TimeReport& t = r.time;
    for (double v :
         {t.compute_s, t.bubble_s, t.exposed_comms_s, t.step_s, t.model_flops_per_step,
          t.hardware_flops_per_step, t.mfu, t.tflops_per_gpu, t.tokens_per_s, t.time_to_train_s}) {
      EXPECT_TRUE(sane(v)) << scenario_json(s).dump();
    }
    EXPECT_GT(t.step_s, 0);
    EXPECT_LE(t.mfu, 1.0);
    EXPECT_LE(t.hfu, 1.0);
  });
}

// A report rendered to JSON and read back dumps to the same text; and its resolved scenario,
// read back through the contract, gives the same output, scenario included. The rank list
// (one entry per GPU, a function of the degrees alone) is kept up to 512 GPUs: at 16,384 it
// makes the JSON a megabyte, which the sanitizer build takes a second to round-trip.
TEST(Property, ReportJsonReadsBackIdentically) {
  for_random_scenarios(3, [](const Scenario& s, const Report& without_ranks) {
    const bool ranks = s.fleet.gpus <= 512;
    const Result<Report> r = ranks ? evaluate(s, true) : Result<Report>(without_ranks);
    ASSERT_TRUE(r.ok());
    json out = read_back(report_json(r.value()));
    out["scenario"] = read_back(scenario_json(s));
    const std::string text = out.dump();
    EXPECT_EQ(json::parse(text).dump(), text);
    json back = json::parse(evaluate_json(out["scenario"].dump(), ranks));
    back.erase("layouts");  // evaluate_json adds these for the page; report_json has none
    back.erase("explained");
    EXPECT_EQ(back.dump(), text) << out["scenario"];
  });
}

// Memory never grows when TP, PP or the ZeRO stage grows, all else equal: the other two
// degrees, and so the DP group, the micro-batch count and every other input, stay the same
// (TP or PP grows by taking more GPUs). Exactly what is claimed, and why it holds:
//
// - ZeRO stage z -> z' > z, any memory model: each stage's weights, gradients and optimizer
//   states are divided by DP from some ZeRO stage on and never multiplied (memory.h), and the
//   activations do not depend on z; so every stage, and the busiest, shrinks or stays.
// - TP t -> k t, any memory model: every term of every stage is divided by t or independent
//   of it: model states (params per stage / t), activations per layer (Korthikanti's
//   sbh(10 + 24/t + 5as/(ht)) and its recompute / sequence-parallel variants), the embedding
//   and logits terms (/ t); layers per stage and in-flight micro-batches do not involve t.
// - PP p -> k p, "book": params per GPU N / (t p) shrinks and there are no activations.
// - PP p -> k p, "full": only the model states are claimed, as the largest of any stage. The
//   first stage holds floor(L/p) layers + the embedding and the last ceil(L/p) layers + the
//   output-layer copy (the middle stages hold fewer), and both counts shrink or stay as p grows.
//   The total does not follow, and is not claimed. Stage i keeps min(p - i, m) micro-batches
//   in flight, so the first stage holds about L layers' activations whatever p is, while
//   (1) its embedding-output term s b h p / t (Korthikanti Sec. 4.2.3) grows with p; (2) the
//   interleaved factor 1 + (p-1)/(p v) grows with p; (3) when p does not divide L, stage
//   p - (L mod p) holds floor(L/p) + 1 layers for L mod p micro-batches, which can exceed the
//   first stage and grow with p (L = 80: 6 x 10 = 60 at p = 14, 3 x 24 = 72 at p = 28). When
//   activations outweigh the model states (long sequences, ZeRO over a large DP group), a
//   deeper pipeline needs more memory: what 1F1B does, not a defect of the model (see
//   FullMemoryCanGrowWithAPipelineWhenActivationsDominate; the test below counts the cases).
struct Growth {
  int compared = 0;
  int refused = 0;
};

// The scenario with its degrees made explicit, so that a variant changes one thing only.
Scenario pinned(const Scenario& s, const Report& r) {
  Scenario p = s;
  p.recipe.degrees = r.degrees;
  p.fleet.gpus = static_cast<int>(r.degrees.product());
  return p;
}

double max_model_state_bytes(const Report& r) {
  double most = 0;
  for (const StageMemory& st : r.memory.stages)
    most = std::max(most, st.breakdown.model_state_bytes());
  return most;
}

// Evaluates `variant` and, when accepted, checks that `measure` did not grow from `base`.
template <class Measure>
void expect_no_growth(const Scenario& base_s, const Report& base, const Scenario& variant,
                      Measure measure, Growth& g) {
  const Result<Report> r = evaluate(variant, false);
  if (!r.ok()) {
    ++g.refused;
    return;
  }
  ++g.compared;
  const double before = measure(base), after = measure(r.value());
  EXPECT_LE(after, before * (1 + 1e-12))
      << "from " << scenario_json(base_s).dump() << "\nto " << scenario_json(variant).dump();
}

TEST(Property, MemoryNeverGrowsWithTheZeroStage) {
  Growth g;
  for_random_scenarios(4, [&g](const Scenario& s, const Report& r) {
    const Scenario base = pinned(s, r);
    // Up to ZeRO-2: ZeRO-3 adds the weights it gathers for the layers in flight (memory.h),
    // which at a small DP degree outweigh what it shards (laws_test: more prefetch).
    for (int z = s.recipe.zero_stage + 1; z <= 2; ++z) {
      Scenario v = base;
      v.recipe.zero_stage = z;
      expect_no_growth(
          base, r, v, [](const Report& x) { return x.memory.per_gpu_bytes; }, g);
    }
  });
  std::cout << "[ property ] " << g.compared << " ZeRO-stage pairs compared\n";
  EXPECT_EQ(g.refused, 0);
  EXPECT_GE(g.compared, kScenarios / 2);
}

TEST(Property, MemoryNeverGrowsWithTensorParallelism) {
  Growth g;
  for_random_scenarios(5, [&g](const Scenario& s, const Report& r) {
    const Scenario base = pinned(s, r);
    for (int k : {2, 3, 8}) {
      if (1LL * base.fleet.gpus * k > 16384) continue;
      Scenario v = base;
      v.fleet.gpus *= k;
      v.recipe.degrees->tp *= k;
      expect_no_growth(
          base, r, v, [](const Report& x) { return x.memory.per_gpu_bytes; }, g);
    }
  });
  std::cout << "[ property ] " << g.compared << " TP pairs compared\n";
  EXPECT_EQ(g.refused, 0);
  EXPECT_GE(g.compared, kScenarios);
}

TEST(Property, MemoryNeverGrowsWithPipelineParallelism) {
  Growth book, full;
  int full_total_grew = 0;
  for_random_scenarios(6, [&](const Scenario& s, const Report& r) {
    const Scenario base = pinned(s, r);
    for (int k : {2, 3, 5}) {
      if (1LL * base.fleet.gpus * k > 16384) continue;
      Scenario v = base;
      v.fleet.gpus *= k;
      v.recipe.degrees->pp *= k;
      if (s.recipe.memory_model == MemoryModel::kBook) {
        expect_no_growth(
            base, r, v, [](const Report& x) { return x.memory.per_gpu_bytes; }, book);
      } else {
        expect_no_growth(base, r, v, max_model_state_bytes, full);
        // Not claimed (see above), only counted: how often the full total does grow.
        const Result<Report> deeper = evaluate(v, false);
        if (deeper.ok() && deeper.value().memory.per_gpu_bytes > r.memory.per_gpu_bytes) {
          ++full_total_grew;
        }
      }
    }
  });
  std::cout << "[ property ] PP pairs compared: " << book.compared << " book (total), "
            << full.compared << " full (model states; the full total grew in " << full_total_grew
            << "); refused (pipeline deeper than the model): " << book.refused + full.refused
            << "\n";
  EXPECT_GE(book.compared, kScenarios / 4);
  EXPECT_GE(full.compared, kScenarios / 4);
}

// The counterexample the comment above describes, so the exception is on record. GPT-3 175B,
// 8k-token sequences, micro-batches of 8, no TP, ZeRO-3 over 1,024 replicas, 4 micro-batches:
// going from 2 to 4 pipeline stages keeps the first stage's layer activations (48 layers x 2
// in flight = 24 x 4), adds s b h (4 - 2) / t = 1.6 GB of embedding output, and saves only
// 24 layers' model states / 1,024 = 0.7 GB.
TEST(Property, FullMemoryCanGrowWithAPipelineWhenActivationsDominate) {
  Scenario s;
  s.model = *find_model("gpt3-175b");
  s.batch.seq_len = 8192;
  s.model.params = shape_params(s.model, s.batch.seq_len);
  s.recipe.memory_model = MemoryModel::kFull;
  s.recipe.zero_stage = 3;
  s.recipe.micro_batch = 8;
  s.batch.global_batch = 32768;
  s.recipe.degrees = Degrees{1024, 1, 2};
  s.fleet.gpus = 2048;
  const Result<Report> two = evaluate(s, false);
  s.recipe.degrees->pp = 4;
  s.fleet.gpus = 4096;
  const Result<Report> four = evaluate(s, false);
  ASSERT_TRUE(two.ok() && four.ok());
  EXPECT_GT(four.value().memory.per_gpu_bytes, two.value().memory.per_gpu_bytes);
  EXPECT_LT(max_model_state_bytes(four.value()), max_model_state_bytes(two.value()));
}

// The interleaved schedule with one model chunk per GPU (v = 1) is plain 1F1B: the same bubble,
// traffic, time and memory. Found by this suite: the in-flight factor 1 + (p-1)/(p v) was
// applied at v = 1 too, so the memory of such a run came out up to twice 1F1B's.
TEST(Property, InterleavedWithOneChunkIsOneFOneB) {
  for_random_scenarios(7, [](const Scenario& s, const Report& r) {
    if (s.recipe.schedule != Schedule::kOneFOneB) return;
    Scenario v = s;
    v.recipe.schedule = Schedule::kInterleaved;
    v.recipe.virtual_stages = 1;
    const Result<Report> same = evaluate(v, false);
    ASSERT_TRUE(same.ok()) << same.error();
    json a = read_back(report_json(r)), b = read_back(report_json(same.value()));
    a.erase("warnings");  // "with PP = 1 it is plain" when there is no pipeline
    b.erase("warnings");
    EXPECT_EQ(a, b) << scenario_json(s).dump();
  });
}

}  // namespace
}  // namespace pe
