// Scenario and Report -> JSON. Key names are the contract documented in README.md.
#include "contract.h"
#include "explorer.h"
#include "planner.h"
#include "timeline.h"
#include "presets.h"
#include "transformer.h"

#include <algorithm>

namespace pe {
namespace {

using nlohmann::json;

json breakdown_json(const MemoryBreakdown& b) {
  return {{"weights_bytes", b.weights_bytes},       {"grads_bytes", b.grads_bytes},
          {"master_bytes", b.master_bytes},         {"adam_m_bytes", b.adam_m_bytes},
          {"adam_v_bytes", b.adam_v_bytes},         {"optimizer_bytes", b.optimizer_bytes()},
          {"activations_bytes", b.activations_bytes}};
}

json traffic_json(const SeamTraffic& t) {
  return {{"active", t.active},
          {"group_size", t.group_size},
          {"collective", t.collective},
          {"link", t.link},
          {"bytes_per_gpu_per_step", t.bytes_per_gpu_per_step},
          {"bytes_per_message", t.bytes_per_message},
          {"messages_per_step", t.messages_per_step},
          {"link_bytes_per_s", t.link_bytes_per_s},
          {"time_s", t.time_s}};
}

json comms_json(const CommsReport& c) {
  return {{"data", traffic_json(c.data)},
          {"tensor", traffic_json(c.tensor)},
          {"pipeline", traffic_json(c.pipeline)}};
}

json degrees_json(const Degrees& d) { return {{"dp", d.dp}, {"tp", d.tp}, {"pp", d.pp}}; }

const char* name_of(Schedule s) { return s == Schedule::kInterleaved ? "interleaved" : "1f1b"; }

const char* name_of(Recompute r) {
  return r == Recompute::kFull ? "full" : r == Recompute::kSelective ? "selective" : "none";
}

}  // namespace

json scenario_json(const Scenario& s) {
  json o = {
      {"gpus", s.gpus},
      {"gpus_per_node", s.gpus_per_node},
      {"seams", {{"data", s.seams.data}, {"tensor", s.seams.tensor}, {"pipeline", s.seams.pipeline}}},
      {"degrees", nullptr},
      {"model",
       {{"name", s.model.name},
        {"params", s.model.params},
        {"layers", s.model.layers},
        {"hidden", s.model.hidden},
        {"heads", s.model.heads},
        {"vocab", s.model.vocab}}},
      {"seq_len", s.seq_len},
      {"micro_batch", s.micro_batch},
      {"global_batch", s.global_batch},
      {"bytes_per_param", s.precision.total_bytes()},
      {"precision", s.precision.name},
      {"gpu", s.gpu.name},
      {"gpu_memory_gb", s.gpu.memory_gb},
      {"gpu_peak_tflops", s.gpu.peak_tflops},
      {"nvlink_gb_s", s.gpu.nvlink_gb_s},
      {"network_gb_s", s.network_gb_s},
      {"zero_stage", s.zero_stage},
      {"recompute", name_of(s.recompute)},
      {"sequence_parallel", s.sequence_parallel},
      {"schedule", name_of(s.schedule)},
      {"virtual_stages", s.virtual_stages},
      {"efficiency", s.efficiency},
      {"memory_model", s.memory_model == MemoryModel::kFull ? "full" : "book"},
      {"train_tokens", s.train_tokens},
  };
  // Read back by parse_scenario unchanged: custom values are written out, presets by name.
  if (s.precision.name == "custom") {
    o["precision"] = {{"weight", s.precision.weight_bytes},
                      {"grad", s.precision.grad_bytes},
                      {"master", s.precision.master_bytes},
                      {"adam_m", s.precision.adam_m_bytes},
                      {"adam_v", s.precision.adam_v_bytes}};
  }
  if (s.gpu.name == "custom") o.erase("gpu");
  if (s.degrees) o["degrees"] = degrees_json(*s.degrees);
  return o;
}

json report_json(const Report& r) {
  json stages = json::array();
  for (const StageMemory& st : r.memory.stages) {
    stages.push_back({{"stage", st.stage},
                      {"layers", st.layers},
                      {"params_per_gpu", st.params_per_gpu},
                      {"inflight_microbatches", st.inflight_microbatches},
                      {"per_gpu_bytes", st.breakdown.total_bytes()},
                      {"breakdown", breakdown_json(st.breakdown)}});
  }
  json ranks = json::array();
  for (const RankPlace& p : r.ranks) {
    ranks.push_back({{"rank", p.rank}, {"dp", p.dp}, {"tp", p.tp}, {"pp", p.pp}, {"node", p.node}});
  }
  const MemoryReport& m = r.memory;
  const TimeReport& t = r.time;
  return {
      {"degrees", degrees_json(r.degrees)},
      {"gpus", r.gpus},
      {"active_gpus", r.active_gpus},
      {"nodes", r.nodes},
      {"model_params", r.model_params},
      {"precision",
       {{"name", r.precision.name},
        {"weight", r.precision.weight_bytes},
        {"grad", r.precision.grad_bytes},
        {"master", r.precision.master_bytes},
        {"adam_m", r.precision.adam_m_bytes},
        {"adam_v", r.precision.adam_v_bytes},
        {"bytes_per_param", r.precision.total_bytes()}}},
      {"global_batch", r.global_batch},
      {"memory",
       {{"params_per_gpu", m.params_per_gpu},
        {"per_gpu_bytes", m.per_gpu_bytes},
        {"shard_factor", m.shard_factor},
        {"peak_stage", m.peak_stage},
        {"fits", m.fits},
        {"gpu_memory_bytes", m.gpu_memory_bytes},
        {"headroom_bytes", m.headroom_bytes},
        {"breakdown", breakdown_json(m.breakdown)},
        {"stages", stages}}},
      {"comms", comms_json(r.comms)},
      {"pipeline",
       {{"microbatches", r.pipeline.microbatches},
        {"virtual_stages", r.pipeline.virtual_stages},
        {"bubble_fraction", r.pipeline.bubble_fraction}}},
      {"time",
       {{"compute_s", t.compute_s},
        {"bubble_s", t.bubble_s},
        {"exposed_comms_s", t.exposed_comms_s},
        {"step_s", t.step_s},
        {"model_flops_per_step", t.model_flops_per_step},
        {"hardware_flops_per_step", t.hardware_flops_per_step},
        {"mfu", t.mfu},
        {"tflops_per_gpu", t.tflops_per_gpu},
        {"tokens_per_s", t.tokens_per_s},
        {"time_to_train_s", t.time_to_train_s}}},
      {"ranks", ranks},
      {"warnings", r.warnings},
  };
}

std::string evaluate_json(std::string_view scenario_text, bool with_ranks) {
  const Result<Scenario> scenario = parse_scenario(scenario_text);
  if (!scenario.ok()) return json{{"error", scenario.error()}}.dump();
  const Result<Report> report = evaluate(scenario.value(), with_ranks);
  if (!report.ok()) return json{{"error", report.error()}}.dump();
  json out = report_json(report.value());
  out["scenario"] = scenario_json(scenario.value());
  return out.dump();
}


std::string timeline_json(int stages, int microbatches) {
  const int p = std::clamp(stages, 1, 1024);
  const int m = std::clamp(microbatches, 1, 1 << 24);
  const int shown = std::min(m, std::max(1, 1024 / p));
  json blocks = json::array();
  int span = 0;
  for (const TimelineBlock& b : one_f_one_b_timeline(p, shown)) {
    blocks.push_back({b.stage, b.microbatch, b.backward ? 1 : 0, b.start, b.duration});
    span = std::max(span, b.start + b.duration);
  }
  return json{{"stages", p},
              {"microbatches", m},
              {"shown_microbatches", shown},
              {"span", span},
              {"blocks", blocks}}
      .dump();
}

std::string layouts_json(std::string_view scenario_text) {
  const Result<Scenario> scenario = parse_scenario(scenario_text);
  if (!scenario.ok()) return json{{"error", scenario.error()}}.dump();
  json layouts = json::array();
  for (const Degrees& d : accepted_layouts(scenario.value())) {
    layouts.push_back({d.dp, d.tp, d.pp});
  }
  return json{{"layouts", layouts}}.dump();
}

std::string presets_json() {
  const Scenario defaults;
  json models = json::array(), gpus = json::array(), precisions = json::array();
  for (ModelSpec m : model_presets()) {
    if (m.params == 0) m.params = gpt_params(m, defaults.seq_len);
    models.push_back({{"name", m.name},
                      {"params", m.params},
                      {"layers", m.layers},
                      {"hidden", m.hidden},
                      {"heads", m.heads},
                      {"vocab", m.vocab}});
  }
  for (const GpuSpec& g : gpu_presets()) {
    gpus.push_back({{"name", g.name},
                    {"gpu_memory_gb", g.memory_gb},
                    {"gpu_peak_tflops", g.peak_tflops},
                    {"nvlink_gb_s", g.nvlink_gb_s}});
  }
  for (const Precision& p : precision_presets()) {
    precisions.push_back({{"name", p.name},
                          {"weight", p.weight_bytes},
                          {"grad", p.grad_bytes},
                          {"master", p.master_bytes},
                          {"adam_m", p.adam_m_bytes},
                          {"adam_v", p.adam_v_bytes},
                          {"bytes_per_param", p.total_bytes()}});
  }
  return json{{"models", models}, {"gpus", gpus}, {"precisions", precisions}}.dump();
}

std::string plan_json(std::string_view scenario_text, int top_k) {
  const Result<Scenario> scenario = parse_scenario(scenario_text);
  if (!scenario.ok()) return json{{"error", scenario.error()}}.dump();
  const Scenario& base = scenario.value();
  const PlanResult result = plan(base, std::clamp(top_k, 1, 100));
  json plans = json::array();
  for (const Plan& p : result.top) {
    const Scenario s = scenario_of(base, p);
    plans.push_back({{"degrees", degrees_json(p.degrees)},
                     {"zero_stage", p.zero_stage},
                     {"recompute", name_of(p.recompute)},
                     {"sequence_parallel", p.sequence_parallel},
                     {"micro_batch", p.micro_batch},
                     {"schedule", name_of(p.schedule)},
                     {"virtual_stages", p.virtual_stages},
                     {"per_gpu_bytes", p.per_gpu_bytes},
                     {"step_s", p.step_s},
                     {"bubble_fraction", p.bubble_fraction},
                     {"mfu", p.mfu},
                     {"tokens_per_s", p.tokens_per_s},
                     {"comms", comms_json(p.comms)},
                     {"scenario", scenario_json(s)}});
  }
  return json{{"evaluated", result.evaluated},
              {"feasible", result.feasible},
              {"why_best", result.why_best},
              {"plans", plans}}
      .dump();
}

}  // namespace pe
