#include "model/pipeline.h"

#include <algorithm>

#include "model/schema.h"

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
  const int f = s.recipe.first_stage_layers, l = s.recipe.last_stage_layers;
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
  const int f = s.recipe.first_stage_layers, l = s.recipe.last_stage_layers, L = s.model.layers;
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
  const long long per_round = 1LL * s.recipe.micro_batch * d.dp;
  return static_cast<int>((s.batch.global_batch + per_round - 1) / per_round);
}

PipelineReport pipeline_report(const Scenario& s, const Degrees& d) {
  PipelineReport r;
  r.microbatches = microbatches_per_step(s, d);
  r.virtual_stages =
      (s.recipe.schedule == Schedule::kInterleaved && d.pp > 1) ? s.recipe.virtual_stages : 1;
  if (v_shape(s.recipe.schedule) && d.pp > 1) r.virtual_stages = 2;
  r.split = stage_split(s, d.pp);
  return r;
}

const char* schedule_words(Schedule schedule) {
  switch (schedule) {
    case Schedule::kInterleaved:
      return "interleaved 1F1B";
    case Schedule::kZbH1:
      return "ZB-H1";
    case Schedule::kZbV:
      return "ZB-V";
    case Schedule::kDualPipe:
      return "DualPipe";
    case Schedule::kDualPipeV:
      return "DualPipeV";
    default:
      return "1F1B";
  }
}

int parameter_copies(const Scenario& s, int pp) {
  return s.recipe.schedule == Schedule::kDualPipe && pp > 1 ? 2 : 1;
}

double bubble_scale(Schedule schedule, int pp, int v, double f, double w) {
  if (pp <= 1) return 0;
  const double dual = std::max(0.0, 2 - f - 3 * w);
  switch (schedule) {
    case Schedule::kZbH1:
      return std::max(0.0, 1 - 2 * w);
    case Schedule::kZbV:
      return 0;
    case Schedule::kDualPipe:
      return (pp / 2.0 - 1) / (pp - 1.0) * dual;
    case Schedule::kDualPipeV:
      return dual / 2;
    default:
      return 1.0 / v;
  }
}

double few_microbatch_span(Schedule schedule, int pp, int v, int m, const Passes& sum,
                           const Passes& longest) {
  if (pp <= 1) return 0;
  const double T = longest.forward_s + longest.backward_s + longest.weight_grad_s;
  const double all = sum.forward_s + sum.backward_s + sum.weight_grad_s;
  if (schedule == Schedule::kInterleaved && v > 1) return m < pp ? all + (m - 1) * T / v : 0;
  if (schedule != Schedule::kZbV) return 0;
  const int n = std::min(m, pp - 1);
  const double F = longest.forward_s, B = longest.backward_s, W = longest.weight_grad_s;
  const double span =
      sum.forward_s + (n - 1) * F +
      std::max(sum.backward_s + (n - 1) * B + W / 2, (sum.backward_s - B) / 2 + n * (B + W));
  // From p micro-batches on, never longer than ZB-H1 on the same stages, m T + (sum_i T_i - T)
  // (1 - 2w): the V fills what ZB-H1 fills, and more (W <= F, so 1 - 2w >= 0). bubble_scale's
  // ZB-H1 share written out: calling it here costs the page's first-load module 62 gzipped bytes.
  return m < pp ? span : std::min(span, m * T + (all - T) * (1 - 2 * W / T));
}

double few_microbatch_span(Schedule schedule, int pp, int v, int m, double stages, double T,
                           double f, double w) {
  const Passes one{f * T, T - f * T - w * T, w * T};
  const Passes all{stages * one.forward_s, stages * one.backward_s, stages * one.weight_grad_s};
  return few_microbatch_span(schedule, pp, v, m, all, one);
}

double inflight_microbatches(const Scenario& s, const Degrees& d, int stage, int microbatches) {
  const int p = d.pp, m = microbatches;
  switch (p > 1 ? s.recipe.schedule : Schedule::kOneFOneB) {
    case Schedule::kZbV:
      return std::min(p, m);
    case Schedule::kDualPipe:
      return std::min(p + 1, m);
    case Schedule::kDualPipeV:
      return std::min(2.0 * p + 1, 2.0 * m) / 2;
    case Schedule::kInterleaved: {
      const double inflight = std::min(p - stage, m);
      if (s.recipe.virtual_stages == 1) return inflight;
      return inflight * (1.0 + (p - 1.0) / (1.0 * p * s.recipe.virtual_stages));
    }
    default:
      return std::min(p - stage, m);
  }
}

bool chunks_even(const StageSplit& split, int v) {
  if (v <= 1 || split.pp <= 1) return true;
  const int ends = std::string(split.rule) == "ends" ? 1 : 0;
  for (int i = 0; i < split.pp; ++i) {
    const int units = split.layers_on(i) + (i == 0 || i == split.pp - 1 ? ends : 0);
    if (units % v != 0) return false;
  }
  return true;
}

namespace {
bool too_many_chunks(const Scenario& s, int pp, int v) { return 1LL * pp * v > s.model.layers + 2; }
bool too_few_layers(const StageSplit& split, int pp, int v) {
  return split.first < v - 1 || split.last < v - 1 || (pp > 2 && split.middle < v);
}
}  // namespace

std::string chunks_problem(const Scenario& s, int pp, int v) {
  if (pp <= 1 || v <= 1) return "";
  const auto str = [](long long n) { return std::to_string(n); };
  const std::string what = "virtual_stages is " + str(v) + ": ";
  if (too_many_chunks(s, pp, v)) {
    return what + "pipeline degree x virtual_stages (" + str(1LL * pp * v) +
           ") may not exceed the " + str(s.model.layers) +
           " layers (+ 2 for an embedding-only and an output-only chunk)";
  }
  const StageSplit split = stage_split(s, pp);
  if (too_few_layers(split, pp, v)) {
    return what + "the stages hold " + str(split.first) + ", " + str(split.middle) + " and " +
           str(split.last) +
           " layers, too few for a layer in every chunk (the end stages may give one chunk to "
           "the embedding or the output layer alone)";
  }
  return "";
}

bool chunks_fit(const Scenario& s, const StageSplit& split, int v) {
  const int pp = split.pp;
  return pp <= 1 || v <= 1 || !(too_many_chunks(s, pp, v) || too_few_layers(split, pp, v));
}

namespace {
// The words are built only for a refusal: the planner asks for every layout it searches.
std::string needs(Schedule schedule, const std::string& what) {
  return "schedule " + enum_name("schedule", schedule) + " needs " + what;
}

// Each rule's test, which both the words and schedule_refused apply.
bool odd_dualpipe_stages(Schedule schedule, int p) {
  return schedule == Schedule::kDualPipe && p > 1 && p % 2 != 0;
}
bool too_few_for_pairs(Schedule schedule, int p, int m) {
  return overlaps_forward_backward(schedule) &&
         (m < 2 * p || (schedule == Schedule::kDualPipe && m % 2 != 0));
}
bool too_few_for_zb_h1(Schedule schedule, int p, int m) {
  return schedule == Schedule::kZbH1 && m < p;
}
// The first stage a V cannot split into 2 chunks (an odd number of layers), or -1.
int odd_layers_stage(const Scenario& s, const StageSplit& split, int p) {
  if (!v_shape(s.recipe.schedule)) return -1;
  for (int i = 0; i < p; ++i) {
    if (split.layers_on(i) % 2 != 0) return i;
  }
  return -1;
}
}  // namespace

std::string schedule_stages_problem(Schedule schedule, int p) {
  if (odd_dualpipe_stages(schedule, p)) {
    return needs(schedule, "an even number of pipeline stages: PP is " + std::to_string(p) +
                               " (each rank holds stage i and stage PP - 1 - i)");
  }
  return "";
}

std::string schedule_microbatches_problem(Schedule schedule, int p, int m, const char* what_m) {
  if (!splits_weight_grad(schedule) || p == 1) return "";
  const auto batches = [&] { return std::to_string(m) + what_m; };
  if (too_few_for_pairs(schedule, p, m)) {
    return needs(schedule,
                 std::string(schedule == Schedule::kDualPipe ? "an even number of " : "") +
                     "at least 2 x PP = " + std::to_string(2 * p) + " micro-batches: " + batches());
  }
  if (too_few_for_zb_h1(schedule, p, m)) {
    return needs(schedule, "at least PP = " + std::to_string(p) + " micro-batches: " + batches());
  }
  return "";
}

std::string schedule_problem(const Scenario& s, const Degrees& d, int microbatches) {
  const int p = d.pp;
  if (!splits_weight_grad(s.recipe.schedule) || p == 1)
    return "";  // one stage: every schedule plain
  if (std::string why = schedule_stages_problem(s.recipe.schedule, p); !why.empty()) return why;
  const StageSplit split = v_shape(s.recipe.schedule) ? stage_split(s, p) : StageSplit{};
  if (const int i = odd_layers_stage(s, split, p); i >= 0) {
    const auto str = [](long long v) { return std::to_string(v); };
    return needs(s.recipe.schedule,
                 "the layers per stage to split into 2 chunks: " + str(s.model.layers) +
                     " layers on PP " + str(p) + " put " + str(split.layers_on(i)) + " on stage " +
                     str(i) + "; allowed: an even number of layers on every stage");
  }
  return schedule_microbatches_problem(
      s.recipe.schedule, p, microbatches,
      " micro-batches per step (global_batch / (micro_batch x DP))");
}

bool schedule_refused(const Scenario& s, const Degrees& d, int microbatches) {
  const Schedule schedule = s.recipe.schedule;
  const int p = d.pp;
  if (!splits_weight_grad(schedule) || p == 1) return false;
  if (odd_dualpipe_stages(schedule, p)) return true;
  if (v_shape(schedule) && odd_layers_stage(s, stage_split(s, p), p) >= 0) return true;
  return too_few_for_pairs(schedule, p, microbatches) ||
         too_few_for_zb_h1(schedule, p, microbatches);
}

}  // namespace pe
