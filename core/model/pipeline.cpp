#include "model/pipeline.h"

namespace pe {

StageSplit stage_split(const Scenario& s, int pp) {
  const int L = s.model.layers;
  StageSplit split;
  split.pp = pp;
  split.extra_from = pp - 1;
  if (pp == 1) {
    split.first = split.middle = split.last = L;
    return split;
  }
  const int f = s.first_stage_layers, l = s.last_stage_layers;
  if (f > 0 || l > 0) {
    split.megatron_default = false;
    split.rule = "set";
    int rest = L, stages = pp;
    if (f > 0) rest -= f, --stages;
    if (l > 0) rest -= l, --stages;
    // Stages without a count share the rest; with p = 2 and one end given, the other takes it.
    const int each = stages > 0 ? rest / stages : 0;
    split.middle = each;
    split.first = f > 0 ? f : each;
    split.last = l > 0 ? l : each;
    return split;
  }
  if (L % pp == 0) {
    split.first = split.middle = split.last = L / pp;
    return split;
  }
  split.megatron_default = false;
  if ((L + 2) % pp == 0 && (L + 2) / pp >= 2) {
    // --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split: the
    // embedding and the loss each take a layer's place on the end stages.
    split.rule = "ends";
    split.middle = (L + 2) / pp;
    split.first = split.last = split.middle - 1;
    return split;
  }
  // Megatron refuses; spread the remainder over the middle stages (the end stages already hold
  // the embedding and the output layer), one more layer each from the back.
  split.rule = "balanced";
  const int base = L / pp, extra = L % pp;
  split.first = split.last = split.middle = base;
  if (extra <= pp - 2) {
    split.extra_from = pp - 1 - extra;
  } else {  // every middle stage and the first take one more
    split.extra_from = 1;
    split.first = base + 1;
  }
  return split;
}

std::string split_problem(const Scenario& s, int pp) {
  const int f = s.first_stage_layers, l = s.last_stage_layers, L = s.model.layers;
  if (f == 0 && l == 0) return "";
  auto str = [](long long v) { return std::to_string(v); };
  if (pp == 1) {
    return "first_stage_layers and last_stage_layers need pipeline stages: PP is 1";
  }
  int rest = L, stages = pp;
  if (f > 0) rest -= f, --stages;
  if (l > 0) rest -= l, --stages;
  if (stages == 0) {
    if (rest != 0) {
      return "first_stage_layers + last_stage_layers = " + str(f + l) + ", but the model has " +
             str(L) + " layers on 2 stages: they must add up to it";
    }
    return "";
  }
  if (rest < stages || rest % stages != 0) {
    return "first_stage_layers " + str(f) + " and last_stage_layers " + str(l) + " leave " +
           str(rest) + " layers for " + str(stages) +
           " other stages: Megatron-Core needs them to divide evenly, at least one each";
  }
  return "";
}

int microbatches_per_step(const Scenario& s, const Degrees& d) {
  const long long per_round = 1LL * s.micro_batch * d.dp;
  return static_cast<int>((s.global_batch + per_round - 1) / per_round);
}

PipelineReport pipeline_report(const Scenario& s, const Degrees& d) {
  PipelineReport r;
  r.microbatches = microbatches_per_step(s, d);
  r.virtual_stages = (s.schedule == Schedule::kInterleaved && d.pp > 1) ? s.virtual_stages : 1;
  r.split = stage_split(s, d.pp);
  return r;
}

}  // namespace pe
