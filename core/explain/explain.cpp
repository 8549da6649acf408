#include "explain/explain.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <tuple>

#include "model/comms.h"
#include "model/context.h"
#include "model/layout.h"
#include "model/moe.h"
#include "model/transformer.h"

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
  d.result = states(p, psi, z, dp) + b.activations_bytes + b.overhead_bytes;
  if (expert > 0) {
    const int edp = expert_data_parallel(s, r.degrees);
    d.result += states(p, expert, z, edp);
    d.formula =
        "dense Ψ × (weight + grad + optimizer) B/param, each ÷ DP×CP where ZeRO shards "
        "it, + expert Ψ the same ÷ the expert data-parallel group, + activations";
    d.text = bytes(d.result) + " = " + num(psi) + " dense params ZeRO " + str(z) + " over " +
             str(dp) + " + " + num(expert) + " expert params over " + str(edp);
    if (b.activations_bytes > 0) d.text += " + " + bytes(b.activations_bytes) + " activations";
    if (b.overhead_bytes > 0) d.text += " + " + bytes(b.overhead_bytes) + " overhead";
    d.source = "Rajbhandari et al. 2020 (ZeRO) Fig. 1; Megatron-Core's expert data-parallel group";
    return d;
  }
  d.formula =
      "Ψ × (weight + grad + optimizer) B/param, each ÷ DP where ZeRO shards it, "
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
  d.source =
      "Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Fig. 1; activations: "
      "Korthikanti et al. 2022 (arXiv:2205.05198) Table 2";
  return d;
}

Derivation params_per_gpu(const Scenario& s, const Report& r) {
  Derivation d;
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
    d.text = num(d.result) + " = " + num(r.model_params) + " params ÷ (TP " + str(g.tp) + " × PP " +
             str(g.pp) + ")";
    d.source = "the book lab: tensor and pipeline splits cut the model, data parallelism copies it";
    return d;
  }
  const StageMemory& st = r.memory.stages[r.memory.peak_stage];
  const double stage_params = st.params_per_gpu * g.tp;
  d.result = stage_params / g.tp;
  d.formula =
      "parameters of the busiest stage (its whole layers, plus the embedding or output "
      "layer on an end stage) ÷ TP";
  d.text = num(d.result) + " = " + num(stage_params) + " params on stage " + str(st.stage) + " (" +
           str(st.layers) + " layers) ÷ TP " + str(g.tp);
  d.source = "Megatron-LM: whole layers per stage, word embedding on the first stage";
  return d;
}

Derivation link_time(const SeamTraffic& t) {
  Derivation d;
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
// Two derivations: the message, and the bytes per step.
std::vector<Derivation> traffic(const SeamTraffic& t, std::string message_formula,
                                std::string message_text, double message_bytes,
                                std::string source) {
  Derivation m;
  m.result = t.bytes_per_message;
  m.formula = message_formula;
  m.text = bytes(m.result) + " = " + message_text;
  if (std::fabs(message_bytes - t.bytes_per_message) > 1e-9 * t.bytes_per_message) {
    message_text = bytes(t.bytes_per_message) + " per message";
    m.text = bytes(m.result) + " per message, the busiest GPU's";
  }
  m.source = source;
  Derivation d;
  d.result = t.bytes_per_message * t.messages_per_step;
  d.formula = message_formula + ", × messages per step";
  d.text = bytes(d.result) + " = " + message_text + " × " + num(t.messages_per_step) + " per step";
  d.source = std::move(source);
  return {m, d};
}

std::vector<Derivation> data_traffic(const Scenario& s, const Report& r) {
  const Precision& p = r.precision;
  const double n = 1.0 * r.degrees.dp * r.degrees.cp, psi = r.memory.params_per_gpu;
  if (r.memory.stages[r.comms.stage].expert_params_per_gpu > 0) {
    return traffic(r.comms.data,
                   "(n−1)/n × Ψ × gradient (and weight) bytes, dense "
                   "parameters over DP×CP, experts over their own data-parallel group",
                   bytes(r.comms.data.bytes_per_message) + " per message",
                   r.comms.data.bytes_per_message,
                   "ring volumes, nccl-tests PERFORMANCE.md; Megatron-Core's expert groups");
  }
  const std::string share = "(" + num(n) + "−1)/" + num(n);
  if (s.zero_stage == 0) {
    return traffic(r.comms.data, "2 × (d−1)/d × Ψ × grad bytes (ring all-reduce)",
                   "2 × " + share + " × " + num(psi) + " params × " + num(p.grad_bytes) + " B",
                   2 * (n - 1) / n * psi * p.grad_bytes,
                   "ring all-reduce volume, nccl-tests PERFORMANCE.md");
  }
  const double w = s.zero_stage >= 3 ? 2 * p.weight_bytes : p.weight_bytes;
  return traffic(
      r.comms.data,
      "(d−1)/d × Ψ × (grad + weight bytes): reduce-scatter gradients, all-gather weights",
      share + " × " + num(psi) + " params × (" + num(p.grad_bytes) + " + " + num(w) + ") B",
      (n - 1) / n * psi * (p.grad_bytes + w), "Rajbhandari et al. 2020 (ZeRO) Sec. 7");
}

std::vector<Derivation> context_traffic(const Scenario& s, const Report& r) {
  const double cp = r.degrees.cp;
  const double kv = kv_elements_per_token(s.model) / r.degrees.tp;
  const double tokens = s.micro_batch * s.seq_len / cp;
  if (s.context_parallel == ContextParallel::kUlysses) {
    return traffic(r.comms.context,
                   "(s/cp)·b × (Q, K, V and output values) ÷ t × (cp−1)/cp × 2 B per exchange",
                   num(tokens) + " tokens × (cp " + num(cp) + " − 1)/" + num(cp) + " × 2 B × " +
                       "their Q, K, V, O values",
                   r.comms.context.bytes_per_message,
                   "Jacobs et al. 2023 (DeepSpeed-Ulysses, arXiv:2309.14509) Sec. 3.1");
  }
  const bool ring = s.context_parallel == ContextParallel::kRing;
  return traffic(r.comms.context,
                 ring ? "(s/cp)·b × K/V values ÷ t × 2 B per ring pass"
                      : "(cp−1) × (s/cp)·b × K/V values ÷ t × 2 B per all-gather",
                 (ring ? "" : num(cp - 1) + " × ") + num(tokens) + " tokens × " + num(kv) +
                     " K/V values × 2 B",
                 (ring ? 1 : cp - 1) * tokens * kv * 2,
                 ring ? "Liu et al. 2023 (Ring Attention, arXiv:2310.01889); Megatron-Core p2p CP"
                      : "Dubey et al. 2024 (Llama 3) Sec. 3.3.2");
}

std::vector<Derivation> expert_traffic(const Scenario& s, const Report& r) {
  const double ep = r.degrees.ep;
  const double tokens =
      s.micro_batch * s.seq_len / (1.0 * r.degrees.cp) * s.expert_tp / r.degrees.tp;
  return traffic(
      r.comms.expert, "tokens × top-k × capacity × h × 2 B × (ep−1)/ep per all-to-all",
      num(tokens) + " tokens × " + str(s.model.experts_per_token) + " × " +
          num(s.expert_capacity()) + " × " + str(s.model.hidden) + " × 2 B × (" + num(ep) + "−1)/" +
          num(ep),
      tokens * s.model.experts_per_token * s.expert_capacity() * s.model.hidden * 2 * (ep - 1) / ep,
      "Lepikhin et al. 2020 (GShard); Megatron-Core's all-to-all token dispatcher");
}

std::vector<Derivation> tensor_traffic(const Scenario& s, const Report& r) {
  const double t = r.degrees.tp;
  const double bsh = 1.0 * s.micro_batch * s.seq_len / r.degrees.cp * s.model.hidden;
  if (s.sequence_parallel) {
    return traffic(r.comms.tensor, "(t−1)/t × b·s·h × 2 B per all-gather or reduce-scatter",
                   "(" + num(t) + "−1)/" + num(t) + " × " + num(bsh) + " (b·s·h) × 2 B",
                   (t - 1) / t * bsh * 2,
                   "Korthikanti et al. 2022 Sec. 4.2.2; Megatron-Core tensor_parallel/layers.py");
  }
  return traffic(r.comms.tensor, "2 × (t−1)/t × b·s·h × 2 B per all-reduce",
                 "2 × (" + num(t) + "−1)/" + num(t) + " × " + num(bsh) + " (b·s·h) × 2 B",
                 2 * (t - 1) / t * bsh * 2,
                 "Narayanan et al. 2021 (arXiv:2104.04473) Sec. 3.2; ring all-reduce volume");
}

std::vector<Derivation> pipeline_traffic(const Scenario& s, const Report& r) {
  const double bsh = 1.0 * s.micro_batch * s.seq_len / r.degrees.cp * s.model.hidden;
  if (s.sequence_parallel || s.pp_scatter_gather) {
    return traffic(r.comms.pipeline, "b·s·h ÷ t × 2 B per send",
                   num(bsh) + " (b·s·h) ÷ TP " + str(r.degrees.tp) + " × 2 B",
                   bsh / r.degrees.tp * 2,
                   "Narayanan et al. 2021 Sec. 4.1; sliced across the TP ranks with SP");
  }
  return traffic(r.comms.pipeline, "b·s·h × 2 B per send", num(bsh) + " (b·s·h) × 2 B", bsh * 2,
                 "Narayanan et al. 2021 Sec. 4.1; Megatron-Core sends whole without SP");
}

Derivation step_time(const Report& r) {
  const TimeReport& t = r.time;
  Derivation d;
  d.result = t.compute_s + t.bubble_s + t.exposed_comms_s + t.optimizer_s;
  d.formula =
      "slowest stage's compute + pipeline bubble + communication not hidden behind "
      "compute + optimizer step";
  d.text = secs(d.result) + " = " + secs(t.compute_s) + " compute (stage " + str(t.slowest_stage) +
           ") + " + secs(t.bubble_s) + " bubble + " + secs(t.exposed_comms_s) +
           " exposed communication + " + secs(t.optimizer_s) + " optimizer";
  d.source =
      "Narayanan et al. 2021 Sec. 2.2 (1F1B runs at its slowest stage's pace); "
      "README \"How the numbers are computed\"";
  return d;
}

Derivation mfu(const Scenario& s, const Report& r) {
  const TimeReport& t = r.time;
  Derivation d;
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
  d.result = t.step_s > 0 ? t.bubble_s / t.step_s : 0;
  d.formula =
      "bubble time ÷ step time: the idle share of the step; the bubble is (p − 1) ÷ v "
      "micro-batch times of the slowest stage";
  d.text = num(d.result) + " = " + secs(t.bubble_s) + " bubble ÷ " + secs(t.step_s) + " step (p " +
           str(r.degrees.pp) + ", v " + str(r.pipeline.virtual_stages) + ", m " +
           str(r.pipeline.microbatches) + ")";
  d.source = "Narayanan et al. 2021 Sec. 2.2";
  return d;
}

Derivation cost_per_day(const Scenario& s, const Report& r) {
  Derivation d;
  d.result = r.gpus * 24.0 * s.price_per_gpu_hour;
  d.formula = "GPUs × 24 h × price per GPU-hour";
  d.text = "$" + num(d.result) + " = " + str(r.gpus) + " GPUs × 24 h × $" +
           num(s.price_per_gpu_hour) + "/GPU-hour";
  d.source = "price_per_gpu_hour (set your own)";
  return d;
}

Derivation shard_factor(const Report& r) {
  const Degrees& g = r.degrees;
  Derivation d;
  d.result = 1.0 * g.tp * g.pp;
  d.formula = "TP × PP: the pieces tensor and pipeline parallelism cut the model into";
  d.text = num(d.result) + "× = TP " + str(g.tp) + " × PP " + str(g.pp);
  d.source = "the book lab: tensor and pipeline splits cut the model, data parallelism copies it";
  return d;
}

Derivation headroom(const Report& r) {
  const MemoryReport& m = r.memory;
  Derivation d;
  d.result = m.gpu_memory_bytes - m.per_gpu_bytes;
  d.formula = "GPU memory − memory per GPU (negative: it does not fit)";
  d.text = bytes(d.result) + " = " + bytes(m.gpu_memory_bytes) + " GPU − " +
           bytes(m.per_gpu_bytes) + " needed";
  d.source = "the GPU's memory (GB = 1e9 bytes) against the memory per GPU above";
  return d;
}

Derivation bytes_per_param(const Report& r) {
  const Precision& p = r.precision;
  Derivation d;
  d.result = p.weight_bytes + p.grad_bytes + p.master_bytes + p.adam_m_bytes + p.adam_v_bytes;
  d.formula = "weight + gradient + master copy + Adam m + Adam v, bytes per parameter";
  d.text = num(d.result) + " B/param = " + num(p.weight_bytes) + " weight + " + num(p.grad_bytes) +
           " grad + " + num(p.master_bytes) + " master + " + num(p.adam_m_bytes) + " Adam m + " +
           num(p.adam_v_bytes) + " Adam v (" + p.name + ")";
  d.source = "Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Sec. 3.1: mixed-precision Adam";
  return d;
}

// Counted from the architecture when the scenario did not give it (contract_read.cpp).
Derivation model_params(const Scenario& s, const Report& r) {
  const ModelSpec& m = s.model;
  Derivation d;
  d.result = m.params;
  if (shape_params(m, s.seq_len) == r.model_params) {
    const double embedding = embedding_params(m, s.seq_len), output = output_params(m);
    const int moe = moe_layers(m), dense = m.layers - moe;
    const double layer = layer_params(m), moe_layer = moe_layer_params(m);
    d.result = dense * layer + moe * moe_layer + embedding + output;
    d.formula = moe == 0 ? "L × layer params + embedding + output layer"
                         : "dense layers × their params + MoE layers × theirs (every expert) + "
                           "embedding + output layer";
    d.text = num(d.result) + " params = " +
             (moe == 0 ? "L " + str(m.layers) + " × " + num(layer)
                       : (dense > 0 ? str(dense) + " dense × " + num(layer) + " + " : "") +
                             str(moe) + " MoE × " + num(moe_layer)) +
             " + " + num(embedding) + " embedding + " + num(output) + " output";
    d.source =
        "Narayanan et al. 2021 (arXiv:2104.04473) Eq. 2, with the shape's attention and "
        "MLP (core/model/transformer.h)";
    return d;
  }
  d.formula = "N, as the model gives it";
  d.text = num(d.result) + " params: " + m.name + ", as given";
  d.source = m.name == "book-16b" ? "the book lab's 16-billion-parameter model"
                                  : "the model's published parameter count";
  return d;
}

const char* upper(Seam seam) {
  return seam == Seam::kTensor ? "TP" : seam == Seam::kPipeline ? "PP" : "DP";
}

// "8 ranks apart (TP 4 × PP 2 nested inside)", or "neighbouring ranks" for the innermost.
std::string spacing(const Scenario& s, const Degrees& g, Seam seam) {
  const long long stride = stride_of(g, s.order, seam);
  if (stride == 1) return "neighbouring ranks";
  std::string inner;
  for (Seam other : s.order) {
    if (other == seam) break;
    inner +=
        (inner.empty() ? "" : " × ") + std::string(upper(other)) + " " + str(degree_of(g, other));
  }
  return str(stride) + " ranks apart (" + inner + " nested inside)";
}

const char* kLayoutSource =
    "rank layout: ranks numbered innermost seam first (Megatron-LM's tp,pp,dp: Narayanan et "
    "al. 2021 Sec. 3.3); node = rank ÷ GPUs per node";

Derivation group_size(const Scenario& s, const Report& r, Seam seam) {
  const Degrees& g = r.degrees;
  Derivation d;
  // Gradients are reduced over DP x CP: each CP rank saw part of every sequence (comms.cpp).
  const int cp = seam == Seam::kData ? g.cp : 1;
  d.result = 1.0 * degree_of(g, seam) * cp;
  d.formula = cp > 1 ? "DP × CP: gradients are reduced over both; DP members spaced by the "
                       "degrees of the seams inside it"
                     : "the seam's degree; members spaced by the degrees of the seams inside it";
  d.text = num(d.result) + " GPUs = " + upper(seam) + " " + str(degree_of(g, seam)) +
           (cp > 1 ? " × CP " + str(cp) + "; DP members are " : "; members are ") +
           spacing(s, g, seam) + ", order " + order_text(s.order);
  d.source = kLayoutSource;
  return d;
}

// The link a seam's traffic rides, with why: where its groups sit in the nesting order. A
// pipeline's link is that of the busiest stage's hops to its neighbouring stages (comms.cpp).
Derivation link(const Scenario& s, const Report& r, Seam seam) {
  const Degrees& g = r.degrees;
  const bool pipeline = seam == Seam::kPipeline;
  const bool spans = pipeline ? std::string(r.comms.pipeline.link) == "network"
                              : group_spans_nodes(g, s.gpus_per_node, s.order, seam);
  Derivation d;
  d.result = link_rate(spans, s);
  d.formula =
      "NVLink (at the share of its rate NCCL reaches) when the seam's groups sit in one "
      "node, else the network";
  d.text =
      bytes(d.result) + "/s, " +
      (spans ? std::string("the network: ")
             : "NVLink (" + num(s.gpu.nvlink_gb_s) + " GB/s × " + num(kNvlinkEfficiency) + "): ") +
      upper(seam);
  if (pipeline) {
    d.text += " stages are " + spacing(s, g, seam) + "; stage " + str(r.comms.stage) +
              (spans ? " has a neighbouring stage on another node"
                     : "'s neighbouring stages share its node");
  } else {
    d.text += " groups of " + str(degree_of(g, seam)) + " GPUs, " + spacing(s, g, seam) + ", " +
              (spans ? "span nodes" : "each sit in one node");
  }
  d.text += " of " + str(s.gpus_per_node) + " GPUs";
  d.source = std::string(kLayoutSource) + "; NVLink's reach: nccl-tests PERFORMANCE.md";
  return d;
}

Derivation messages(const Scenario& s, const Report& r, const char* name) {
  const int m = r.pipeline.microbatches;
  const int stage = r.comms.stage;
  Derivation d;
  if (std::string(name) == "data") {
    const DataParallelParts parts = data_parallel_parts(s, r.degrees, 0, m);
    d.result = parts.reductions + parts.gathers;
    d.formula = "gradient reductions + weight gathers per step (ZeRO-2/3: every micro-batch)";
    d.text = num(d.result) + " = " + num(parts.reductions) +
             (s.zero_stage == 0 ? " all-reduce" : " reduce-scatter") + " + " + num(parts.gathers) +
             " all-gather per step";
    d.source = "nccl-tests PERFORMANCE.md; Rajbhandari et al. 2020 (ZeRO) Sec. 7";
  } else if (std::string(name) == "tensor") {
    const bool full = s.recompute == Recompute::kFull;
    const int per_layer = s.sequence_parallel ? (full ? 14 : 10) : (full ? 6 : 4);
    const int layers = r.pipeline.split.layers_on(stage);
    d.result = 1.0 * per_layer * layers * m;
    d.formula =
        "collectives per layer (2 forward + 2 backward; sequence parallel and full "
        "recompute add theirs) × layers on the stage × micro-batches";
    d.text = num(d.result) + " = " + str(per_layer) + " per layer × " + str(layers) + " layers × " +
             str(m) + " micro-batches";
    d.source =
        "Narayanan et al. 2021 (arXiv:2104.04473) Sec. 3.2; Megatron-Core "
        "tensor_parallel/layers.py";
  } else {
    const int p = r.degrees.pp, v = r.pipeline.virtual_stages;
    const int next = stage < p - 1 ? v : v - 1, prev = stage > 0 ? v : v - 1;
    d.result = 1.0 * (next + prev) * m;
    d.formula = "(sends to the next stage + to the previous one) per micro-batch × micro-batches";
    d.text = num(d.result) + " = (" + str(next) + " forward + " + str(prev) + " backward, stage " +
             str(stage) + ") × " + str(m) + " micro-batches";
    d.source = "Narayanan et al. 2021 Sec. 4.1";
  }
  return d;
}

// A pipeline GPU's time on the wire: each hop at its own link's rate (comms.cpp).
Derivation pipeline_time(const Scenario& s, const Report& r) {
  const SeamTraffic& t = r.comms.pipeline;
  const int p = r.degrees.pp, v = r.pipeline.virtual_stages, m = r.pipeline.microbatches;
  const int stage = r.comms.stage;
  const int next = stage < p - 1 ? v : v - 1, prev = stage > 0 ? v : v - 1;
  const double to_next = link_rate(stages_cross_nodes(s, r.degrees, stage, (stage + 1) % p), s);
  const double to_prev = link_rate(stages_cross_nodes(s, r.degrees, stage, (stage + p - 1) % p), s);
  Derivation d;
  d.result = t.bytes_per_message * m * (next / to_next + prev / to_prev);
  d.formula =
      "message × micro-batches × (sends forward ÷ that hop's link + sends backward ÷ "
      "its link)";
  d.text = secs(d.result) + " = " + bytes(t.bytes_per_message) + " × " + str(m) + " × (" +
           str(next) + " ÷ " + bytes(to_next) + "/s + " + str(prev) + " ÷ " + bytes(to_prev) +
           "/s), stage " + str(stage);
  d.source = "nccl-tests PERFORMANCE.md: a transfer's time is its bytes over the link";
  return d;
}

Derivation order_cost(const Scenario& s, const Report& r) {
  Derivation d;
  d.result = r.time.step_s - r.rule_order_step_s;
  d.formula = "step time in this nesting order − step time in the chapter's tp,pp,dp, same degrees";
  if (s.order == kBookOrder) {
    d.text = "0 s: tp,pp,dp is the chapter's order";
  } else {
    d.text = secs(d.result) + " = " + secs(r.time.step_s) + " (" + order_text(s.order) + ") − " +
             secs(r.rule_order_step_s) + " (tp,pp,dp)";
  }
  d.source = "the chapter's rule of thumb: TP innermost, PP next, DP outermost";
  return d;
}

// Every number the report explains, under its report key, with the function that derives it:
// a derivation is built only when asked for, so a report lists its keys at no cost.
using Catalogue = std::vector<std::pair<std::string, std::function<Derivation()>>>;

Catalogue catalogue(const Scenario& s, const Report& r) {
  Catalogue out;
  const auto add = [&out](std::string key, std::function<Derivation()> build) {
    out.emplace_back(std::move(key), std::move(build));
  };
  add("memory.per_gpu_bytes", [&] { return memory_per_gpu(s, r); });
  add("memory.params_per_gpu", [&] { return params_per_gpu(s, r); });
  add("memory.shard_factor", [&] { return shard_factor(r); });
  add("memory.headroom_bytes", [&] { return headroom(r); });
  add("precision.bytes_per_param", [&] { return bytes_per_param(r); });
  add("model_params", [&] { return model_params(s, r); });
  add("time.step_s", [&] { return step_time(r); });
  add("time.mfu", [&] { return mfu(s, r); });
  add("pipeline.bubble_fraction", [&] { return bubble(r); });
  add("cost.usd_per_day", [&] { return cost_per_day(s, r); });
  add("order.order_cost_s", [&] { return order_cost(s, r); });
  using Traffic = std::vector<Derivation> (*)(const Scenario&, const Report&);
  const std::tuple<const char*, const SeamTraffic*, Traffic> traffics[] = {
      {"data", &r.comms.data, data_traffic},
      {"tensor", &r.comms.tensor, tensor_traffic},
      {"pipeline", &r.comms.pipeline, pipeline_traffic},
      {"context", &r.comms.context, context_traffic},
      {"expert", &r.comms.expert, expert_traffic}};
  for (const auto& [name, t, traffic] : traffics) {
    if (!t->active) continue;
    const std::string at = std::string("comms.") + name + ".";
    add(at + "bytes_per_message", [&s, &r, f = traffic] { return f(s, r)[0]; });
    add(at + "bytes_per_gpu_per_step", [&s, &r, f = traffic] { return f(s, r)[1]; });
  }
  // Where the three book seams' groups sit, and how often they talk.
  const std::tuple<const char*, Seam, const SeamTraffic*> seams[] = {
      {"data", Seam::kData, &r.comms.data},
      {"tensor", Seam::kTensor, &r.comms.tensor},
      {"pipeline", Seam::kPipeline, &r.comms.pipeline}};
  for (const auto& [name, seam, t] : seams) {
    if (!t->active) continue;
    const std::string at = std::string("comms.") + name + ".";
    add(at + "group_size", [&s, &r, seam = seam] { return group_size(s, r, seam); });
    add(at + "link_bytes_per_s", [&s, &r, seam = seam] { return link(s, r, seam); });
    add(at + "messages_per_step", [&s, &r, name = name] { return messages(s, r, name); });
  }
  // A pipeline stage's two hops may ride different links: each at its own rate.
  for (const auto& [name, t, traffic] : traffics) {
    if (!t->active) continue;
    const std::string key = std::string("comms.") + name + ".time_s";
    if (t == &r.comms.pipeline) {
      add(key, [&s, &r] { return pipeline_time(s, r); });
    } else {
      add(key, [t = t] { return link_time(*t); });
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> explained_keys(const Scenario& s, const Report& r) {
  std::vector<std::string> keys;
  for (const auto& entry : catalogue(s, r)) keys.push_back(entry.first);
  return keys;
}

std::optional<Derivation> derivation(const Scenario& s, const Report& r, std::string_view key) {
  for (const auto& [k, build] : catalogue(s, r)) {
    if (k != key) continue;
    Derivation d = build();
    d.key = k;
    return d;
  }
  return std::nullopt;
}

std::vector<Derivation> derivations(const Scenario& s, const Report& r) {
  std::vector<Derivation> out;
  for (const auto& [key, build] : catalogue(s, r)) {
    out.push_back(build());
    out.back().key = key;
  }
  return out;
}

}  // namespace pe
