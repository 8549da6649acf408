// Laws that hold between scenarios: what a practitioner takes for granted, checked
// over thousands of random valid scenarios drawn from the field table (schema.h). Each scenario
// is a flat map of dotted keys, written as JSON and read through the contract, so a broken law
// shrinks to the smallest scenario that still breaks it: keys dropped, numbers halved.
//
// Reproducible: scenario i of seed S is always the same. PE_LAWS_SCENARIOS and PE_LAWS_SEED
// choose another run (scripts/test-laws N SEED); the sanitized tree draws fewer by default
// (tests/CMakeLists.txt), as property_test does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "contract/contract.h"
#include "formula_eval.h"
#include "model/calibrate.h"
#include "model/comms.h"
#include "model/explorer.h"
#include "model/goodput.h"
#include "model/memory.h"
#include "model/model_shape.h"
#include "model/pipeline.h"
#include "model/presets.h"
#include "model/schema.h"
#include "model/step_time.h"
#include "planner/choices.h"
#include "planner/planner.h"

namespace pe {
namespace {

using nlohmann::json;

#ifndef PE_LAWS_SCENARIOS
#define PE_LAWS_SCENARIOS 3000
#endif

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
int scenario_count() { return env_int("PE_LAWS_SCENARIOS", PE_LAWS_SCENARIOS); }
unsigned seed() { return static_cast<unsigned>(env_int("PE_LAWS_SEED", 28)); }

// ---- Drawing scenarios from the schema -------------------------------------------------------

using Draft = std::map<std::string, json>;  // dotted key -> value

struct Dice {
  std::mt19937 g;
  int between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g); }
  bool chance(double p) { return real(0, 1) < p; }
  template <class T>
  T pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(between(0, static_cast<int>(items.size()) - 1))];
  }
  std::string choice(const char* key) { return pick(find_field(key)->choices); }
};

std::vector<int> divisors(int n, int most = 1 << 30) {
  std::vector<int> out;
  for (int d = 1; d <= n && d <= most; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

// Fleets of every scale, most of them small enough that the planner's laws can search them:
// products of small primes (many divisors, as real fleets have), and now and then any count.
int draw_gpus(Dice& d) {
  if (d.chance(0.15)) return d.between(1, d.chance(0.5) ? 64 : 16384);
  int n = 1;
  const int cap = d.chance(0.8) ? 128 : 16384;
  for (;;) {
    const int p = d.pick(std::vector<int>{2, 2, 2, 2, 3, 5, 7});
    if (n * p > cap || d.chance(0.12)) return n;
    n *= p;
  }
}

// Explicit degrees whose product is the GPU count; EP only for a mixture of experts.
void draw_degrees(Dice& d, Draft& x, const ModelSpec& m, int gpus, int seq_len) {
  std::vector<int> cps;
  for (int cp : divisors(gpus, 16)) {
    if (seq_len % cp == 0) cps.push_back(cp);
  }
  const int cp = d.chance(0.25) ? d.pick(cps) : 1;
  const int pp = d.pick(divisors(gpus / cp, m.layers));
  const int tp = d.pick(divisors(gpus / (cp * pp), 64));
  const int dp = gpus / (cp * pp * tp);
  x["degrees.dp"] = dp, x["degrees.tp"] = tp, x["degrees.pp"] = pp;
  if (cp > 1 || d.chance(0.1)) x["degrees.cp"] = cp;
  if (m.moe() && d.chance(0.6)) {
    std::vector<int> eps;
    for (int ep : divisors(dp * cp)) {
      if (m.experts % ep == 0) eps.push_back(ep);
    }
    x["degrees.ep"] = d.pick(eps);
  }
  if (m.moe() && d.chance(0.3)) x["expert_tp"] = d.pick(divisors(tp));
}

void draw_fleet(Dice& d, Draft& x, const ModelSpec& m, int gpus, int seq_len) {
  x["gpus"] = gpus;
  if (d.chance(0.7)) x["gpus_per_node"] = d.pick(std::vector<int>{1, 2, 4, 8, 8, 8, 16, 72});
  if (d.chance(0.5)) {
    draw_degrees(d, x, m, gpus, seq_len);
  } else {
    for (const char* seam : {"data", "tensor", "pipeline", "context", "expert"}) {
      if (d.chance(0.6)) x[std::string("seams.") + seam] = d.chance(0.5);
    }
    if (m.moe() && d.chance(0.2)) x["expert_tp"] = d.pick(std::vector<int>{1, 2});
  }
  if (d.chance(0.3)) {
    std::vector<std::string> order = {"tp", "pp", "dp"};
    std::shuffle(order.begin(), order.end(), d.g);
    x["order"] = order[0] + "," + order[1] + "," + order[2];
  }
  if (d.chance(0.3)) x["context_parallel"] = d.choice("context_parallel");
}

// A preset, now and then with its architecture changed (which counts its params afresh), its
// params nudged within the 5% the contract allows, or made a mixture of experts.
ModelSpec draw_model(Dice& d, Draft& x) {
  ModelSpec m = *find_model(d.choice("model"));
  x["model.preset"] = m.name;
  if (d.chance(0.08)) x["model.layers"] = m.layers = d.between(2, 96);
  if (d.chance(0.04)) x["model.vocab"] = d.pick(std::vector<int>{32000, 50257, 128256});
  if (d.chance(0.03)) x["model.kv_heads"] = d.pick(divisors(m.heads));
  if (d.chance(0.03)) x["model.head_dim"] = d.pick(std::vector<int>{64, 128, 256});
  if (d.chance(0.03)) x["model.ffn_hidden"] = 4 * m.hidden;
  if (d.chance(0.03)) x["model.activation"] = d.choice("model.activation");
  if (d.chance(0.03)) x["model.position"] = d.choice("model.position");
  if (d.chance(0.03)) x["model.tied_embeddings"] = d.chance(0.5);
  if (d.chance(0.02)) x["model.attention"] = d.choice("model.attention");
  if (d.chance(0.02)) x["model.hidden"] = m.hidden, x["model.heads"] = m.heads;
  if (d.chance(0.02)) x["model.name"] = "drawn";
  if (!m.moe() && d.chance(0.08)) x["model.experts"] = m.experts = d.pick(std::vector<int>{4, 8});
  if (m.moe()) {
    if (d.chance(0.2)) x["model.experts_per_token"] = d.between(1, std::min(m.experts, 4));
    if (d.chance(0.1)) x["model.moe_ffn_hidden"] = m.hidden;
    if (d.chance(0.1)) x["model.shared_experts"] = d.between(0, 2);
    if (d.chance(0.1)) x["model.dense_layers"] = d.between(0, m.layers - 1);
  }
  const bool arch = x.size() > 1;
  if (!arch && d.chance(0.05)) {
    x["model.shape_nominal"] = true;
    x["model.params"] = 1e9 * d.between(1, 100);
  } else if (!arch && m.params > 0 && d.chance(0.05)) {
    x["model.params"] = m.params * d.real(0.97, 1.03);
  }
  return m;
}

void draw_batch_and_run(Dice& d, Draft& x, const ModelSpec& m) {
  const int b = d.pick(std::vector<int>{1, 1, 2, 4, 8});
  x["micro_batch"] = b;
  x["global_batch"] = std::max(b, d.pick(std::vector<int>{1, 8, 16, 64, 128, 512, 1536, 4096}));
  if (d.chance(0.3)) x["train_tokens"] = 1e12;
  if (d.chance(0.2)) x["price_per_gpu_hour"] = d.real(0.5, 4);
  if (m.moe()) {
    if (d.chance(0.5)) x["capacity_factor"] = d.pick(std::vector<double>{0, 0.5, 1, 1.25, 2});
    if (d.chance(0.4)) x["moe_load_imbalance"] = d.pick(std::vector<double>{1, 1.04, 1.5, 2, 4});
    if (d.chance(0.4)) x["expert_comm_overlap"] = d.chance(0.5);
  }
}

void draw_memory(Dice& d, Draft& x) {
  const int how = d.between(0, 3);
  if (how == 1) x["precision"] = d.choice("precision");
  if (how == 2) x["bytes_per_param"] = d.pick(std::vector<double>{4, 12, 16, 18, 20, 52});
  if (how == 3) {
    for (const char* k : {"precision.weight", "precision.grad", "precision.master",
                          "precision.adam_m", "precision.adam_v"}) {
      if (d.chance(0.6)) x[k] = d.pick(std::vector<double>{1, 2, 4});
    }
    if (d.chance(0.2)) x["precision.fp8"] = d.chance(0.5);
    if (d.chance(0.2) && !x.count("precision.fp8")) x["precision.fp4"] = d.chance(0.5);
  }
  if (d.chance(0.7)) x["zero_stage"] = d.between(0, 3);
  if (d.chance(0.6)) x["recompute"] = d.choice("recompute");
  if (d.chance(0.3)) {
    const std::vector<std::string>& all = find_field("recompute_modules")->choices;
    json modules = json::array();
    for (const std::string& m : all) {
      if (d.chance(0.3)) modules.push_back(m);
    }
    x["recompute_modules"] = modules;
  }
  if (d.chance(0.25)) x["recompute_layers"] = d.pick(std::vector<int>{0, 1, 2, 3, 8});
  if (d.chance(0.25)) x["recompute_method"] = d.choice("recompute_method");
  if (d.chance(0.25)) x["offload_layers"] = d.pick(std::vector<int>{0, 1, 2, 5, 40});
  if (d.chance(0.25)) x["fsdp_prefetch"] = d.pick(std::vector<int>{0, 1, 2, 4});
  if (d.chance(0.5)) x["sequence_parallel"] = d.chance(0.5);
  x["memory_model"] = d.choice("memory_model");
  if (d.chance(0.3)) x["flash_attention"] = d.chance(0.5);
  if (d.chance(0.3)) x["cross_entropy"] = d.chance(0.5) ? "te" : "unfused";
  if (d.chance(0.2)) x["overhead_gb"] = d.pick(std::vector<double>{0, 2, 5});
}

void draw_hardware(Dice& d, Draft& x) {
  if (d.chance(0.8)) x["gpu"] = d.choice("gpu");
  // An NVLink domain of whole nodes (the node the draft gives, else its GPU's), and a spine.
  const auto gpu = find_gpu(x.count("gpu") ? x["gpu"].get<std::string>() : "A100-80GB");
  const int node = x.count("gpus_per_node") ? x["gpus_per_node"].get<int>() : gpu->node_gpus;
  if (d.chance(0.2)) x["nvlink_domain_gpus"] = node * d.pick(std::vector<int>{0, 1, 2, 4, 9});
  if (d.chance(0.2)) x["network_oversubscription"] = d.pick(std::vector<double>{1, 1.5, 2, 4, 16});
  if (d.chance(0.05)) x["gpu_memory_gb"] = d.pick(std::vector<double>{24, 40, 192});
  if (d.chance(0.05)) x["gpu_peak_tflops"] = d.pick(std::vector<double>{125, 312, 989});
  if (d.chance(0.05)) x["nvlink_gb_s"] = d.pick(std::vector<double>{32, 300, 900});
  if (d.chance(0.05)) x["hbm_gb_s"] = d.pick(std::vector<double>{900, 3350});
  if (d.chance(0.6)) x["network_gb_s"] = d.pick(std::vector<double>{12.5, 25, 50, 100, 400});
  if (d.chance(0.05)) x["gpu_fp8_tflops"] = d.pick(std::vector<double>{0, 1979, 4500});
  if (d.chance(0.05)) x["gpu_fp4_tflops"] = d.pick(std::vector<double>{0, 4500, 9000, 15000});
  if (d.chance(0.2)) x["host_link_gb_s"] = d.pick(std::vector<double>{8, 32, 64, 450});
  if (d.chance(0.3)) x["efficiency"] = d.chance(0.2) ? 0 : d.real(0.2, 0.8);
  if (d.chance(0.1)) x["nvlink_efficiency"] = d.real(0.5, 1);
  if (d.chance(0.1)) x["network_efficiency"] = d.real(0.5, 1);
  if (d.chance(0.1)) x["bubble_paid"] = d.real(0.1, 2);
  for (const char* k :
       {"overlap_grad_reduce", "overlap_param_gather", "tp_comm_overlap", "pp_scatter_gather"}) {
    if (d.chance(0.4)) x[k] = d.chance(0.5);
  }
}

// Failures and checkpoints (goodput.h): rates from none to ten times Llama 3's, storage from a
// slow share to Tectonic's peak.
void draw_reliability(Dice& d, Draft& x) {
  for (const char* k : {"reliability.gpu_failures_per_million_gpu_hours",
                        "reliability.host_failures_per_million_gpu_hours",
                        "reliability.network_failures_per_million_gpu_hours",
                        "reliability.software_failures_per_million_gpu_hours"}) {
    if (d.chance(0.1)) x[k] = d.pick(std::vector<double>{0, 1, 12.6, 126});
  }
  if (d.chance(0.2)) x["reliability.storage_gb_s"] = d.pick(std::vector<double>{1, 50, 2000, 7000});
  if (d.chance(0.2)) x["reliability.async_checkpoint"] = d.chance(0.5);
  if (d.chance(0.2)) x["reliability.restart_s"] = d.pick(std::vector<double>{0, 60, 600, 3600});
  if (d.chance(0.1)) x["reliability.hot_spares"] = d.pick(std::vector<int>{0, 8, 64});
  if (d.chance(0.2)) {
    x["reliability.checkpoint_interval_s"] = d.pick(std::vector<double>{0, 10, 600, 7200});
  }
}

void draw_schedule(Dice& d, Draft& x, const ModelSpec& m) {
  if (d.chance(0.5)) x["schedule"] = d.choice("schedule");
  if (d.chance(0.3)) x["virtual_stages"] = d.between(1, 4);
  if (d.chance(0.04)) x["first_stage_layers"] = d.between(1, std::max(1, m.layers / 4));
  if (d.chance(0.04)) x["last_stage_layers"] = d.between(1, std::max(1, m.layers / 4));
}

std::string text_of(const Draft& x);

// Now and then, the drafted scenario calibrated to a run of itself: measured somewhat slower
// than the model has it (as real runs are), with some of the optional figures.
void draw_calibration(Dice& d, Draft& x) {
  const Result<Scenario> s = parse_scenario(text_of(x));
  if (!s.ok()) return;
  Scenario full = s.value();
  full.recipe.memory_model = MemoryModel::kFull;
  const Result<Report> r = evaluate(full, false);
  if (!r.ok()) return;
  x["calibration.scenario"] = json::parse(text_of(x));
  const double step_s = r.value().time.step_s * d.real(1, 1.3);
  if (d.chance(0.8)) {
    x["calibration.step_time_s"] = step_s;
  } else {  // torchtitan's way: tokens per second per GPU
    const double tokens = 1.0 * r.value().global_batch * full.batch.seq_len;
    x["calibration.tokens_per_s_per_gpu"] = tokens / (full.fleet.gpus * step_s);
  }
  if (d.chance(0.3)) x["calibration.name"] = "drawn run";
  const double peak_gb = r.value().memory.per_gpu_bytes / 1e9 * d.real(0.9, 1.2);
  if (d.chance(0.4) && peak_gb <= full.gpu.memory_gb) x["calibration.peak_memory_gb"] = peak_gb;
  if (d.chance(0.3)) x["calibration.tflops_per_gpu"] = r.value().time.tflops_per_gpu;
  if (d.chance(0.3)) x["calibration.nvlink_bus_gb_s"] = full.gpu.nvlink_gb_s * d.real(0.5, 1);
  if (d.chance(0.3)) x["calibration.network_bus_gb_s"] = full.gpu.network_gb_s * d.real(0.5, 1);
  // A second run: the same layout at twice the batch, whose bubble is a smaller share.
  if (d.chance(0.3)) {
    json second = x["calibration.scenario"];
    second["global_batch"] = 2 * full.batch.global_batch;
    const Result<Scenario> run = parse_scenario(second.dump());
    if (!run.ok()) return;
    const Result<Report> r2 = evaluate(run.value(), false);
    if (!r2.ok()) return;
    x["calibration.second_scenario"] = second;
    x["calibration.second_step_time_s"] = r2.value().time.step_s * d.real(1, 1.3);
  }
}

Draft draw(unsigned run_seed, int index) {
  Dice d{std::mt19937(run_seed * 1000003u + static_cast<unsigned>(index))};
  Draft x;
  const ModelSpec m = draw_model(d, x);
  const int seq_len = d.chance(0.1) ? d.pick(std::vector<int>{16384, 32768, 131072})
                                    : d.pick(std::vector<int>{512, 1024, 2048, 4096, 8192});
  if (seq_len != 2048 || d.chance(0.5)) x["seq_len"] = seq_len;
  draw_fleet(d, x, m, draw_gpus(d), seq_len);
  draw_batch_and_run(d, x, m);
  draw_memory(d, x);
  draw_hardware(d, x);
  draw_schedule(d, x, m);
  draw_reliability(d, x);
  if (d.chance(0.06)) draw_calibration(d, x);
  return x;
}

// The draft as the contract reads it: {"degrees": {"dp": 2}, ...}.
std::string text_of(const Draft& x) {
  json out = json::object();
  for (const auto& [key, value] : x) {
    json* at = &out;
    size_t start = 0;
    for (size_t dot; (dot = key.find('.', start)) != std::string::npos; start = dot + 1) {
      at = &(*at)[key.substr(start, dot - start)];
    }
    (*at)[key.substr(start)] = value;
  }
  return out.dump();
}

// ---- Samples, laws and the shrinker ----------------------------------------------------------

struct Sample {
  Draft draft;
  Scenario s;
  Report r;
};

std::optional<Sample> sample(const Draft& x) {
  const Result<Scenario> s = parse_scenario(text_of(x));
  if (!s.ok()) return std::nullopt;
  Result<Report> r = evaluate(s.value(), /*with_ranks=*/false);
  if (!r.ok()) return std::nullopt;
  return Sample{x, s.value(), std::move(r.value())};
}

// A law's verdict on one sample: nullopt when it does not apply (a variant the contract
// refuses, a fleet too large to double), "" when it holds, else what broke.
using Verdict = std::optional<std::string>;
using Law = std::function<Verdict(const Sample&)>;

bool breaks(const Law& law, const Draft& x) {
  const std::optional<Sample> s = sample(x);
  if (!s) return false;
  const Verdict v = law(*s);
  return v && !v->empty();
}

// Halves a number, keeping integers whole (the field table says which are) and real numbers
// at 1 or more, so that the smallest scenario stays readable (hbm_gb_s 1.76, not 0.0017).
std::optional<json> halved(const std::string& key, const json& v) {
  if (!v.is_number() || v.get<double>() == 0) return std::nullopt;
  const Field* f = find_field(key);
  if (f && f->type == FieldType::kInteger) {
    const long long n = v.get<long long>();
    return n / 2 == n ? std::nullopt : std::optional<json>(n / 2);
  }
  const double half = v.get<double>() / 2;
  return half >= 1 ? std::optional<json>(half) : std::nullopt;
}

// The draft without `key`, or without every key of its block ("calibration.scenario" and
// "calibration.step_time_s": a calibration refuses either one alone).
Draft without(const Draft& x, const std::string& key, bool whole_block) {
  Draft fewer = x;
  const std::string block = key.substr(0, key.find('.')) + ".";
  for (const auto& [k, v] : x) {
    if (k == key || (whole_block && k.rfind(block, 0) == 0)) fewer.erase(k);
  }
  return fewer;
}

// The smallest draft that still breaks the law: drop every key (or block of keys) it can do
// without, halve every number while it still breaks, until neither changes anything.
Draft shrink(Draft x, const Law& law) {
  for (bool progress = true; progress;) {
    progress = false;
    const Draft before = x;
    for (const auto& [key, value] : before) {
      if (!x.count(key)) continue;  // gone with its block
      for (bool whole_block : {false, true}) {
        if (const Draft fewer = without(x, key, whole_block); breaks(law, fewer)) {
          x = fewer, progress = true;
          break;
        }
      }
    }
    for (const auto& [key, value] : Draft(x)) {
      for (std::optional<json> h = halved(key, x[key]); h; h = halved(key, x[key])) {
        Draft smaller = x;
        smaller[key] = *h;
        if (!breaks(law, smaller)) break;
        x = smaller, progress = true;
      }
    }
  }
  return x;
}

// The run's scenarios, drawn and evaluated once for every law: scenario i of the seed, or
// nullopt where the contract refuses it.
const std::vector<std::optional<Sample>>& run_samples() {
  static const std::vector<std::optional<Sample>> all = [] {
    std::vector<std::optional<Sample>> out;
    for (int i = 0; i < scenario_count(); ++i) out.push_back(sample(draw(seed(), i)));
    return out;
  }();
  return all;
}

struct Tally {
  int drawn = 0, accepted = 0, applied = 0, broken = 0;
};

// Runs `law` over the run's scenarios (every `every`-th accepted one); on a break, reports how
// many broke and the smallest scenario that breaks it, shrunk from the first that did.
Tally check_law(const char* name, const Law& law, int every = 1) {
  Tally t;
  std::optional<Draft> first;
  for (const std::optional<Sample>& s : run_samples()) {
    ++t.drawn;
    if (!s || t.accepted++ % every != 0) continue;
    const Verdict v = law(*s);
    if (!v) continue;
    ++t.applied;
    if (!v->empty() && t.broken++ == 0) first = s->draft;
  }
  std::cout << "[ laws ] " << name << ": " << t.applied << " applied, " << t.broken
            << " broken, of " << t.accepted << " accepted of " << t.drawn << " drawn (seed "
            << seed() << ")\n";
  EXPECT_GE(t.accepted, t.drawn * 6 / 10) << "the generator drifted into refused scenarios";
  if (first) {
    const Draft small = shrink(*first, law);
    ADD_FAILURE() << name << " is broken by " << t.broken << " of " << t.applied
                  << " scenarios. The smallest that breaks it:\n  " << text_of(small) << "\n  "
                  << law(*sample(small)).value_or("") << "\n(shrunk from " << text_of(*first)
                  << ")";
  }
  return t;
}

// ---- Helpers the laws share ------------------------------------------------------------------

std::string show(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

// a <= b, within the rounding of sums of a dozen terms.
bool at_most(double a, double b) { return a <= b + 1e-12 * std::max(std::fabs(a), std::fabs(b)); }
bool same(double a, double b) { return at_most(a, b) && at_most(b, a); }

// The scenario with its degrees written out, so a variant changes one thing only.
Scenario pinned(const Sample& x) {
  Scenario p = x.s;
  p.recipe.degrees = x.r.degrees;
  p.fleet.gpus = static_cast<int>(x.r.degrees.product());
  p.recipe.seams = {};
  return p;
}

std::optional<Report> report_of(const Scenario& s) {
  Result<Report> r = evaluate(s, false);
  if (!r.ok()) return std::nullopt;
  return std::move(r.value());
}

double most_over_stages(const Report& r, double (*of)(const MemoryBreakdown&)) {
  double most = 0;
  for (const StageMemory& st : r.memory.stages) most = std::max(most, of(st.breakdown));
  return most;
}
double weights(const MemoryBreakdown& b) { return b.weights_bytes; }
double model_state(const MemoryBreakdown& b) { return b.model_state_bytes(); }

// ---- The laws --------------------------------------------------------------------------------

// Against the peak the GEMMs run at (FP8's or FP4's where they run so, never below BF16's):
// MFU <= HFU <= 1, and each named peak's MFU is the model FLOPs over that peak.
Verdict utilisation_law(const Sample& x) {
  const TimeReport& t = x.r.time;
  const double bf16 = x.s.gpu.peak_tflops, fp8 = x.s.gpu.fp8_tflops;
  const double peak = x.s.recipe.precision.fp4   ? std::max(bf16, x.s.gpu.fp4_tflops)
                      : x.s.recipe.precision.fp8 ? std::max(bf16, fp8)
                                                 : bf16;
  const bool named = same(t.mfu_bf16_peak * bf16, t.mfu * peak) &&
                     (fp8 <= 0 ? t.mfu_fp8_peak == 0 : same(t.mfu_fp8_peak * fp8, t.mfu * peak));
  if (!at_most(t.mfu, t.hfu) || !at_most(t.hfu, 1) || t.mfu_peak_tflops != peak || !named) {
    return "mfu " + show(t.mfu) + ", hfu " + show(t.hfu) + " against " + show(t.mfu_peak_tflops) +
           " TFLOP/s, mfu_bf16_peak " + show(t.mfu_bf16_peak) + ", mfu_fp8_peak " +
           show(t.mfu_fp8_peak) +
           ": want mfu <= hfu <= 1 against the GEMMs' peak, and each peak's figure beside it";
  }
  return "";
}

Verdict step_parts_law(const Sample& x) {
  const TimeReport& t = x.r.time;
  const double comms = t.exposed_data_s + t.exposed_tensor_s + t.exposed_pipeline_s +
                       t.exposed_context_s + t.exposed_expert_s;
  const double parts =
      t.compute_s + t.bubble_s + t.exposed_comms_s + t.exposed_offload_s + t.optimizer_s;
  if (!(t.step_s > 0) || !at_most(t.compute_s, t.step_s) || !same(comms, t.exposed_comms_s) ||
      !same(parts, t.step_s)) {
    return "step " + show(t.step_s) + ", compute " + show(t.compute_s) + ", parts " + show(parts) +
           ", exposed " + show(t.exposed_comms_s) + " of which the seams " + show(comms);
  }
  return "";
}

Verdict bubble_law(const Sample& x) {
  const double f = x.r.pipeline.bubble_fraction;
  if (f >= 0 && f < 1) return "";
  return "bubble fraction " + show(f) + ": want it in [0, 1)";
}

Verdict idle_seam_law(const Sample& x) {
  const Degrees& d = x.r.degrees;
  const CommsReport& c = x.r.comms;
  const TimeReport& t = x.r.time;
  struct Seam {
    const char* name;
    bool idle;
    const SeamTraffic& traffic;
    double exposed_s;
  };
  for (const Seam& s : {Seam{"data (dp x cp)", d.dp * d.cp == 1, c.data, t.exposed_data_s},
                        Seam{"tensor", d.tp == 1, c.tensor, t.exposed_tensor_s},
                        Seam{"pipeline", d.pp == 1, c.pipeline, t.exposed_pipeline_s},
                        Seam{"context", d.cp == 1, c.context, t.exposed_context_s},
                        Seam{"expert", d.ep == 1, c.expert, t.exposed_expert_s}}) {
    if (s.idle && (s.traffic.bytes_per_gpu_per_step != 0 || s.traffic.time_s != 0 ||
                   s.exposed_s != 0 || s.traffic.active)) {
      return std::string(s.name) + " has degree 1 but sends " +
             show(s.traffic.bytes_per_gpu_per_step) + " bytes, exposed " + show(s.exposed_s) + " s";
    }
  }
  return "";
}

// Weights per GPU with one degree doubled (and the GPUs with it).
Verdict weights_law(const Sample& x, int Degrees::*seam, const char* what) {
  Scenario v = pinned(x);
  (*v.recipe.degrees).*seam *= 2;
  v.fleet.gpus *= 2;
  if (v.fleet.gpus > 16384) return std::nullopt;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  // Per copy of the weights: DualPipe's ranks hold two from PP 2 on (its own law below).
  const double before = most_over_stages(x.r, weights) / parameter_copies(x.s, x.r.degrees.pp);
  const double after = most_over_stages(*r, weights) / parameter_copies(v, r->degrees.pp);
  if (at_most(after, before)) return "";
  return std::string(what) + ": weights per GPU " + show(before) + " -> " + show(after);
}

Verdict zero_law(const Sample& x) {
  if (x.s.recipe.zero_stage >= 3) return std::nullopt;
  Scenario v = pinned(x);
  v.recipe.zero_stage = x.s.recipe.zero_stage + 1;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  const double before = most_over_stages(x.r, model_state);
  const double after = most_over_stages(*r, model_state);
  if (at_most(after, before)) return "";
  return "ZeRO " + std::to_string(v.recipe.zero_stage) + ": model state " + show(before) + " -> " +
         show(after);
}

Verdict batch_law(const Sample& x) {
  Scenario v = pinned(x);
  v.batch.global_batch *= 2;
  if (v.batch.global_batch > find_field("global_batch")->max) return std::nullopt;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  const double before = x.r.time.step_s, after = r->time.step_s;
  if (at_most(before, after) && at_most(after, 2 * before)) return "";
  return "global batch " + std::to_string(x.s.batch.global_batch) + " -> " +
         std::to_string(v.batch.global_batch) + ": step " + show(before) + " -> " + show(after) +
         " s; want between 1x and 2x";
}

// Twice the tokens in every micro-batch (micro-batch and global batch doubled, the same number
// of micro-batches) never shortens the step: a larger GEMM runs at most twice as efficiently
// (gemm_shape.h), and so do the experts' grouped GEMMs and the attention kernel.
Verdict micro_batch_law(const Sample& x) {
  Scenario v = pinned(x);
  v.recipe.micro_batch *= 2;
  v.batch.global_batch *= 2;
  if (v.batch.global_batch > find_field("global_batch")->max ||
      v.recipe.micro_batch > find_field("micro_batch")->max) {
    return std::nullopt;
  }
  const std::optional<Report> r = report_of(v);
  if (!r || r->pipeline.microbatches != x.r.pipeline.microbatches) return std::nullopt;
  if (at_most(x.r.time.step_s, r->time.step_s)) return "";
  return "micro-batch " + std::to_string(x.s.recipe.micro_batch) + " -> " +
         std::to_string(v.recipe.micro_batch) + " (global batch doubled too): step " +
         show(x.r.time.step_s) + " -> " + show(r->time.step_s) + " s";
}

// Every layer fully recomputed keeps less than any selective recomputation; the step may
// shorten with offloaded layers (less to copy), which the offload law covers.
Verdict recompute_law(const Sample& x) {
  if (x.s.recipe.recompute == Recompute::kFull || x.s.recipe.recompute_layers != 0 ||
      x.s.recipe.offload_layers > 0) {
    return std::nullopt;
  }
  Scenario v = pinned(x);
  v.recipe.recompute = static_cast<Recompute>(static_cast<int>(x.s.recipe.recompute) + 1);
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  const double step = x.r.time.step_s, bytes = x.r.memory.per_gpu_bytes;
  if (at_most(step, r->time.step_s) && at_most(r->memory.per_gpu_bytes, bytes)) return "";
  return "more recomputation: step " + show(step) + " -> " + show(r->time.step_s) + " s, memory " +
         show(bytes) + " -> " + show(r->memory.per_gpu_bytes) + " bytes";
}

// What a variant changes, and the step and memory before and after, for the laws below.
std::string moved(const std::string& what, const Report& a, const Report& b) {
  return what + ": step " + show(a.time.step_s) + " -> " + show(b.time.step_s) + " s, memory " +
         show(a.memory.per_gpu_bytes) + " -> " + show(b.memory.per_gpu_bytes) +
         " bytes, hardware FLOPs " + show(a.time.hardware_flops_per_step) + " -> " +
         show(b.time.hardware_flops_per_step);
}

// `more` recomputes at least what `x` does: never more memory, never fewer FLOPs, never a
// shorter step unless layers are offloaded (recomputed tensors need no copy to the host).
Verdict recomputes_more(const Sample& x, const Scenario& more, const std::string& what) {
  const std::optional<Report> r = report_of(more);
  if (!r) return std::nullopt;
  if (at_most(r->memory.per_gpu_bytes, x.r.memory.per_gpu_bytes) &&
      at_most(x.r.time.hardware_flops_per_step, r->time.hardware_flops_per_step) &&
      (more.recipe.offload_layers > 0 || at_most(x.r.time.step_s, r->time.step_s))) {
    return "";
  }
  return moved(what, x.r, *r);
}

// Selective recomputation of one more module (Megatron-Core's recompute_modules).
Verdict recompute_modules_law(const Sample& x) {
  if (x.s.recipe.recompute != Recompute::kSelective) return std::nullopt;
  const std::vector<std::string>& names = find_field("recompute_modules")->choices;
  for (size_t i = 0; i < names.size(); ++i) {
    if (x.s.recipe.recompute_modules & (1u << i)) continue;
    // torchtitan's per-op policy replaces Megatron's modules rather than adding one: it may
    // keep more than a set of them (its own law: every_other_matmul_law).
    if (names[i] == "every_other_matmul") continue;
    Scenario v = pinned(x);
    v.recipe.recompute_modules |= 1u << i;
    if (Verdict broken = recomputes_more(x, v, "recomputing " + names[i]);
        broken && !broken->empty()) {
      return broken;
    }
  }
  return "";
}

// Full recomputation of one more layer per stage (block), or of every layer against some.
Verdict recompute_layers_law(const Sample& x) {
  if (x.s.recipe.recompute != Recompute::kFull || x.s.recipe.recompute_layers == 0)
    return std::nullopt;
  Scenario v = pinned(x);
  v.recipe.recompute_method = RecomputeMethod::kBlock;
  const std::optional<Report> block = report_of(v);
  if (!block) return std::nullopt;
  const Sample base{x.draft, v, *block};
  Scenario more = v;
  more.recipe.recompute_layers += 1;
  Verdict one = recomputes_more(base, more, "one more layer recomputed (block)");
  if (!one || !one->empty()) return one;
  Scenario all = v;
  all.recipe.recompute_layers = 0;
  return recomputes_more(base, all, "every layer recomputed");
}

// A mixture of experts whose busiest expert takes more (moe_load_imbalance), or whose experts
// take more tokens each (capacity_factor): never a shorter step, never less memory.
Verdict moe_load_law(const Sample& x, const char* key) {
  if (!x.s.model.moe()) return std::nullopt;
  Scenario v = pinned(x);
  const bool imbalance = std::string(key) == "moe_load_imbalance";
  double& field = imbalance ? v.recipe.moe_load_imbalance : v.recipe.capacity_factor;
  if (imbalance && v.recipe.capacity_factor > 0) return std::nullopt;
  // Dropless (0) counts as 1 and makes a capacity factor below 1 take more, not fewer.
  if (!imbalance && field == 0) return std::nullopt;
  field = field * 2;
  if (field > find_field(key)->max) return std::nullopt;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (at_most(x.r.time.step_s, r->time.step_s) &&
      at_most(x.r.memory.per_gpu_bytes, r->memory.per_gpu_bytes)) {
    return "";
  }
  return moved(std::string(key) + " doubled", x.r, *r);
}

// One more layer per stage offloaded to the host: never more GPU memory, never a shorter step.
Verdict offload_law(const Sample& x) {
  Scenario v = pinned(x);
  v.recipe.offload_layers = x.s.recipe.offload_layers + 1;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (at_most(r->memory.per_gpu_bytes, x.r.memory.per_gpu_bytes) &&
      at_most(x.r.time.step_s, r->time.step_s) &&
      at_most(x.r.memory.offloaded_bytes, r->memory.offloaded_bytes)) {
    return "";
  }
  return moved("one more layer offloaded", x.r, *r) + ", host " + show(x.r.memory.offloaded_bytes) +
         " -> " + show(r->memory.offloaded_bytes);
}

// Transformer Engine's cross entropy keeps less than the unfused loss (the BF16 logits for the
// fp32 log-probabilities, and no backward buffers) and takes the same time.
Verdict cross_entropy_law(const Sample& x) {
  if (x.s.recipe.cross_entropy == CrossEntropy::kTe) return std::nullopt;
  Scenario v = pinned(x);
  v.recipe.cross_entropy = CrossEntropy::kTe;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (at_most(r->memory.per_gpu_bytes, x.r.memory.per_gpu_bytes) &&
      r->time.step_s == x.r.time.step_s) {
    return "";
  }
  return moved("Transformer Engine's cross entropy", x.r, *r);
}

// Wider attention heads (model.head_dim doubled, the parameters counted afresh at the same
// scale to the shape): never fewer FLOPs, less memory or a shorter step. Q, K, V and O grow,
// the attention core with them, and what the layer stores.
Verdict head_width_law(const Sample& x) {
  const ModelSpec& m = x.s.model;
  if (m.attention != Attention::kMultiHead || m.shape_nominal || m.params <= 0) return std::nullopt;
  Scenario v = pinned(x);
  v.model.head_dim = 2 * m.head();
  const int seq = x.s.batch.seq_len;
  v.model.params = m.params * shape_params(v.model, seq) / shape_params(m, seq);
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (at_most(x.r.time.model_flops_per_step, r->time.model_flops_per_step) &&
      at_most(x.r.memory.per_gpu_bytes, r->memory.per_gpu_bytes) &&
      at_most(x.r.time.step_s, r->time.step_s)) {
    return "";
  }
  return moved("heads twice as wide", x.r, *r);
}

// ZeRO-3 gathering one more layer's weights ahead (FSDP's prefetch): never less memory.
Verdict fsdp_prefetch_law(const Sample& x) {
  if (x.s.recipe.zero_stage != 3 || x.s.recipe.memory_model != MemoryModel::kFull)
    return std::nullopt;
  Scenario v = pinned(x);
  v.recipe.fsdp_prefetch = x.s.recipe.fsdp_prefetch + 1;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (at_most(x.r.memory.per_gpu_bytes, r->memory.per_gpu_bytes)) return "";
  return moved("one more layer prefetched", x.r, *r);
}

// What lives for a moment (gathered weights, the loss's gradients, a recomputed layer's
// working set) is never negative, on any stage.
Verdict transient_law(const Sample& x) {
  if (x.s.recipe.memory_model != MemoryModel::kFull) return std::nullopt;
  for (const StageMemory& st : x.r.memory.stages) {
    if (!(st.breakdown.transient_bytes >= 0)) {
      return "stage " + std::to_string(st.stage) + " transient " +
             show(st.breakdown.transient_bytes) + " bytes";
    }
  }
  return "";
}

// torchtitan's per-op policy (every_other_matmul) against no recomputation: never more memory,
// never fewer FLOPs, never a shorter step.
Verdict every_other_matmul_law(const Sample& x) {
  if (x.s.recipe.recompute != Recompute::kNone) return std::nullopt;
  Scenario v = pinned(x);
  v.recipe.recompute = Recompute::kSelective;
  v.recipe.recompute_modules = kEveryOtherMatmul;
  return recomputes_more(x, v, "torchtitan's per-op policy");
}

// FP8 GEMMs (on a GPU whose FP8 peak is at least its BF16 one): never a longer compute, never
// more memory.
Verdict fp8_law(const Sample& x) {
  if (x.s.recipe.precision.fp8 || x.s.gpu.fp8_tflops < x.s.gpu.peak_tflops) return std::nullopt;
  Scenario v = pinned(x);
  v.recipe.precision.fp8 = true;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  // The step, not the pacing stage's compute: FP8 may hand the pace to a stage whose sends
  // are longer and whose compute is shorter.
  if (at_most(r->time.step_s, x.r.time.step_s) &&
      at_most(r->memory.per_gpu_bytes, x.r.memory.per_gpu_bytes)) {
    return "";
  }
  return "FP8: step " + show(x.r.time.step_s) + " -> " + show(r->time.step_s) + " s, memory " +
         show(x.r.memory.per_gpu_bytes) + " -> " + show(r->memory.per_gpu_bytes);
}

// FP4 GEMMs (on a GPU whose FP4 peak is at least its BF16 one): against BF16, never a longer
// step nor more memory; against FP8 (FP4 peak at least FP8's), never a longer step nor more
// memory (NVFP4 caches the GEMMs' inputs at 0.5625 bytes, FP8 at 1: activations.h). The step,
// not the pacing stage's compute, as for FP8 above: FP4 speeds the layers and not the BF16
// output layer, so the pace may pass to the last stage, whose compute is longer (Llama 3 8B on
// PP 12 x TP 8 B300s: 0.431 -> 0.491 s of compute, the step 0.781 -> 0.713 s).
Verdict fp4_law(const Sample& x) {
  const GpuSpec& g = x.s.gpu;
  if (x.s.recipe.precision.fp4 || g.fp4_tflops < g.peak_tflops) return std::nullopt;
  if (x.s.recipe.precision.fp8 && g.fp4_tflops < g.fp8_tflops) return std::nullopt;
  Scenario v = pinned(x);
  v.recipe.precision.fp4 = true;
  v.recipe.precision.fp8 = false;
  // The GPUs' measured speedups (presets.cpp) may make FP4's GEMMs the slower (B300's FP8
  // measured past FP4's, say): the law is for a faster GEMM rate.
  if (gemm_rate_flops(v) < gemm_rate_flops(x.s)) return std::nullopt;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (x.s.recipe.precision.fp8) {
    if (at_most(r->time.step_s, x.r.time.step_s) &&
        at_most(r->memory.per_gpu_bytes, x.r.memory.per_gpu_bytes)) {
      return "";
    }
    return "FP8 -> FP4: step " + show(x.r.time.step_s) + " -> " + show(r->time.step_s) +
           " s, memory " + show(x.r.memory.per_gpu_bytes) + " -> " + show(r->memory.per_gpu_bytes);
  }
  if (at_most(r->time.step_s, x.r.time.step_s) &&
      at_most(r->memory.per_gpu_bytes, x.r.memory.per_gpu_bytes)) {
    return "";
  }
  return "FP4: step " + show(x.r.time.step_s) + " -> " + show(r->time.step_s) + " s, memory " +
         show(x.r.memory.per_gpu_bytes) + " -> " + show(r->memory.per_gpu_bytes);
}

Verdict faster_link_law(const Sample& x) {
  for (bool network : {true, false}) {
    Scenario v = pinned(x);
    (network ? v.gpu.network_gb_s : v.gpu.nvlink_gb_s) *= 2;
    const std::optional<Report> r = report_of(v);
    if (!r) return std::nullopt;
    if (!at_most(r->time.step_s, x.r.time.step_s)) {
      return std::string(network ? "network" : "NVLink") + " twice as fast: step " +
             show(x.r.time.step_s) + " -> " + show(r->time.step_s) + " s";
    }
  }
  return "";
}

// A domain twice as large holds every old domain whole, so each group stays at its level or
// moves up to NVLink: never a slower step, while NVLink is at least as fast as a rail.
Verdict larger_domain_law(const Sample& x) {
  if (link_rate(Fabric::kDomain, x.s) < link_rate(Fabric::kRail, x.s)) return std::nullopt;
  Scenario v = pinned(x);
  v.gpu.nvlink_domain_gpus = 2 * x.s.domain_gpus();
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (at_most(r->time.step_s, x.r.time.step_s)) return "";
  return "NVLink domain " + show(x.s.domain_gpus()) + " -> " + show(v.gpu.nvlink_domain_gpus) +
         " GPUs: step " + show(x.r.time.step_s) + " -> " + show(r->time.step_s) + " s";
}

// A collective spread over one more NIC of its domain is never slower (comms.h
// collective_rate: NCCL's channels over the node's NICs, up to NVLink), for every kind of
// traffic, at every level, over the sample's own groups split evenly over their domains, while
// NVLink is at least a rail.
Verdict more_nics_law(const Sample& x) {
  if (link_rate(Fabric::kDomain, x.s) < link_rate(Fabric::kRail, x.s)) return std::nullopt;
  const Degrees& d = x.r.degrees;
  for (const int n : {d.dp * d.cp, d.tp, d.cp, d.ep}) {
    if (n < 2) continue;
    for (const Spread spread :
         {Spread::kPointToPoint, Spread::kRing, Spread::kAllReduce, Spread::kAllToAll}) {
      for (const Fabric f : {Fabric::kRail, Fabric::kSpine}) {
        double last = 0;
        for (int k = 1; k < std::min(n, 72); ++k) {
          if (n % k != 0) continue;  // groups split evenly over two domains or more
          const double rate = collective_rate(f, x.s, {spread, k, n});
          if (!at_most(last, rate)) {
            return "group of " + show(n) + ", " + show(k) + " members per domain: rate " +
                   show(last) + " -> " + show(rate) + " B/s";
          }
          last = rate;
        }
      }
    }
  }
  return "";
}

// A more oversubscribed spine slows the traffic between rails and nothing else.
Verdict oversubscription_law(const Sample& x) {
  Scenario v = pinned(x);
  v.fleet.network_oversubscription = 2 * x.s.fleet.network_oversubscription;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (at_most(x.r.time.step_s, r->time.step_s)) return "";
  return "spine oversubscribed twice as much: step " + show(x.r.time.step_s) + " -> " +
         show(r->time.step_s) + " s";
}

// The step never lengthens as the matmuls or the links reach more of their peak: what lets a
// calibration's bisection find the one efficiency that meets a measured step.
Verdict efficiency_law(const Sample& x) {
  Scenario v = pinned(x);
  v.gpu.matmul_efficiency = std::min(1.0, v.gpu.matmul_efficiency * 1.25);
  v.gpu.nvlink_efficiency = std::min(1.0, v.gpu.nvlink_efficiency * 1.25);
  v.gpu.network_efficiency = std::min(1.0, v.gpu.network_efficiency * 1.25);
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (at_most(r->time.step_s, x.r.time.step_s)) return "";
  return "efficiencies a quarter higher: step " + show(x.r.time.step_s) + " -> " +
         show(r->time.step_s) + " s";
}

// Paying more of the bubble never shortens the step: what lets a two-run calibration bound the
// shares at which an efficiency meets the first run's step (calibrate.cpp meetable_shares).
Verdict bubble_paid_law(const Sample& x) {
  Scenario v = pinned(x);
  v.gpu.bubble_paid = x.s.gpu.bubble_paid * 1.25;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (at_most(x.r.time.step_s, r->time.step_s)) return "";
  return "bubble_paid " + show(x.s.gpu.bubble_paid) + " -> " + show(v.gpu.bubble_paid) + ": step " +
         show(x.r.time.step_s) + " -> " + show(r->time.step_s) + " s";
}

// No schedule's m micro-batches take less than one micro-batch's F, B (and W) chain through
// every stage (ZB-V with 1 micro-batch on 8 stages once took 0.043 s, its chain about
// 0.15). A V with m < p spans what its drawing does (timeline_test checks the drawing).
// Not where a calibration found the fleet pays less of the bubble than the schedule's
// dependencies make (bubble_paid < 1): that share stands for what the model misses elsewhere.
Verdict critical_path_law(const Sample& x) {
  if (x.r.degrees.pp == 1 || x.s.gpu.bubble_paid < 1) return std::nullopt;
  const TimeReport& t = x.r.time;
  if (at_most(t.critical_path_s, t.step_s)) return "";
  return "schedule " + enum_name("schedule", x.s.recipe.schedule) + ", m " +
         std::to_string(x.r.pipeline.microbatches) + ": step " + show(t.step_s) +
         " s, shorter than one micro-batch's chain " + show(t.critical_path_s) + " s";
}

// Each efficiency alone a little higher (0.600 -> 0.601 once lengthened a step by 4.2%) or a
// quarter higher: never a longer step, so a calibration's bisection on it has one answer.
Verdict each_efficiency_law(const Sample& x) {
  double GpuSpec::*const fields[] = {&GpuSpec::matmul_efficiency, &GpuSpec::nvlink_efficiency,
                                     &GpuSpec::network_efficiency};
  const char* names[] = {"matmul", "NVLink", "network"};
  for (int i = 0; i < 3; ++i) {
    for (double factor : {1.0 + 1.0 / 600, 1.25}) {
      Scenario v = pinned(x);
      v.gpu.*fields[i] = std::min(1.0, v.gpu.*fields[i] * factor);
      const std::optional<Report> r = report_of(v);
      if (!r) return std::nullopt;
      if (!at_most(r->time.step_s, x.r.time.step_s)) {
        return std::string(names[i]) + " efficiency " + show(x.s.gpu.*fields[i]) + " -> " +
               show(v.gpu.*fields[i]) + ": step " + show(x.r.time.step_s) + " -> " +
               show(r->time.step_s) + " s";
      }
    }
  }
  return "";
}

// An overlap switch turned on never lengthens a step: tp_comm_overlap under ZeRO 2/3 once took
// one from 549.65 to 557.29 s; expert_comm_overlap did too. Not with offloaded
// layers: their host copies and the gradient reduction each wait behind the time the switch
// takes out of the step, and the model adds the two exposures where the two links would run
// side by side (a known limit: with offload, tp_comm_overlap can cost about a third of what it
// hides).
Verdict overlap_law(const Sample& x) {
  if (x.s.recipe.offload_layers > 0) return std::nullopt;
  bool Recipe::*const switches[] = {&Recipe::tp_comm_overlap, &Recipe::expert_comm_overlap,
                                    &Recipe::overlap_grad_reduce, &Recipe::overlap_param_gather};
  const char* names[] = {"tp_comm_overlap", "expert_comm_overlap", "overlap_grad_reduce",
                         "overlap_param_gather"};
  bool applied = false;
  for (int i = 0; i < 4; ++i) {
    if (x.s.recipe.*switches[i]) continue;
    Scenario v = pinned(x);
    v.recipe.*switches[i] = true;
    const std::optional<Report> r = report_of(v);
    if (!r) continue;
    applied = true;
    if (!at_most(r->time.step_s, x.r.time.step_s)) {
      return std::string(names[i]) + " on: step " + show(x.r.time.step_s) + " -> " +
             show(r->time.step_s) + " s";
    }
  }
  if (!applied) return std::nullopt;
  return "";
}

// A TP group that leaves the NVLink domain runs its collectives over the network through NCCL:
// Transformer Engine's userbuffers, which tp_comm_overlap uses, need the TP ranks on one
// NVLink/NVSwitch fabric. There the switch changes no step, to the bit, either way.
Verdict tensor_overlap_domain_law(const Sample& x) {
  if (std::string(x.r.comms.tensor.link) != "network") return std::nullopt;
  Scenario v = pinned(x);
  v.recipe.tp_comm_overlap = !v.recipe.tp_comm_overlap;
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (r->time.step_s == x.r.time.step_s) return "";
  return std::string("tp_comm_overlap ") + (v.recipe.tp_comm_overlap ? "on" : "off") +
         " with TP over the network: step " + show(x.r.time.step_s) + " -> " +
         show(r->time.step_s) + " s";
}

// A calibrated scenario's constants, put back into its run, reproduce the measured step
// within 0.5%, and each stays within its physical bounds.
Verdict calibration_law(const Sample& x) {
  const Calibration& c = x.s.calibration;
  if (!c.fit) return std::nullopt;
  Scenario run = *c.run;
  apply_calibration(*c.fit, run);
  const std::optional<Report> r = report_of(run);
  if (!r) return "the calibrated run is refused";
  const GpuSpec& g = x.s.gpu;
  for (double e : {g.matmul_efficiency, g.nvlink_efficiency, g.network_efficiency}) {
    if (!(e > 0 && e <= 1)) return "an efficiency out of (0, 1]: " + show(e);
  }
  if (!(x.s.recipe.overhead_gb >= 0)) return "a negative overhead: " + show(x.s.recipe.overhead_gb);
  const double measured_s = c.fit->residuals.front().measured;  // as given, or from tps
  if (std::fabs(r->time.step_s / measured_s - 1) <= 0.005) return "";
  return "measured " + show(measured_s) + " s, the calibrated run " + show(r->time.step_s) + " s";
}

// CP = 1 and EP = 1, and the context and expert seams off, written out: the same report, to
// the byte, as the three-seam scenario that leaves them out.
Verdict written_out_law(const Sample& x) {
  const auto absent_or = [&x](const char* key, const json& v) {
    const auto at = x.draft.find(key);
    return at == x.draft.end() || at->second == v;
  };
  if (!absent_or("degrees.cp", 1) || !absent_or("degrees.ep", 1) ||
      !absent_or("seams.context", false) || !absent_or("seams.expert", false)) {
    return std::nullopt;
  }
  Draft three = x.draft, five = x.draft;
  for (const char* k : {"degrees.cp", "degrees.ep", "seams.context", "seams.expert"}) {
    three.erase(k);
  }
  if (x.draft.count("degrees.dp")) five["degrees.cp"] = 1, five["degrees.ep"] = 1;
  five["seams.context"] = false, five["seams.expert"] = false;
  const std::string a = evaluate_json(text_of(three), false);
  const std::string b = evaluate_json(text_of(five), false);
  if (a == b) return "";
  return "the reports differ: " + a.substr(0, 200) + " ... against " + b.substr(0, 200);
}

Verdict order_law(const Sample& x) {
  Scenario v = pinned(x);
  std::next_permutation(v.recipe.order.begin(), v.recipe.order.end());
  const std::optional<Report> r = report_of(v);
  if (!r) return std::nullopt;
  if (same(r->memory.per_gpu_bytes, x.r.memory.per_gpu_bytes)) return "";
  return "order " + order_text(v.recipe.order) + ": memory " + show(x.r.memory.per_gpu_bytes) +
         " -> " + show(r->memory.per_gpu_bytes);
}

// The planner's laws search the whole space: fleets of up to 64 GPUs keep them quick.
constexpr int kMostGpusToPlan = 64;

Verdict plans_evaluate_law(const Sample& x) {
  if (x.s.fleet.gpus > kMostGpusToPlan) return std::nullopt;
  const PlanResult result = plan(x.s, 3);
  for (size_t i = 0; i < result.top.size(); ++i) {
    std::vector<Plan> all = result.variants[i];
    all.push_back(result.top[i]);
    for (const Plan& p : all) {
      const std::optional<Report> r = report_of(scenario_of(x.s, p));
      if (!r) return "a plan the core refuses: " + scenario_json(scenario_of(x.s, p)).dump();
      const TimeReport& t = r->time;
      if (t.step_s != p.figures.step_s || r->memory.per_gpu_bytes != p.figures.per_gpu_bytes ||
          t.mfu != p.figures.mfu || r->pipeline.bubble_fraction != p.figures.bubble_fraction ||
          t.tokens_per_s != p.figures.tokens_per_s) {
        return "plan " + scenario_json(scenario_of(x.s, p)).dump() + " says step " +
               show(p.figures.step_s) + " s, " + show(p.figures.per_gpu_bytes) +
               " bytes; evaluated: " + show(t.step_s) + " s, " + show(r->memory.per_gpu_bytes) +
               " bytes";
      }
    }
  }
  return "";
}

// A random configuration from the planner's own space (planner.h): TP divides the heads (and
// is divided by expert_tp), CP only where each rank keeps 8,192 tokens, PP at most the layers,
// DP divides the batch, EP divides DP x CP and the experts, b a power of two up to 64 dividing
// the batch per replica, 1F1B, any ZeRO stage and SP, any of the planner's recomputation,
// offload and precision choices (choices.h).
std::optional<Scenario> random_plan(const Scenario& base, std::mt19937& g) {
  Dice d{std::mt19937(g())};
  Scenario s = base;
  std::vector<int> tps, cps;
  for (int tp : divisors(base.fleet.gpus)) {
    if (base.model.heads % tp == 0 && (!base.model.moe() || tp % base.recipe.expert_tp == 0)) {
      tps.push_back(tp);
    }
  }
  if (tps.empty()) return std::nullopt;
  const int tp = d.pick(tps);
  for (int cp : divisors(base.fleet.gpus / tp)) {
    if (cp == 1 || (base.batch.seq_len % cp == 0 && base.batch.seq_len / cp >= 8192))
      cps.push_back(cp);
  }
  const int cp = d.pick(cps);
  const int pp = d.pick(divisors(base.fleet.gpus / (tp * cp), base.model.layers));
  const int dp = base.fleet.gpus / (tp * cp * pp);
  std::vector<int> eps = {1}, bs;
  for (int ep : divisors(dp * cp)) {
    if (base.model.moe() && ep > 1 && base.model.experts % ep == 0) eps.push_back(ep);
  }
  for (int b = 1; b <= 64 && b * dp <= base.batch.global_batch; b *= 2) {
    if (base.batch.global_batch % (b * dp) == 0) bs.push_back(b);
  }
  if (bs.empty()) return std::nullopt;
  s.recipe.degrees = Degrees{dp, tp, pp, cp, d.pick(eps)};
  s.recipe.seams = {};
  s.recipe.micro_batch = d.pick(bs);
  s.recipe.schedule = Schedule::kOneFOneB;
  s.recipe.virtual_stages = 1;
  s.recipe.zero_stage = d.between(0, 3);
  d.pick(recompute_choices(base, stage_split(s, pp).most(), pp)).apply_to(s.recipe);
  s.recipe.precision = d.pick(precision_choices(base));
  s.recipe.sequence_parallel = tp > 1 && d.chance(0.5);
  s.recipe.memory_model = MemoryModel::kFull;
  return s;
}

Verdict planner_best_law(const Sample& x) {
  if (x.s.fleet.gpus > kMostGpusToPlan) return std::nullopt;
  const PlanResult result = plan(x.s, 1);
  const double limit = x.s.gpu.memory_gb * 1e9 * safe_memory_fraction();
  const double best = result.top.empty() ? INFINITY : result.top.front().figures.step_s;
  std::mt19937 g(static_cast<unsigned>(x.s.fleet.gpus * 7919 + x.s.batch.global_batch));
  for (int i = 0; i < 24; ++i) {
    const std::optional<Scenario> s = random_plan(x.s, g);
    if (!s) return std::nullopt;
    const std::optional<Report> r = report_of(*s);
    if (!r || r->memory.per_gpu_bytes > limit) continue;
    if (r->time.step_s < best * (1 - 1e-12)) {
      return "the planner's best is " + show(best) + " s; this fits and takes " +
             show(r->time.step_s) + " s: " + scenario_json(*s).dump();
    }
  }
  return "";
}

// Every derivation computes, from its terms, the number the report shows (formula_eval.h), over
// this generator's scenarios: every schedule, seam (CP and EP too), precision and fleet.
Verdict derivations_law(const Sample& x) {
  // Written and read back as text, as a reader of the JSON gets it.
  const json report = json::parse(report_json(x.r).dump());
  const std::string wrong = test::formulas_disagree(x.s, x.r, report);
  return wrong.empty() ? "" : wrong;
}

// ---- Goodput (goodput.h) ---------------------------------------------------------------------

// The effective time is a share: in [0, 1]; a day's seconds go to work, checkpoints, work done
// again and restarts, 86,400 in all; failures never shorten the time to train.
Verdict goodput_share_law(const Sample& x) {
  const GoodputReport& g = x.r.goodput;
  const double day = g.day_work_s + g.day_checkpoint_s + g.day_redone_s + g.day_restart_s;
  const bool train_ok =
      g.time_to_train_s == 0 || at_most(x.r.time.time_to_train_s, g.time_to_train_s);
  if (g.effective_time >= 0 && g.effective_time <= 1 && same(day, 86400) && train_ok) return "";
  return "effective time " + show(g.effective_time) + ", a day of " + show(day) +
         " s, time to train " + show(x.r.time.time_to_train_s) + " -> " + show(g.time_to_train_s);
}

// More GPUs never raise the job's mean time between failures.
Verdict more_gpus_mtbf_law(const Sample& x) {
  Scenario more = x.s;
  more.fleet.gpus *= 2;
  const double doubled = goodput_report(more, x.r).job_mtbf_s;
  if (at_most(doubled, x.r.goodput.job_mtbf_s)) return "";
  return "GPUs " + std::to_string(x.s.fleet.gpus) + " -> " + std::to_string(more.fleet.gpus) +
         ": MTBF " + show(x.r.goodput.job_mtbf_s) + " -> " + show(doubled) + " s";
}

// Faster storage never lowers the effective time.
Verdict storage_law(const Sample& x) {
  Scenario v = x.s;
  v.economics.reliability.storage_gb_s *= 4;
  const double faster = goodput_report(v, x.r).effective_time;
  if (at_most(x.r.goodput.effective_time, faster)) return "";
  return "storage " + show(x.s.economics.reliability.storage_gb_s) + " -> " +
         show(v.economics.reliability.storage_gb_s) + " GB/s: effective time " +
         show(x.r.goodput.effective_time) + " -> " + show(faster);
}

// The best interval is never worse than another one tried.
Verdict best_interval_law(const Sample& x) {
  if (x.s.economics.reliability.checkpoint_interval_s > 0) return std::nullopt;
  const GoodputReport& g = x.r.goodput;
  for (double f : {0.25, 0.5, 0.9, 1.1, 2.0, 8.0}) {
    const double e = effective_time_at(x.s, x.r, f * g.best_interval_s);
    if (!at_most(e, g.effective_time)) {
      return "interval " + show(g.best_interval_s) + " s gives " + show(g.effective_time) + ", " +
             show(f * g.best_interval_s) + " s gives " + show(e);
    }
  }
  return "";
}

// ---- The tests -------------------------------------------------------------------------------

TEST(Laws, MfuAtMostHfuAtMostOneAgainstEitherPeak) {
  check_law("MFU <= HFU <= 1 against the GEMMs' peak", utilisation_law);
}

TEST(Laws, EveryDerivationComputesItsNumber) {
  const Tally t = check_law("every derivation computes its number", derivations_law);
  EXPECT_EQ(t.applied, t.accepted);
}

TEST(Laws, StepIsPositiveAtLeastComputeAndTheSumOfItsParts) {
  check_law("step = compute + bubble + exposed comms + optimizer", step_parts_law);
}

TEST(Laws, BubbleFractionInZeroToOne) { check_law("bubble in [0, 1)", bubble_law); }

TEST(Laws, PayingMoreOfTheBubbleNeverShortensTheStep) {
  check_law("more of the bubble paid", bubble_paid_law);
}

TEST(Laws, GoodputIsAShareAndADayHas86400Seconds) {
  check_law("goodput in [0, 1], a day whole", goodput_share_law);
}

TEST(Laws, MoreGpusNeverRaiseTheJobsMtbf) { check_law("more GPUs, MTBF", more_gpus_mtbf_law); }

TEST(Laws, FasterStorageNeverLowersGoodput) { check_law("faster storage", storage_law); }

TEST(Laws, TheBestCheckpointIntervalIsNeverWorseThanAnother) {
  const Tally t = check_law("the best checkpoint interval", best_interval_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, ASeamOfDegreeOneSendsNothing) { check_law("idle seams send nothing", idle_seam_law); }

TEST(Laws, WeightsPerGpuNeverRiseWhenTensorParallelismDoubles) {
  const Tally t = check_law("weights vs 2x TP", [](const Sample& x) {
    return weights_law(x, &Degrees::tp, "TP doubled");
  });
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, WeightsPerGpuNeverRiseWhenPipelineParallelismDoubles) {
  const Tally t = check_law("weights vs 2x PP", [](const Sample& x) {
    return weights_law(x, &Degrees::pp, "PP doubled");
  });
  EXPECT_GE(t.applied, t.accepted / 4);
}

TEST(Laws, ZeroStagePlusOneNeverHoldsMoreModelState) {
  const Tally t = check_law("ZeRO k+1 <= ZeRO k", zero_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, DoublingTheGlobalBatchNeverShortensTheStepAndAtMostDoublesIt) {
  const Tally t = check_law("2x global batch", batch_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, TwiceTheTokensPerMicroBatchNeverShortensTheStep) {
  const Tally t = check_law("2x tokens per micro-batch", micro_batch_law);
  EXPECT_GE(t.applied, t.accepted / 4);
}

TEST(Laws, MoreRecomputationNeverShortensTheStepNorRaisesMemory) {
  const Tally t = check_law("more recomputation", recompute_law);
  EXPECT_GE(t.applied, t.accepted / 3);
}

TEST(Laws, RecomputingAnotherModuleNeverRaisesMemoryNorLowersFlopsNorShortensTheStep) {
  const Tally t = check_law("one more recomputed module", recompute_modules_law);
  EXPECT_GE(t.applied, t.accepted / 8);
}

TEST(Laws, RecomputingMoreLayersNeverRaisesMemoryNorLowersFlopsNorShortensTheStep) {
  const Tally t = check_law("more fully recomputed layers", recompute_layers_law);
  EXPECT_GE(t.applied, t.accepted / 30);
}

TEST(Laws, OffloadingAnotherLayerNeverRaisesGpuMemoryNorShortensTheStep) {
  const Tally t = check_law("one more offloaded layer", offload_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, TheFusedCrossEntropyNeverRaisesMemoryNorMovesTheStep) {
  const Tally t = check_law("TE's cross entropy", cross_entropy_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, MoreFsdpPrefetchNeverLowersMemory) {
  const Tally t = check_law("one more prefetched layer", fsdp_prefetch_law);
  EXPECT_GE(t.applied, t.accepted / 40);
}

TEST(Laws, WiderHeadsNeverCostLess) {
  const Tally t = check_law("heads twice as wide", head_width_law);
  EXPECT_GE(t.applied, t.accepted / 4);
}

TEST(Laws, TransientMemoryIsNeverNegative) {
  const Tally t = check_law("transient memory", transient_law);
  EXPECT_GE(t.applied, t.accepted / 4);
}

TEST(Laws, TorchtitansPerOpPolicyNeverRaisesMemoryNorLowersFlopsNorShortensTheStep) {
  const Tally t = check_law("torchtitan's per-op policy", every_other_matmul_law);
  EXPECT_GE(t.applied, t.accepted / 8);
}

TEST(Laws, Fp8NeverLengthensTheStepNorRaisesMemory) {
  const Tally t = check_law("FP8 GEMMs", fp8_law);
  EXPECT_GE(t.applied, t.accepted / 8);
}

TEST(Laws, Fp4NeverLengthensTheStepNorItsComputeAgainstFp8) {
  const Tally t = check_law("FP4 GEMMs", fp4_law);
  EXPECT_GE(t.applied, t.accepted / 50);
}

TEST(Laws, AMoreImbalancedMixtureOfExpertsNeverShortensTheStep) {
  const Tally t = check_law("more load imbalance",
                            [](const Sample& x) { return moe_load_law(x, "moe_load_imbalance"); });
  EXPECT_GE(t.applied, t.accepted / 20);
}

TEST(Laws, ALargerCapacityFactorNeverShortensTheStep) {
  const Tally t = check_law("larger capacity factor",
                            [](const Sample& x) { return moe_load_law(x, "capacity_factor"); });
  EXPECT_GE(t.applied, t.accepted / 40);
}

TEST(Laws, AFasterLinkNeverSlowsAStep) {
  const Tally t = check_law("faster links", faster_link_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, ALargerNvlinkDomainNeverSlowsAStep) {
  const Tally t = check_law("a larger NVLink domain", larger_domain_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, MoreNicsInUseNeverSlowACollective) {
  const Tally t = check_law("more NICs in use", more_nics_law, 4);
  EXPECT_GE(t.applied, t.accepted / 8);
}

TEST(Laws, AMoreOversubscribedSpineNeverSpeedsAStep) {
  const Tally t = check_law("a more oversubscribed spine", oversubscription_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, HigherEfficienciesNeverSlowAStep) {
  const Tally t = check_law("higher efficiencies", efficiency_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, NoScheduleIsShorterThanOneMicroBatchsChain) {
  const Tally t = check_law("no step under its critical path", critical_path_law);
  EXPECT_GE(t.applied, t.accepted / 8);
}

TEST(Laws, EachEfficiencyAloneHigherNeverSlowsAStep) {
  const Tally t = check_law("each efficiency higher", each_efficiency_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, AnOverlapSwitchNeverLengthensAStep) {
  const Tally t = check_law("an overlap switch on", overlap_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, TheTensorOverlapStopsAtTheNvlinkDomain) {
  const Tally t = check_law("tp_comm_overlap with TP over the network", tensor_overlap_domain_law);
  EXPECT_GT(t.applied, 0);
}

// About 6% of the drafts carry a calibration; some are refused (a run no efficiency reaches).
TEST(Laws, ACalibrationReproducesItsMeasuredStep) {
  const Tally t = check_law("calibration reproduces its step", calibration_law);
  EXPECT_GE(t.applied, t.accepted / 100);
}

TEST(Laws, ContextAndExpertOfOneWrittenOutIsTheThreeSeamReport) {
  const Tally t = check_law("cp = ep = 1 written out", written_out_law, 4);
  EXPECT_GE(t.applied, t.accepted / 8);
}

TEST(Laws, PermutingTheOrderKeepsMemory) {
  const Tally t = check_law("order and memory", order_law);
  EXPECT_GE(t.applied, t.accepted / 2);
}

TEST(Laws, EveryPlanEvaluatesToItsOwnFigures) {
  const Tally t = check_law("plans evaluate to their figures", plans_evaluate_law, 8);
  EXPECT_GE(t.applied, t.accepted / 40);
}

// Every fourth scenario, and only those the planner searches in a moment (up to
// kMostGpusToPlan GPUs) and random plans can be drawn for: 14-22% of those sampled (9 of 64 in
// the sanitized tree's 300 scenarios, 140 of 625 in 3,000), so at least 10% must apply.
TEST(Laws, NoRandomLayoutThatFitsBeatsThePlannersBest) {
  const Tally t = check_law("the planner's best", planner_best_law, 4);
  EXPECT_GE(t.applied, t.accepted / 40);
}

// The generator reaches every field of the schema and every value of every choice: each
// preset, GPU, precision, enum (schedule, recomputation, memory model, CP method) and seam.
TEST(Laws, TheScenariosCoverTheSchema) {
  std::map<std::string, std::set<std::string>> seen;
  for (int i = 0; i < std::max(scenario_count(), 3000); ++i) {
    const Draft x = draw(seed(), i);
    for (const auto& [key, value] : x) {
      seen[key].insert(value.is_string() ? value.get<std::string>() : value.dump());
      if (key.rfind("model.", 0) == 0) seen["model"];
      if (key.rfind("seams.", 0) == 0) seen["seams"];
      if (key.rfind("degrees.", 0) == 0) seen["degrees"];
      if (key.rfind("calibration.", 0) == 0) seen["calibration"];
      if (key.rfind("reliability.", 0) == 0) seen["reliability"];
    }
  }
  seen["model"].merge(seen["model.preset"]);
  for (const Field& f : fields()) {
    EXPECT_TRUE(seen.count(f.key)) << f.key << " is never drawn";
    if (f.type == FieldType::kSet) {
      std::string all;
      for (const std::string& v : seen[f.key]) all += v;
      for (const std::string& c : f.choices) EXPECT_NE(all.find(c), std::string::npos) << c;
      continue;
    }
    if (f.type != FieldType::kEnum && f.type != FieldType::kPreset) continue;
    for (const std::string& c : f.choices) {
      if (std::string(f.key) == "model.preset") continue;  // the same list as "model"
      EXPECT_TRUE(seen[f.key].count(c)) << f.key << " is never " << c;
    }
  }
  for (const char* k : {"zero_stage"}) EXPECT_EQ(seen[k].size(), 4u) << k;
}

// Pipeline schedules (pipeline.h): each scenario under another schedule, same layout.
std::optional<Report> under(const Sample& x, Schedule schedule) {
  Scenario v = pinned(x);
  v.recipe.schedule = schedule;
  return report_of(v);
}

// Zero bubble never idles longer than 1F1B; ZB-V, DualPipe and DualPipeV never longer than
// ZB-H1 (their bubbles need W <= F, which holds: W is the forward's linear GEMMs again).
Verdict schedule_bubble_law(const Sample& x) {
  if (x.r.degrees.pp == 1) return std::nullopt;
  const auto one = under(x, Schedule::kOneFOneB), zb = under(x, Schedule::kZbH1);
  if (!one || !zb) return std::nullopt;
  if (!at_most(zb->time.bubble_s, one->time.bubble_s)) {
    return "ZB-H1 bubble " + show(zb->time.bubble_s) + " s > 1F1B's " + show(one->time.bubble_s);
  }
  for (Schedule other : {Schedule::kZbV, Schedule::kDualPipe, Schedule::kDualPipeV}) {
    const auto r = under(x, other);
    if (r && !at_most(r->time.bubble_s, zb->time.bubble_s)) {
      return enum_name("schedule", other) + " bubble " + show(r->time.bubble_s) + " s > ZB-H1's " +
             show(zb->time.bubble_s);
    }
  }
  return "";
}

// More micro-batches (a doubled global batch) never raise the bubble's share of the step.
Verdict microbatch_bubble_law(const Sample& x) {
  Scenario v = pinned(x);
  v.batch.global_batch *= 2;
  const auto r = report_of(v);
  if (!r || x.r.degrees.pp == 1) return std::nullopt;
  if (at_most(r->pipeline.bubble_fraction, x.r.pipeline.bubble_fraction)) return "";
  return "global batch doubled: bubble fraction " + show(x.r.pipeline.bubble_fraction) + " -> " +
         show(r->pipeline.bubble_fraction);
}

// DualPipe holds twice 1F1B's model states (DeepSeek-V3 Table 2) and exposes no more of the
// expert all-to-alls (its F&B hides them, Sec. 3.2.1).
Verdict dualpipe_law(const Sample& x) {
  const auto one = under(x, Schedule::kOneFOneB), dual = under(x, Schedule::kDualPipe);
  if (!one || !dual || x.r.degrees.pp == 1) return std::nullopt;
  const double a = most_over_stages(*one, model_state), b = most_over_stages(*dual, model_state);
  if (!same(b, 2 * a)) return "DualPipe's model states " + show(b) + " != 2 x " + show(a);
  if (!at_most(dual->time.exposed_expert_s, one->time.exposed_expert_s)) {
    return "DualPipe exposes " + show(dual->time.exposed_expert_s) + " s of expert traffic > " +
           show(one->time.exposed_expert_s);
  }
  return "";
}

TEST(Laws, ZeroBubbleNeverIdlesLongerThan1F1BNorTheVsAndDualPipeLongerThanZbH1) {
  const Tally t = check_law("schedule bubbles", schedule_bubble_law);
  EXPECT_GE(t.applied, t.accepted / 5);  // a pipeline and m >= p: about a quarter
}

TEST(Laws, MoreMicroBatchesNeverRaiseTheBubbleFraction) {
  const Tally t = check_law("bubble vs 2x micro-batches", microbatch_bubble_law);
  EXPECT_GE(t.applied, t.accepted / 4);  // a pipeline: about two fifths
}

TEST(Laws, DualPipeHoldsTwiceTheModelStatesAndHidesTheExpertTraffic) {
  const Tally t = check_law("DualPipe", dualpipe_law);
  EXPECT_GE(t.applied, t.accepted / 20);  // an even PP, an even m >= 2 PP: about an eighth
}

// The shrinker finds the smallest scenario: a law planted to break for ZeRO-3 on more than
// 100 GPUs shrinks to those two keys, gpus no more than twice the bound.
TEST(Laws, AFailureShrinksToTheSmallestScenario) {
  const Law planted = [](const Sample& x) -> Verdict {
    return x.s.recipe.zero_stage == 3 && x.s.fleet.gpus > 100 ? "planted" : "";
  };
  // The first drawn scenario that still holds on 4,096 GPUs (without its explicit degrees).
  Draft x;
  for (int i = 0; !breaks(planted, x); ++i) {
    ASSERT_LT(i, 100) << "no drawn scenario takes 4,096 GPUs";
    x = draw(seed(), i);
    x.erase("degrees.dp"), x.erase("degrees.tp"), x.erase("degrees.pp");
    x["gpus"] = 4096, x["zero_stage"] = 3;
  }
  const Draft small = shrink(x, planted);
  EXPECT_EQ(small.size(), 2u) << text_of(small);
  EXPECT_EQ(small.at("zero_stage"), 3);
  EXPECT_GT(small.at("gpus").get<int>(), 100);
  EXPECT_LE(small.at("gpus").get<int>(), 200);
}

}  // namespace
}  // namespace pe
