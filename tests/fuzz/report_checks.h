// What every fuzz target asserts about the contract's output. A failed check prints what and
// where, then aborts, which libFuzzer records as a crash with the input that caused it.
// Shared so a second target (the planner) reuses the same walk.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pe::fuzz {

using nlohmann::json;

[[noreturn]] inline void fail(const std::string& what, const std::string& where,
                              std::string_view output) {
  std::fprintf(stderr, "fuzz check failed: %s at %s\noutput (first 400 bytes): %.*s\n",
               what.c_str(), where.c_str(), static_cast<int>(std::min<size_t>(output.size(), 400)),
               output.data());
  std::abort();
}

// An error message is read by people: it names a field and what is allowed, so it is short
// and never echoes a whole hostile input back.
constexpr size_t kMaxErrorBytes = 400;

// Every number in a report is a byte count, a time, a FLOP count, a rate, a fraction or a
// count: finite and not negative. The one signed quantity is the headroom ("negative when it
// does not fit", README). NaN and infinity reach JSON as null (nlohmann's dump), so null is
// only allowed where the contract says so: "degrees": null in the resolved scenario.
// -0.0 is also refused: it dumps as "-0.0", which a reader sees as a negative number.
inline void walk(const json& v, const std::string& path, const std::string& key,
                 std::string_view output) {
  switch (v.type()) {
    case json::value_t::null:
      if (path != "/scenario/degrees") fail("null (NaN or infinity?)", path, output);
      return;
    case json::value_t::number_float: {
      const double x = v.get<double>();
      if (!std::isfinite(x)) fail("non-finite number", path, output);
      if (std::signbit(x) && key != "headroom_bytes") fail("negative number", path, output);
      return;
    }
    case json::value_t::number_integer:
      if (v.get<long long>() < 0) fail("negative integer", path, output);
      return;
    case json::value_t::object:
      for (auto it = v.begin(); it != v.end(); ++it) walk(*it, path + "/" + it.key(), it.key(), output);
      return;
    case json::value_t::array:
      for (size_t i = 0; i < v.size(); ++i) walk(v[i], path + "/" + std::to_string(i), key, output);
      return;
    default:
      return;
  }
}

inline double num(const json& o, const char* a, const char* b = nullptr) {
  const json& v = b ? o.at(a).at(b) : o.at(a);
  return v.get<double>();
}

// The report's own arithmetic, which a reader could check by hand.
inline void check_report(const json& r, bool with_ranks, std::string_view output) {
  for (const char* k : {"degrees", "gpus", "active_gpus", "nodes", "model_params", "global_batch",
                        "memory", "comms", "pipeline", "time", "ranks", "warnings", "scenario"}) {
    if (!r.contains(k)) fail(std::string("missing key ") + k, "/", output);
  }
  walk(r, "", "", output);
  const double dp = num(r, "degrees", "dp"), tp = num(r, "degrees", "tp"),
               pp = num(r, "degrees", "pp");
  if (dp < 1 || tp < 1 || pp < 1) fail("a degree below 1", "/degrees", output);
  if (dp * tp * pp != num(r, "active_gpus")) fail("dp x tp x pp != active_gpus", "/degrees", output);
  if (num(r, "active_gpus") > num(r, "gpus")) fail("more active GPUs than GPUs", "/active_gpus", output);
  if (with_ranks && r["ranks"].size() != num(r, "active_gpus")) {
    fail("ranks[] is not one entry per active GPU", "/ranks", output);
  }
  const json& stages = r["memory"]["stages"];
  if (stages.size() != pp) fail("memory.stages[] is not one entry per stage", "/memory/stages", output);
  double peak = 0;
  for (const json& st : stages) peak = std::max(peak, st["per_gpu_bytes"].get<double>());
  if (peak != num(r["memory"], "per_gpu_bytes")) {
    fail("per_gpu_bytes is not the busiest stage's", "/memory/per_gpu_bytes", output);
  }
  const double mfu = num(r["time"], "mfu");
  if (mfu > 1 + 1e-9) fail("MFU above 1", "/time/mfu", output);
  if (!(num(r["time"], "step_s") > 0)) fail("a step that takes no time", "/time/step_s", output);
}

// One output of evaluate_json: valid JSON, and either exactly {"error": "<short message>"} or a
// report that passes check_report.
inline json check_output(std::string_view output, bool with_ranks) {
  const json out = json::parse(output.begin(), output.end(), nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) fail("output is not valid JSON", "/", output);
  if (!out.is_object()) fail("output is not an object", "/", output);
  if (out.contains("error")) {
    const json& e = out["error"];
    if (out.size() != 1) fail("an error with other keys beside it", "/", output);
    if (!e.is_string() || e.get_ref<const std::string&>().empty()) {
      fail("error is not a non-empty string", "/error", output);
    }
    if (e.get_ref<const std::string&>().size() > kMaxErrorBytes) {
      fail("error message longer than " + std::to_string(kMaxErrorBytes) + " bytes", "/error", output);
    }
    return out;
  }
  check_report(out, with_ranks, output);
  return out;
}

}  // namespace pe::fuzz
