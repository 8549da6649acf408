// What every configuration of one layout shares: the planner evaluates thousands of
// configurations (micro-batch, schedule, SP, recomputation, ZeRO) per layout, and their memory,
// traffic and step time all need the same split, node spans, hops and parameter shards.
// LayoutFacts computes each of those once, when first asked; the reports read them from it
// instead of recomputing them, so every figure stays the same to the bit.
#pragma once

#include <array>
#include <vector>

#include "model/gemm_shape.h"
#include "model/layout.h"
#include "model/memory.h"
#include "model/model_shape.h"
#include "model/report.h"
#include "model/scenario.h"

namespace pe {

class LayoutFacts {
 public:
  // `s` and `shape` (the scenario's, computed once for all its layouts) must outlive the facts,
  // and `s` keep the fields they depend on: the model, the sequence, the split's end stages,
  // the memory model, the node size, the nesting order, expert_tp, capacity_factor and
  // flash_attention (the planner varies only b, the schedule, SP, recomputation, offload, FP8
  // and ZeRO).
  LayoutFacts(const Scenario& s, const ModelShape& shape, const Degrees& d);

  const ModelShape& shape() const { return shape_; }
  const Degrees& degrees() const { return d_; }
  const StageSplit& split() const { return split_; }
  const NodeSpans& spans() const { return spans_; }

  // The level the hop from stage k to the next rides (the last stage's wraps to the first):
  // comms.h stage_hop. hop_crosses: it leaves the NVLink domain.
  Fabric hop(int k) const;
  bool hop_crosses(int k) const { return hop(k) != Fabric::kDomain; }

  // A stage's layers and parameter shards (memory.h stage_params). Inline: the planner reads
  // them a dozen times per configuration.
  const StageParams& params(int stage) const {
    const size_t i = static_cast<size_t>(stage);
    if (!params_known_[i]) know_params(i);
    return params_[i];
  }

  // The stages whose traffic can differ: one per kind of stage (end stage or not, layers, MoE
  // layers, the levels its two hops ride), the first of each kind (comms_report).
  const std::vector<int>& traffic_stages() const;

  // FLOPs per token of one training step of the stage's layers under recomputation r (with
  // the scenario's modules, or its fully recomputed layers: ModelShape::run_step_flops_per_token).
  ModelShape::StepFlops step_flops_per_token(int stage, Recompute r) const;

  // The linear GEMMs' shapes at micro-batch b (gemm_shape.h linear_gemm_shapes), kept for the
  // last b asked: the planner tries every configuration of a b in a row.
  const LinearGemmShapes& gemm_shapes(int micro_batch) const;

  // Model and hardware FLOPs of one step for a global batch: hardware FLOPs add the experts'
  // padding and every stage's recomputation (model_shape.h). What MFU and HFU count.
  double model_flops_per_step(int global_batch) const;
  double hardware_flops_per_step(int global_batch, Recompute recompute) const;

 private:
  const Scenario& s_;
  const ModelShape& shape_;
  Degrees d_;
  StageSplit split_;
  NodeSpans spans_;
  mutable std::vector<signed char> hops_;  // a Fabric; -1: not yet known
  mutable std::vector<StageParams> params_;
  mutable std::vector<char> params_known_;
  void know_params(size_t stage) const;
  mutable std::vector<int> traffic_stages_;
  mutable bool traffic_known_ = false;
  // The recomputations asked for so far, by what their FLOPs depend on (recompute_key), each
  // a slot of the caches below: the planner tries a dozen or more per layout (choices.h).
  size_t slot_of(Recompute r) const;
  mutable std::vector<unsigned long long> recompute_keys_;
  mutable size_t last_slot_ = 0;
  // Per stage and slot; NaN: not yet known.
  mutable std::vector<std::vector<ModelShape::StepFlops>> step_flops_;
  mutable int flops_batch_ = -1;
  mutable int gemm_batch_ = 0;  // gemm_shapes_'s b; 0: none yet
  mutable LinearGemmShapes gemm_shapes_;
  mutable double model_flops_ = 0;
  mutable std::vector<double> hardware_flops_;  // per slot
};

}  // namespace pe
