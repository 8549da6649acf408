#include "planner/planner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>

#include "model/comms.h"
#include "model/context.h"
#include "model/cost.h"
#include "model/goodput.h"
#include "model/layout_facts.h"
#include "model/memory.h"
#include "model/model_shape.h"
#include "model/moe.h"
#include "model/pipeline.h"
#include "model/schema.h"
#include "model/step_time.h"
#include "model/text.h"
#include "planner/choices.h"
#include "planner/dropped.h"
#include "planner/why_best.h"

namespace pe {
namespace {

// Ascending. Each divisor i up to sqrt(n) pairs with n / i: O(sqrt n) divisions, where
// trying every i up to n cost the search a tenth of its time at 16,384 GPUs.
std::vector<int> divisors(int n) {
  std::vector<int> low, high;
  for (int i = 1; 1LL * i * i <= n; ++i) {
    if (n % i != 0) continue;
    low.push_back(i);
    if (i != n / i) high.push_back(n / i);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

// The context degrees the core accepts for this sequence (context.h context_problem: CP
// divides the sequence, and the heads with Ulysses). No floor on the tokens per rank: short
// chunks cost what the model says they cost (the attention kernel's efficiency, the ring
// passes they cannot hide), and the step decides.
std::vector<int> context_degrees(const Scenario& s, int gpus) {
  std::vector<int> out;
  for (int cp : divisors(gpus)) {
    Degrees d;
    d.cp = cp;
    if (context_problem(s, d).empty()) out.push_back(cp);
  }
  return out;
}

// The expert degrees: 1 for a dense model; for an MoE, every divisor of both dp x cp and the
// experts (Megatron-Core: EP carved out of the data and context ranks, whole experts per rank).
std::vector<int> expert_degrees(const Scenario& s, int dp_cp) {
  if (!s.model.moe()) return {1};
  std::vector<int> out;
  for (int ep : divisors(dp_cp)) {
    if (s.model.experts % ep == 0) out.push_back(ep);
  }
  return out;
}

// Every (DP, TP, PP, CP, EP) the space holds, TP then CP then PP then EP ascending, and how
// many (TP, CP, PP) layouts the heads and layers allow and the global batch refuses.
struct Candidates {
  std::vector<Degrees> degrees;
  int layouts = 0;
  int batch_refused = 0;
  int batch_suggested = 0;  // the smallest batch above the given one a refused DP divides
};

Candidates candidate_degrees(const Scenario& base) {
  Candidates out;
  for (int tp : divisors(base.fleet.gpus)) {
    if (base.model.heads % tp != 0) continue;
    if (base.model.moe() && tp % base.recipe.expert_tp != 0) continue;
    for (int cp : context_degrees(base, base.fleet.gpus / tp)) {
      for (int pp : divisors(base.fleet.gpus / (tp * cp))) {
        if (pp > base.model.layers || !split_problem(base, pp).empty()) continue;
        const int dp = base.fleet.gpus / (tp * cp * pp);
        ++out.layouts;
        if (base.batch.global_batch % dp != 0) {
          ++out.batch_refused;
          const long long next = (base.batch.global_batch / dp + 1LL) * dp;
          if (out.batch_suggested == 0 || next < out.batch_suggested) {
            out.batch_suggested = static_cast<int>(std::min<long long>(next, 1 << 30));
          }
          continue;
        }
        for (int ep : expert_degrees(base, dp * cp)) out.degrees.push_back({dp, tp, pp, cp, ep});
      }
    }
  }
  return out;
}

// A floor under the step of every configuration of layout d: its GPUs' share of the layers'
// training FLOPs with no recomputation, the GEMMs at the fastest precision's rate and the
// attention core at BF16's times the kernel's efficiency on its calls (context.h), the stages
// evenly loaded. Every other part of a step (the bubble, exposed traffic, memory-bound
// kernels, the optimizer) only adds. The search skips a layout whose floor is above the
// slowest of the best top_k layouts so far: none of its configurations could enter the list.
// It is what keeps CP's long tail cheap: chunks of a few tokens run the attention kernel at a
// fraction of its rate.
double layout_floor_s(const Scenario& s, const ModelShape& shape, const Degrees& d,
                      double gemm_rate, double bf16_rate) {
  const ModelShape::StepFlops fl = shape.run_step_flops_per_token(0, s.model.layers, 0u, 0);
  const double tokens = 1.0 * s.batch.global_batch * s.batch.seq_len / d.dp / d.pp / d.tp / d.cp;
  const double attention = attention_kernel_efficiency(attention_kernel_tokens(s, d));
  return tokens * ((fl.total - fl.core) / gemm_rate + fl.core / (bf16_rate * attention));
}

// Model states of `copies` copies of the weights (DualPipe's two, pipeline.h).
MemoryBreakdown scaled(MemoryBreakdown b, int copies) {
  if (copies == 1) return b;
  b.weights_bytes *= copies;
  b.grads_bytes *= copies;
  b.master_bytes *= copies;
  b.adam_m_bytes *= copies;
  b.adam_v_bytes *= copies;
  return b;
}

// The planner's total order (core/README.md "The planner"): faster first; among equally fast,
// less memory first; then fewer GPUs per model replica (TP x PP x CP: the GPUs one copy of the
// model and one sequence span); then the layout's degrees in its name's order (DP, TP, PP, CP,
// EP), smaller first (layout_key, planner.h); within a layout, the configuration's choices,
// smaller first. Exact ties of step and memory happen (two CP degrees of one run can take the
// same step to the bit), and a total order makes the answer the sort's rather than the standard
// library's or the search's: native and wasm list the same plans. Step and memory compare
// exactly, with no tolerance: both builds compute them with the same IEEE operations and no
// libm call that rounds (moe.cpp takes its logarithm without one), so their bits agree; rounding
// them to a tolerance would not help, as two values an ulp apart can straddle any rounding
// boundary. Steps the model cannot tell apart are `tie` (kTieWithin), not reordered.
bool worse(double rank_s, double per_gpu_bytes, const Plan& b) {
  if (rank_s != b.figures.rank_s) return rank_s > b.figures.rank_s;
  return per_gpu_bytes > b.figures.per_gpu_bytes;
}
auto order_key(const Plan& p) {
  return std::tuple_cat(
      layout_key(p.degrees),
      std::make_tuple(p.recipe.zero_stage, p.recipe.micro_batch,
                      static_cast<int>(p.recipe.schedule), p.recipe.virtual_stages,
                      p.recipe.sequence_parallel, p.recipe.precision.name, p.recipe.precision.fp8,
                      static_cast<int>(p.recipe.recompute), p.recipe.recompute_modules,
                      p.recipe.recompute_layers, static_cast<int>(p.recipe.recompute_method),
                      p.recipe.offload_layers));
}
bool better(const Plan& a, const Plan& b) {
  if (a.figures.rank_s != b.figures.rank_s) return a.figures.rank_s < b.figures.rank_s;
  if (a.figures.per_gpu_bytes != b.figures.per_gpu_bytes)
    return a.figures.per_gpu_bytes < b.figures.per_gpu_bytes;
  return order_key(a) < order_key(b);
}

// A layout's best kVariantsPerLayout plans so far. The heap (worst on top) holds only each
// plan's step time, memory and slot, so that sifting moves 24 bytes rather than a Plan; it
// makes the same moves a heap of Plans under `better` would (an exact tie of step and memory
// looks the plans up).
struct KeptPlans {
  struct Key {
    double rank_s;
    double per_gpu_bytes;
    int slot;
  };
  auto key_better() const {
    return [this](const Key& a, const Key& b) {
      if (a.rank_s != b.rank_s) return a.rank_s < b.rank_s;
      if (a.per_gpu_bytes != b.per_gpu_bytes) return a.per_gpu_bytes < b.per_gpu_bytes;
      return order_key(plans[static_cast<size_t>(a.slot)]) <
             order_key(plans[static_cast<size_t>(b.slot)]);
    };
  }
  std::vector<Key> heap;
  std::vector<Plan> plans;  // by slot

  bool full() const { return static_cast<int>(heap.size()) >= kVariantsPerLayout; }
  const Plan& worst() const { return plans[static_cast<size_t>(heap.front().slot)]; }
  void offer(const Plan& p) {
    if (plans.empty()) {
      plans.reserve(kVariantsPerLayout);
      heap.reserve(kVariantsPerLayout);
    }
    if (!full()) {
      plans.push_back(p);
      heap.push_back(
          {p.figures.rank_s, p.figures.per_gpu_bytes, static_cast<int>(plans.size()) - 1});
      std::push_heap(heap.begin(), heap.end(), key_better());
    } else if (better(p, worst())) {
      std::pop_heap(heap.begin(), heap.end(), key_better());
      const int slot = heap.back().slot;
      plans[static_cast<size_t>(slot)] = p;
      heap.back() = {p.figures.rank_s, p.figures.per_gpu_bytes, slot};
      std::push_heap(heap.begin(), heap.end(), key_better());
    }
  }
  // Fastest first.
  std::vector<Plan> sorted() {
    std::sort_heap(heap.begin(), heap.end(), key_better());
    std::vector<Plan> out;
    out.reserve(heap.size());
    for (const Key& k : heap) out.push_back(std::move(plans[static_cast<size_t>(k.slot)]));
    return out;
  }
};

// The layout's best step among the top_k fastest layouts' so far (a max-heap of their best
// steps: its top is the step a layout must beat to enter the list).
void keep_layout_best(const KeptPlans& kept, int top_k, std::vector<double>& layout_bests) {
  if (kept.plans.empty() || top_k <= 0) return;
  double best = INFINITY;
  for (const Plan& p : kept.plans) best = std::min(best, p.figures.rank_s);
  layout_bests.push_back(best);
  std::push_heap(layout_bests.begin(), layout_bests.end());
  if (static_cast<int>(layout_bests.size()) > top_k) {
    std::pop_heap(layout_bests.begin(), layout_bests.end());
    layout_bests.pop_back();
  }
}

// The layouts by their best configuration, fastest first, the first top_k kept, each with its
// next fastest as variants. Ranked by step, each kept plan's goodput is computed once here, not
// for every plan the search built.
template <class ByLayout>
void list_layouts(const Scenario& base, ByLayout& by_layout, int top_k, bool goodput_after,
                  PlanResult& result) {
  std::vector<std::vector<Plan>> layouts;
  for (auto& [key, kept] : by_layout) {
    if (kept.plans.empty()) continue;  // no configuration of the layout fits
    layouts.push_back(kept.sorted());
  }
  std::sort(layouts.begin(), layouts.end(),
            [](const auto& a, const auto& b) { return better(a.front(), b.front()); });
  if (static_cast<int>(layouts.size()) > top_k) layouts.resize(std::max(top_k, 0));
  for (auto& variants : layouts) {
    if (goodput_after) {
      for (Plan& p : variants) {
        p.figures.effective_time = effective_time_of(scenario_of(base, p), p.degrees);
      }
    }
    result.top.push_back(variants.front());
    result.variants.emplace_back(variants.begin() + 1, variants.end());
  }
}

// One layout's memory that no choice but ZeRO changes: the stages that can hold the most
// (memory.h stage_runs: the first of each run), their model states' sum under each ZeRO stage
// for one copy of the weights and for DualPipe's two (pipeline.h parameter_copies), and ZeRO-3's
// gathered weights. None depends on b, the schedule, SP or recomputation. The shard of the
// optimizer each ZeRO stage leaves the busiest stage (step_time.h optimizer_shard) is the
// layout's too.
using PerZero = std::array<double, 4>;  // a figure under each ZeRO stage
struct LayoutStates {
  StageRuns runs;
  // [run][copies - 1][ZeRO stage]: MemoryBreakdown::model_state_bytes of `scaled` states.
  std::array<std::array<PerZero, 2>, kStageRuns> model_state_bytes{};
  std::array<double, kStageRuns> gathered_bytes{};  // memory.h, ZeRO-3's
  PerZero optimizer_shard{};
};

// Computed under the working scenario `s`, which it leaves at 1F1B and ZeRO 3.
LayoutStates layout_states(Scenario& s, const LayoutFacts& facts) {
  LayoutStates out;
  const Degrees& d = facts.degrees();
  out.runs = stage_runs(s, d, facts.split());
  s.recipe.schedule = Schedule::kOneFOneB;
  for (int z = 0; z <= 3; ++z) {
    s.recipe.zero_stage = z;
    const size_t zi = static_cast<size_t>(z);
    for (size_t i = 0; i < out.runs.count; ++i) {
      const StageParams& p = facts.params(out.runs.starts[i]);
      const MemoryBreakdown states =
          sharded_model_state_bytes(s, d, p.dense_per_gpu, p.expert_params_per_gpu);
      for (int copies = 1; copies <= 2; ++copies) {
        out.model_state_bytes[i][static_cast<size_t>(copies - 1)][zi] =
            scaled(states, copies).model_state_bytes();
      }
      if (z == 3) out.gathered_bytes[i] = gathered_weight_bytes(s, facts.shape(), d, p);
    }
    out.optimizer_shard[zi] = optimizer_shard(s, facts, out.runs);
  }
  return out;
}

using RunActivations = std::array<StageActivations, kStageRuns>;
using RunActivationParts = std::array<ActivationParts, kStageRuns>;

// The most-loaded stage's total under ZeRO stage z, summed as memory_report sums each stage
// (memory.h stage_total_bytes, stage_breakdown's total): what the planner ranks and fits by.
double peak_bytes(const LayoutStates& l, const RunActivations& activations, int z, int copies,
                  double overhead_bytes) {
  const size_t zi = static_cast<size_t>(z), ci = static_cast<size_t>(copies - 1);
  double bytes = 0;
  for (size_t i = 0; i < l.runs.count; ++i) {
    const double gathered = z == 3 ? l.gathered_bytes[i] : 0.0;
    const double stage_bytes =
        stage_total_bytes(l.model_state_bytes[i][ci][zi], activations[i], overhead_bytes, gathered);
    if (i == 0 || stage_bytes > bytes) bytes = stage_bytes;
  }
  return bytes;
}

// Interleaving's v, by v: what the core accepts and Megatron-Core builds by default (pipeline.h
// chunks_fit, chunks_problem's rule, and chunks_even: the rules evaluate applies and warns by).
std::vector<bool> chunks_accepted(const Scenario& s, const StageSplit& split, int max_virtual) {
  std::vector<bool> out(static_cast<size_t>(max_virtual) + 1);
  for (int v = 1; v <= max_virtual; ++v) {
    out[static_cast<size_t>(v)] = chunks_fit(s, split, v) && chunks_even(split, v);
  }
  return out;
}

// ZeRO shards dense states over dp x cp and experts' over their own data-parallel group
// (moe.h): only when both are 1 is there nothing to shard. Skipping ZeRO whenever DP was 1 left
// faster plans that fit unlisted.
bool nothing_to_shard(const Scenario& s, const Degrees& d) {
  return d.dp * d.cp == 1 && (!s.model.moe() || expert_data_parallel(s, d) == 1);
}

// The fastest GEMM rate of the precisions searched, for layout_floor_s: each precision's rate is
// at most its peak times the matmul efficiency (step_time.h: a speedup over BF16 never above
// the ratio of the peaks).
double fastest_gemm_rate(const Scenario& base, const std::vector<Precision>& precisions) {
  const GpuSpec& gpu = base.gpu;
  double rate = gpu.peak_tflops * 1e12 * gpu.matmul_efficiency;
  for (const Precision& p : precisions) {
    if (p.fp8) rate = std::max(rate, gpu.fp8_tflops * 1e12 * gpu.matmul_efficiency);
    if (p.fp4) rate = std::max(rate, gpu.fp4_tflops * 1e12 * gpu.matmul_efficiency);
  }
  return rate;
}

// The search, exhaustively (planner.h plan): layouts, then per layout micro-batches, SP,
// precisions, recomputations and schedules, then ZeRO stages. The working scenario s_ holds the
// configuration being tried: each loop sets its own fields of s_.recipe, and a configuration is
// the recipe s_ holds when the ZeRO loop reaches it.
class Search {
 public:
  Search(const Scenario& base, int top_k, const PlanOptions& options);
  PlanResult run();

 private:
  // What one layout's configurations share.
  struct Layout {
    const Degrees& d;
    const LayoutFacts& facts;
    std::vector<RecomputeChoice> choices;
    LayoutStates states;
    std::vector<bool> chunks_accepted;  // by v
    bool nothing_to_shard;
    KeptPlans& kept;
  };
  // A schedule the core accepts for a micro-batch: what it runs, the pipeline it makes, the
  // micro-batches each stage run's first stage holds in flight (pipeline.h) and its pipeline
  // sends without SP and with it (step_time.h pipeline_sends_s).
  struct ScheduleOption {
    Schedule schedule;
    int virtual_stages;
    PipelineReport pipeline;
    int copies;  // of the weights: DualPipe's two
    std::array<double, kStageRuns> inflight;
    std::array<RunSends, 2> sends;  // by SP
  };
  bool stopped();
  void search_layout(const Degrees& d);
  void search_micro_batch(const Layout& l, int m);
  std::vector<ScheduleOption> schedule_options(const Layout& l, int m);
  bool set_schedule(const Layout& l, int option, int most_v, int m);
  const LayerActivations& per_layer_activations(const Layout& l);
  void search_recipe(const Layout& l, int m, const std::vector<ScheduleOption>& schedules,
                     const LayerActivations& per_layer);
  void search_zero(const Layout& l, int m, const ScheduleOption& schedule,
                   const RunActivationParts& parts);
  unsigned fitting_stages(const Layout& l, const ScheduleOption& schedule,
                          const RunActivationParts& parts, unsigned levers, PerZero& bytes);
  void time_stages(const Layout& l, int m, const ScheduleOption& schedule, unsigned levers,
                   unsigned fits, const PerZero& bytes);
  bool cannot_be_kept(const Layout& l, unsigned levers, double rank_floor_s) const;
  const StageTimes& times_of(const Layout& l);
  const PerZero& optimizer_steps(const Layout& l, int copies);
  const KernelEfficiencies& kernels_of(const Layout& l);
  const CommsReport& busiest_of(const Layout& l, int m, const ScheduleOption& schedule);
  void offer(const Layout& l, double bytes, const CommsReport& comms, const TimeReport& t,
             double effective, double rank_s);
  void finish();

  const Scenario& base_;
  const int top_k_;
  const PlanOptions& options_;
  const bool by_failures_;
  Scenario s_;
  // The layers' kinds: the same for every layout and configuration (the planner varies none
  // of the fields they depend on).
  const ModelShape shape_;
  // The GPU's memory less the margin the reader asks for: with none, every plan within the
  // GPU, those past the safe fraction marked tight (memory.h fit_verdict).
  const double gpu_bytes_;
  const double memory_bytes_;
  // Never offer a plan the contract would refuse: v stops where the field's range does.
  const int max_virtual_;
  const std::vector<Precision> precisions_;
  const double bf16_rate_;
  const double gemm_rate_;
  PlanResult result_;
  // Per layout, its best kVariantsPerLayout configurations so far, worst on top.
  std::map<std::array<int, 5>, KeptPlans> by_layout_;
  // The best step of each layout searched, the top_k fastest kept (a max-heap): the top is the
  // step a layout must beat to enter the list (layout_floor_s).
  std::vector<double> layout_bests_;
  LeversSeen seen_;
  // What the recipe s_ holds (b, SP, precision, recomputation) makes of its stages whatever the
  // schedule: their compute, one per recomputation choice of the layout for the b and SP s_
  // holds, built when a first configuration of the recipe fits and restated for each further
  // precision (step_time.h restate_precision: the rest of it is the same); and their times
  // under each kind of schedule (times_built_, a bit per kind).
  struct Work {
    StageWork work;
    size_t precision = kNoPrecision;  // of precisions_, the one `work` is under
  };
  static constexpr size_t kNoPrecision = SIZE_MAX;  // not built yet
  std::vector<Work> works_;
  std::array<StageTimes, 3> times_;  // by stage_times_kind
  unsigned times_built_ = 0;
  // The traffic stages' reports but their data seams (comms.h stage_reports_but_data), one per
  // recomputation choice of the layout, for the b and SP s_ holds: the precision changes none
  // of them. Built when a first configuration is timed, each holds the pipeline seams of the
  // schedule `pipeline_of` (nullptr: not built yet).
  struct StageReports {
    std::vector<CommsReport> reports;  // reused: its capacity outlives the loops
    const ScheduleOption* pipeline_of = nullptr;
  };
  std::vector<StageReports> traffic_;
  size_t choice_ = 0;  // which of the layout's recomputation choices s_ holds
  // A layer's activations (memory.h layer_activations) for the b, SP and precision s_ holds,
  // by the selective modules recomputed: of the recomputation choice, nothing else changes
  // them, and most choices (none, full, offload) recompute no selective module.
  std::vector<std::pair<unsigned, LayerActivations>> activations_by_modules_;
  // The traffic stages' data seams under each precision (of precisions_) and ZeRO stage, for
  // the micro-batches the search is at (comms.h data_seams: no other choice changes them),
  // built when a first configuration is timed (data_built_, a bit per ZeRO stage).
  // With them, each traffic stage's data-parallel parts (step_time.h), which the data seam's
  // exposed time takes.
  struct DataSeams {
    std::vector<SeamTraffic> seams;
    StageDataParts parts;
  };
  std::vector<std::array<DataSeams, 4>> data_seams_;
  std::vector<unsigned> data_built_;
  // The optimizer step under each ZeRO stage, per precision (of precisions_) and copies of the
  // weights, for the layout searched: built when first asked for (optimizer_built_, a bit per
  // number of copies).
  std::vector<std::array<PerZero, 2>> optimizer_steps_;
  std::vector<unsigned> optimizer_built_;
  // The kernels' efficiencies (step_time.h) for the b s_ holds, found when a first
  // configuration of it is paced.
  KernelEfficiencies kernels_;
  bool kernels_built_ = false;
  size_t precision_ = 0;  // which of precisions_ s_ holds
  int done_ = 0;          // progress: layouts searched, of total_
  int total_ = 0;
};

Search::Search(const Scenario& base, int top_k, const PlanOptions& options)
    : base_(base),
      top_k_(top_k),
      options_(options),
      by_failures_(options.rank == PlanRank::kTimeWithFailures),
      s_(with_full_memory(base)),
      shape_(s_),
      gpu_bytes_(base.gpu.memory_gb * 1e9),
      memory_bytes_(gpu_bytes_ * std::max(0.0, 1 - options.headroom)),
      max_virtual_(static_cast<int>(find_field("virtual_stages")->max)),
      precisions_(precision_choices(base)),
      bf16_rate_(base.gpu.peak_tflops * 1e12 * base.gpu.matmul_efficiency),
      gemm_rate_(fastest_gemm_rate(base, precisions_)),
      data_seams_(precisions_.size()),
      data_built_(precisions_.size()),
      optimizer_steps_(precisions_.size()),
      optimizer_built_(precisions_.size()) {
  result_.memory_limit_bytes = memory_bytes_;
  result_.least_bytes = INFINITY;
}

// Whether the caller stops the search here (its progress callback returned false).
bool Search::stopped() {
  result_.cancelled = options_.progress && !options_.progress(done_, total_, result_.evaluated);
  return result_.cancelled;
}

PlanResult Search::run() {
  const Candidates candidates = candidate_degrees(base_);
  result_.layouts = candidates.layouts;
  result_.layouts_batch_refused = candidates.batch_refused;
  result_.batch_suggested = candidates.batch_suggested;
  total_ = static_cast<int>(candidates.degrees.size());
  if (stopped()) return std::move(result_);
  for (const Degrees& d : candidates.degrees) {
    ++done_;
    if (stopped()) return std::move(result_);
    search_layout(d);
  }
  finish();
  return std::move(result_);
}

void Search::search_layout(const Degrees& d) {
  if (top_k_ > 0 && static_cast<int>(layout_bests_.size()) == top_k_ &&
      layout_floor_s(s_, shape_, d, gemm_rate_, bf16_rate_) > layout_bests_.front()) {
    return;
  }
  // What the layout's configurations share: split, spans, hops, shards (layout_facts.h).
  const LayoutFacts facts(s_, shape_, d);
  std::fill(optimizer_built_.begin(), optimizer_built_.end(), 0u);
  // Braces evaluate in order: layout_states leaves s_ at 1F1B before chunks_accepted reads it.
  const Layout l{d,
                 facts,
                 recompute_choices(base_, facts.split().most(), d.pp),
                 layout_states(s_, facts),
                 chunks_accepted(s_, facts.split(), max_virtual_),
                 nothing_to_shard(s_, d),
                 by_layout_[{d.dp, d.tp, d.pp, d.cp, d.ep}]};
  const int batch = base_.batch.global_batch;
  for (int b = 1; b <= 64 && b * d.dp <= batch; b *= 2) {
    if (batch % (b * d.dp) != 0) continue;
    s_.recipe.micro_batch = b;
    search_micro_batch(l, batch / (b * d.dp));
  }
  keep_layout_best(l.kept, top_k_, layout_bests_);
}

// Every SP, precision, recomputation and schedule for the micro-batch s_ holds (m of them). The
// schedule is the innermost choice: what a recipe's stages compute does not depend on it.
void Search::search_micro_batch(const Layout& l, int m) {
  const std::vector<ScheduleOption> schedules = schedule_options(l, m);
  if (schedules.empty()) return;
  std::fill(data_built_.begin(), data_built_.end(), 0u);
  kernels_built_ = false;
  if (traffic_.size() < l.choices.size()) traffic_.resize(l.choices.size());
  if (works_.size() < l.choices.size()) works_.resize(l.choices.size());
  for (int sp = 0; sp <= (l.d.tp > 1 ? 1 : 0); ++sp) {
    s_.recipe.sequence_parallel = sp == 1;
    for (StageReports& traffic : traffic_) traffic.pipeline_of = nullptr;
    for (Work& work : works_) work.precision = kNoPrecision;
    for (precision_ = 0; precision_ < precisions_.size(); ++precision_) {
      s_.recipe.precision = precisions_[precision_];
      activations_by_modules_.clear();
      for (choice_ = 0; choice_ < l.choices.size(); ++choice_) {
        l.choices[choice_].apply_to(s_.recipe);
        search_recipe(l, m, schedules, per_layer_activations(l));
      }
    }
  }
}

// The schedules the core accepts for the micro-batch s_ holds. Neither they nor their
// pipelines depend on SP, the precision or recomputation.
std::vector<Search::ScheduleOption> Search::schedule_options(const Layout& l, int m) {
  const int pp = l.d.pp;
  const int most_v = pp > 1 ? std::min(l.facts.split().most(), max_virtual_) : 1;
  std::vector<ScheduleOption> out;
  for (int option = 1; option <= most_v + (pp > 1 ? kSplitSchedules : 0); ++option) {
    if (!set_schedule(l, option, most_v, m)) continue;
    ScheduleOption& o = out.emplace_back();
    o.schedule = s_.recipe.schedule;
    o.virtual_stages = s_.recipe.virtual_stages;
    o.pipeline = pipeline_report(s_, l.d);
    o.copies = parameter_copies(s_, pp);
    for (size_t i = 0; i < l.states.runs.count; ++i) {
      o.inflight[i] = inflight_microbatches(s_, l.d, l.states.runs.starts[i], m);
    }
    for (int sp = 0; sp <= (l.d.tp > 1 ? 1 : 0); ++sp) {
      s_.recipe.sequence_parallel = sp == 1;
      o.sends[static_cast<size_t>(sp)] = pipeline_sends_s(s_, l.facts, l.states.runs, m);
    }
  }
  return out;
}

// Schedule option k into s_, or false where the core refuses it: k = 1 is 1F1B; up to most_v,
// interleaved with v = k; past it, with a pipeline, the schedules that split the backward
// wherever their requirements hold (pipeline.h schedule_problem, schedule_refused).
bool Search::set_schedule(const Layout& l, int option, int most_v, int m) {
  if (option > most_v) {
    const int split = static_cast<int>(Schedule::kZbH1) + option - most_v - 1;
    s_.recipe.schedule = static_cast<Schedule>(split);
    s_.recipe.virtual_stages = 1;
    return !schedule_refused(s_, l.d, m);
  }
  if (!l.chunks_accepted[static_cast<size_t>(option)]) return false;
  s_.recipe.schedule = option > 1 ? Schedule::kInterleaved : Schedule::kOneFOneB;
  s_.recipe.virtual_stages = option;
  return true;
}

// A layer's activations for the recipe s_ holds, computed once per selective modules
// recomputed for the b, SP and precision it holds.
const LayerActivations& Search::per_layer_activations(const Layout& l) {
  const unsigned modules = s_.recipe.selective_modules();
  for (const auto& [held, activations] : activations_by_modules_) {
    if (held == modules) return activations;
  }
  activations_by_modules_.emplace_back(modules, layer_activations(s_, shape_, l.d));
  return activations_by_modules_.back().second;
}

// The recipe s_ holds under each schedule, its stages' activations but the micro-batches in
// flight (memory.h activation_parts) the same under all.
void Search::search_recipe(const Layout& l, int m, const std::vector<ScheduleOption>& schedules,
                           const LayerActivations& per_layer) {
  RunActivationParts parts{};
  for (size_t i = 0; i < l.states.runs.count; ++i) {
    const StageParams& p = l.facts.params(l.states.runs.starts[i]);
    parts[i] = activation_parts(s_, shape_, l.d, p, per_layer, m);
  }
  times_built_ = 0;
  for (const ScheduleOption& option : schedules) {
    s_.recipe.schedule = option.schedule;
    s_.recipe.virtual_stages = option.virtual_stages;
    search_zero(l, m, option, parts);
  }
}

// What the stages of the recipe s_ holds take per micro-batch under its schedule's kind
// (step_time.h), from their work under any schedule.
const StageTimes& Search::times_of(const Layout& l) {
  Work& w = works_[choice_];
  if (w.precision == kNoPrecision) {
    stage_work(s_, l.facts, w.work);
  } else if (w.precision != precision_) {
    restate_precision(s_, l.facts, w.work);
  }
  w.precision = precision_;
  const int kind = stage_times_kind(s_.recipe.schedule);
  StageTimes& times = times_[static_cast<size_t>(kind)];
  if (!(times_built_ & (1u << kind))) {
    stage_times(s_, l.facts, w.work, times);
    times_built_ |= 1u << kind;
  }
  return times;
}

// The optimizer step (step_time.h optimizer_time_s) of the layout's shard under each ZeRO
// stage, for the precision s_ holds and `copies` of the weights (the schedule's).
const PerZero& Search::optimizer_steps(const Layout& l, int copies) {
  const size_t ci = static_cast<size_t>(copies - 1);
  PerZero& steps = optimizer_steps_[precision_][ci];
  if (!(optimizer_built_[precision_] & (1u << ci))) {
    for (size_t z = 0; z < steps.size(); ++z) {
      steps[z] = optimizer_time_s(s_, l.d.pp, l.states.optimizer_shard[z]);
    }
    optimizer_built_[precision_] |= 1u << ci;
  }
  return steps;
}

// The kernels' efficiencies for the b s_ holds: once per b, as nothing else changes them.
const KernelEfficiencies& Search::kernels_of(const Layout& l) {
  if (!kernels_built_) {
    kernels_ = kernel_efficiencies(s_, l.facts);
    kernels_built_ = true;
  }
  return kernels_;
}

// The busiest stage's traffic (comms.h) for the configuration s_ holds under `schedule`: every
// traffic stage's but the data seam's built once per recipe but its precision, its pipeline
// seam again when the schedule is another, with the data seams under the precision and ZeRO
// stage s_ holds.
const CommsReport& Search::busiest_of(const Layout& l, int m, const ScheduleOption& schedule) {
  StageReports& traffic = traffic_[choice_];
  if (!traffic.pipeline_of) {
    stage_reports_but_data(s_, l.facts, m, traffic.reports);
  } else if (traffic.pipeline_of != &schedule) {
    refresh_pipeline_traffic(s_, l.facts, m, traffic.reports);
  }
  traffic.pipeline_of = &schedule;
  const size_t zi = static_cast<size_t>(s_.recipe.zero_stage);
  DataSeams& data = data_seams_[precision_][zi];
  if (!(data_built_[precision_] & (1u << zi))) {
    data_seams(s_, l.facts, m, traffic.reports, data.seams);
    data_parallel_parts_of_stages(s_, l.facts, m, data.parts);
    data_built_[precision_] |= 1u << zi;
  }
  return busiest_stage(data.seams, traffic.reports);
}

// The configuration s_ holds under each ZeRO stage: its memory, and for each that fits its
// traffic and step.
void Search::search_zero(const Layout& l, int m, const ScheduleOption& schedule,
                         const RunActivationParts& parts) {
  const unsigned levers = lever_bits(s_, l.d);
  PerZero bytes{};
  const unsigned fits = fitting_stages(l, schedule, parts, levers, bytes);
  if (fits != 0) time_stages(l, m, schedule, levers, fits, bytes);
}

// Each ZeRO stage's memory for the configuration s_ holds, every one counted as evaluated and
// those within the limit as feasible: the stages that fit, one bit each.
unsigned Search::fitting_stages(const Layout& l, const ScheduleOption& schedule,
                                const RunActivationParts& parts, unsigned levers, PerZero& bytes) {
  // Each candidate stage's activations (memory.h), the same under every ZeRO stage.
  RunActivations activations{};
  for (size_t i = 0; i < l.states.runs.count; ++i) {
    activations[i] = stage_activations(parts[i], schedule.inflight[i]);
  }
  double least = INFINITY;  // of this recipe, over the ZeRO stages
  unsigned fits = 0;
  for (int z = 0; z <= 3; ++z) {
    if (z > 0 && l.nothing_to_shard) break;
    ++result_.evaluated;
    const size_t zi = static_cast<size_t>(z);
    bytes[zi] = peak_bytes(l.states, activations, z, schedule.copies, s_.recipe.overhead_gb * 1e9);
    least = std::min(least, bytes[zi]);
    if (bytes[zi] > memory_bytes_) continue;
    ++result_.feasible;
    fits |= 1u << z;
  }
  result_.least_bytes = std::min(result_.least_bytes, least);
  if (levers != 0) seen_.least(levers, least, l.d);
  return fits;
}

// Whether a configuration of layout l pulling `levers`, whatever it ranks by at least
// rank_floor_s, can change the answer: it enters no list when its layout keeps its full count
// of plans, each ranked lower, and no lever it pulls has a plan ranked lower yet. Those only
// rank lower as the search goes, so what cannot be kept now never can. (Another layout's top
// does not bound it: its layout may still be listed, and the plan with it among its variants.)
bool Search::cannot_be_kept(const Layout& l, unsigned levers, double rank_floor_s) const {
  if (!l.kept.full() || !(rank_floor_s > l.kept.worst().figures.rank_s)) return false;
  for (size_t i = 0; levers != 0; ++i, levers >>= 1) {
    if ((levers & 1u) && !(rank_floor_s > seen_.by[i].rank_s)) return false;
  }
  return true;
}

// The ZeRO stages in `fits` of the configuration s_ holds: the traffic and step of each that
// its floor (step_time.h step_floor_s) does not rule out, offered to its layout's plans.
void Search::time_stages(const Layout& l, int m, const ScheduleOption& schedule, unsigned levers,
                         unsigned fits, const PerZero& bytes) {
  const StageTimes& times = times_of(l);
  // Ranked by the time to train with failures, the step over the effective time (which does
  // not depend on the step: goodput.h).
  PerZero effective{};
  // The optimizer step under each ZeRO stage, the floors' last term (step_time.h).
  const PerZero& optimizer_s = optimizer_steps(l, schedule.copies);
  const auto floor_of = [&](double floor_s, size_t z) {
    const double step_s = floor_s + optimizer_s[z];
    return effective[z] > 0 ? step_s / effective[z] : INFINITY;
  };
  const double times_floor_s = step_floor_s(s_, times, schedule.pipeline);
  unsigned open = 0;  // the stages the floor before the pace leaves
  for (int z = 0; z <= 3; ++z) {
    if (!(fits & (1u << z))) continue;
    s_.recipe.zero_stage = z;
    const size_t zi = static_cast<size_t>(z);
    effective[zi] = by_failures_ ? effective_time_of(s_, l.d) : 1;
    if (!cannot_be_kept(l, levers, floor_of(times_floor_s, zi))) open |= 1u << z;
  }
  if (open == 0) return;
  // The pace and the step but its data seam do not depend on ZeRO: once for all its stages.
  const RunSends& sends_s = schedule.sends[s_.recipe.sequence_parallel ? 1 : 0];
  const PipelinePace pace = pipeline_pace(s_, l.facts, schedule.pipeline, times, sends_s);
  const TimeReport paced_t = paced_time(s_, l.facts, schedule.pipeline, pace, kernels_of(l));
  const double paced_floor_s = step_floor_s(paced_t);
  for (int z = 0; z <= 3; ++z) {
    if (!(open & (1u << z))) continue;
    s_.recipe.zero_stage = z;
    const size_t zi = static_cast<size_t>(z);
    if (cannot_be_kept(l, levers, floor_of(paced_floor_s, zi))) continue;
    const CommsReport& comms = busiest_of(l, m, schedule);
    // busiest_of has built the data seam's parts for the precision and ZeRO stage s_ holds.
    const DataSeams& data = data_seams_[precision_][zi];
    const double data_s = exposed_data_s(s_, l.facts, comms, pace, data.parts);
    const double step_s = finished_step_s(paced_t, data_s, optimizer_s[zi]);
    const double rank_s = effective[zi] > 0 ? step_s / effective[zi] : INFINITY;
    if (levers != 0) seen_.fastest(levers, rank_s, step_s, bytes[zi], l.d);
    // A full heap keeps only what beats its worst: the rest need no Plan built, nor the
    // report's figures past the step (an exact tie is built, and the order's later keys decide).
    if (l.kept.full() && worse(rank_s, bytes[zi], l.kept.worst())) continue;
    TimeReport t = paced_t;
    finish_time(s_, l.facts, data_s, base_.batch.global_batch, optimizer_s[zi], t);
    offer(l, bytes[zi], comms, t, effective[zi], rank_s);
  }
}

// The configuration s_ holds, to its layout's kept plans.
void Search::offer(const Layout& l, double bytes, const CommsReport& comms, const TimeReport& t,
                   double effective, double rank_s) {
  Plan p;
  p.degrees = l.d;
  p.recipe = s_.recipe;
  p.recipe.degrees = l.d;
  p.figures.per_gpu_bytes = bytes;
  p.figures.verdict = verdict_name(fit_verdict(bytes, gpu_bytes_));
  p.figures.comms = comms;
  p.figures.step_s = t.step_s;
  p.figures.effective_time = effective;
  p.figures.rank_s = rank_s;
  p.figures.bubble_fraction = bubble_fraction(t);
  p.figures.mfu = t.mfu;
  p.figures.tokens_per_s = t.tokens_per_s;
  const double gpu_hours = gpu_hours_per_trillion_tokens(s_.fleet.gpus, t.tokens_per_s);
  p.figures.usd_per_trillion_tokens = gpu_hours * s_.economics.price_per_gpu_hour;
  l.kept.offer(p);
}

// The kept layouts listed, and the answer in words: why the best wins, the batch's warnings,
// the levers it drops (the decisive one also in why_best).
void Search::finish() {
  list_layouts(base_, by_layout_, top_k_, !by_failures_, result_);
  if (!std::isfinite(result_.least_bytes)) result_.least_bytes = 0;
  result_.why_best = why_best(base_, result_, options_.rank);
  result_.warnings = batch_warnings(base_, result_);
  DroppedList dropped = dropped_levers(base_, result_, seen_, options_.rank);
  if (dropped.decisive >= 0) {
    const Dropped& d = dropped.list[static_cast<size_t>(dropped.decisive)];
    result_.why_best += " It drops " + d.what + ": " + d.why + ".";
  }
  result_.dropped = std::move(dropped.list);
}

}  // namespace

Scenario scenario_of(const Scenario& base, const Plan& p) {
  Scenario s = base;
  s.recipe = p.recipe;
  return s;
}

PlanResult plan(const Scenario& base, int top_k, const PlanOptions& options) {
  return Search(base, top_k, options).run();
}

}  // namespace pe
