// Google Benchmark for the core: one scenario evaluation at the book's 16 GPUs and at the
// book's 10,240-GPU fleet. scripts/bench prints the table.
#include <benchmark/benchmark.h>

#include "contract/contract.h"
#include "model/explorer.h"
#include "model/model_shape.h"
#include "model/presets.h"
#include "planner/planner.h"

namespace {

pe::Scenario fleet(int dp, int tp, int pp) {
  pe::Scenario s;
  s.fleet.gpus = dp * tp * pp;
  s.recipe.degrees = pe::Degrees{dp, tp, pp};
  s.recipe.memory_model = pe::MemoryModel::kFull;
  s.batch.global_batch = 2560;
  return s;
}

void BM_Evaluate16Gpus(benchmark::State& state) {
  const pe::Scenario s = fleet(2, 4, 2);
  for (auto _ : state) benchmark::DoNotOptimize(pe::evaluate(s, /*with_ranks=*/true));
}
BENCHMARK(BM_Evaluate16Gpus);

void BM_Evaluate10240GpusNoRanks(benchmark::State& state) {
  const pe::Scenario s = fleet(80, 8, 16);
  for (auto _ : state) benchmark::DoNotOptimize(pe::evaluate(s, /*with_ranks=*/false));
}
BENCHMARK(BM_Evaluate10240GpusNoRanks);

void BM_EvaluateJson10240Gpus(benchmark::State& state) {
  const std::string scenario =
      R"({"gpus":10240,"degrees":{"dp":80,"tp":8,"pp":16},"global_batch":2560})";
  for (auto _ : state) benchmark::DoNotOptimize(pe::evaluate_json(scenario));
}
BENCHMARK(BM_EvaluateJson10240Gpus)->Unit(benchmark::kMillisecond);

}  // namespace

namespace {

// The planner's whole search on s, timed; configs_per_s is the figure its target is set in.
void run_plan(benchmark::State& state, const pe::Scenario& s) {
  long long evaluated = 0;
  for (auto _ : state) {
    const pe::PlanResult r = pe::plan(s, 10);
    evaluated += r.evaluated;
    benchmark::DoNotOptimize(r);
  }
  state.counters["configs_per_s"] =
      benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
  state.counters["configs"] = static_cast<double>(evaluated / state.iterations());
}

// The yardstick: the 405B Llama 3 class on 16,384 H100s, every layout.
void BM_Plan405BOn16384H100(benchmark::State& state) {
  pe::Scenario s;
  s.model = *pe::find_model("llama3-405b");
  s.fleet.gpus = 16384;
  s.gpu = *pe::find_gpu("H100-80GB");
  s.gpu.network_gb_s = 50;
  s.batch.seq_len = 8192;
  s.batch.global_batch = 2048;
  run_plan(state, s);
}
BENCHMARK(BM_Plan405BOn16384H100)->Unit(benchmark::kMillisecond);

}  // namespace

namespace {

// The five seams' space: DeepSeek-V3 on 2,048 H800 (every EP dividing DP and the 256
// experts) and Llama 3 405B's 131K-token stage on 16,384 H100 (CP searched).
void BM_PlanDeepSeekV3On2048H800(benchmark::State& state) {
  pe::Scenario s;
  s.model = *pe::find_model("deepseek-v3");
  s.batch.seq_len = 4096;
  s.model.params = pe::shape_params(s.model, s.batch.seq_len);
  s.fleet.gpus = 2048;
  s.gpu = *pe::find_gpu("H800-80GB");
  s.gpu.network_gb_s = 50;
  s.batch.global_batch = 15360;
  run_plan(state, s);
}
BENCHMARK(BM_PlanDeepSeekV3On2048H800)->Unit(benchmark::kMillisecond);

void BM_PlanLlamaLongContextOn16384H100(benchmark::State& state) {
  pe::Scenario s;
  s.model = *pe::find_model("llama3-405b");
  s.batch.seq_len = 131072;
  s.model.params = pe::shape_params(s.model, s.batch.seq_len);
  s.fleet.gpus = 16384;
  s.gpu = *pe::find_gpu("H100-80GB");
  s.gpu.network_gb_s = 50;
  s.batch.global_batch = 128;
  run_plan(state, s);
}
BENCHMARK(BM_PlanLlamaLongContextOn16384H100)->Unit(benchmark::kMillisecond);

}  // namespace
