#include "validate.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace pe {
namespace {

// As a person writes numbers: 80, -16, 0.5, 1e+308. No iostreams: they would add half again
// to the wasm module; nlohmann's shortest round-trip form is linked anyway.
std::string show(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
    return std::to_string(static_cast<long long>(v));
  }
  return nlohmann::json(v).dump();
}

std::string int_range(const char* field, long long v, long long lo, long long hi) {
  if (v >= lo && v <= hi) return "";
  return std::string(field) + " is " + std::to_string(v) + ": allowed " + std::to_string(lo) +
         " to " + std::to_string(hi);
}

// lo < v <= hi (or lo <= v when lo_inclusive), finite.
std::string real_range(const char* field, double v, double lo, double hi, bool lo_inclusive) {
  const bool ok = std::isfinite(v) && (lo_inclusive ? v >= lo : v > lo) && v <= hi;
  if (ok) return "";
  return std::string(field) + " is " + show(v) + ": allowed " +
         (lo_inclusive ? "" : "more than ") + show(lo) + " to " + show(hi);
}

}  // namespace

std::string validate(const Scenario& s) {
  const ModelSpec& m = s.model;
  const Precision& p = s.precision;
  std::string e;
  auto check = [&e](std::string problem) {
    if (e.empty()) e = std::move(problem);
  };
  check(int_range("gpus", s.gpus, 1, 16384));
  check(int_range("gpus_per_node", s.gpus_per_node, 1, 1024));
  check(real_range("model.params", m.params, 1e6, 1e14, true));
  check(int_range("model.layers", m.layers, 1, 10000));
  check(int_range("model.hidden", m.hidden, 1, 1 << 20));
  check(int_range("model.heads", m.heads, 1, m.hidden));
  check(int_range("model.vocab", m.vocab, 1, 10000000));
  check(int_range("seq_len", s.seq_len, 1, 1 << 20));
  check(int_range("micro_batch", s.micro_batch, 1, 1 << 16));
  check(int_range("global_batch", s.global_batch, 1, 1 << 24));
  for (auto [field, v] : {std::pair{"precision.weight", p.weight_bytes},
                          {"precision.grad", p.grad_bytes},
                          {"precision.master", p.master_bytes},
                          {"precision.adam_m", p.adam_m_bytes},
                          {"precision.adam_v", p.adam_v_bytes}}) {
    check(real_range(field, v, 0, 16, true));
  }
  check(real_range("gpu_memory_gb", s.gpu.memory_gb, 0, 1e5, false));
  // Rates and the efficiency are divisors of the step time: at 0.001 and above even the
  // largest allowed run takes a finite time (about 1e28 s at worst), where 5e-324 gave infinity.
  check(real_range("gpu_peak_tflops", s.gpu.peak_tflops, 0.001, 1e6, true));
  check(real_range("nvlink_gb_s", s.gpu.nvlink_gb_s, 0.001, 1e5, true));
  check(real_range("network_gb_s", s.network_gb_s, 0.001, 1e5, true));
  check(int_range("zero_stage", s.zero_stage, 0, 3));
  check(int_range("virtual_stages", s.virtual_stages, 1, 128));
  check(real_range("efficiency", s.efficiency, 0.001, 1, true));
  check(real_range("train_tokens", s.train_tokens, 0, 1e16, true));
  if (!e.empty()) return e;

  if (m.hidden % m.heads != 0) {
    return "model.heads is " + std::to_string(m.heads) + ": it must divide model.hidden (" +
           std::to_string(m.hidden) + ") so every head has the same size";
  }
  if (p.weight_bytes + p.grad_bytes + p.optimizer_bytes() <= 0) {
    return "precision: bytes per parameter add up to 0; allowed: a positive total";
  }
  if (s.micro_batch > s.global_batch) {
    return "micro_batch is " + std::to_string(s.micro_batch) +
           ": allowed 1 to global_batch (" + std::to_string(s.global_batch) + ")";
  }
  if (s.degrees) {
    const Degrees& d = *s.degrees;
    check(int_range("degrees.dp", d.dp, 1, s.gpus));
    check(int_range("degrees.tp", d.tp, 1, s.gpus));
    check(int_range("degrees.pp", d.pp, 1, s.gpus));
    if (!e.empty()) return e;
    if (d.product() != s.gpus) {
      return "degrees: dp x tp x pp = " + std::to_string(d.dp) + "x" + std::to_string(d.tp) +
             "x" + std::to_string(d.pp) + " = " + std::to_string(d.product()) +
             ", but gpus is " + std::to_string(s.gpus) + ": the product must equal gpus";
    }
  }
  return "";
}

}  // namespace pe
