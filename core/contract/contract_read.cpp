// JSON -> Scenario, driven by the field table (schema.h): a key is known when it has a row, a
// value has the row's type, and the rows are applied in table order, so a preset lands before
// the fields that override it. Ranges and cross-field rules are validate.cpp's. Every access
// checks the type first: the wasm build has no exceptions, and nlohmann's get<> of the wrong
// type would abort.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "contract/contract.h"
#include "model/calibrate.h"
#include "model/layout.h"
#include "model/model_shape.h"
#include "model/moe.h"
#include "model/presets.h"
#include "model/schema.h"
#include "model/validate.h"

namespace pe {
namespace {

using json = Json;

// A scenario nests two levels ({"model": {...}}). Deeper values are refused as they are read:
// printing a value back in a message recurses once per level, and 64 KB of "[" would overflow
// the stack.
constexpr int kMaxNesting = 16;

// One JSON document, read strictly: RFC 8259 (nlohmann's parser: no comments, no trailing
// commas, valid UTF-8, nothing after the document), no key given twice in one object
// (nlohmann would keep the last silently) and no nesting deeper than kMaxNesting (the values
// past it are dropped as they are read, never built).
struct StrictJson {
  Json value;
  std::string error;      // why the text is not JSON, and at which byte
  std::string duplicate;  // the dotted path of the first key given twice ("model.layers")
  std::string deep_key;   // the dotted path under which nesting first passed kMaxNesting
  bool too_deep = false;
  int depth = 0;  // the deepest nesting seen
};

// Why nlohmann refused the text: its parse error, without the exception's name, and the byte.
std::string parse_error_text(std::size_t byte, const std::string& last_token,
                             const nlohmann::detail::exception& e) {
  std::string what = e.what();
  // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
  const size_t colon = what.find(": ");
  if (colon != std::string::npos) what = what.substr(colon + 2);
  // "; last read: '<token>'" quotes the input, of any length and with any bytes (the
  // fuzzer's held "; expected" and half a UTF-8 character): the byte says where instead.
  const std::string quoted = "; last read: '" + last_token + "'";
  if (const size_t at = what.find(quoted); at != std::string::npos) what.erase(at, quoted.size());
  // A whole document and then more: said plainly rather than as the token it expected.
  // "; expected end of input" only: "unexpected end of input" (an empty or cut-short
  // document) holds the same words and is the opposite fault.
  if (what.find("; expected end of input") != std::string::npos) {
    what = "bytes after the document";
  } else if (what.find("unexpected end of input") != std::string::npos) {
    what = "the document ends before it is complete";
  }
  return what + " at byte " + std::to_string(byte);
}

// The document built from nlohmann's SAX events, the checks above made as it is read: one
// pass and one instantiation of nlohmann's parser. A DOM parse with a callback (its
// std::function, its vector<bool> stacks and the parser's two DOM builders) and a second SAX
// pass for the error's words cost the first load 2.6 KB gzipped (lab-module, wasm/README.md).
// It builds what nlohmann's callback parser built when told to drop a container past
// kMaxNesting, which a refusal may quote (not_one_object): an object's member holding a
// dropped array reads as discarded, and the end of a dropped object erases its parent's first
// discarded member.
struct StrictReader {
  using string_t = Json::string_t;
  StrictJson& out;
  std::vector<Json*> stack;  // the open containers, nullptr for one dropped
  Json* member = nullptr;    // where an object's next value goes
  // Per kept container, the keys so far and the key being read (a part of the dotted path;
  // none for an array).
  std::vector<std::pair<std::set<std::string>, std::string>> open;

  bool value(Json v) {
    if (stack.empty()) {
      out.value = std::move(v);
    } else if (stack.back() && stack.back()->is_array()) {
      stack.back()->push_back(std::move(v));
    } else if (stack.back()) {
      *member = std::move(v);
    }
    return true;
  }
  Json* last() {
    if (stack.empty()) return &out.value;
    return stack.back()->is_array() ? &stack.back()->back() : member;
  }
  bool start(Json::value_t type) {
    const int depth = static_cast<int>(stack.size());
    out.depth = std::max(out.depth, depth + 1);
    if (depth >= kMaxNesting && !out.too_deep) {
      // The key the nesting went too deep under: the page puts back that field alone.
      out.too_deep = true;
      for (const auto& [keys, key] : open) {
        if (!key.empty()) out.deep_key += (out.deep_key.empty() ? "" : ".") + key;
      }
    }
    if (depth >= kMaxNesting || (!stack.empty() && !stack.back())) {
      stack.push_back(nullptr);
      return true;
    }
    value(Json(type));
    stack.push_back(last());
    open.emplace_back();
    return true;
  }
  bool end(bool object) {
    const bool kept = stack.back() != nullptr;
    stack.pop_back();
    if (kept) open.pop_back();
    if (object && !stack.empty() && stack.back()) {
      Json& parent = *stack.back();
      for (auto it = parent.begin(); it != parent.end(); ++it) {
        if (it->is_discarded()) {
          parent.erase(it);
          break;
        }
      }
    }
    return true;
  }
  bool key(string_t& key) {
    if (!stack.back()) return true;
    if (!open.back().first.insert(key).second && out.duplicate.empty()) {
      for (size_t i = 0; i + 1 < open.size(); ++i) {
        if (!open[i].second.empty()) out.duplicate += open[i].second + ".";
      }
      out.duplicate += key;
    }
    open.back().second = key;
    member = &((*stack.back())[key] = Json(Json::value_t::discarded));
    return true;
  }

  bool null() { return value(nullptr); }
  bool boolean(bool v) { return value(v); }
  bool number_integer(Json::number_integer_t v) { return value(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return value(v); }
  bool number_float(Json::number_float_t v, const string_t&) { return value(v); }
  bool string(string_t& v) { return value(v); }
  bool binary(Json::binary_t&) { return true; }  // JSON text holds none
  bool start_object(std::size_t) { return start(Json::value_t::object); }
  bool end_object() { return end(true); }
  bool start_array(std::size_t) { return start(Json::value_t::array); }
  bool end_array() { return end(false); }
  bool parse_error(std::size_t byte, const std::string& last_token,
                   const nlohmann::detail::exception& e) {
    out.error = parse_error_text(byte, last_token, e);
    return false;
  }
};

StrictJson read_strict(std::string_view text) {
  StrictJson out;
  StrictReader reader{out, {}, nullptr, {}};
  Json::sax_parse(text.begin(), text.end(), &reader);
  if (!out.error.empty()) out.value = Json(Json::value_t::discarded);
  return out;
}

// Characters, not bytes: a UTF-8 continuation byte starts no character.
size_t characters(const std::string& s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string show(const json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() <= 40) return s;
  // Cut at a character boundary: half a UTF-8 character would make the message itself invalid
  // UTF-8, which the page could not show.
  size_t n = 40;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "...";
}

std::string joined(const std::vector<std::string>& items, bool quote) {
  std::string out;
  for (const std::string& item : items) {
    out += (out.empty() ? "" : ", ") + (quote ? Json(item).dump() : item);
  }
  return out;
}

// Keys for a message, cut short so that the message stays readable (and under the 400 bytes
// the fuzz checks allow): the schema names them all.
std::string listed(const std::vector<std::string>& keys) {
  constexpr size_t kMaxChars = 200;
  std::string out;
  size_t shown = 0;
  for (; shown < keys.size() && out.size() + keys[shown].size() < kMaxChars; ++shown) {
    out += (out.empty() ? "" : ", ") + keys[shown];
  }
  if (shown < keys.size()) {
    out += " and " + std::to_string(keys.size() - shown) + " more (explore --schema lists them)";
  }
  return out;
}

// A field read as an object of the fields under it (seams, degrees, and the model and
// precision presets, which take their details as an object instead of a name).
bool nests(const Field& f) {
  if (f.type == FieldType::kObject) return true;
  const std::string prefix = std::string(f.key) + ".";
  return std::any_of(fields().begin(), fields().end(),
                     [&](const Field& g) { return std::string(g.key).rfind(prefix, 0) == 0; });
}

class Reader {
 public:
  Problem problem;
  std::set<std::string> given;  // dotted keys present in the input
  std::vector<std::string> warnings;

  // What the presets given set (the defaults where none is): a detail differing from it
  // overrides the preset.
  Scenario picked;
  // Numbers whose row has no setter (bytes_per_param): resolved once every row is read.
  std::map<std::string, double> unset;

  bool failed() const { return !problem.empty(); }
  void fail(const std::string& key, std::string message) {
    if (!failed()) problem = {key, std::move(message)};
  }

  // Every key of every object must have a row; groups and presets read as objects recurse.
  void check_keys(const json& o, const std::string& prefix) {
    std::vector<std::string> allowed;
    for (const Field& f : fields()) {
      const std::string key = f.key;
      if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 &&
          key.find('.', prefix.size()) == std::string::npos) {
        allowed.push_back(key.substr(prefix.size()));
      }
    }
    for (const auto& [name, value] : o.items()) {
      if (failed()) return;
      const std::string key = prefix + name;
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        return fail(key, "unknown key " + show(json(key)) + ": allowed " + listed(allowed));
      }
      if (nests(*find_field(key)) && value.is_object()) check_keys(value, key + ".");
    }
  }

  // The value at a dotted key, or nullptr when it (or an object above it) is absent.
  static const json* find(const json& root, const std::string& key) {
    const json* at = &root;
    size_t start = 0;
    while (true) {
      const size_t dot = key.find('.', start);
      const std::string part = key.substr(start, dot - start);
      if (!at->is_object()) return nullptr;
      const auto found = at->find(part);
      if (found == at->end()) return nullptr;
      at = &*found;
      if (dot == std::string::npos) return at;
      start = dot + 1;
    }
  }

  void read(const Field& f, const json& v, Scenario& s) {
    const std::string key = f.key;
    switch (f.type) {
      case FieldType::kInteger:
      case FieldType::kNumber:
        return read_number(f, v, s);
      case FieldType::kBoolean:
        if (!v.is_boolean()) return fail(key, key + " is " + show(v) + ": allowed true or false");
        return f.set(s, v.get<bool>() ? 1 : 0);
      case FieldType::kEnum: {
        const auto& c = f.choices;
        const auto at = v.is_string()
                            ? std::find(c.begin(), c.end(), v.get_ref<const std::string&>())
                            : c.end();
        if (at == c.end())
          return fail(key, key + " is " + show(v) + ": allowed " + joined(c, true));
        return f.set(s, static_cast<double>(static_cast<int>(at - c.begin())));
      }
      case FieldType::kString:
        if (!v.is_string() ||
            static_cast<double>(characters(v.get_ref<const std::string&>())) > f.max) {
          return fail(key, key + " is " + show(v) + ": allowed a string of up to " +
                               std::to_string(static_cast<int>(f.max)) + " characters");
        }
        f.set_text(s, v.get_ref<const std::string&>());
        return;
      case FieldType::kPreset:
        return read_preset(f, v, s);
      case FieldType::kOrder:
        if (!v.is_string() || !f.set_text(s, v.get_ref<const std::string&>())) {
          return fail(key, key + " is " + show(v) + ": allowed " + joined(f.choices, false) +
                               " in any order, each once, innermost first, e.g. \"tp,pp,dp\"");
        }
        return;
      case FieldType::kSet:
        return read_set(f, v, s);
      case FieldType::kScenario:
        return read_run(key, v, s);
      case FieldType::kObject:
        if (v.is_object() || (key == "degrees" && v.is_null())) return;
        return fail(key, key + " is " + show(v) + ": allowed an object" +
                             (key == "degrees" ? " or null" : ""));
    }
  }

 private:
  // A list of the row's choices, each at most once: a bit per choice.
  void read_set(const Field& f, const json& v, Scenario& s) {
    const auto& c = f.choices;
    unsigned bits = 0;
    bool ok = v.is_array();
    for (size_t i = 0; ok && i < v.size(); ++i) {
      const auto at = v[i].is_string()
                          ? std::find(c.begin(), c.end(), v[i].get_ref<const std::string&>())
                          : c.end();
      const unsigned bit = 1u << static_cast<unsigned>(at - c.begin());
      ok = at != c.end() && !(bits & bit);
      bits |= bit;
    }
    if (!ok) {
      return fail(f.key,
                  std::string(f.key) + " is " + show(v) + ": allowed a list of " + joined(c, true));
    }
    f.set(s, bits);
  }

  // A calibration's run: a scenario of its own, read by the same rules, its problems named
  // under the key it sits at ("calibration.scenario.gpus").
  void read_run(const std::string& key, const json& v, Scenario& s) {
    if (!v.is_object()) return fail(key, key + " is " + show(v) + ": allowed a scenario object");
    if (v.contains("calibration")) {
      return fail(key + ".calibration",
                  key + ".calibration is given: allowed no calibration inside a calibration");
    }
    const Result<Scenario> run = parse_scenario(v.dump());
    if (!run.ok()) {
      const std::string& inner = run.error_key();
      return fail(inner.empty() ? key : key + "." + inner, "in " + key + ", " + run.error());
    }
    s.calibration.run_at(key) = std::make_shared<const Scenario>(run.value());
  }

  void read_number(const Field& f, const json& v, Scenario& s) {
    const std::string key = f.key;
    if (!v.is_number() || !std::isfinite(v.get<double>())) {
      return fail(key, key + " is " + show(v) + ": allowed a finite number");
    }
    double x = v.get<double>();
    if (x == 0) x = 0;  // -0 passes every ">= 0" check but shows as "-0.0" in the report
    if (f.type == FieldType::kInteger &&
        (x != std::floor(x) || std::fabs(x) > std::numeric_limits<int>::max())) {
      return fail(key, key + " is " + show(v) + ": allowed a whole number");
    }
    if (f.set) {
      f.set(s, x);
    } else {
      unset[key] = x;
    }
  }

  void read_preset(const Field& f, const json& v, Scenario& s) {
    const std::string key = f.key;
    const bool takes_object = nests(f);
    if (takes_object && v.is_object()) return;  // its fields have rows of their own
    const std::string name = v.is_string() ? v.get_ref<const std::string&>() : "";
    if (f.set_text(s, name)) {
      f.set_text(picked, name);
      return;
    }
    fail(key, key + " is " + show(v) + ": allowed " + joined(f.choices, true) +
                  (takes_object ? ", or an object" : ""));
  }
};

// A preset's details set away from what the preset gave. A detail that changes nothing in
// `s` (the MoE fields of a dense model: a warning says so) and a value a user may tune under
// the preset's name (efficiency, the network) do not count.
bool changed(const char* preset, const Scenario& s, const Scenario& picked) {
  for (const Field* f : details_of(preset)) {
    if (f->tunes_preset || (f->inert && f->inert(s))) continue;
    if (f->get(s) != f->get(picked)) return true;
  }
  return false;
}

bool any_given(const Reader& in, const char* preset) {
  for (const Field* f : details_of(preset)) {
    if (!f->tunes_preset && in.given.count(f->key)) return true;
  }
  return false;
}

// bytes_per_param alone: bf16 weight 2 + bf16 grad 2, the rest split evenly between the three
// optimizer states (16 gives the book's 4 + 4 + 4). Beside a precision, the precision wins.
void read_bytes_per_param(Reader& in, const Precision& before, Scenario& s) {
  const double bytes = in.unset["bytes_per_param"];
  if (in.given.count("precision")) {
    if (std::fabs(bytes - s.recipe.precision.total_bytes()) > 1e-9) {
      in.warnings.push_back("bytes_per_param " + show_number(bytes) +
                            " is overridden by precision, which adds up to " +
                            show_number(s.recipe.precision.total_bytes()) +
                            " bytes per parameter.");
    }
    return;
  }
  // 2 + 2, and each optimizer state within its own field's range (precision.master's): above
  // 52 the split gives states the contract refuses, and the refusal named precision.master,
  // a key the user never gave.
  const double most = 4 + 3 * find_field("precision.master")->max;
  if (bytes < 4 || bytes > most) {
    return in.fail("bytes_per_param", "bytes_per_param is " + show_number(bytes) +
                                          ": allowed 4 to " + show_number(most) +
                                          " (2 + 2 + three optimizer states of at most " +
                                          show_number((most - 4) / 3) + " each)");
  }
  if (bytes == before.total_bytes()) return;
  const double state = (bytes - 4) / 3;
  s.recipe.precision = bytes == 16 ? Precision{} : Precision{"custom", 2, 2, state, state, state};
}

// What the fields around a preset mean once every row is read: the model's name and count,
// the precision's name, the GPU's name, the interleaved default.
void resolve(Reader& in, const Precision& precision_before, Scenario& s) {
  const auto given = [&in](const char* key) { return in.given.count(key) > 0; };
  ModelSpec& m = s.model;
  const ModelSpec& model_preset = in.picked.model;
  const bool arch_changed = changed("model", s, in.picked);
  const bool arch_given = any_given(in, "model");
  // params without any architecture (or preset) make the shape a template scaled to them.
  if (!given("model.shape_nominal")) {
    m.shape_nominal = given("model.params") && !arch_given && !given("model.preset");
  }
  if (!given("model.params") && arch_changed) m.params = 0;  // a new architecture: count it
  if (!given("model.params") && m.params == 0) m.params = shape_params(m, s.batch.seq_len);
  if (!given("model.name") && (arch_changed || given("model.params"))) {
    if (given("model.preset")) {
      m.name = "custom (from " + model_preset.name + ")";
      in.warnings.push_back("model: the " + model_preset.name +
                            " preset is overridden by its architecture or params fields, so "
                            "the model is called \"" +
                            m.name + "\".");
    } else {
      m.name = "custom";
    }
  }
  if (in.given.count("precision") && !find_precision(s.recipe.precision.name))
    s.recipe.precision.name = "custom";
  if (any_given(in, "precision")) s.recipe.precision.name = "custom";
  if (given("bytes_per_param")) read_bytes_per_param(in, precision_before, s);
  if (changed("gpu", s, in.picked)) {
    s.gpu.name = "custom";
    // A measured GEMM speedup (presets.cpp) belongs to the GPU it was measured on: with its
    // peaks or memory changed, FP8 and FP4 run at the ratio of its peaks. So a custom GPU's
    // scenario, written out and read back, prices its GEMMs the same. So does the measured
    // GEMM curve by size (gemm_shape.h): a custom GPU's GEMMs all run at its one efficiency.
    s.gpu.fp8_gemm_speedup = 0;
    s.gpu.fp4_gemm_speedup = 0;
    s.gpu.gemm_curve = GemmCurve::kNone;
  }
  // The GPU's system sets its node (a GB200 NVL72 tray holds 4) unless the node is given.
  if (given("gpu") && !given("gpus_per_node")) s.fleet.gpus_per_node = s.gpu.node_gpus;
  if (s.recipe.schedule == Schedule::kInterleaved && !given("virtual_stages"))
    s.recipe.virtual_stages = 2;
}

// The range of seq_len over which the model's params still match its shape (validate.h):
// an interval, as the count grows with the sequence. {0, 0} when no length matches.
std::pair<int, int> seq_lens_matching_params(const ModelSpec& m) {
  const int most = static_cast<int>(find_field("seq_len")->max);
  const auto ok = [&m](int seq) { return params_match_shape(m, seq); };
  const auto too_short = [&m](int seq) { return m.params / shape_params(m, seq) > 1; };
  // Binary search for the boundary on each side of where the count crosses params.
  const auto first_where = [](int lo, int hi, const auto& pred) {  // pred false..true
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      pred(mid) ? hi = mid : lo = mid + 1;
    }
    return lo;
  };
  const int cross = first_where(1, most, [&](int seq) { return !too_short(seq); });
  const int lo = first_where(1, cross, ok);
  const int hi = first_where(cross, most + 1, [&](int seq) { return seq > most || !ok(seq); }) - 1;
  if (!ok(lo) || hi < lo) return {0, 0};
  return {lo, hi};
}

// A refusal names a key the user gave. The params of a preset the user did not override can
// only stop matching the shape through seq_len (a learned position table is seq_len x hidden
// parameters): seq_len is at fault, with the lengths that work. Naming model.params made the
// page drop every value, though the user never gave it.
Problem blame_given(const Reader& in, const Scenario& s, Problem p) {
  if (p.key != "model.params" || in.given.count("model.params") || !in.given.count("seq_len")) {
    return p;
  }
  const auto [lo, hi] = seq_lens_matching_params(s.model);
  const std::string allowed =
      lo > 0 ? "allowed " + std::to_string(lo) + " to " + std::to_string(hi) + " with this model"
             : "no length matches them";
  return {"seq_len", "seq_len is " + std::to_string(s.batch.seq_len) + ": " + s.model.name +
                         "'s learned position table (seq_len x hidden parameters) takes its "
                         "count more than 5% from its " +
                         show_number(s.model.params) + " parameters; " + allowed +
                         " (or give model.params, or model.position \"rope\")"};
}

// A calibration block needs its run and the run's step time; with both, the constants the
// run reveals replace the scenario's (calibrate.h).
Problem calibrate(const Reader& in, Scenario& s) {
  const bool block = in.given.count("calibration") > 0;
  if (block && !s.calibration.given()) {
    return {"calibration.scenario",
            "calibration.scenario is missing: a calibration needs the measured run's scenario"};
  }
  if (!block) return {};
  if (s.calibration.step_time_s <= 0 && s.calibration.tokens_per_s_per_gpu <= 0) {
    return {"calibration.step_time_s",
            "calibration.step_time_s is missing: a calibration needs the run's measured time per "
            "step, in seconds, more than 0 (or its tokens_per_s_per_gpu)"};
  }
  if ((s.calibration.second_run != nullptr) != (s.calibration.second_step_time_s > 0)) {
    const bool run = s.calibration.second_run != nullptr;
    const char* key = run ? "calibration.second_step_time_s" : "calibration.second_scenario";
    return {key, std::string(key) + " is missing: a second run needs " +
                     (run ? "its measured time per step, in seconds, more than 0"
                          : "its scenario, beside its measured step")};
  }
  const Result<CalibrationFit> fit = fit_calibration(s, in.given);
  if (!fit.ok()) return fit.problem();
  apply_calibration(fit.value(), s);
  s.calibration.fit = std::make_shared<const CalibrationFit>(fit.value());
  return {};
}

}  // namespace

std::string not_one_object(std::string_view text) {
  if (text.size() > kMaxScenarioBytes) {
    return "is more than " + std::to_string(kMaxScenarioBytes) + " bytes";
  }
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return "has a NUL byte at byte " + std::to_string(nul);
  }
  const StrictJson parsed = read_strict(text);
  if (!parsed.error.empty()) return "is not one JSON document: " + parsed.error;
  if (!parsed.value.is_object()) return "is " + show(parsed.value);
  return "";
}

Result<Scenario> parse_scenario(std::string_view text, std::vector<std::string>* warnings) {
  if (text.size() > kMaxScenarioBytes) {
    return Result<Scenario>::failure("scenario is more than " + std::to_string(kMaxScenarioBytes) +
                                     " bytes: allowed at most " +
                                     std::to_string(kMaxScenarioBytes));
  }
  // JSON never holds a raw NUL (strings escape it), and the parser would stop reading there.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return Result<Scenario>::failure("scenario has a NUL byte at byte " + std::to_string(nul) +
                                     ": allowed one JSON object and nothing after it");
  }
  const StrictJson parsed = read_strict(text);
  if (parsed.depth > kMaxNesting) {
    return Result<Scenario>::failure(Problem{
        parsed.deep_key, "scenario nests " + std::to_string(parsed.depth) +
                             " levels deep: allowed at most " + std::to_string(kMaxNesting)});
  }
  if (!parsed.error.empty()) {
    return Result<Scenario>::failure("scenario is not valid JSON: " + parsed.error +
                                     ": allowed one JSON object");
  }
  const json& o = parsed.value;
  if (!o.is_object()) {
    return Result<Scenario>::failure("scenario is " + show(o) + ": allowed a JSON object");
  }
  if (!parsed.duplicate.empty()) {
    return Result<Scenario>::failure(
        Problem{parsed.duplicate, show(json(parsed.duplicate)) + " is given twice: allowed once"});
  }

  Reader in;
  in.check_keys(o, "");
  Scenario s;
  const Precision precision_before = s.recipe.precision;
  for (const Field& f : fields()) {
    const json* v = in.failed() ? nullptr : Reader::find(o, f.key);
    if (!v) continue;
    in.given.insert(f.key);
    in.read(f, *v, s);
  }
  if (!in.failed()) resolve(in, precision_before, s);
  if (in.failed()) return Result<Scenario>::failure(in.problem);
  if (Problem problem = validate(s); !problem.empty()) {
    return Result<Scenario>::failure(blame_given(in, s, problem));
  }
  if (Problem problem = calibrate(in, s); !problem.empty()) {
    return Result<Scenario>::failure(problem);
  }
  for (const Field& f : fields()) {
    if (f.inert && f.inert(s) && in.given.count(f.key)) {
      in.warnings.push_back(std::string(f.key) + " is ignored: " + f.inert_reason + ".");
    }
  }
  if (warnings) *warnings = std::move(in.warnings);
  return s;
}

}  // namespace pe
