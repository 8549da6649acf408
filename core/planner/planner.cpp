#include "planner/planner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

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
double step_floor_s(const Scenario& s, const ModelShape& shape, const Degrees& d, double gemm_rate,
                    double bf16_rate) {
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

// The explanation speaks as the page does: "a 23.4% bubble", "an 8.96% bubble", "72.6 GB".
std::string percent(double fraction) { return short_number(100 * fraction) + "%"; }
// "a 23.4%", "an 8.96%".
std::string a_percent(double fraction) {
  const std::string text = percent(fraction);
  return article(text) + " " + text;
}
std::string gb(double bytes) { return bytes_text(bytes); }

std::string count(long long n) { return count_text(n); }

// Why nothing is feasible: the layers and heads, the batch, or memory, with its numbers.
std::string why_none(const Scenario& base, const PlanResult& r) {
  const std::string gpus = count(base.fleet.gpus) + " GPUs";
  if (r.layouts == 0) {
    return "No layout: no DP x TP x PP of " + gpus + " has TP dividing the " +
           count(base.model.heads) + " heads and at most " + count(base.model.layers) +
           " pipeline stages (one per layer). Use a GPU count with more small factors.";
  }
  if (r.layouts_batch_refused == r.layouts) {
    // The smallest batch some layout's DP divides: rounding up to a multiple of 64 suggested
    // the batch just refused (64 on 14 GPUs, DP 7 or 14) or another none divides (128).
    return "No layout: the global batch of " + count(base.batch.global_batch) +
           " sequences divides by none of the DP degrees " + gpus +
           " allow (every replica needs a whole number of sequences). The smallest batch above "
           "it that one of them divides is " +
           count(r.batch_suggested) + ".";
  }
  const double has = base.gpu.memory_gb * 1e9;
  const double margin = 1 - r.memory_limit_bytes / has;
  const std::string limit = margin > 1e-9
                                ? "the " + gb(r.memory_limit_bytes) + " each GPU may use (its " +
                                      gb(has) + " less " + a_percent(margin) + " margin)"
                                : "the " + gb(has) + " of each GPU";
  return "No layout fits: the least any configuration needs is " + gb(r.least_bytes) +
         " per GPU, more than " + limit + ". Use more or larger GPUs.";
}

// The batch too small for the fleet: the best plan runs fewer micro-batches than stages (the
// bubble (p - 1)/m passes 100%), or the batch caps DP below one replica per node. The
// suggestion is the smallest batch with m = 4p micro-batches for the same layout, bubble
// (p - 1)/(4p) < 25%, and DP able to reach one replica per node.
std::vector<std::string> batch_warnings(const Scenario& base, const PlanResult& r) {
  std::vector<std::string> out;
  if (r.top.empty()) return out;
  const Plan& p = r.top.front();
  const int m = base.batch.global_batch / (p.recipe.micro_batch * p.degrees.dp);
  const long long nodes = std::max(1, base.fleet.gpus / std::max(1, base.fleet.gpus_per_node));
  const long long for_stages = 4LL * p.degrees.pp * p.recipe.micro_batch * p.degrees.dp;
  const long long for_dp = nodes * 4;
  if (p.degrees.pp > 1 && m < p.degrees.pp) {
    out.push_back("The global batch of " + count(base.batch.global_batch) +
                  " sequences is small for " + count(base.fleet.gpus) +
                  " GPUs: the best layout runs " + count(m) + " micro-batches through " +
                  count(p.degrees.pp) + " pipeline stages, " +
                  a_percent(p.figures.bubble_fraction) + " bubble (MFU " + percent(p.figures.mfu) +
                  "). A global batch of " + count(for_stages) + " sequences would give " +
                  count(4LL * p.degrees.pp) + " micro-batches, a bubble under 25%.");
  }
  if (base.batch.global_batch < nodes) {
    out.push_back("The global batch of " + count(base.batch.global_batch) +
                  " sequences starves DP: " + "fewer sequences than the " + count(nodes) +
                  " nodes, so DP cannot give each node a replica and TP or PP must grow past a "
                  "node. A global batch of " +
                  count(for_dp) + " sequences or more lets DP reach one replica per node.");
  }
  return out;
}

// A link in words: the report's "nvlink" and "network".
std::string link_words(const std::string& link) {
  return link == "nvlink" ? "NVLink" : link == "network" ? "the network" : link;
}

std::string explain(const Scenario& base, const PlanResult& r, PlanRank rank) {
  if (r.top.empty()) return why_none(base, r);
  const Plan& p = r.top.front();
  const Degrees& d = p.degrees;
  std::string why = "DP " + std::to_string(d.dp) + " x TP " + std::to_string(d.tp) + " x PP " +
                    std::to_string(d.pp) +
                    (d.cp > 1 ? " x CP " + std::to_string(d.cp) : std::string()) +
                    (d.ep > 1 ? " (EP " + std::to_string(d.ep) + ")" : std::string()) + " wins: ";
  // A TP group wider than a node that stays in the NVLink domain (a GB200 NVL72's trays).
  const bool trays = d.tp > base.fleet.gpus_per_node && base.domain_spans_nodes();
  why += d.tp > 1 ? std::string("TP ") + std::to_string(d.tp) +
                        (std::string(p.figures.comms.tensor.link) != "nvlink"
                             ? " pays for all-reduces over the network"
                         : trays ? " stays inside the " + std::to_string(base.domain_gpus()) +
                                       "-GPU NVLink domain (across trays of " +
                                       std::to_string(base.fleet.gpus_per_node) +
                                       "), its per-layer all-reduces on NVLink"
                                 : " keeps the per-layer all-reduces on NVLink")
                  : std::string("no TP, so no per-layer all-reduces");
  why += d.pp > 1 ? ", PP " + std::to_string(d.pp) +
                        (splits_weight_grad(p.recipe.schedule)
                             ? std::string(" with ") + schedule_words(p.recipe.schedule)
                             : std::string()) +
                        " costs " + a_percent(p.figures.bubble_fraction) + " bubble"
                  : ", no pipeline bubble";
  if (d.cp > 1) {
    why += ", CP " + std::to_string(d.cp) + " splits each sequence (its K/V ride " +
           link_words(p.figures.comms.context.link) + ")";
  }
  if (d.ep > 1) {
    why += ", EP " + std::to_string(d.ep) + " splits the experts (their all-to-alls ride " +
           link_words(p.figures.comms.expert.link) + ")";
  }
  why += ", and it needs " + gb(p.figures.per_gpu_bytes) + " of the " +
         gb(base.gpu.memory_gb * 1e9) + " per GPU";
  const bool failures = rank == PlanRank::kTimeWithFailures;
  if (failures) {
    why += "; with failures and checkpoints " + percent(p.figures.effective_time) +
           " of its time is new "
           "work";
  }
  if (r.top.size() > 1) {
    const double lead = r.top[1].figures.rank_s / p.figures.rank_s - 1;
    const std::string to_train = failures ? " to train with failures" : "";
    why += ties_with_best(r.top[1].figures.rank_s, p.figures.rank_s)
               ? "; the next layout is " + percent(lead) + " slower" + to_train + ", within " +
                     percent(kTieWithin) + ": the model cannot tell them apart"
               : "; " + percent(lead) + " faster" + to_train + " than the next layout";
  }
  return why + ".";
}

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

}  // namespace

Scenario scenario_of(const Scenario& base, const Plan& p) {
  Scenario s = base;
  s.recipe = p.recipe;
  return s;
}

PlanResult plan(const Scenario& base, int top_k, const PlanOptions& options) {
  const bool by_failures = options.rank == PlanRank::kTimeWithFailures;
  PlanResult result;
  Scenario s = base;
  s.recipe.memory_model = MemoryModel::kFull;
  // The layers' kinds: the same for every layout and configuration (the planner varies none of
  // the fields they depend on).
  const ModelShape shape(s);
  // The GPU's memory less the margin the reader asks for: with none, every plan within the
  // GPU, those past the safe fraction marked tight (memory.h fit_verdict).
  const double gpu_bytes = base.gpu.memory_gb * 1e9;
  const double memory_bytes = gpu_bytes * std::max(0.0, 1 - options.headroom);
  result.memory_limit_bytes = memory_bytes;
  result.least_bytes = INFINITY;
  // Never offer a plan the contract would refuse: v stops where the field's range does.
  const int max_virtual = static_cast<int>(find_field("virtual_stages")->max);
  // Per layout, its best kVariantsPerLayout configurations so far, worst on top.
  using Key = std::array<int, 5>;
  std::map<Key, KeptPlans> by_layout;
  // Progress: one step per (DP, TP, PP, CP, EP) layout searched.
  const Candidates candidates = candidate_degrees(base);
  result.layouts = candidates.layouts;
  result.layouts_batch_refused = candidates.batch_refused;
  result.batch_suggested = candidates.batch_suggested;
  const int total = static_cast<int>(candidates.degrees.size());
  const std::vector<Precision> precisions = precision_choices(base);
  LeversSeen seen;
  std::vector<CommsReport> traffic;  // reused: its capacity outlives the loop
  int done = 0;
  // Whether the caller stops the search here (its progress callback returned false).
  auto stopped = [&] {
    result.cancelled = options.progress && !options.progress(done, total, result.evaluated);
    return result.cancelled;
  };
  if (stopped()) return result;
  // The best step of each layout searched, the top_k fastest kept (a max-heap): the top is the
  // step a layout must beat to enter the list.
  std::vector<double> layout_bests;
  const double bf16_rate = base.gpu.peak_tflops * 1e12 * base.gpu.matmul_efficiency;
  double gemm_rate = bf16_rate;
  for (const Precision& p : precisions) {
    if (p.fp8)
      gemm_rate = std::max(gemm_rate, base.gpu.fp8_tflops * 1e12 * base.gpu.matmul_efficiency);
  }

  for (const Degrees& d : candidates.degrees) {
    ++done;
    if (stopped()) return result;
    if (top_k > 0 && static_cast<int>(layout_bests.size()) == top_k &&
        step_floor_s(s, shape, d, gemm_rate, bf16_rate) > layout_bests.front()) {
      continue;
    }
    const int pp = d.pp, tp = d.tp;
    // What the layout's configurations share: split, spans, hops, shards (layout_facts.h).
    const LayoutFacts facts(s, shape, d);
    const std::vector<RecomputeChoice> choices = recompute_choices(base, facts.split().most(), pp);
    KeptPlans& kept = by_layout[Key{d.dp, d.tp, d.pp, d.cp, d.ep}];
    const StageSplit& split = facts.split();
    // The stages that can hold the most (memory.h stage_runs: the first of each run), and
    // their model states under each ZeRO stage: neither depends on b, the schedule, SP or
    // recomputation.
    const StageRuns runs = stage_runs(s, d, split);
    const std::array<int, kStageRuns + 1>& peak_stages = runs.starts;
    const size_t peaks = runs.count;
    std::array<std::array<MemoryBreakdown, 4>, kStageRuns> states{};
    std::array<double, kStageRuns> gathered{};
    s.recipe.schedule =
        Schedule::kOneFOneB;  // one copy of the weights (DualPipe's: x copies below)
    for (int z = 0; z <= 3; ++z) {
      s.recipe.zero_stage = z;
      for (size_t i = 0; i < peaks; ++i) {
        const StageParams& p = facts.params(peak_stages[i]);
        states[i][static_cast<size_t>(z)] =
            sharded_model_state_bytes(s, d, p.dense_per_gpu, p.expert_params_per_gpu);
        // ZeRO-3's gathered weights (memory.h), which depend on no other choice of the loop.
        if (z == 3) gathered[i] = gathered_weight_bytes(s, shape, d, p);
      }
    }
    const double overhead_bytes = s.recipe.overhead_gb * 1e9;
    // Interleaving's v: what the core accepts and Megatron-Core builds by default (pipeline.h
    // chunks_problem, chunks_even: the rules evaluate applies and warns by).
    std::vector<bool> chunks_accepted(static_cast<size_t>(max_virtual) + 1);
    for (int v = 1; v <= max_virtual; ++v) {
      chunks_accepted[static_cast<size_t>(v)] =
          chunks_problem(s, pp, v).empty() && chunks_even(split, v);
    }
    const bool nothing_to_shard =
        d.dp * d.cp == 1 && (!s.model.moe() || expert_data_parallel(s, d) == 1);
    for (int b = 1; b <= 64 && b * d.dp <= base.batch.global_batch; b *= 2) {
      if (base.batch.global_batch % (b * d.dp) != 0) continue;
      s.recipe.micro_batch = b;
      const int m = base.batch.global_batch / (b * d.dp);
      // v = 1 is 1F1B; v > 1 interleaved; then, with a pipeline, the schedules that split the
      // backward wherever their requirements hold (pipeline.h schedule_problem).
      const int most_v = pp > 1 ? std::min(split.most(), max_virtual) : 1;
      for (int option = 1; option <= most_v + (pp > 1 ? kSplitSchedules : 0); ++option) {
        const int v = std::min(option, most_v);
        if (option > most_v) {
          s.recipe.schedule =
              static_cast<Schedule>(static_cast<int>(Schedule::kZbH1) + option - most_v - 1);
          s.recipe.virtual_stages = 1;
          if (!schedule_problem(s, d, m).empty()) continue;
        } else {
          if (!chunks_accepted[static_cast<size_t>(v)]) continue;
          s.recipe.schedule = v > 1 ? Schedule::kInterleaved : Schedule::kOneFOneB;
          s.recipe.virtual_stages = v;
        }
        const int copies = parameter_copies(s, pp);  // DualPipe's two copies of the weights
        const PipelineReport pipeline = pipeline_report(s, d);
        for (int sp = 0; sp <= (tp > 1 ? 1 : 0); ++sp) {
          s.recipe.sequence_parallel = sp == 1;
          for (const Precision& precision : precisions) {
            s.recipe.precision = precision;
            for (const RecomputeChoice& choice : choices) {
              choice.apply_to(s.recipe);
              const unsigned levers = lever_bits(s, d);
              double least = INFINITY;  // of this choice, over the ZeRO stages
              // Each candidate stage's activations (memory.h), the same under every ZeRO stage.
              const LayerActivations per_layer = layer_activations(s, shape, d);
              std::array<StageActivations, kStageRuns> activations{};
              for (size_t i = 0; i < peaks; ++i) {
                activations[i] =
                    stage_activations(s, shape, d, facts.params(peak_stages[i]), per_layer, m);
              }
              // The pipeline's pace (step_time.h) does not depend on ZeRO: computed for the
              // first ZeRO stage that fits, kept for the others.
              PipelinePace pace;
              bool paced = false;  // and the stages' traffic but the data seam's (comms.h)
              for (int z = 0; z <= 3; ++z) {
                // ZeRO shards dense states over dp x cp and experts' over their own data-parallel
                // group (moe.h): only when both are 1 is there nothing to shard. Skipping ZeRO
                // whenever DP was 1 left faster plans that fit unlisted.
                if (z > 0 && nothing_to_shard) break;
                s.recipe.zero_stage = z;
                ++result.evaluated;
                // The most-loaded stage's total, summed as stage_memory sums it (memory.h
                // stage_breakdown).
                double bytes = 0;
                for (size_t i = 0; i < peaks; ++i) {
                  const double stage_bytes =
                      stage_breakdown(scaled(states[i][static_cast<size_t>(z)], copies),
                                      activations[i], overhead_bytes, z == 3 ? gathered[i] : 0.0)
                          .total_bytes();
                  if (i == 0 || stage_bytes > bytes) bytes = stage_bytes;
                }
                least = std::min(least, bytes);
                if (bytes > memory_bytes) continue;
                ++result.feasible;
                if (!paced) {
                  pace = pipeline_pace(s, facts, pipeline);
                  stage_reports_but_data(s, facts, m, traffic);
                  paced = true;
                }
                const CommsReport comms = busiest_stage(s, facts, m, traffic);
                const TimeReport t =
                    time_report(s, facts, pipeline, comms, base.batch.global_batch, pace);
                if (levers != 0) seen.fastest(levers, t.step_s, bytes, d);
                // Ranked by the time to train with failures, the step over the effective time
                // (which does not depend on the step: goodput.h).
                const double effective = by_failures ? effective_time_of(s, d) : 1;
                const double rank_s = effective > 0 ? t.step_s / effective : INFINITY;
                // A full heap keeps only what beats its worst: the rest need no Plan built (an
                // exact tie is built, and the order's later keys decide).
                if (kept.full() && worse(rank_s, bytes, kept.worst())) {
                  continue;
                }
                Plan p;
                p.degrees = d;
                p.recipe = s.recipe;
                p.recipe.degrees = d;
                p.figures.per_gpu_bytes = bytes;
                p.figures.verdict = verdict_name(fit_verdict(bytes, gpu_bytes));
                p.figures.comms = comms;
                p.figures.step_s = t.step_s;
                p.figures.effective_time = effective;
                p.figures.rank_s = rank_s;
                p.figures.bubble_fraction = bubble_fraction(t);
                p.figures.mfu = t.mfu;
                p.figures.tokens_per_s = t.tokens_per_s;
                p.figures.usd_per_trillion_tokens =
                    gpu_hours_per_trillion_tokens(s.fleet.gpus, t.tokens_per_s) *
                    s.economics.price_per_gpu_hour;
                kept.offer(p);
              }
              result.least_bytes = std::min(result.least_bytes, least);
              if (levers != 0) seen.least(levers, least, d);
            }
          }
        }
      }
    }
    keep_layout_best(kept, top_k, layout_bests);
  }

  list_layouts(base, by_layout, top_k, !by_failures, result);
  if (!std::isfinite(result.least_bytes)) result.least_bytes = 0;
  result.why_best = explain(base, result, options.rank);
  result.warnings = batch_warnings(base, result);
  DroppedList dropped = dropped_levers(base, result, seen);
  if (dropped.decisive >= 0) {
    const Dropped& d = dropped.list[static_cast<size_t>(dropped.decisive)];
    result.why_best += " It drops " + d.what + ": " + d.why + ".";
  }
  result.dropped = std::move(dropped.list);
  return result;
}

}  // namespace pe
