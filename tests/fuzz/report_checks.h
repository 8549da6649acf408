// What the contract's output must satisfy, whatever the input: shared by the fuzz targets
// (which abort on a problem, so libFuzzer keeps the input) and by tests/hardening_test.cpp
// (which replays the seed corpus and every input the fuzzer ever found under GoogleTest).
// Each check returns "" when all is well, else what is wrong and where.
#pragma once

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace pe::fuzz {

using nlohmann::json;

// An error message is read by people: it names a field and what is allowed, so it is short
// and never echoes a whole hostile input back.
constexpr size_t kMaxErrorBytes = 700;  // a short echo plus the list of allowed keys

// Every number in a report is a byte count, a time, a FLOP count, a rate, a fraction or a
// count: finite and not negative. The signed quantities are the headroom ("negative when it
// does not fit", core/README.md) and a nesting order's cost against the chapter's (negative when it
// is faster), and their derivations' results (/explain/memory.headroom_bytes/result). NaN and
// infinity reach JSON as null (nlohmann's dump), so null is only allowed where the contract puts
// it: "degrees": null in the resolved scenario. -0.0 is refused too: it dumps as "-0.0", which a
// reader takes for a negative number.
inline bool is_signed(const std::string& path, const std::string& key) {
  for (const std::string name : {"headroom_bytes", "order_cost_s"}) {
    if (key == name) return true;
    const std::string tail = "." + name + "/result";
    if (path.rfind("/explain/", 0) == 0 && path.size() > tail.size() &&
        path.compare(path.size() - tail.size(), tail.size(), tail) == 0) {
      return true;
    }
  }
  return false;
}

inline std::string walk(const json& v, const std::string& path, const std::string& key) {
  switch (v.type()) {
    case json::value_t::null:
      return path == "/scenario/degrees" ? "" : "null (NaN or infinity) at " + path;
    case json::value_t::number_float: {
      const double x = v.get<double>();
      if (!std::isfinite(x)) return "non-finite number at " + path;
      if (std::signbit(x) && !is_signed(path, key)) return "negative number at " + path;
      return "";
    }
    case json::value_t::number_integer:
      return v.get<long long>() < 0 ? "negative number at " + path : "";
    case json::value_t::object:
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (std::string p = walk(*it, path + "/" + it.key(), it.key()); !p.empty()) return p;
      }
      return "";
    case json::value_t::array:
      for (size_t i = 0; i < v.size(); ++i) {
        if (std::string p = walk(v[i], path + "/" + std::to_string(i), key); !p.empty()) return p;
      }
      return "";
    default:
      return "";
  }
}

// A report: every number sane (walk), and its own arithmetic, which a reader could check by
// hand, holds.
inline std::string check_report(const json& r, bool with_ranks) {
  for (const char* k :
       {"degrees", "gpus", "active_gpus", "nodes", "model_params", "global_batch", "memory",
        "comms", "pipeline", "time", "ranks", "warnings", "facts", "scenario"}) {
    if (!r.contains(k)) return std::string("no \"") + k + "\" in the report";
  }
  if (std::string p = walk(r, "", ""); !p.empty()) return p;
  const json& d = r["degrees"];
  const double dp = d.value("dp", 0.0), tp = d.value("tp", 0.0), pp = d.value("pp", 0.0),
               cp = d.value("cp", 1.0);
  if (dp < 1 || tp < 1 || pp < 1 || cp < 1) return "a degree below 1";
  const double active = r["active_gpus"].get<double>();
  if (dp * tp * pp * cp != active) return "dp x tp x pp x cp is not active_gpus";
  if (active > r["gpus"].get<double>()) return "more active GPUs than GPUs";
  if (with_ranks && r["ranks"].size() != active) return "ranks[] is not one per active GPU";
  const json& memory = r["memory"];
  if (memory["stages"].size() != pp) return "memory.stages[] is not one per pipeline stage";
  double busiest = 0;
  for (const json& st : memory["stages"])
    busiest = std::max(busiest, st["per_gpu_bytes"].get<double>());
  if (busiest != memory["per_gpu_bytes"].get<double>()) {
    return "memory.per_gpu_bytes is not the busiest stage's";
  }
  const json& time = r["time"];
  // MFU against the peak the GEMMs run at (time.mfu_peak_tflops: FP8's or FP4's under those
  // GEMMs, never below BF16's): never above 1.
  if (time["mfu"].get<double>() > 1 + 1e-9) return "time.mfu above 1";
  if (!(time["step_s"].get<double>() > 0)) return "time.step_s is not positive";
  return "";
}

// One output of evaluate_json: valid JSON, and either exactly
// {"error": {"key": null | "<dotted key>", "message": "<short message>"}} or a
// report that passes check_report. `out` receives the parsed output.
inline std::string check_output(std::string_view output, bool with_ranks, json& out) {
  out = json::parse(output.begin(), output.end(), nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) return "output is not valid JSON";
  if (!out.is_object()) return "output is not a JSON object";
  if (!out.contains("error")) return check_report(out, with_ranks);
  if (out.size() != 1) return "an error with other keys beside it";
  const json& error = out["error"];
  if (!error.is_object() || error.size() != 2 || !error.contains("key")) {
    return "error is not {key, message}";
  }
  if (!error["key"].is_null() && !error["key"].is_string()) return "error key is not a name";
  const json& e = error["message"];
  if (!e.is_string() || e.get_ref<const std::string&>().empty()) return "error is not a message";
  if (e.get_ref<const std::string&>().size() > kMaxErrorBytes) {
    return "error message longer than " + std::to_string(kMaxErrorBytes) + " bytes";
  }
  return "";
}

// The resolved scenario of a report reads back to the same report (core/README.md: "reading it back
// gives the same report"), and from then on to the same scenario as well. Not necessarily the
// same scenario at once: a custom GPU whose numbers equal the default preset's reads back under
// that preset's name, which changes no number. The warnings the reader added about the input
// itself (a repeated setting, a field with no effect) need not come back: the echo is already
// resolved, so its warnings are the original's without those.
template <class Evaluate>
std::string check_read_back(const json& report, Evaluate evaluate) {
  const std::string again = evaluate(report["scenario"].dump());
  json second;
  if (std::string p = check_output(again, true, second); !p.empty()) return "read back: " + p;
  if (second.contains("error")) return "the resolved scenario is refused: " + again;
  json a = report, b = second;
  for (json* r : {&a, &b}) {
    r->erase("scenario");
    r->erase("warnings");
  }
  if (a != b) return "the resolved scenario reads back to a different report";
  const json& before = report["warnings"];
  for (const json& w : second["warnings"]) {
    if (std::find(before.begin(), before.end(), w) == before.end()) {
      return "the resolved scenario reads back with a new warning: " + w.dump();
    }
  }
  if (evaluate(second["scenario"].dump()) != again) {
    return "the resolved scenario does not read back to itself";
  }
  return "";
}

// Everything above for one scenario text: "" or the first problem.
template <class Evaluate>
std::string check_scenario_text(std::string_view text, Evaluate evaluate) {
  const std::string output = evaluate(text);
  json out;
  if (std::string p = check_output(output, true, out); !p.empty()) {
    return p + "\noutput: " + output.substr(0, 400);
  }
  if (out.contains("error")) return "";
  if (std::string p = check_read_back(out, evaluate); !p.empty()) {
    return p + "\noutput: " + output.substr(0, 400);
  }
  return "";
}

// One output of plan_json: an error as above, or plans whose numbers are all sane, fastest
// first, each fitting in memory, and each one's scenario evaluating to the plan's own figures.
template <class Evaluate>
std::string check_plan_text(std::string_view text, int top_k,
                            std::string (*plan)(std::string_view, int), Evaluate evaluate) {
  const std::string output = plan(text, top_k);
  const json out = json::parse(output, nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded() || !out.is_object()) return "plan output is not a JSON object";
  if (out.contains("error")) {
    json e;
    return check_output(output, false, e);
  }
  if (std::string p = walk(out, "", ""); !p.empty()) return "plan: " + p;
  const json& plans = out["plans"];
  if (out["evaluated"].get<double>() < out["feasible"].get<double>()) {
    return "more feasible plans than evaluated ones";
  }
  if (plans.size() > static_cast<size_t>(top_k) || plans.size() > out["feasible"].get<double>()) {
    return "more plans than asked for or feasible";
  }
  double previous = 0;
  for (const json& p : plans) {
    json r;
    const std::string again = evaluate(p["scenario"].dump());
    if (std::string problem = check_output(again, false, r); !problem.empty()) {
      return "a plan's scenario: " + problem;
    }
    if (r.contains("error")) return "a plan's scenario is refused: " + again.substr(0, 200);
    if (r["memory"]["per_gpu_bytes"] != p["per_gpu_bytes"] || r["time"]["step_s"] != p["step_s"]) {
      return "a plan's figures differ from its scenario's report";
    }
    if (!r["memory"]["fits"].get<bool>()) return "a plan that does not fit";
    if (p["step_s"].get<double>() < previous) return "plans not fastest first";
    previous = p["step_s"].get<double>();
  }
  return "";
}

}  // namespace pe::fuzz
