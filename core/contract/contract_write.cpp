// Scenario and Report -> JSON. Key names are the contract documented in core/README.md.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>

#include "contract/contract.h"
#include "explain/explain.h"
#include "model/calibrate.h"
#include "model/comms.h"
#include "model/explorer.h"
#include "model/memory.h"
#include "model/model_shape.h"
#include "model/moe.h"
#include "model/pipeline.h"
#include "model/presets.h"
#include "model/schema.h"
#include "model/text.h"
#include "model/timeline.h"
#include "planner/planner.h"

namespace pe {
namespace {

using json = Json;

// A report struct's numbers by name: one loop over a table of members. The wasm build keeps it
// far smaller than an initializer list, which compiles each key's pair on its own (the
// goodput block took 1.3 KB of the first load's gzipped wasm written that way).
template <class T, class V = double>
using Numbers = std::initializer_list<std::pair<const char*, V T::*>>;

template <class T, class V = double>
json numbers_json(const T& from, Numbers<T, V> fields) {
  json out = json::object();
  for (const auto& [key, member] : fields) out[key] = from.*member;
  return out;
}

json breakdown_json(const MemoryBreakdown& b) {
  using B = MemoryBreakdown;
  json out = numbers_json<B>(b, {{"weights_bytes", &B::weights_bytes},
                                 {"grads_bytes", &B::grads_bytes},
                                 {"master_bytes", &B::master_bytes},
                                 {"adam_m_bytes", &B::adam_m_bytes},
                                 {"adam_v_bytes", &B::adam_v_bytes},
                                 {"activations_bytes", &B::activations_bytes},
                                 {"overhead_bytes", &B::overhead_bytes},
                                 {"transient_bytes", &B::transient_bytes}});
  out["optimizer_bytes"] = b.optimizer_bytes();
  return out;
}

json traffic_json(const SeamTraffic& t) {
  using S = SeamTraffic;
  json out = numbers_json<S>(t, {{"bytes_per_gpu_per_step", &S::bytes_per_gpu_per_step},
                                 {"bytes_per_message", &S::bytes_per_message},
                                 {"messages_per_step", &S::messages_per_step},
                                 {"link_bytes_per_s", &S::link_bytes_per_s},
                                 {"time_s", &S::time_s}});
  out["active"] = t.active;
  out["group_size"] = t.group_size;
  out["collective"] = t.collective;
  out["link"] = t.link;
  out["level"] = t.level;
  out["nics"] = t.nics;
  return out;
}

json memory_json(const MemoryReport& m, json stages) {
  using M = MemoryReport;
  json out = numbers_json<M>(m, {{"params_per_gpu", &M::params_per_gpu},
                                 {"per_gpu_bytes", &M::per_gpu_bytes},
                                 {"safe_fraction", &M::safe_fraction},
                                 {"gpu_memory_bytes", &M::gpu_memory_bytes},
                                 {"headroom_bytes", &M::headroom_bytes},
                                 {"offloaded_bytes", &M::offloaded_bytes}});
  out["shard_factor"] = m.shard_factor;
  out["peak_stage"] = m.peak_stage;
  out["fits"] = m.fits;
  out["verdict"] = m.verdict;
  out["zero"] = {{"group", m.zero_group},
                 {"weights", m.zero_shards.weights},
                 {"grads", m.zero_shards.grads},
                 {"optimizer", m.zero_shards.optimizer}};
  out["breakdown"] = breakdown_json(m.breakdown);
  out["stages"] = std::move(stages);
  return out;
}

json pipeline_json(const PipelineReport& p) {
  using S = StageSplit;
  json split = numbers_json<S, int>(p.split, {{"first", &S::first},
                                              {"middle", &S::middle},
                                              {"last", &S::last},
                                              {"extra_from", &S::extra_from}});
  split["rule"] = p.split.rule;
  split["megatron_default"] = p.split.megatron_default;
  json out =
      numbers_json<PipelineReport, int>(p, {{"microbatches", &PipelineReport::microbatches},
                                            {"virtual_stages", &PipelineReport::virtual_stages}});
  out["stage_layers"] = std::move(split);
  out["bubble_fraction"] = p.bubble_fraction;
  return out;
}

json time_json(const TimeReport& t) {
  using T = TimeReport;
  json out = numbers_json<T>(t, {{"matmul_efficiency", &T::matmul_efficiency},
                                 {"compute_s", &T::compute_s},
                                 {"memory_bound_s", &T::memory_bound_s},
                                 {"bubble_s", &T::bubble_s},
                                 {"exposed_data_s", &T::exposed_data_s},
                                 {"exposed_tensor_s", &T::exposed_tensor_s},
                                 {"exposed_pipeline_s", &T::exposed_pipeline_s},
                                 {"exposed_context_s", &T::exposed_context_s},
                                 {"exposed_expert_s", &T::exposed_expert_s},
                                 {"exposed_comms_s", &T::exposed_comms_s},
                                 {"exposed_offload_s", &T::exposed_offload_s},
                                 {"optimizer_s", &T::optimizer_s},
                                 {"attention_efficiency", &T::attention_efficiency},
                                 {"gemm_shape_efficiency", &T::gemm_shape_efficiency},
                                 {"tokens_per_expert", &T::tokens_per_expert},
                                 {"expert_gemm_efficiency", &T::expert_gemm_efficiency},
                                 {"expert_load", &T::expert_load},
                                 {"step_s", &T::step_s},
                                 {"model_flops_per_step", &T::model_flops_per_step},
                                 {"hardware_flops_per_step", &T::hardware_flops_per_step},
                                 {"mfu", &T::mfu},
                                 {"hfu", &T::hfu},
                                 {"mfu_peak_tflops", &T::mfu_peak_tflops},
                                 {"mfu_bf16_peak", &T::mfu_bf16_peak},
                                 {"mfu_fp8_peak", &T::mfu_fp8_peak},
                                 {"tflops_per_gpu", &T::tflops_per_gpu},
                                 {"tokens_per_s", &T::tokens_per_s},
                                 {"time_to_train_s", &T::time_to_train_s}});
  out["slowest_stage"] = t.slowest_stage;
  out["mfu_peak"] = t.mfu_peak;
  return out;
}

json cost_json(const CostReport& c) {
  using C = CostReport;
  return numbers_json<C>(c, {{"price_per_gpu_hour", &C::price_per_gpu_hour},
                             {"gpu_hours_per_step", &C::gpu_hours_per_step},
                             {"usd_per_step", &C::usd_per_step},
                             {"tokens_per_day", &C::tokens_per_day},
                             {"gpu_hours_per_day", &C::gpu_hours_per_day},
                             {"usd_per_day", &C::usd_per_day},
                             {"gpu_hours_per_trillion_tokens", &C::gpu_hours_per_trillion_tokens},
                             {"usd_per_trillion_tokens", &C::usd_per_trillion_tokens},
                             {"gpu_hours_to_train", &C::gpu_hours_to_train},
                             {"usd_to_train", &C::usd_to_train}});
}

json goodput_json(const GoodputReport& g) {
  using G = GoodputReport;
  json out = numbers_json<G>(g, {{"failures_per_day", &G::failures_per_day},
                                 {"job_mtbf_s", &G::job_mtbf_s},
                                 {"checkpoint_bytes", &G::checkpoint_bytes},
                                 {"checkpoint_bytes_per_gpu", &G::checkpoint_bytes_per_gpu},
                                 {"checkpoint_write_s", &G::checkpoint_write_s},
                                 {"checkpoint_staging_s", &G::checkpoint_staging_s},
                                 {"checkpoint_pause_s", &G::checkpoint_pause_s},
                                 {"checkpoint_interval_s", &G::checkpoint_interval_s},
                                 {"best_interval_s", &G::best_interval_s},
                                 {"lost_per_failure_s", &G::lost_per_failure_s},
                                 {"effective_time", &G::effective_time},
                                 {"time_to_train_s", &G::time_to_train_s},
                                 {"usd_per_day", &G::usd_per_day},
                                 {"usd_to_train", &G::usd_to_train}});
  out["day"] = numbers_json<G>(g, {{"work_s", &G::day_work_s},
                                   {"checkpoint_s", &G::day_checkpoint_s},
                                   {"redone_s", &G::day_redone_s},
                                   {"restart_s", &G::day_restart_s}});
  return out;
}

json comms_json(const CommsReport& c) {
  return {{"stage", c.stage},
          {"data", traffic_json(c.data)},
          {"tensor", traffic_json(c.tensor)},
          {"pipeline", traffic_json(c.pipeline)},
          {"context", traffic_json(c.context)},
          {"expert", traffic_json(c.expert)},
          {"busiest_seam", busiest_seam(c)}};
}

json degrees_json(const Degrees& d) {
  using D = Degrees;
  return numbers_json<D, int>(
      d, {{"dp", &D::dp}, {"tp", &D::tp}, {"pp", &D::pp}, {"cp", &D::cp}, {"ep", &D::ep}});
}

// Bytes per parameter of each training state: the report's and the presets' one shape.
json precision_json(const Precision& p) {
  using P = Precision;
  json out = numbers_json<P>(p, {{"weight", &P::weight_bytes},
                                 {"grad", &P::grad_bytes},
                                 {"master", &P::master_bytes},
                                 {"adam_m", &P::adam_m_bytes},
                                 {"adam_v", &P::adam_v_bytes}});
  out["name"] = p.name;
  out["fp8"] = p.fp8;
  out["fp4"] = p.fp4;
  out["bytes_per_param"] = p.total_bytes();
  return out;
}

// The model's name, params and its details in the field table ("model.layers" as "layers"),
// leaving out what has no effect (the MoE fields of a dense model).
json model_json(const ModelSpec& m, int seq_len) {
  Scenario s;
  s.model = m;
  s.batch.seq_len = seq_len;
  json o = {{"name", m.name}, {"params", m.params}};
  for (const Field* f : details_of("model")) {
    if (f->inert && f->inert(s)) continue;
    o[std::string(f->key).substr(std::string("model.").size())] = field_value(*f, s);
  }
  if (m.moe()) {
    const ModelShape shape(m, seq_len);
    o["active_params"] = m.params * shape.active_params() / shape.params();
  }
  return o;
}

// [dp, tp, pp], or [dp, tp, pp, cp, ep] when the layout uses context or expert parallelism.
json layouts_of(const Scenario& s) {
  json layouts = json::array();
  for (const Degrees& d : accepted_layouts(s)) {
    if (d.cp == 1 && d.ep == 1) {
      layouts.push_back({d.dp, d.tp, d.pp});
    } else {
      layouts.push_back({d.dp, d.tp, d.pp, d.cp, d.ep});
    }
  }
  return layouts;
}

}  // namespace

// Every row of the field table at its dotted path, so the echo reads back to the same report:
// presets by name and custom values written out, nothing that has no effect in this scenario.
json scenario_json(const Scenario& s) {
  json o = json::object();
  for (const Field& f : fields()) {
    const std::string key = f.key;
    const bool custom_precision = s.recipe.precision.name == "custom";
    if (f.type == FieldType::kObject || key == "model" || key == "model.preset") continue;
    if (f.inert && f.inert(s)) continue;
    if (f.type == FieldType::kScenario && !s.calibration.run_at(key)) continue;
    if (key.rfind("degrees.", 0) == 0 && !s.recipe.degrees) continue;
    if (key.rfind("precision.", 0) == 0 && !custom_precision) continue;
    if ((key == "precision" && custom_precision) || (key == "gpu" && s.gpu.name == "custom")) {
      continue;
    }
    Json* at = &o;
    for (size_t start = 0, dot = 0; dot != std::string::npos; start = dot + 1) {
      dot = key.find('.', start);
      at = &(*at)[key.substr(start, dot - start)];
    }
    *at = f.type == FieldType::kScenario ? scenario_json(*s.calibration.run_at(key))
                                         : field_value(f, s);
  }
  if (!s.recipe.degrees) o["degrees"] = nullptr;
  return o;
}

json report_json(const Report& r) {
  json stages = json::array();
  for (const StageMemory& st : r.memory.stages) {
    json stage = numbers_json<StageMemory, int>(
        st, {{"stage", &StageMemory::stage},
             {"layers", &StageMemory::layers},
             {"inflight_microbatches", &StageMemory::inflight_microbatches}});
    stage["params_per_gpu"] = st.params_per_gpu;
    stage["per_gpu_bytes"] = st.breakdown.total_bytes();
    stage["breakdown"] = breakdown_json(st.breakdown);
    stages.push_back(std::move(stage));
  }
  // Member by member, in key order: one rank per GPU, 16,384 at most, and a braced list
  // copies every member (an initializer list's items are const) where this moves none.
  json ranks = json::array();
  for (const RankPlace& p : r.ranks) {
    json rank = json::object();
    rank["cp"] = p.cp;
    rank["dp"] = p.dp;
    rank["ep"] = p.ep;
    rank["expert_group"] = p.expert_group;
    rank["node"] = p.node;
    rank["pp"] = p.pp;
    rank["rank"] = p.rank;
    rank["tp"] = p.tp;
    ranks.push_back(std::move(rank));
  }
  json out = numbers_json<Report, int>(r, {{"gpus", &Report::gpus},
                                           {"active_gpus", &Report::active_gpus},
                                           {"nodes", &Report::nodes},
                                           {"domain_gpus", &Report::domain_gpus},
                                           {"global_batch", &Report::global_batch}});
  out["domain_spans_nodes"] = r.domain_spans_nodes;
  out["model_params"] = r.model_params;
  out["model_active_params"] = r.model_active_params;
  out["degrees"] = degrees_json(r.degrees);
  out["precision"] = precision_json(r.precision);
  out["memory"] = memory_json(r.memory, std::move(stages));
  out["comms"] = comms_json(r.comms);
  out["pipeline"] = pipeline_json(r.pipeline);
  out["time"] = time_json(r.time);
  out["cost"] = cost_json(r.cost);
  out["goodput"] = goodput_json(r.goodput);
  out["order"] = numbers_json<Report>(r, {{"rule_order_step_s", &Report::rule_order_step_s},
                                          {"order_cost_s", &Report::order_cost_s}});
  out["warnings"] = r.warnings;
  out["facts"] = r.facts;
  out["ranks"] = std::move(ranks);  // moved in, not copied through a braced list
  return out;
}

// A message may quote what the user gave, cut anywhere: never let a stray byte of it make the
// dump throw (the wasm build would abort), but show it as U+FFFD.
std::string error_json(const Problem& problem) {
  return json{{"error",
               {{"key", problem.key.empty() ? json(nullptr) : json(problem.key)},
                {"message", problem.message}}}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

// The scenario's fields, and the planner's own option with the rule it adds to: the page takes
// the margin's range and default from here, as it takes every field's.
std::string schema_text() {
  json out = schema_json();
  out["planner"] = {{"headroom",
                     {{"key", "headroom"},
                      {"type", "number"},
                      {"default", 0.0},
                      {"min", 0.0},
                      {"max", PlanOptions::kMaxHeadroom},
                      {"unit", "fraction of GPU memory"},
                      {"doc",
                       "GPU memory a plan keeps free: 0 keeps every plan within the GPU (past "
                       "80% marked tight), 0.2 only those under 80%"}}},
                    {"fit_rule", fit_rule_text()},
                    {"rank",
                     {{"key", "rank"},
                      {"type", "enum"},
                      {"default", "step"},
                      {"choices", {"step", "time_with_failures"}},
                      {"doc",
                       "what the plans are ranked by: the step time, or the time to train with "
                       "failures and checkpoints (the step over goodput's effective time)"}}}};
  return out.dump();
}

namespace {

json derivation_json(const Derivation& d) {
  json terms = json::array();
  for (const Term& t : d.terms) {
    terms.push_back({{"symbol", t.symbol}, {"value", t.value}, {"unit", t.unit}, {"name", t.name}});
  }
  return {{"formula", d.formula},
          {"terms", terms},
          {"text", d.text},
          {"result", d.result},
          {"source", d.source}};
}

// What a calibration fitted: {"title", "says", "constants": [{"key", "before", "after", "unit",
// "how", "replaced"?: the value the user set that the fit replaced}], "residuals": [{"key",
// "measured", "before", "after", "error"}]}.
json calibration_json(const CalibrationFit& fit) {
  json constants = json::array(), residuals = json::array();
  for (const FittedConstant& c : fit.constants) {
    constants.push_back({{"key", c.key},
                         {"before", c.before},
                         {"after", c.after},
                         {"unit", c.unit},
                         {"how", c.how}});
    if (!std::isnan(c.replaced)) constants.back()["replaced"] = c.replaced;
  }
  for (const Residual& r : fit.residuals) {
    json residual = numbers_json<Residual>(r, {{"measured", &Residual::measured},
                                               {"before", &Residual::before},
                                               {"after", &Residual::after}});
    residual["key"] = r.key;
    residual["error"] = r.error();
    residuals.push_back(std::move(residual));
  }
  return {{"title", fit.title},
          {"says", "calibrated to your run: " + fit.title},
          {"constants", constants},
          {"residuals", residuals}};
}

// The page's report: the model's, with the reader's warnings first, the resolved scenario, the
// layouts a page may offer and the keys of the numbers it can explain; with every derivation
// too when `with_explain`.
json page_report(const Scenario& scenario, const std::vector<std::string>& read_warnings,
                 const Report& report, bool with_explain) {
  json out = report_json(report);
  json warnings = read_warnings;
  for (const auto& w : out["warnings"]) warnings.push_back(w);
  out["warnings"] = warnings;
  out["scenario"] = scenario_json(scenario);
  out["layouts"] = layouts_of(scenario);
  out["explained"] = explained_keys(scenario, report);
  if (scenario.calibration.fit) out["calibration"] = calibration_json(*scenario.calibration.fit);
  if (with_explain) {
    json explained = json::object();
    for (const Derivation& d : derivations(scenario, report)) explained[d.key] = derivation_json(d);
    out["explain"] = explained;
  }
  return out;
}

}  // namespace

std::string evaluate_json(std::string_view scenario_text, bool with_ranks) {
  std::vector<std::string> read_warnings;
  const Result<Scenario> scenario = parse_scenario(scenario_text, &read_warnings);
  if (!scenario.ok()) return error_json(scenario.problem());
  const Result<Report> report = evaluate(scenario.value(), with_ranks);
  if (!report.ok()) return error_json(report.problem());
  return page_report(scenario.value(), read_warnings, report.value(), false).dump();
}

std::string calibrated_json(std::string_view run_text, std::string_view scenario_text) {
  const auto trimmed = [](std::string_view t) {
    const size_t from = t.find_first_not_of(" \t\r\n");
    return from == std::string_view::npos ? std::string_view() : t.substr(from);
  };
  // Two documents, each read whole before they are joined: a run's text that ends in
  // `, "gpus": 4096` is refused, not read as the scenario's keys.
  if (const std::string why = not_one_object(run_text); !why.empty()) {
    return error_json({"calibration", "calibration (the run) " + why +
                                          ": allowed one JSON object, the calibration block "
                                          "{\"scenario\": {...}, \"step_time_s\": ...}, and "
                                          "nothing after it; the scenario's keys go in the "
                                          "scenario"});
  }
  if (const std::string why = not_one_object(scenario_text); !why.empty()) {
    return error_json(
        {"", "scenario " + why + ": allowed one JSON object, which the run calibrates"});
  }
  const std::string_view scenario = trimmed(scenario_text);
  // Both whole objects, spliced as text, so the strict reader sees every key as given (a
  // second "calibration" is refused as given twice).
  const std::string_view rest = trimmed(scenario.substr(1));
  const std::string joined = "{\"calibration\":" + std::string(run_text) +
                             (rest.empty() || rest.front() == '}' ? "" : ",") + std::string(rest);
  return evaluate_json(joined);
}

std::string explain_json(std::string_view scenario_text, std::string_view key) {
  std::vector<std::string> read_warnings;
  const Result<Scenario> scenario = parse_scenario(scenario_text, &read_warnings);
  if (!scenario.ok()) return error_json(scenario.problem());
  const Result<Report> report = evaluate(scenario.value(), /*with_ranks=*/key.empty());
  if (!report.ok()) return error_json(report.problem());
  if (key.empty()) return page_report(scenario.value(), read_warnings, report.value(), true).dump();
  if (const auto d = derivation(scenario.value(), report.value(), key)) {
    return derivation_json(*d).dump();
  }
  std::string allowed;
  for (const std::string& k : explained_keys(scenario.value(), report.value())) {
    allowed += (allowed.empty() ? "" : ", ") + k;
  }
  // The key as given, cut short: error_json shows a byte the cut splits as U+FFFD.
  const std::string shown =
      key.size() > 40 ? std::string(key.substr(0, 40)) + "..." : std::string(key);
  return error_json(
      {"key", "key \"" + shown + "\" is no number this report explains: allowed " + allowed});
}

std::string timeline_json(int stages, int microbatches, std::string_view schedule, int drawn) {
  const Field& field = *find_field("schedule");
  const auto named = std::find(field.choices.begin(), field.choices.end(), schedule);
  if (named == field.choices.end()) {
    std::string allowed;
    for (const std::string& c : field.choices) allowed += (allowed.empty() ? "" : ", ") + c;
    return error_json({"schedule", "schedule \"" + std::string(schedule.substr(0, 40)) +
                                       "\" is no schedule: allowed " + allowed});
  }
  const auto sch = static_cast<Schedule>(named - field.choices.begin());
  // The schedules that need m >= p or 2p draw at least that many: up to 32 stages.
  const int most = splits_weight_grad(sch) ? 32 : 1024;
  for (const auto& [key, value, top] : {std::tuple<const char*, int, int>{"stages", stages, most},
                                        {"microbatches", microbatches, 1 << 24}}) {
    if (value < 1 || value > top) {
      return error_json({key, std::string(key) + " is " + std::to_string(value) +
                                  ": allowed 1 to " + std::to_string(top)});
    }
  }
  const int p = stages, m = microbatches;
  // What evaluate refuses, the drawing refuses, under the argument at fault.
  if (const Problem problem = timeline_problem(sch, p, m); !problem.empty()) {
    return error_json(problem);
  }
  const int most_drawn = drawn > 0 ? std::min(drawn, 1024 / p) : 1024 / p;
  const int shown = drawn_microbatches(sch, p, std::min(m, std::max(1, most_drawn)));
  json blocks = json::array();
  int span = 0;
  for (const TimelineBlock& b : schedule_timeline(sch, p, shown)) {
    blocks.push_back({b.stage, b.microbatch, static_cast<int>(b.pass), b.start, b.duration});
    span = std::max(span, b.start + b.duration);
  }
  return json{{"stages", p},
              {"microbatches", m},
              {"shown_microbatches", shown},
              {"span", span},
              {"ends_overlap", ends_overlap(sch, p, m)},
              {"blocks", blocks}}
      .dump();
}

std::string layouts_json(std::string_view scenario_text) {
  const Result<Scenario> scenario = parse_scenario(scenario_text);
  if (!scenario.ok()) return error_json(scenario.problem());
  return json{{"layouts", layouts_of(scenario.value())}}.dump();
}

std::string presets_json() {
  const Scenario defaults;
  json models = json::array(), gpus = json::array(), precisions = json::array();
  for (ModelSpec m : model_presets()) {
    if (m.params == 0) m.params = shape_params(m, defaults.batch.seq_len);
    models.push_back(model_json(m, defaults.batch.seq_len));
  }
  for (const GpuSpec& g : gpu_presets()) {
    json gpu = numbers_json<GpuSpec>(g, {{"gpu_memory_gb", &GpuSpec::memory_gb},
                                         {"gpu_peak_tflops", &GpuSpec::peak_tflops},
                                         {"nvlink_gb_s", &GpuSpec::nvlink_gb_s},
                                         {"hbm_gb_s", &GpuSpec::hbm_gb_s},
                                         {"matmul_efficiency", &GpuSpec::matmul_efficiency},
                                         {"network_gb_s", &GpuSpec::network_gb_s}});
    gpu["name"] = g.name;
    gpus.push_back(std::move(gpu));
  }
  for (const Precision& p : precision_presets()) {
    precisions.push_back(precision_json(p));
  }
  return json{{"models", models}, {"gpus", gpus}, {"precisions", precisions}}.dump();
}

namespace {
json plan_entry(const Scenario& base, const Plan& p) {
  const Scenario s = scenario_of(base, p);
  return {{"degrees", degrees_json(p.degrees)},
          {"zero_stage", p.recipe.zero_stage},
          {"recompute", enum_name("recompute", p.recipe.recompute)},
          {"recompute_modules", field_value(*find_field("recompute_modules"), s)},
          {"recompute_layers", p.recipe.recompute_layers},
          {"recompute_method", enum_name("recompute_method", p.recipe.recompute_method)},
          {"offload_layers", p.recipe.offload_layers},
          {"precision", p.recipe.precision.name},
          {"fp8", p.recipe.precision.fp8},
          {"sequence_parallel", p.recipe.sequence_parallel},
          {"micro_batch", p.recipe.micro_batch},
          {"schedule", enum_name("schedule", p.recipe.schedule)},
          {"virtual_stages", p.recipe.virtual_stages},
          {"per_gpu_bytes", p.figures.per_gpu_bytes},
          {"verdict", p.figures.verdict},
          {"step_s", p.figures.step_s},
          {"effective_time", p.figures.effective_time},
          {"bubble_fraction", p.figures.bubble_fraction},
          {"mfu", p.figures.mfu},
          {"tokens_per_s", p.figures.tokens_per_s},
          {"usd_per_trillion_tokens", p.figures.usd_per_trillion_tokens},
          {"comms", comms_json(p.figures.comms)},
          {"scenario", scenario_json(s)}};
}
}  // namespace

namespace {
json dropped_json(const std::vector<Dropped>& dropped) {
  json out = json::array();
  for (const Dropped& d : dropped) out.push_back({{"what", d.what}, {"why", d.why}});
  return out;
}
}  // namespace

std::string plan_json(std::string_view scenario_text, int top_k, double headroom,
                      const std::function<bool(int, int, long long)>& progress,
                      std::string_view rank) {
  const Result<Scenario> scenario = parse_scenario(scenario_text);
  if (!scenario.ok()) return error_json(scenario.problem());
  const Scenario& base = scenario.value();
  PlanOptions options;
  if (!(headroom >= 0 && headroom <= PlanOptions::kMaxHeadroom)) {
    const std::string given = std::isfinite(headroom) ? short_number(headroom) : "not a number";
    return error_json({"headroom", "headroom is " + given + ": allowed 0 to " +
                                       short_number(PlanOptions::kMaxHeadroom) +
                                       ", the fraction of GPU memory a plan keeps free"});
  }
  if (rank != "step" && rank != "time_with_failures") {
    return error_json({"rank", "rank is \"" + std::string(rank.substr(0, 64)) +
                                   "\": allowed \"step\" or \"time_with_failures\""});
  }
  options.rank = rank == "step" ? PlanRank::kStep : PlanRank::kTimeWithFailures;
  options.headroom = headroom;
  options.progress = progress;
  const PlanResult result = plan(base, std::clamp(top_k, 1, 100), options);
  if (result.cancelled) return error_json({"", "the search was stopped by its progress callback"});
  // Moved, not copied, into place: the plans are about 80 entries with a scenario each, and
  // copying that tree (an initializer list copies) cost more than the search itself.
  json plans = json::array();
  // A tie is a group: the fastest and every plan the model cannot tell from it, if any.
  const auto& top = result.top;
  const bool tied = top.size() > 1 && ties_with_best(top[1].figures.rank_s, top[0].figures.rank_s);
  for (size_t i = 0; i < top.size(); ++i) {
    json entry = plan_entry(base, top[i]);
    entry["tie"] = tied && ties_with_best(top[i].figures.rank_s, top[0].figures.rank_s);
    json variants = json::array();
    for (const Plan& v : result.variants[i]) variants.push_back(plan_entry(base, v));
    entry["variants"] = std::move(variants);
    plans.push_back(std::move(entry));
  }
  json out = {{"evaluated", result.evaluated},
              {"feasible", result.feasible},
              {"why_best", result.why_best},
              {"warnings", result.warnings},
              {"dropped", dropped_json(result.dropped)},
              {"headroom", options.headroom},
              {"rank", rank},
              {"memory_limit_bytes", result.memory_limit_bytes},
              {"safe_fraction", safe_memory_fraction()},
              {"tie_within", kTieWithin}};
  out["plans"] = std::move(plans);
  return out.dump();
}

}  // namespace pe
