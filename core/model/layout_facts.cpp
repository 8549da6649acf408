#include "model/layout_facts.h"

#include <algorithm>
#include <cmath>

#include "model/activations.h"
#include "model/comms.h"
#include "model/pipeline.h"

namespace pe {
namespace {

// What a recomputation's FLOPs depend on: the choice, its modules (selective), its layers and
// method (full).
unsigned long long recompute_key(const Scenario& s, Recompute r) {
  const unsigned long long modules = r == Recompute::kSelective ? s.recipe.recompute_modules : 0u;
  const bool full = r == Recompute::kFull;
  const unsigned long long layers = full ? static_cast<unsigned>(s.recipe.recompute_layers) : 0u;
  const unsigned long long method = full ? static_cast<unsigned>(s.recipe.recompute_method) : 0u;
  return static_cast<unsigned long long>(r) | modules << 2 | method << 34 | layers << 35;
}

}  // namespace

LayoutFacts::LayoutFacts(const Scenario& s, const ModelShape& shape, const Degrees& d)
    : s_(s),
      shape_(shape),
      d_(d),
      split_(stage_split(s, d.pp)),
      spans_(node_spans(d, s.fleet.gpus_per_node, s.recipe.order, s.domain_gpus())),
      hops_(static_cast<size_t>(std::max(d.pp, 1)), -1),
      params_(static_cast<size_t>(std::max(d.pp, 1))),
      params_known_(static_cast<size_t>(std::max(d.pp, 1)), 0),
      step_flops_(static_cast<size_t>(std::max(d.pp, 1))) {}

size_t LayoutFacts::slot_of(Recompute r) const {
  const unsigned long long key = recompute_key(s_, r);
  if (last_slot_ < recompute_keys_.size() && recompute_keys_[last_slot_] == key) return last_slot_;
  const auto at = std::find(recompute_keys_.begin(), recompute_keys_.end(), key);
  last_slot_ = static_cast<size_t>(at - recompute_keys_.begin());
  if (at == recompute_keys_.end()) {
    recompute_keys_.push_back(key);
    for (auto& stage : step_flops_) stage.push_back({NAN, NAN});
    hardware_flops_.push_back(NAN);
  }
  return last_slot_;
}

Fabric LayoutFacts::hop(int k) const {
  signed char& known = hops_[static_cast<size_t>(k)];
  if (known < 0) known = static_cast<signed char>(stage_hop(s_, d_, k, (k + 1) % d_.pp));
  return static_cast<Fabric>(known);
}

const LinearGemmShapes& LayoutFacts::gemm_shapes(int micro_batch) const {
  if (gemm_batch_ != micro_batch) {
    gemm_shapes_ = linear_gemm_shapes(s_, shape_, d_, micro_batch);
    gemm_batch_ = micro_batch;
  }
  return gemm_shapes_;
}

void LayoutFacts::know_params(size_t stage) const {
  params_[stage] = stage_params(s_, shape_, d_, split_, static_cast<int>(stage));
  params_known_[stage] = 1;
}

// A stage's traffic depends on whether it is an end stage, its layers (and how many are MoE
// layers) and the levels its two hops ride: a stage like one already seen sends the same
// and cannot be the busiest instead of it.
const std::vector<int>& LayoutFacts::traffic_stages() const {
  if (traffic_known_) return traffic_stages_;
  struct Kind {
    bool first, last;
    Fabric next_crosses, prev_crosses;
    int layers, moe;
    bool operator==(const Kind& o) const {
      return first == o.first && last == o.last && next_crosses == o.next_crosses &&
             prev_crosses == o.prev_crosses && layers == o.layers && moe == o.moe;
    }
  };
  std::vector<Kind> seen;
  for (int stage = 0; stage < d_.pp; ++stage) {
    const int layers = split_.layers_on(stage);
    const Kind kind{stage == 0,
                    stage == d_.pp - 1,
                    d_.pp > 1 ? hop(stage) : Fabric::kDomain,
                    d_.pp > 1 ? hop((stage + d_.pp - 1) % d_.pp) : Fabric::kDomain,
                    layers,
                    shape_.moe_layers_in(split_.first_layer(stage), layers)};
    if (std::find(seen.begin(), seen.end(), kind) != seen.end()) continue;
    seen.push_back(kind);
    traffic_stages_.push_back(stage);
  }
  traffic_known_ = true;
  return traffic_stages_;
}

ModelShape::StepFlops LayoutFacts::step_flops_per_token(int stage, Recompute r) const {
  const size_t slot = slot_of(r);
  ModelShape::StepFlops& known = step_flops_[static_cast<size_t>(stage)][slot];
  if (std::isnan(known.total)) {
    const StageParams& p = params(stage);
    const unsigned modules = r == Recompute::kSelective ? s_.recipe.recompute_modules : 0u;
    known = shape_.run_step_flops_per_token(p.first_layer, p.layers, modules,
                                            fully_recomputed_layers(s_, r, p.layers));
  }
  return known;
}

double LayoutFacts::model_flops_per_step(int global_batch) const {
  if (flops_batch_ != global_batch) {
    flops_batch_ = global_batch;
    model_flops_ = shape_.model_flops_per_step(global_batch);
    std::fill(hardware_flops_.begin(), hardware_flops_.end(), NAN);
  }
  return model_flops_;
}

double LayoutFacts::hardware_flops_per_step(int global_batch, Recompute recompute) const {
  model_flops_per_step(global_batch);  // resets the cache when the batch changes
  double& known = hardware_flops_[slot_of(recompute)];
  if (std::isnan(known)) {
    double per_token = 3 * shape_.output_forward_flops_per_token();
    for (int stage = 0; stage < d_.pp; ++stage) {
      per_token += step_flops_per_token(stage, recompute).total;
    }
    known = per_token * global_batch * shape_.seq_len();
  }
  return known;
}

}  // namespace pe
