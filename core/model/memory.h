// Memory per GPU: model states (ZeRO, Rajbhandari et al. SC'20, arXiv:1910.02054) and
// activations (Korthikanti et al. 2022).
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "model/model_shape.h"
#include "model/report.h"
#include "model/scenario.h"

namespace pe {

class LayoutFacts;  // layout_facts.h, which includes this header

// Model states of one GPU holding `params` parameters, with ZeRO stage z over a DP group of d:
//   stage 0: (w + g + o) Psi       stage 1: (w + g) Psi + o Psi / d
//   stage 2: w Psi + (g + o) Psi/d stage 3: (w + g + o) Psi / d
// With the book's w=2, g=2, o=12 this is ZeRO's 16 Psi, 4 Psi + 12 Psi/d, 2 Psi + 14 Psi/d,
// 16 Psi/d (Sec. 5, Fig. 1).
MemoryBreakdown model_state_bytes(double params, const Precision& precision, int zero_stage,
                                  int dp);

// Which model states ZeRO stage z shards (ZeroSharding, report.h).
ZeroSharding zero_sharding(int zero_stage);

// What a stage holds that depends on the layout alone (its layers and parameter shards), not
// on the micro-batch, recomputation, ZeRO or schedule: the planner computes it once per layout
// and stage instead of once per configuration. Either memory model's (memory_report).
struct StageParams {
  int stage = 0;
  int layers = 0;
  int first_layer = 0;
  int moe_layers = 0;                // of `layers`, the MoE ones
  double dense_params = 0;           // the stage's dense parameters, before any sharding
  double expert_params = 0;          // the stage's routed experts', before any sharding
  double dense_per_gpu = 0;          // sharded by TP
  double expert_params_per_gpu = 0;  // routed experts', sharded by EP x expert TP (moe.h)
  double params_per_gpu = 0;         // their sum
};
StageParams stage_params(const Scenario& s, const ModelShape& shape, const Degrees& d,
                         const StageSplit& split, int stage);

// One micro-batch's stored activations per layer, per GPU (each CP rank holds s/cp of every
// sequence): a dense layer's under the selective modules, what an MoE layer stores beyond it, a
// fully recomputed layer's input, and a dense layer's with nothing recomputed (what a uniform
// chunk's layers hold while their backward runs). They depend on b, SP, recomputation, FP8,
// TP and CP only (activations.h).
struct LayerActivations {
  double per_layer_bytes = 0;
  double moe_extra_bytes = 0;
  double checkpoint_bytes = 0;
  double working_bytes = 0;
  double moe_working_extra_bytes = 0;  // an MoE layer's working set beyond a dense layer's
};
LayerActivations layer_activations(const Scenario& s, const ModelShape& shape, const Degrees& d);

// The full memory model's activations of a stage: on the GPU, its layers' times the
// micro-batches it holds in flight, plus the end stages' extras and a uniform recomputation
// chunk's working set; on the host, what its offloaded layers (the last offload_layers of the
// stage) hold, in flight. Full recomputation keeps a layer's input (block: the first
// recompute_layers of the stage; uniform: one input per chunk of recompute_layers).
// `transient_bytes` is the largest of the stage's moments beyond what it stores (the ZeRO-3
// weights aside: gathered_weight_bytes): on the last stage the loss's backward, which holds
// the gradients of the fp32 log-probabilities and of the logits, 8 s b V / t, beside the
// log-probabilities themselves (stored, 4 s b V / t: Korthikanti Sec. 4.3; PyTorch's
// cross_entropy is log_softmax then nll_loss, whose backwards each write a gradient of that
// size); and the working set of the layer being recomputed, all a layer stores with nothing
// recomputed less what it keeps (Korthikanti Sec. 5: a recomputed layer's activations are all
// back in memory for its backward). The two never meet: the loss is done before the layers'
// backward starts.
struct StageActivations {
  double gpu_bytes = 0;
  double host_bytes = 0;
  double transient_bytes = 0;
};
StageActivations stage_activations(const Scenario& s, const ModelShape& shape, const Degrees& d,
                                   const StageParams& p, const LayerActivations& a,
                                   int microbatches);
// stage_activations in two steps, for the planner: what the schedule does not change (one
// micro-batch's layers kept on the GPU and sent to the host, and what the stage holds beside
// them), once per recipe; then the micro-batches the schedule keeps in flight
// (pipeline.h inflight_microbatches) multiplied in, once per schedule.
struct ActivationParts {
  double kept_bytes = 0;  // per micro-batch in flight
  double host_bytes = 0;  // per micro-batch in flight
  // Added in this order: a uniform chunk's, the embedding's, the loss's.
  double beside_bytes[3] = {};
  double transient_bytes = 0;
};
ActivationParts activation_parts(const Scenario& s, const ModelShape& shape, const Degrees& d,
                                 const StageParams& p, const LayerActivations& a, int microbatches);
StageActivations stage_activations(const ActivationParts& parts, double inflight);
// ZeRO-3 / FSDP gathers a unit's weights just before it computes and frees them after (Zhao et
// al. 2023, arXiv:2304.11277, Sec. 3.2-3.3): at a time the unit computing and fsdp_prefetch
// units gathered ahead hold whole 16-bit weights (FSDP's mixed precision computes in BF16),
// and in the backward the unit's whole gradient waits for its reduce-scatter at the gradient's
// bytes. A unit is a layer, or the embedding or output layer on the stage holding it (the
// largest counts); 0 below ZeRO-3.
double gathered_weight_bytes(const Scenario& s, const ModelShape& shape, const Degrees& d,
                             const StageParams& p);

// One micro-batch's bytes the stage's offloaded layers send to the host (and fetch back).
double offloaded_bytes_per_microbatch(const Scenario& s, const ModelShape& shape,
                                      const StageParams& p, const LayerActivations& a);

// The stages as runs of equal ones: stages with the same layers, the same MoE layers among
// them and the same end (first, middle, last) hold the same parameters and take the same time,
// and among them the first holds the most in-flight micro-batches. Runs start at the first
// stage, the second, the first with an extra layer (extra_from), the one holding the first
// MoE layer (after an MoE's leading dense layers: it may mix dense and MoE layers), the first
// made only of MoE layers, and the last; `starts` lists them ascending without repeats,
// `count` of them, and starts[count] is pp.
inline constexpr size_t kStageRuns = 6;
struct StageRuns {
  std::array<int, kStageRuns + 1> starts{};
  size_t count = 0;
  int size(size_t i) const { return starts[i + 1] - starts[i]; }
};
StageRuns stage_runs(const Scenario& s, const Degrees& d, const StageSplit& split);

// Memory of every stage and of the most-loaded GPU. The "book" model spreads N evenly
// (params per GPU = N/(TP x PP)) and counts model states only, as the book's panel does; the
// "full" model places whole layers on stages (pipeline.h stage_split), the embedding on the
// first stage and the output layer on the last, and adds activations for the micro-batches each
// stage holds in flight and the overhead (overhead_gb). Either way the verdict is fit_verdict's.
double safe_memory_fraction();
// The rule in words, with its source, for the page to print beside the planner's margin.
std::string fit_rule_text();
// The fit verdict in three: fits at or below the safe fraction (80%) of the GPU's memory;
// tight above it but within the GPU (it runs, as tuned runs do: Llama 3 405B's layouts hold
// about 71 of 80 GB; past 80% Fujii et al. 2024, arXiv:2411.06465, saw estimates like it run out
// of memory in practice, so the risk is stated beside it); over past the GPU's memory.
enum class FitVerdict { kFits, kTight, kOver };
FitVerdict fit_verdict(double per_gpu_bytes, double gpu_memory_bytes);
const char* verdict_name(FitVerdict verdict);  // "fits", "tight", "over"
// A stage's memory from its parts: its model states (all its copies: DualPipe's two), its
// activations (stage_activations), the overhead and ZeRO-3's gathered weights. The sum
// (total_bytes) is what memory_report gives each stage and what the planner ranks and fits by.
MemoryBreakdown stage_breakdown(const MemoryBreakdown& states, const StageActivations& acts,
                                double overhead_bytes, double gathered_bytes);
// stage_breakdown's total_bytes from the model states' sum (MemoryBreakdown::model_state_bytes),
// added in total_bytes' order, to the bit: the planner sums a layout's model states once and
// this once per configuration.
inline double stage_total_bytes(double model_state_bytes, const StageActivations& acts,
                                double overhead_bytes, double gathered_bytes) {
  return model_state_bytes + acts.gpu_bytes + overhead_bytes +
         (acts.transient_bytes + gathered_bytes);
}
// From the layout's facts (its split and parameter shards, layout_facts.h), as the planner
// reads them.
MemoryReport memory_report(const Scenario& s, const LayoutFacts& facts, int microbatches);

// `s` under the full memory model: what the planner ranks by and a calibration's measured
// peak is held against.
Scenario with_full_memory(Scenario s);

}  // namespace pe
