#include "model/calibrate.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "model/explorer.h"
#include "model/memory.h"
#include "model/model_shape.h"
#include "model/schema.h"
#include "model/text.h"

namespace pe {
namespace {

// The lowest matmul efficiency a fit accepts. Published runs sit at 30-60% of dense peak
// (Narayanan et al. 2021 Table 1; Dubey et al. 2024 Table 4); a measured step that needs the
// matmuls below 2% describes another run than the scenario given (a wrong batch, a layout
// the run did not use), so it is refused rather than fitted.
constexpr double kLowestMatmulEfficiency = 0.02;

// What the model says of a run: its step, its TFLOP/s per GPU and tokens per step, and its peak
// memory per GPU under the full memory model (a measured peak is the whole GPU's:
// activations, overhead). A run either memory model refuses is refused under
// calibration.scenario; once both take it, the fit's changes (constants within their ranges)
// cannot be refused, so the later evaluations read their values directly.
struct Figures {
  double step_s = 0, tflops_per_gpu = 0, tokens_per_step = 0, peak_gb = 0;
  // The FLOPs each GPU does a step, in the two conventions a log may use: with recomputation
  // (Megatron-LM's, Narayanan et al. 2021 Appendix) and without (torchtitan's, 6N + attention).
  double hardware_flops_per_gpu = 0, model_flops_per_gpu = 0;
  // The dense peak the run's GEMMs run at (BF16's, or FP8's or FP4's under those), TFLOP/s.
  double peak_tflops = 0;
};

Problem refused_run(const Problem& p, const std::string& at = "calibration.scenario") {
  return {p.key.empty() ? at : at + "." + p.key, "in " + at + ", " + p.message};
}

// A run either memory model refuses, refused under the key it sits at (figures below).
Problem figures_refusal(const Scenario& run, const std::string& at) {
  for (const Scenario& each : {run, with_full_memory(run)}) {
    const Result<Report> r = evaluate(each, false);
    if (!r.ok()) return refused_run(r.problem(), at);
  }
  return {};
}

Result<Figures> figures(const Scenario& run) {
  const Result<Report> r = evaluate(run, false);
  if (!r.ok()) return Result<Figures>::failure(refused_run(r.problem()));
  const Result<Report> full = evaluate(with_full_memory(run), false);
  if (!full.ok()) return Result<Figures>::failure(refused_run(full.problem()));
  Figures out;
  out.step_s = r.value().time.step_s;
  out.tflops_per_gpu = r.value().time.tflops_per_gpu;
  out.tokens_per_step = 1.0 * r.value().global_batch * run.batch.seq_len;
  out.peak_gb = full.value().memory.per_gpu_bytes / 1e9;
  out.hardware_flops_per_gpu = r.value().time.hardware_flops_per_step / run.fleet.gpus;
  out.model_flops_per_gpu = r.value().time.model_flops_per_step / run.fleet.gpus;
  out.peak_tflops = r.value().time.mfu_peak_tflops;
  return out;
}

double step_of(const Scenario& run) { return evaluate(run, false).value().time.step_s; }

double step_at(Scenario run, double efficiency) {
  run.gpu.matmul_efficiency = efficiency;
  return step_of(run);
}

// The measured step: as given, or from the measured throughput (the run's tokens a step over
// its fleet's tokens per second: torchtitan's "tps" is per GPU of the whole run).
double measured_step_s(const Calibration& c, const Scenario& run, const Figures& model) {
  if (c.step_time_s > 0) return c.step_time_s;
  return model.tokens_per_step / (run.fleet.gpus * c.tokens_per_s_per_gpu);
}

std::string refusal(const char* key, double value, const char* unit, const std::string& why) {
  return std::string("calibration.") + key + " is " + short_number(value) + unit + ": " + why;
}

// A link's efficiency from its measured bus bandwidth (nccl-tests all_reduce_perf "busbw",
// the rate a ring all-reduce reaches over the link: its PERFORMANCE.md), at most the link.
Problem fit_link(const char* key, double measured_gb_s, double link_gb_s, const char* link,
                 FittedConstant& c) {
  c.after = c.before;
  if (measured_gb_s <= 0) {
    c.how = std::string("held at the run's: no ") + link + " bus bandwidth measured";
  } else if (measured_gb_s > link_gb_s || measured_gb_s < 0.001 * link_gb_s) {
    // At most the link; at least the smallest efficiency the field allows (0.001).
    return {std::string("calibration.") + key,
            refusal(key, measured_gb_s, " GB/s",
                    std::string("allowed 0.1% to 100% of the run's ") + link + " per direction, " +
                        short_number(link_gb_s) + " GB/s")};
  } else {
    c.after = measured_gb_s / link_gb_s;
    c.how = "measured bus bandwidth " + short_number(measured_gb_s) + " of " +
            short_number(link_gb_s) + " GB/s";
  }
  return {};
}

// The matmul efficiency at which the run's step takes `measured_s`: the step never lengthens
// as the efficiency rises (a law), so bisection on its logarithm finds it (an end of the range
// when no efficiency in it does). 60 halvings reach the last bit; 32 leave it within a
// billionth, which a fit repeated for every trial share takes (fit_bubble).
double efficiency_for(Scenario run, double measured_s, int halvings = 60) {
  double lo = kLowestMatmulEfficiency, hi = 1;
  for (int i = 0; i < halvings; ++i) {
    const double mid = std::sqrt(lo * hi);
    (step_at(run, mid) > measured_s ? lo : hi) = mid;
  }
  return hi;
}

Problem fit_matmul(const Scenario& run, const Calibration& given, double measured_s,
                   FittedConstant& c) {
  double lo = kLowestMatmulEfficiency, hi = 1;
  const double fastest = step_at(run, hi), slowest = step_at(run, lo);
  std::string why;
  if (!(measured_s >= fastest * (1 - 1e-9))) {
    why = "the run's scenario needs " + short_number(fastest) +
          " s even with its matmuls at 100% of peak, so no efficiency reaches it; check the "
          "run's layout, batch and network";
  } else if (!(measured_s <= slowest)) {
    why = "slower than the run's scenario with its matmuls at 2% of peak (" +
          short_number(slowest) + " s); check the run's layout and batch";
  }
  if (!why.empty() && given.step_time_s > 0) {
    return {"calibration.step_time_s", refusal("step_time_s", measured_s, " s", why)};
  }
  if (!why.empty()) {
    return {"calibration.tokens_per_s_per_gpu",
            refusal("tokens_per_s_per_gpu", given.tokens_per_s_per_gpu, " tokens/s",
                    "a step of " + short_number(measured_s) + " s; " + why)};
  }
  c.after = efficiency_for(run, measured_s);
  c.how = "fitted to the measured step time";
  return {};
}

// A measured TFLOP/s per GPU and the measured step must describe one run: their product is
// the FLOPs each GPU did a step. Frameworks count them differently: Megatron-LM with or without
// recomputation (Narayanan et al. 2021, Appendix), newer Megatron-LM and torchtitan's docs with
// causal attention's core counted half or whole; so the run's scenario gives a range, from the
// model FLOPs with the attention core halved to the FLOPs with recomputation. More than 10%
// outside it, the two figures come from different runs (or the scenario is not the run's), and
// no constant fits them both; above the GPU's peak, no run reached it.
constexpr double kFlopsAgreement = 0.10;

Problem contradiction(const Calibration& c, const Scenario& run, double step_s,
                      const Figures& model) {
  if (c.tflops_per_gpu <= 0) return {};
  const char* key = "calibration.tflops_per_gpu";
  if (c.tflops_per_gpu > model.peak_tflops) {
    return {key, refusal("tflops_per_gpu", c.tflops_per_gpu, " TFLOP/s",
                         "allowed at most the run's GPU peak, " + short_number(model.peak_tflops) +
                             " TFLOP/s")};
  }
  const double measured = c.tflops_per_gpu * 1e12 * step_s;
  const ModelShape shape(run.model, run.batch.seq_len);
  const double attention_core = 3.0 * model.tokens_per_step * run.model.layers *
                                shape.attention().core_flops_per_token / run.fleet.gpus;
  const double lo = model.model_flops_per_gpu - attention_core / 2;
  const double hi = model.hardware_flops_per_gpu;
  if (measured >= (1 - kFlopsAgreement) * lo && measured <= (1 + kFlopsAgreement) * hi) return {};
  const auto pflop = [](double flops) { return short_number(flops / 1e15) + " PFLOP"; };
  const std::string step = c.step_time_s > 0 ? "step_time_s" : "tokens_per_s_per_gpu";
  return {key, refusal("tflops_per_gpu", c.tflops_per_gpu, " TFLOP/s",
                       "with the measured step of " + short_number(step_s) + " s (calibration." +
                           step + ") it means " + pflop(measured) +
                           " per GPU a step, where the run's scenario does " + pflop(lo) + " to " +
                           pflop(hi) +
                           " (as frameworks count: causal attention half or whole, "
                           "recomputation or not); allowed within 10% of that: the two figures "
                           "contradict each other, so check that both come from this run")};
}

// The memory overhead: what the measured peak holds beyond the model's tensors, at least 0.
Problem fit_overhead(const Scenario& run, double peak_gb, FittedConstant& c) {
  c.after = c.before;
  if (peak_gb > run.gpu.memory_gb) {
    return {"calibration.peak_memory_gb", refusal("peak_memory_gb", peak_gb, " GB",
                                                  "allowed at most the run's GPU memory, " +
                                                      short_number(run.gpu.memory_gb) + " GB")};
  }
  if (peak_gb <= 0) {
    c.how = "held at the run's: no peak memory measured";
    return {};
  }
  Scenario bare = run;
  bare.recipe.overhead_gb = 0;
  const double tensors_gb =
      evaluate(with_full_memory(bare), false).value().memory.per_gpu_bytes / 1e9;
  c.after = std::max(0.0, peak_gb - tensors_gb);
  c.how = (peak_gb >= tensors_gb ? "the measured peak less the model's tensors ("
                                 : "held at 0: the model's tensors (") +
          short_number(tensors_gb) + " GB" +
          (peak_gb >= tensors_gb ? ")" : ") exceed the measured peak");
  return {};
}

// The GPU's fields a calibration depends on: its peaks, its memory and its links. A run whose
// GPU differs in any of them measured another GPU than the scenario's. Two presets are told
// apart by name; a custom GPU (two custom GPUs share the name "custom", and a preset with a
// detail changed becomes one) by the first number that differs, then by name.
constexpr const char* kGpuNumbers[] = {"gpu_peak_tflops",    "gpu_fp8_tflops", "gpu_fp4_tflops",
                                       "gpu_memory_gb",      "hbm_gb_s",       "nvlink_gb_s",
                                       "nvlink_domain_gpus", "network_gb_s",   "host_link_gb_s"};

Problem other_gpu(const Scenario& run, const Scenario& s,
                  const std::string& run_key = "calibration.scenario") {
  const std::string why = " (a run on one GPU cannot calibrate another)";
  const Problem by_name = {run_key + ".gpu", run_key + ".gpu is \"" + run.gpu.name +
                                                 "\": allowed the scenario's own GPU, \"" +
                                                 s.gpu.name + "\"" + why};
  const bool custom = run.gpu.name == "custom" || s.gpu.name == "custom";
  if (!custom && run.gpu.name != s.gpu.name) return by_name;
  for (const char* key : kGpuNumbers) {
    const Field& f = *find_field(key);
    if (f.get(run) == f.get(s)) continue;
    const std::string at = run_key + "." + key;
    const std::string unit = *f.unit ? std::string(" ") + f.unit : "";
    return {at, at + " is " + short_number(f.get(run)) + unit + ": allowed the scenario's own " +
                    key + ", " + short_number(f.get(s)) + unit + why};
  }
  if (run.gpu.name != s.gpu.name) return by_name;
  return {};
}

// Two runs tell the bubble apart from the matmuls only if their bubbles (as modelled, all of
// each paid) differ by at least this share of their steps: a 1% error in a measured step then
// moves the fitted share by a fifth of itself or less.
constexpr double kDistinctBubbles = 0.05;
// Where no share in bubble_paid's range meets the second run's step, the nearest end is kept and
// its miss shown as a residual, up to this share of the step; past it the two runs contradict.
constexpr double kStepsAgreement = 0.10;
// Halvings of bubble_paid's range (0.1 to 2) in a two-run fit: 24 leave the share within 1e-7,
// far inside what a measured step tells, and keep the page's fit to about a thousand evaluations.
constexpr int kShareHalvings = 24;

std::string percent_text(double share) { return short_number(100 * share) + "%"; }
double bubble_share_of(Scenario run) {
  run.gpu.bubble_paid = 1;
  const Report r = evaluate(run, false).value();
  return r.time.bubble_s / r.time.step_s;
}

// The constants a calibration fits, from one run's GPU to another's: the two runs are on one
// GPU (other_gpu), and nothing else of the second run's changes.
void copy_constants(const GpuSpec& from, GpuSpec& to) {
  to.matmul_efficiency = from.matmul_efficiency;
  to.nvlink_efficiency = from.nvlink_efficiency;
  to.network_efficiency = from.network_efficiency;
  to.bubble_paid = from.bubble_paid;
}

// A second run, checked as the first is, and whether its bubble and the first's differ enough
// to tell the bubble from the matmuls (a Problem naming its key otherwise).
struct SecondRun {
  Scenario run;
  double step_s = 0, before_s = 0, after_s = 0;  // measured; the model's as given, and fitted
  double first_share = 0, second_share = 0;      // each run's bubble share, as modelled
  bool distinct() const { return std::fabs(first_share - second_share) >= kDistinctBubbles; }
};

Problem second_run(const Scenario& s, SecondRun& out) {
  const std::string key = "calibration.second_scenario";
  out.run = *s.calibration.second_run;
  out.step_s = s.calibration.second_step_time_s;
  if (Problem p = other_gpu(out.run, s, key); !p.empty()) return p;
  if (Problem p = figures_refusal(out.run, key); !p.empty()) return p;
  out.before_s = step_of(out.run);
  out.first_share = bubble_share_of(*s.calibration.run);
  out.second_share = bubble_share_of(out.run);
  return {};
}

// The shares of the bubble paid at which some matmul efficiency in its range meets the first
// run's step: the step rises with the share (a law) and falls with the efficiency, so they are
// an interval of bubble_paid's range, each end found by bisection. Outside it the efficiency
// refitted at a share stops at its bound, and the second run's miss no longer tells the way.
std::pair<double, double> meetable_shares(Scenario run, double step_s) {
  const Field& f = *find_field("bubble_paid");
  const auto step = [&](double k, double efficiency) {
    run.gpu.bubble_paid = k;
    return step_at(run, efficiency);
  };
  const auto crossing = [&](double efficiency) {  // {last share at or under step_s, first over}
    double under = f.min, over = f.max;
    for (int i = 0; i < kShareHalvings; ++i) {
      const double mid = (under + over) / 2;
      (step(mid, efficiency) <= step_s ? under : over) = mid;
    }
    return std::make_pair(under, over);
  };
  double lo = f.min, hi = f.max;
  if (step(hi, 1) > step_s) hi = crossing(1).first;
  if (step(lo, kLowestMatmulEfficiency) < step_s) lo = crossing(kLowestMatmulEfficiency).second;
  return {lo, std::max(lo, hi)};
}

// The share of the bubble paid and the matmul efficiency that meet both measured steps: at
// each trial share the efficiency is refitted to the first run, and bisection on the share
// finds where the second run's step meets its own. If the miss keeps its sign across the
// shares the first run allows, the share stays at the end that misses least, its residual
// shown; more than kStepsAgreement off, the two steps contradict each other. `run` is the first
// run, its links and efficiency fitted; it leaves with both constants set.
Problem fit_bubble(Scenario& run, double step_s, SecondRun& second, FittedConstant& matmul,
                   FittedConstant& bubble) {
  const auto miss = [&](double k) {
    run.gpu.bubble_paid = k;
    run.gpu.matmul_efficiency = efficiency_for(run, step_s, 32);
    copy_constants(run.gpu, second.run.gpu);
    return step_of(second.run) - second.step_s;
  };
  auto [lo, hi] = meetable_shares(run, step_s);
  const double at_lo = miss(lo), at_hi = miss(hi);
  double k = std::fabs(at_lo) < std::fabs(at_hi) ? lo : hi;
  bubble.how = "fitted with the matmul efficiency to both runs' steps";
  if ((at_lo > 0) != (at_hi > 0)) {
    for (int i = 0; i < kShareHalvings; ++i) {
      const double mid = (lo + hi) / 2;
      ((miss(mid) > 0) == (at_lo > 0) ? lo : hi) = mid;
    }
    k = (lo + hi) / 2;
  } else {
    bubble.how +=
        ", at the end of its range that meets them best: the steps differ by more "
        "than any share of the bubble explains";
  }
  miss(k);
  second.after_s = step_of(second.run);
  const double first_miss = step_of(run) / step_s - 1,
               second_miss = second.after_s / second.step_s - 1;
  if (std::fabs(first_miss) > 1e-3 || std::fabs(second_miss) > kStepsAgreement) {
    const Field& f = *find_field("bubble_paid");
    return {"calibration.second_step_time_s",
            refusal("second_step_time_s", second.step_s, " s",
                    "no matmul efficiency (" + percent_text(kLowestMatmulEfficiency) +
                        " to 100%) and share of the bubble paid (" + short_number(f.min) + " to " +
                        short_number(f.max) + ") meets both it (within " +
                        percent_text(kStepsAgreement) + ") and the first run's " +
                        short_number(step_s) +
                        " s: the two steps contradict each other, so check that both runs are "
                        "of this fleet and their scenarios are theirs")};
  }
  bubble.after = k;
  matmul.after = run.gpu.matmul_efficiency;
  matmul.how = "fitted with bubble_paid to both runs' steps";
  return {};
}

// Two runs whose bubbles are too alike: the share stays as it was, and the fit says why.
void hold_bubble(SecondRun& second, const Scenario& run, FittedConstant& bubble) {
  bubble.how = "held at the run's: the two runs' bubbles (" + percent_text(second.first_share) +
               " and " + percent_text(second.second_share) +
               " of their steps) are too alike to tell from the matmuls; a run with another "
               "pipeline depth or micro-batch count can";
  copy_constants(run.gpu, second.run.gpu);
  second.after_s = step_of(second.run);
}

// Each measured figure beside the model's, before the fit and after it.
std::vector<Residual> residuals(const Calibration& c, double step_s, const Figures& before,
                                const Figures& after, const SecondRun& second) {
  std::vector<Residual> out = {{"step_time_s", step_s, before.step_s, after.step_s}};
  if (c.peak_memory_gb > 0) {
    out.push_back({"peak_memory_gb", c.peak_memory_gb, before.peak_gb, after.peak_gb});
  }
  if (c.tflops_per_gpu > 0) {
    out.push_back(
        {"tflops_per_gpu", c.tflops_per_gpu, before.tflops_per_gpu, after.tflops_per_gpu});
  }
  if (c.second_run) {
    out.push_back({"second_step_time_s", second.step_s, second.before_s, second.after_s});
  }
  return out;
}

// A constant the user set in the scenario that the run does not measure (no bus bandwidth, no
// peak, no second run) keeps the user's value, and the fit holds it there; one it measures
// replaces the user's, and the fit says so (`replaced`). The matmul efficiency is always
// measured (by the step). A value the user set that is the calibration's own (the echoed
// scenario's, read back) changes nothing and is not mentioned. In fit_calibration's order.
struct UserConstant {
  const char* key;
  bool measured;
  double* in_run;
  double yours;
  bool held = false;
};

std::vector<UserConstant> hold_user_constants(const Scenario& s,
                                              const std::set<std::string>& user_set,
                                              bool two_distinct_runs, Scenario& run) {
  const Calibration& c = s.calibration;
  std::vector<UserConstant> out = {
      {"efficiency", true, &run.gpu.matmul_efficiency, s.gpu.matmul_efficiency},
      {"nvlink_efficiency", c.nvlink_bus_gb_s > 0, &run.gpu.nvlink_efficiency,
       s.gpu.nvlink_efficiency},
      {"network_efficiency", c.network_bus_gb_s > 0, &run.gpu.network_efficiency,
       s.gpu.network_efficiency},
      {"overhead_gb", c.peak_memory_gb > 0, &run.recipe.overhead_gb, s.recipe.overhead_gb},
      {"bubble_paid", two_distinct_runs, &run.gpu.bubble_paid, s.gpu.bubble_paid},
  };
  for (UserConstant& u : out) {
    u.held = !u.measured && user_set.count(u.key) && u.yours != *u.in_run;
    if (u.held) *u.in_run = u.yours;
  }
  return out;
}

void say_what_was_yours(const std::vector<UserConstant>& yours,
                        const std::set<std::string>& user_set,
                        std::vector<FittedConstant>& constants) {
  for (size_t i = 0; i < constants.size(); ++i) {
    const UserConstant& u = yours[i];
    FittedConstant& k = constants[i];
    const std::string value = short_number(u.yours) + (*k.unit ? std::string(" ") + k.unit : "");
    if (u.held) {
      k.how = "held at the " + value + " you set (the run does not measure it)";
    } else if (u.measured && user_set.count(u.key) && u.yours != k.after) {
      k.replaced = u.yours;
      k.how += "; replaces the " + value + " you set";
    }
  }
}

}  // namespace

std::string calibration_title(const Calibration& c) {
  const std::string fleet = std::to_string(c.run->fleet.gpus) + " × " + c.run->gpu.name;
  return c.name.empty() ? fleet : fleet + ", " + c.name;
}

Result<CalibrationFit> fit_calibration(const Scenario& s, const std::set<std::string>& user_set) {
  const Calibration& c = s.calibration;
  Scenario run = *c.run;
  if (Problem p = other_gpu(run, s); !p.empty()) return Result<CalibrationFit>::failure(p);
  const Result<Figures> model = figures(run);
  if (!model.ok()) return Result<CalibrationFit>::failure(model.problem());
  const Figures& before = model.value();
  const double step_s = measured_step_s(c, run, before);
  if (Problem p = contradiction(c, run, step_s, before); !p.empty()) {
    return Result<CalibrationFit>::failure(p);
  }
  SecondRun second;
  if (c.second_run) {
    if (Problem p = second_run(s, second); !p.empty()) return Result<CalibrationFit>::failure(p);
  }
  const bool two = c.second_run && second.distinct();
  const std::vector<UserConstant> yours = hold_user_constants(s, user_set, two, run);
  const GpuSpec& g = run.gpu;
  FittedConstant matmul{"efficiency", g.matmul_efficiency, 0, "", ""};
  FittedConstant nvlink{"nvlink_efficiency", g.nvlink_efficiency, 0, "", ""};
  FittedConstant network{"network_efficiency", g.network_efficiency, 0, "", ""};
  FittedConstant overhead{"overhead_gb", run.recipe.overhead_gb, 0, "GB", ""};
  FittedConstant bubble{"bubble_paid", g.bubble_paid, g.bubble_paid, "",
                        "held at the run's: one step time cannot tell the bubble from the "
                        "matmuls; a second run with another bubble can (calibration."
                        "second_scenario)"};
  Problem p = fit_link("nvlink_bus_gb_s", c.nvlink_bus_gb_s, g.nvlink_gb_s, "NVLink", nvlink);
  if (p.empty()) {
    p = fit_link("network_bus_gb_s", c.network_bus_gb_s, g.network_gb_s, "network", network);
  }
  run.gpu.nvlink_efficiency = nvlink.after;
  run.gpu.network_efficiency = network.after;
  if (p.empty()) p = fit_matmul(run, c, step_s, matmul);
  run.gpu.matmul_efficiency = matmul.after;
  if (p.empty() && two) p = fit_bubble(run, step_s, second, matmul, bubble);
  if (p.empty() && c.second_run && !two) hold_bubble(second, run, bubble);
  if (p.empty()) p = fit_overhead(run, c.peak_memory_gb, overhead);
  if (!p.empty()) return Result<CalibrationFit>::failure(p);
  if (c.nvlink_bus_gb_s <= 0 || c.network_bus_gb_s <= 0) {
    matmul.how +=
        "; one step time cannot tell slow matmuls from slow links, so the links "
        "without a measured bus bandwidth keep their efficiency";
  }
  run.recipe.overhead_gb = overhead.after;

  CalibrationFit fit;
  fit.title = calibration_title(c);
  fit.constants = {matmul, nvlink, network, overhead, bubble};
  say_what_was_yours(yours, user_set, fit.constants);
  fit.residuals = residuals(c, step_s, before, figures(run).value(), second);
  return fit;
}

void apply_calibration(const CalibrationFit& fit, Scenario& s) {
  for (const FittedConstant& c : fit.constants) find_field(c.key)->set(s, c.after);
}

}  // namespace pe
