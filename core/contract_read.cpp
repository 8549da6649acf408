// JSON -> Scenario. Types are checked here; ranges and cross-field rules in validate.cpp.
// Built without exceptions: every access checks the type first and parse() never throws.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "contract.h"
#include "presets.h"
#include "transformer.h"
#include "validate.h"

namespace pe {
namespace {

using nlohmann::json;

constexpr size_t kMaxScenarioBytes = 64 * 1024;  // a scenario is a few hundred bytes
// A scenario nests two levels ({"model": {...}}). Deeper input is refused before parsing:
// printing a value back in a message recurses once per level, and 64 KB of "[" overflowed the
// stack (found by the fuzz corpus under the sanitizer build).
constexpr int kMaxNesting = 16;

// The deepest nesting of [ and { outside strings; approximate for invalid JSON, which the
// parser refuses anyway.
int nesting(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (escaped) {
      escaped = false;
    } else if (in_string) {
      escaped = c == '\\';
      in_string = c != '"';
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

std::string show(const json& v) {
  std::string s = v.dump();
  if (s.size() <= 40) return s;
  // Cut at a character boundary: half a UTF-8 character would make the message itself invalid
  // (dumping it throws natively and aborts the wasm module).
  size_t n = 40;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "...";
}

class Reader {
 public:
  bool failed() const { return !error.empty(); }
  std::string error;

  void fail(std::string message) {
    if (error.empty()) error = std::move(message);
  }

  // An object whose keys must all be in `allowed`.
  bool object(const json& v, const std::string& path, std::initializer_list<const char*> allowed) {
    if (!v.is_object()) {
      fail((path.empty() ? "scenario" : path) + " is " + show(v) + ": allowed an object");
      return false;
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      bool known = false;
      std::string keys;
      for (const char* k : allowed) {
        known = known || it.key() == k;
        keys += (keys.empty() ? "" : ", ") + std::string(k);
      }
      if (!known) {
        fail("unknown key " + (path.empty() ? "" : path + ".") + show(json(it.key())) +
             ": allowed " + keys);
        return false;
      }
    }
    return true;
  }

  void number(const json& o, const char* key, const std::string& path, double& out) {
    const auto it = o.find(key);
    if (it == o.end()) return;
    if (!it->is_number() || !std::isfinite(it->get<double>())) {
      fail(path + " is " + show(*it) + ": allowed a finite number");
      return;
    }
    out = it->get<double>();
    if (out == 0) out = 0;  // -0 passes every ">= 0" check but shows as "-0.0" in the report
  }

  void integer(const json& o, const char* key, const std::string& path, int& out) {
    double v = out;
    const auto it = o.find(key);
    if (it == o.end()) return;
    number(o, key, path, v);
    if (failed()) return;
    if (v != std::floor(v) || std::fabs(v) > std::numeric_limits<int>::max()) {
      fail(path + " is " + show(*it) + ": allowed a whole number");
      return;
    }
    out = static_cast<int>(v);
  }

  void boolean(const json& o, const char* key, const std::string& path, bool& out) {
    const auto it = o.find(key);
    if (it == o.end()) return;
    if (!it->is_boolean()) return fail(path + " is " + show(*it) + ": allowed true or false");
    out = it->get<bool>();
  }

  // One of `choices`; returns its index, or -1 when absent or wrong.
  int choice(const json& o, const char* key, const std::string& path,
             std::initializer_list<const char*> choices) {
    const auto it = o.find(key);
    if (it == o.end()) return -1;
    std::string names;
    int i = 0, found = -1;
    for (const char* c : choices) {
      if (it->is_string() && it->get_ref<const std::string&>() == c) found = i;
      names += (names.empty() ? "" : ", ") + json(c).dump();
      ++i;
    }
    if (found < 0) fail(path + " is " + show(*it) + ": allowed " + names);
    return found;
  }
};

void read_model(Reader& in, const json& v, Scenario& s) {
  ModelSpec& m = s.model;
  if (v.is_string()) {
    auto preset = find_model(v.get<std::string>());
    if (!preset) return in.fail("model is " + show(v) + ": allowed " + model_names());
    m = *preset;
  } else {
    if (!in.object(v, "model", {"preset", "name", "params", "layers", "hidden", "heads", "vocab"})) {
      return;
    }
    if (auto it = v.find("preset"); it != v.end()) {
      auto preset = it->is_string() ? find_model(it->get<std::string>()) : std::nullopt;
      if (!preset) return in.fail("model.preset is " + show(*it) + ": allowed " + model_names());
      m = *preset;
    }
    const ModelSpec before = m;
    if (auto it = v.find("name"); it != v.end()) {
      if (!it->is_string() || it->get_ref<const std::string&>().size() > 64) {
        return in.fail("model.name is " + show(*it) + ": allowed a string of up to 64 characters");
      }
      m.name = it->get<std::string>();
    }
    in.integer(v, "layers", "model.layers", m.layers);
    in.integer(v, "hidden", "model.hidden", m.hidden);
    in.integer(v, "heads", "model.heads", m.heads);
    in.integer(v, "vocab", "model.vocab", m.vocab);
    const bool params_given = v.contains("params");
    in.number(v, "params", "model.params", m.params);
    const bool arch_changed = m.layers != before.layers || m.hidden != before.hidden ||
                              m.vocab != before.vocab;
    if (!params_given && arch_changed) m.params = 0;  // a new architecture: count it
    if (!v.contains("preset") && !v.contains("name") && (arch_changed || params_given)) {
      m.name = "custom";
    }
  }
}

void read_precision(Reader& in, const json& v, Scenario& s) {
  if (v.is_string()) {
    auto preset = find_precision(v.get<std::string>());
    if (!preset) return in.fail("precision is " + show(v) + ": allowed " + precision_names());
    s.precision = *preset;
    return;
  }
  if (!in.object(v, "precision", {"weight", "grad", "master", "adam_m", "adam_v"})) return;
  Precision& p = s.precision;
  p.name = "custom";
  in.number(v, "weight", "precision.weight", p.weight_bytes);
  in.number(v, "grad", "precision.grad", p.grad_bytes);
  in.number(v, "master", "precision.master", p.master_bytes);
  in.number(v, "adam_m", "precision.adam_m", p.adam_m_bytes);
  in.number(v, "adam_v", "precision.adam_v", p.adam_v_bytes);
}

// bytes_per_param alone: bf16 weight 2 + bf16 grad 2, the rest split evenly between the three
// optimizer states (16 gives the book's 4 + 4 + 4).
void read_bytes_per_param(Reader& in, const json& o, Scenario& s) {
  double bytes = s.precision.total_bytes();
  in.number(o, "bytes_per_param", "bytes_per_param", bytes);
  if (in.failed() || !o.contains("bytes_per_param")) return;
  if (o.contains("precision")) {
    if (std::fabs(bytes - s.precision.total_bytes()) > 1e-9) {
      in.fail("bytes_per_param is " + show(o["bytes_per_param"]) + " but precision adds up to " +
              show(s.precision.total_bytes()) + ": give one or make them agree");
    }
    return;
  }
  if (bytes < 4 || bytes > 64) {
    return in.fail("bytes_per_param is " + show(o["bytes_per_param"]) + ": allowed 4 to 64");
  }
  if (bytes == 16) return;  // the book's own split
  const double state = (bytes - 4) / 3;
  s.precision = {"custom", 2, 2, state, state, state};
}

void read_gpu(Reader& in, const json& o, Scenario& s) {
  if (auto it = o.find("gpu"); it != o.end()) {
    auto preset = it->is_string() ? find_gpu(it->get<std::string>()) : std::nullopt;
    if (!preset) return in.fail("gpu is " + show(*it) + ": allowed " + gpu_names());
    s.gpu = *preset;
  }
  const GpuSpec before = s.gpu;
  in.number(o, "gpu_memory_gb", "gpu_memory_gb", s.gpu.memory_gb);
  in.number(o, "gpu_peak_tflops", "gpu_peak_tflops", s.gpu.peak_tflops);
  in.number(o, "nvlink_gb_s", "nvlink_gb_s", s.gpu.nvlink_gb_s);
  if (s.gpu.memory_gb != before.memory_gb || s.gpu.peak_tflops != before.peak_tflops ||
      s.gpu.nvlink_gb_s != before.nvlink_gb_s) {
    s.gpu.name = "custom";
  }
}

}  // namespace

Result<Scenario> parse_scenario(std::string_view text) {
  if (text.size() > kMaxScenarioBytes) {
    return Result<Scenario>::failure("scenario is " + std::to_string(text.size()) +
                                     " bytes: allowed at most " +
                                     std::to_string(kMaxScenarioBytes));
  }
  if (const int depth = nesting(text); depth > kMaxNesting) {
    return Result<Scenario>::failure("scenario nests " + std::to_string(depth) +
                                     " levels deep: allowed at most " +
                                     std::to_string(kMaxNesting));
  }
  const json o = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (o.is_discarded()) {
    return Result<Scenario>::failure("scenario is not valid JSON: allowed a JSON object");
  }
  Reader in;
  Scenario s;
  in.object(o, "",
            {"gpus", "gpus_per_node", "seams", "degrees", "model", "seq_len", "micro_batch",
             "global_batch", "bytes_per_param", "precision", "gpu", "gpu_memory_gb",
             "gpu_peak_tflops", "nvlink_gb_s", "network_gb_s", "zero_stage", "recompute",
             "sequence_parallel", "schedule", "virtual_stages", "efficiency", "memory_model",
             "train_tokens"});
  if (in.failed()) return Result<Scenario>::failure(in.error);

  in.integer(o, "gpus", "gpus", s.gpus);
  in.integer(o, "gpus_per_node", "gpus_per_node", s.gpus_per_node);
  if (auto it = o.find("seams"); it != o.end() && !in.failed()) {
    if (in.object(*it, "seams", {"data", "tensor", "pipeline"})) {
      in.boolean(*it, "data", "seams.data", s.seams.data);
      in.boolean(*it, "tensor", "seams.tensor", s.seams.tensor);
      in.boolean(*it, "pipeline", "seams.pipeline", s.seams.pipeline);
    }
  }
  if (auto it = o.find("degrees"); it != o.end() && !it->is_null() && !in.failed()) {
    if (in.object(*it, "degrees", {"dp", "tp", "pp"})) {
      Degrees d;
      in.integer(*it, "dp", "degrees.dp", d.dp);
      in.integer(*it, "tp", "degrees.tp", d.tp);
      in.integer(*it, "pp", "degrees.pp", d.pp);
      s.degrees = d;
    }
  }
  in.integer(o, "seq_len", "seq_len", s.seq_len);
  if (auto it = o.find("model"); it != o.end() && !in.failed()) read_model(in, *it, s);
  in.integer(o, "micro_batch", "micro_batch", s.micro_batch);
  in.integer(o, "global_batch", "global_batch", s.global_batch);
  if (auto it = o.find("precision"); it != o.end() && !in.failed()) read_precision(in, *it, s);
  if (!in.failed()) read_bytes_per_param(in, o, s);
  if (!in.failed()) read_gpu(in, o, s);
  in.number(o, "network_gb_s", "network_gb_s", s.network_gb_s);
  in.integer(o, "zero_stage", "zero_stage", s.zero_stage);
  if (int i = in.choice(o, "recompute", "recompute", {"none", "selective", "full"}); i >= 0) {
    s.recompute = static_cast<Recompute>(i);
  }
  in.boolean(o, "sequence_parallel", "sequence_parallel", s.sequence_parallel);
  if (int i = in.choice(o, "schedule", "schedule", {"1f1b", "interleaved"}); i >= 0) {
    s.schedule = static_cast<Schedule>(i);
  }
  in.integer(o, "virtual_stages", "virtual_stages", s.virtual_stages);
  if (s.schedule == Schedule::kInterleaved && !o.contains("virtual_stages")) s.virtual_stages = 2;
  in.number(o, "efficiency", "efficiency", s.efficiency);
  if (int i = in.choice(o, "memory_model", "memory_model", {"book", "full"}); i >= 0) {
    s.memory_model = static_cast<MemoryModel>(i);
  }
  in.number(o, "train_tokens", "train_tokens", s.train_tokens);
  if (in.failed()) return Result<Scenario>::failure(in.error);

  // A model given by its architecture alone is counted with Narayanan Eq. 2.
  if (s.model.params == 0) s.model.params = gpt_params(s.model, s.seq_len);
  if (std::string problem = validate(s); !problem.empty()) {
    return Result<Scenario>::failure(problem);
  }
  return s;
}

}  // namespace pe
