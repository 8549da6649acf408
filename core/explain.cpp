#include "explain.h"

#include <cmath>
#include <cstdio>

#include "context.h"
#include "moe.h"

namespace pe {
namespace {

// Numbers as the derivations write them: 16e9, 5120, 0.0625; three significant digits.
std::string num(double v) {
  char text[32];
  const double a = std::fabs(v);
  if (a < 1e6 && v == std::floor(v)) {
    std::snprintf(text, sizeof text, "%.0f", v);  // whole numbers in full: 25600
    return text;
  }
  if (a == 0 || (a >= 1e-3 && a < 1e6)) {
    std::snprintf(text, sizeof text, "%.4g", v);
    return text;
  }
  const int exp3 = static_cast<int>(std::floor(std::log10(a) / 3)) * 3;
  std::snprintf(text, sizeof text, "%.3ge%d", v / std::pow(10.0, exp3), exp3);
  return text;
}

// Decimal units, as the page: 256e9 -> "256 GB".
std::string bytes(double v) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int i = 0;
  while (std::fabs(v) >= 999.5 && i < 6) v /= 1000, ++i;
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", v, units[i]);
  return text;
}

std::string secs(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g s", v);
  return text;
}

std::string str(long long v) { return std::to_string(v); }

// "÷ DP 16" when ZeRO shards this state over the data-parallel group, else "".
std::string over_dp(bool sharded, int dp) { return sharded ? " ÷ DP " + str(dp) : ""; }

// Model states of `psi` parameters under ZeRO stage z over a group of n.
double states(const Precision& p, double psi, int z, int n) {
  const double zw = z >= 3 ? n : 1, zg = z >= 2 ? n : 1, zo = z >= 1 ? n : 1;
  return psi * (p.weight_bytes / zw + p.grad_bytes / zg + p.optimizer_bytes() / zo);
}

Derivation memory_per_gpu(const Scenario& s, const Report& r) {
  const Precision& p = r.precision;
  const MemoryBreakdown& b = r.memory.breakdown;
  // ZeRO shards over the ranks holding the same weights: dp x cp (moe.h).
  const int dp = r.degrees.dp * r.degrees.cp, z = s.zero_stage;
  const double expert = r.memory.stages[r.memory.peak_stage].expert_params_per_gpu;
  const double psi = r.memory.params_per_gpu - expert;
  Derivation d;
  d.key = "memory.per_gpu_bytes";
  d.result = states(p, psi, z, dp) + b.activations_bytes + b.overhead_bytes;
  if (expert > 0) {
    const int edp = expert_data_parallel(s, r.degrees);
    d.result += states(p, expert, z, edp);
    d.formula = "dense Ψ × (weight + grad + optimizer) B/param, each ÷ DP×CP where ZeRO shards "
                "it, + expert Ψ the same ÷ the expert data-parallel group, + activations";
    d.text = bytes(d.result) + " = " + num(psi) + " dense params ZeRO " + str(z) + " over " +
             str(dp) + " + " + num(expert) + " expert params over " + str(edp);
    if (b.activations_bytes > 0) d.text += " + " + bytes(b.activations_bytes) + " activations";
    if (b.overhead_bytes > 0) d.text += " + " + bytes(b.overhead_bytes) + " overhead";
    d.source = "Rajbhandari et al. 2020 (ZeRO) Fig. 1; Megatron-Core's expert data-parallel group";
    return d;
  }
  d.formula = "Ψ × (weight + grad + optimizer) B/param, each ÷ DP where ZeRO shards it, "
              "+ activations";
  const bool plain = z == 0 && b.activations_bytes == 0;
  d.text = bytes(d.result) + " = " + num(psi) + " params";
  if (plain) {
    d.text += " × " + num(p.total_bytes()) + " B/param";
  } else {
    d.text += " × (" + num(p.weight_bytes) + over_dp(z >= 3, dp) + " + " + num(p.grad_bytes) +
              over_dp(z >= 2, dp) + " + " + num(p.optimizer_bytes()) + over_dp(z >= 1, dp) +
              ") B/param";
  }
  if (b.activations_bytes > 0) d.text += " + " + bytes(b.activations_bytes) + " activations";
  if (b.overhead_bytes > 0) d.text += " + " + bytes(b.overhead_bytes) + " overhead";
  d.source = "Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Fig. 1; activations: "
             "Korthikanti et al. 2022 (arXiv:2205.05198) Table 2";
  return d;
}

Derivation params_per_gpu(const Scenario& s, const Report& r) {
  Derivation d;
  d.key = "memory.params_per_gpu";
  const Degrees& g = r.degrees;
  const StageMemory& peak = r.memory.stages[r.memory.peak_stage];
  if (peak.expert_params_per_gpu > 0) {
    const double dense = peak.params_per_gpu - peak.expert_params_per_gpu;
    d.result = dense + peak.expert_params_per_gpu;
    d.formula = "the stage's dense parameters ÷ TP + its routed experts ÷ (EP × expert TP)";
    d.text = num(d.result) + " = " + num(dense * g.tp) + " ÷ TP " + str(g.tp) + " + " +
             num(peak.expert_params_per_gpu * g.ep * s.expert_tp) + " ÷ (EP " + str(g.ep) +
             " × expert TP " + str(s.expert_tp) + ") on stage " + str(peak.stage);
    d.source = "Megatron-Core MoE: experts split over EP ranks, the rest over TP";
    return d;
  }
  if (s.memory_model == MemoryModel::kBook) {
    d.result = r.model_params / (1.0 * g.tp * g.pp);
    d.formula = "N ÷ (TP × PP)";
    d.text = num(d.result) + " = " + num(r.model_params) + " params ÷ (TP " + str(g.tp) +
             " × PP " + str(g.pp) + ")";
    d.source = "the book lab: tensor and pipeline splits cut the model, data parallelism copies it";
    return d;
  }
  const StageMemory& st = r.memory.stages[r.memory.peak_stage];
  const double stage_params = st.params_per_gpu * g.tp;
  d.result = stage_params / g.tp;
  d.formula = "parameters of the busiest stage (its whole layers, plus the embedding or output "
              "layer on an end stage) ÷ TP";
  d.text = num(d.result) + " = " + num(stage_params) + " params on stage " + str(st.stage) +
           " (" + str(st.layers) + " layers) ÷ TP " + str(g.tp);
  d.source = "Megatron-LM: whole layers per stage, word embedding on the first stage";
  return d;
}

Derivation link_time(const char* seam, const SeamTraffic& t) {
  Derivation d;
  d.key = std::string("comms.") + seam + ".time_s";
  d.result = t.link_bytes_per_s > 0 ? t.bytes_per_gpu_per_step / t.link_bytes_per_s : 0;
  d.formula = "bytes per GPU per step ÷ link bandwidth per direction";
  d.text = secs(d.result) + " = " + bytes(t.bytes_per_gpu_per_step) + " ÷ " +
           bytes(t.link_bytes_per_s) + "/s (" + t.link + ")";
  d.source = "nccl-tests PERFORMANCE.md: a collective's time is its bus bytes over the link";
  return d;
}

// Per step = one message's bytes × messages; the message is what each seam's rule sends. The
// message's terms are shown only when they multiply to the message the model sends (a stage
// other than the memory peak, or a rule not written out here, shows the message's bytes).
Derivation traffic(const char* seam, const SeamTraffic& t, std::string message_formula,
                   std::string message_text, double message_bytes, std::string source) {
  if (std::fabs(message_bytes - t.bytes_per_message) > 1e-9 * t.bytes_per_message) {
    message_text = bytes(t.bytes_per_message) + " per message";
  }
  Derivation d;
  d.key = std::string("comms.") + seam + ".bytes_per_gpu_per_step";
  d.result = t.bytes_per_message * t.messages_per_step;
  d.formula = message_formula + ", × messages per step";
  d.text = bytes(d.result) + " = " + message_text + " × " + num(t.messages_per_step) +
           " per step";
  d.source = std::move(source);
  return d;
}

Derivation data_traffic(const Scenario& s, const Report& r) {
  const Precision& p = r.precision;
  const double n = 1.0 * r.degrees.dp * r.degrees.cp, psi = r.memory.params_per_gpu;
  if (r.memory.stages[r.comms.stage].expert_params_per_gpu > 0) {
    return traffic("data", r.comms.data, "(n−1)/n × Ψ × gradient (and weight) bytes, dense "
                   "parameters over DP×CP, experts over their own data-parallel group",
                   bytes(r.comms.data.bytes_per_message) + " per message",
                   r.comms.data.bytes_per_message,
                   "ring volumes, nccl-tests PERFORMANCE.md; Megatron-Core's expert groups");
  }
  const std::string share = "(" + num(n) + "−1)/" + num(n);
  if (s.zero_stage == 0) {
    return traffic("data", r.comms.data, "2 × (d−1)/d × Ψ × grad bytes (ring all-reduce)",
                   "2 × " + share + " × " + num(psi) + " params × " + num(p.grad_bytes) + " B",
                   2 * (n - 1) / n * psi * p.grad_bytes,
                   "ring all-reduce volume, nccl-tests PERFORMANCE.md");
  }
  const double w = s.zero_stage >= 3 ? 2 * p.weight_bytes : p.weight_bytes;
  return traffic("data", r.comms.data,
                 "(d−1)/d × Ψ × (grad + weight bytes): reduce-scatter gradients, all-gather weights",
                 share + " × " + num(psi) + " params × (" + num(p.grad_bytes) + " + " + num(w) +
                     ") B",
                 (n - 1) / n * psi * (p.grad_bytes + w), "Rajbhandari et al. 2020 (ZeRO) Sec. 7");
}

Derivation context_traffic(const Scenario& s, const Report& r) {
  const double cp = r.degrees.cp;
  const double kv = kv_elements_per_token(s.model) / r.degrees.tp;
  const double tokens = s.micro_batch * s.seq_len / cp;
  if (s.context_parallel == ContextParallel::kUlysses) {
    return traffic("context", r.comms.context,
                   "(s/cp)·b × (Q, K, V and output values) ÷ t × (cp−1)/cp × 2 B per exchange",
                   num(tokens) + " tokens × (cp " + num(cp) + " − 1)/" + num(cp) + " × 2 B × " +
                       "their Q, K, V, O values",
                   r.comms.context.bytes_per_message,
                   "Jacobs et al. 2023 (DeepSpeed-Ulysses, arXiv:2309.14509) Sec. 3.1");
  }
  const bool ring = s.context_parallel == ContextParallel::kRing;
  return traffic("context", r.comms.context,
                 ring ? "(s/cp)·b × K/V values ÷ t × 2 B per ring pass"
                      : "(cp−1) × (s/cp)·b × K/V values ÷ t × 2 B per all-gather",
                 (ring ? "" : num(cp - 1) + " × ") + num(tokens) + " tokens × " + num(kv) +
                     " K/V values × 2 B",
                 (ring ? 1 : cp - 1) * tokens * kv * 2,
                 ring ? "Liu et al. 2023 (Ring Attention, arXiv:2310.01889); Megatron-Core p2p CP"
                      : "Dubey et al. 2024 (Llama 3) Sec. 3.3.2");
}

Derivation expert_traffic(const Scenario& s, const Report& r) {
  const double ep = r.degrees.ep;
  const double tokens = s.micro_batch * s.seq_len / (1.0 * r.degrees.cp) * s.expert_tp /
                        r.degrees.tp;
  return traffic("expert", r.comms.expert,
                 "tokens × top-k × capacity × h × 2 B × (ep−1)/ep per all-to-all",
                 num(tokens) + " tokens × " + str(s.model.experts_per_token) + " × " +
                     num(s.expert_capacity()) + " × " + str(s.model.hidden) + " × 2 B × (" +
                     num(ep) + "−1)/" + num(ep),
                 tokens * s.model.experts_per_token * s.expert_capacity() * s.model.hidden * 2 *
                     (ep - 1) / ep,
                 "Lepikhin et al. 2020 (GShard); Megatron-Core's all-to-all token dispatcher");
}

Derivation tensor_traffic(const Scenario& s, const Report& r) {
  const double t = r.degrees.tp;
  const double bsh = 1.0 * s.micro_batch * s.seq_len / r.degrees.cp * s.model.hidden;
  if (s.sequence_parallel) {
    return traffic("tensor", r.comms.tensor,
                   "(t−1)/t × b·s·h × 2 B per all-gather or reduce-scatter",
                   "(" + num(t) + "−1)/" + num(t) + " × " + num(bsh) + " (b·s·h) × 2 B",
                   (t - 1) / t * bsh * 2,
                   "Korthikanti et al. 2022 Sec. 4.2.2; Megatron-Core tensor_parallel/layers.py");
  }
  return traffic("tensor", r.comms.tensor, "2 × (t−1)/t × b·s·h × 2 B per all-reduce",
                 "2 × (" + num(t) + "−1)/" + num(t) + " × " + num(bsh) + " (b·s·h) × 2 B",
                 2 * (t - 1) / t * bsh * 2,
                 "Narayanan et al. 2021 (arXiv:2104.04473) Sec. 3.2; ring all-reduce volume");
}

Derivation pipeline_traffic(const Scenario& s, const Report& r) {
  const double bsh = 1.0 * s.micro_batch * s.seq_len / r.degrees.cp * s.model.hidden;
  if (s.sequence_parallel || s.pp_scatter_gather) {
    return traffic("pipeline", r.comms.pipeline, "b·s·h ÷ t × 2 B per send",
                   num(bsh) + " (b·s·h) ÷ TP " + str(r.degrees.tp) + " × 2 B",
                   bsh / r.degrees.tp * 2,
                   "Narayanan et al. 2021 Sec. 4.1; sliced across the TP ranks with SP");
  }
  return traffic("pipeline", r.comms.pipeline, "b·s·h × 2 B per send",
                 num(bsh) + " (b·s·h) × 2 B", bsh * 2,
                 "Narayanan et al. 2021 Sec. 4.1; Megatron-Core sends whole without SP");
}

Derivation step_time(const Report& r) {
  const TimeReport& t = r.time;
  Derivation d;
  d.key = "time.step_s";
  d.result = t.compute_s + t.bubble_s + t.exposed_comms_s + t.optimizer_s;
  d.formula = "slowest stage's compute + pipeline bubble + communication not hidden behind "
              "compute + optimizer step";
  d.text = secs(d.result) + " = " + secs(t.compute_s) + " compute (stage " +
           str(t.slowest_stage) + ") + " + secs(t.bubble_s) + " bubble + " +
           secs(t.exposed_comms_s) + " exposed communication + " + secs(t.optimizer_s) +
           " optimizer";
  d.source = "Narayanan et al. 2021 Sec. 2.2 (1F1B runs at its slowest stage's pace); "
             "README \"How the numbers are computed\"";
  return d;
}

Derivation mfu(const Scenario& s, const Report& r) {
  const TimeReport& t = r.time;
  Derivation d;
  d.key = "time.mfu";
  d.result = t.model_flops_per_step / (t.step_s * r.active_gpus * s.gpu.peak_tflops * 1e12);
  d.formula = "model FLOPs per step ÷ (step time × GPUs × peak FLOP/s)";
  d.text = num(d.result * 100) + "% = " + num(t.model_flops_per_step) + " FLOPs ÷ (" +
           secs(t.step_s) + " × " + str(r.active_gpus) + " GPUs × " + num(s.gpu.peak_tflops) +
           " TFLOP/s)";
  d.source = "Chowdhery et al. 2022 (PaLM) App. B; Korthikanti et al. 2022 Sec. 6.3";
  return d;
}

Derivation bubble(const Report& r) {
  const TimeReport& t = r.time;
  Derivation d;
  d.key = "pipeline.bubble_fraction";
  d.result = t.step_s > 0 ? t.bubble_s / t.step_s : 0;
  d.formula = "bubble time ÷ step time: the idle share of the step; the bubble is (p − 1) ÷ v "
              "micro-batch times of the slowest stage";
  d.text = num(d.result) + " = " + secs(t.bubble_s) + " bubble ÷ " + secs(t.step_s) +
           " step (p " + str(r.degrees.pp) + ", v " + str(r.pipeline.virtual_stages) + ", m " +
           str(r.pipeline.microbatches) + ")";
  d.source = "Narayanan et al. 2021 Sec. 2.2";
  return d;
}

Derivation cost_per_day(const Scenario& s, const Report& r) {
  Derivation d;
  d.key = "cost.usd_per_day";
  d.result = r.gpus * 24.0 * s.price_per_gpu_hour;
  d.formula = "GPUs × 24 h × price per GPU-hour";
  d.text = "$" + num(d.result) + " = " + str(r.gpus) + " GPUs × 24 h × $" +
           num(s.price_per_gpu_hour) + "/GPU-hour";
  d.source = "price_per_gpu_hour (set your own)";
  return d;
}

}  // namespace

std::vector<Derivation> derivations(const Scenario& s, const Report& r) {
  std::vector<Derivation> out = {memory_per_gpu(s, r), params_per_gpu(s, r), step_time(r),
                                 mfu(s, r), bubble(r), cost_per_day(s, r)};
  const std::pair<const char*, const SeamTraffic*> seams[] = {
      {"data", &r.comms.data},         {"tensor", &r.comms.tensor},
      {"pipeline", &r.comms.pipeline}, {"context", &r.comms.context},
      {"expert", &r.comms.expert}};
  if (r.comms.data.active) out.push_back(data_traffic(s, r));
  if (r.comms.tensor.active) out.push_back(tensor_traffic(s, r));
  if (r.comms.pipeline.active) out.push_back(pipeline_traffic(s, r));
  if (r.comms.context.active) out.push_back(context_traffic(s, r));
  if (r.comms.expert.active) out.push_back(expert_traffic(s, r));
  // A pipeline stage's two hops may ride different links, so its time has no one rate.
  for (const auto& [name, t] : seams) {
    if (t->active && t != &r.comms.pipeline) out.push_back(link_time(name, *t));
  }
  return out;
}

}  // namespace pe
