#include "explain/explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "model/activations.h"
#include "model/calibrate.h"
#include "model/comms.h"
#include "model/context.h"
#include "model/layout.h"
#include "model/memory.h"
#include "model/model_shape.h"
#include "model/moe.h"
#include "model/pipeline.h"
#include "model/presets.h"
#include "model/step_time.h"
#include "model/text.h"

namespace pe {
namespace {

// Numbers as the page writes them, in words past a million: 25600, 0.0625, "16 billion",
// "4.2 quintillion"; three significant digits beyond the whole numbers.
std::string num(double v) {
  static const char* const kWords[] = {"million",     "billion",     "trillion",
                                       "quadrillion", "quintillion", "sextillion"};
  char text[48];
  const double a = std::fabs(v);
  if (a < 1e6 && v == std::floor(v)) {
    std::snprintf(text, sizeof text, "%.0f", v);  // whole numbers in full: 25600
    return text;
  }
  if (a >= 1e3 && a < 1e6) {
    std::snprintf(text, sizeof text, "%.0f", v);  // 398700, not 3.987e+05
    return text;
  }
  if (a == 0 || (a >= 1e-3 && a < 1e6)) {
    std::snprintf(text, sizeof text, "%.4g", v);
    return text;
  }
  const int exp3 = static_cast<int>(std::floor(std::log10(a) / 3)) * 3;
  if (exp3 >= 6 && exp3 <= 21) {
    std::snprintf(text, sizeof text, "%.3g %s", v / std::pow(10.0, exp3), kWords[exp3 / 3 - 2]);
  } else {
    std::snprintf(text, sizeof text, "%.3g × 10^%d", v / std::pow(10.0, exp3), exp3);
  }
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

std::string secs(double v) { return seconds_text(v); }

std::string str(long long v) { return std::to_string(v); }

// A value as the text shows it, by its unit.
std::string shown(double v, const std::string& unit) {
  if (unit == "B") return bytes(v);
  if (unit == "B/s") return bytes(v) + "/s";
  if (unit == "s") return secs(v);
  if (unit == "$") return "$" + num(v);
  if (unit == "%") return num(v * 100) + "%";
  return unit.empty() ? num(v) : num(v) + " " + unit;
}

// A degree reads as its seam names it: "TP 4".
Term degree(const char* symbol, int value, const char* name) {
  return {symbol, static_cast<double>(value), "", name, true};
}

// A formula cut into its parts: operators, parentheses and spaces as they are, and tokens (a
// symbol or a number): runs of anything else. {text, is_token} each.
std::vector<std::pair<std::string, bool>> parts(const std::string& formula) {
  static const char* const kOps[] = {" ", "(", ")", "+", "−", "×", "÷", "√"};
  const auto op_at = [&formula](size_t i) -> size_t {
    for (const char* o : kOps) {
      if (formula.compare(i, std::strlen(o), o) == 0) return std::strlen(o);
    }
    return 0;
  };
  std::vector<std::pair<std::string, bool>> out;
  size_t i = 0;
  while (i < formula.size()) {
    if (const size_t n = op_at(i)) {
      out.emplace_back(formula.substr(i, n), false);
      i += n;
      continue;
    }
    size_t end = i;
    while (end < formula.size() && op_at(end) == 0) ++end;
    out.emplace_back(formula.substr(i, end - i), true);
    i = end;
  }
  return out;
}

const Term* term_named(const std::vector<Term>& terms, const std::string& symbol) {
  for (const Term& t : terms) {
    if (t.symbol == symbol) return &t;
  }
  return nullptr;
}

// The formula with each symbol replaced by its term's value: "Ψ × w" -> "16 billion params × 2 B".
std::string written(const std::string& formula, const std::vector<Term>& terms) {
  std::string out;
  for (const auto& [text, token] : parts(formula)) {
    const Term* t = token ? term_named(terms, text) : nullptr;
    if (!t) {
      out += text;  // an operator or a number
    } else if (t->degree) {
      out += t->symbol + " " + num(t->value);
    } else {
      out += shown(t->value, t->unit);
    }
  }
  return out;
}

// The terms the formula names, in their order: a formula written for a simpler case (ZeRO 0's
// Ψ × B) leaves the others out.
std::vector<Term> used(const std::string& formula, std::vector<Term> terms) {
  std::vector<Term> out;
  for (Term& t : terms) {
    for (const auto& [text, token] : parts(formula)) {
      if (token && text == t.symbol) {
        out.push_back(std::move(t));
        break;
      }
    }
  }
  return out;
}

// A derivation of `result` (in `unit`): the text is the result, then the formula written out.
// `note` adds what the formula does not show (which stage, which link).
Derivation derive(std::string formula, std::vector<Term> terms, double result,
                  const std::string& unit, std::string source, const std::string& note = "") {
  Derivation d;
  // A number that is one term as given says where it comes from rather than "x = x".
  const bool given = terms.size() == 1 && formula == terms[0].symbol && !terms[0].degree;
  d.text = shown(result, unit) + (given ? "" : " = " + written(formula, terms)) +
           (note.empty() ? "" : ", " + note);
  d.terms = used(formula, std::move(terms));
  d.formula = std::move(formula);
  d.result = result;
  d.source = std::move(source);
  return d;
}

// " ÷ N" where ZeRO shards the state over the ring of N, else "".
std::string over(bool sharded, const char* n) { return sharded ? std::string(" ÷ ") + n : ""; }

// Ψ × (w ÷ N + g ÷ N + o ÷ N), each ÷ N where ZeRO shards it (memory.h zero_sharding); with
// nothing sharded, the book's Ψ × B.
std::string states_formula(const char* psi, const char* n, int zero_stage) {
  const ZeroSharding z = zero_sharding(zero_stage);
  if (!z.weights && !z.grads && !z.optimizer) return std::string(psi) + " × B";
  return std::string(psi) + " × (w" + over(z.weights, n) + " + g" + over(z.grads, n) + " + o" +
         over(z.optimizer, n) + ")";
}

// "stage 3" where there are stages to tell apart.
std::string on_stage(const Report& r, int stage) {
  return r.degrees.pp > 1 ? "stage " + std::to_string(stage) : "";
}

// The busiest GPU of a stage, as the model places its parameters (memory.h stage_params).
StageParams params_on(const Scenario& s, const Report& r, int stage) {
  return stage_params(s, ModelShape(s), r.degrees, r.pipeline.split, stage);
}

Derivation memory_per_gpu(const Scenario& s, const Report& r) {
  const Precision& p = r.precision;
  const MemoryBreakdown& b = r.memory.breakdown;
  const StageParams st = params_on(s, r, r.memory.peak_stage);
  std::vector<Term> terms = {
      {"Ψ", st.dense_per_gpu, "params", "dense parameters on the GPU"},
      {"w", p.weight_bytes, "B", "weight bytes per parameter"},
      {"g", p.grad_bytes, "B", "gradient bytes per parameter"},
      {"o", p.optimizer_bytes(), "B", "optimizer bytes per parameter"},
      {"B", p.total_bytes(), "B/param", "bytes per parameter, every state"},
      {"N", 1.0 * r.degrees.dp * r.degrees.cp, "", "ranks ZeRO shards over: DP × CP"}};
  std::string formula = states_formula("Ψ", "N", s.zero_stage);
  if (st.expert_params_per_gpu > 0) {
    terms.push_back({"Ψe", st.expert_params_per_gpu, "params", "routed-expert parameters on it"});
    terms.push_back(
        {"E", 1.0 * expert_data_parallel(s, r.degrees), "", "the experts' data-parallel group"});
    formula += " + " + states_formula("Ψe", "E", s.zero_stage);
  }
  // DualPipe's ranks hold two stages' weights and their states (sharded_model_state_bytes).
  if (const int copies = parameter_copies(s, r.degrees.pp); copies > 1) {
    terms.push_back({"c", 1.0 * copies, "", "copies of the weights: DualPipe's two directions"});
    formula = "c × (" + formula + ")";
  }
  if (b.activations_bytes > 0) {
    terms.push_back({"A", b.activations_bytes, "B", "stored activations"});
    formula += " + A";
  }
  if (b.overhead_bytes > 0) {
    terms.push_back({"X", b.overhead_bytes, "B", "CUDA context, NCCL buffers, allocator"});
    formula += " + X";
  }
  if (b.transient_bytes > 0) {
    terms.push_back({"T", b.transient_bytes, "B", "transient: gathered weights, loss, recompute"});
    formula += " + T";
  }
  return derive(formula, terms, r.memory.per_gpu_bytes, "B",
                "Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Fig. 1; activations: "
                "Korthikanti et al. 2022 (arXiv:2205.05198) Table 2; Megatron-Core's expert "
                "data-parallel group",
                on_stage(r, st.stage));
}

// ZeRO-3's gathered units, then the larger of the two moments that never meet: the loss's
// backward on the last stage and the working set of the layer being recomputed (memory.h).
Derivation transient(const Scenario& s, const Report& r) {
  const Degrees& d = r.degrees;
  const int stage = r.memory.peak_stage;
  const double gathered = gathered_weight_bytes(s, ModelShape(s), d, params_on(s, r, stage));
  const double moment = r.memory.breakdown.transient_bytes - gathered;
  std::vector<Term> terms;
  std::string formula;
  if (gathered > 0) {
    const double per_unit = (1.0 + s.fsdp_prefetch) * kActivationBytes + s.precision.grad_bytes;
    terms.push_back({"U", gathered / per_unit, "params", "the largest unit on the GPU"});
    terms.push_back({"f", 1.0 * s.fsdp_prefetch, "", "units gathered ahead (fsdp_prefetch)"});
    terms.push_back({"g", s.precision.grad_bytes, "B", "gradient bytes per parameter"});
    formula = "(2 × (1 + f) + g) × U";
  }
  const double loss =
      stage == d.pp - 1 && s.cross_entropy == CrossEntropy::kUnfused
          ? loss_backward_transient_bytes(s.seq_len, s.micro_batch, s.model.vocab, d.tp) / d.cp
          : 0.0;
  if (loss > 0 && loss >= moment) {
    terms.push_back({"s", 1.0 * s.seq_len, "tokens", "sequence length"});
    terms.push_back({"b", 1.0 * s.micro_batch, "", "micro-batch"});
    terms.push_back({"V", 1.0 * s.model.vocab, "tokens", "vocabulary"});
    terms.push_back(degree("TP", d.tp, "tensor-parallel degree"));
    terms.push_back(degree("CP", d.cp, "context-parallel degree"));
    formula += std::string(formula.empty() ? "" : " + ") + "8 × s × b × V ÷ (TP × CP)";
  } else if (moment > 0) {
    terms.push_back({"W", moment, "B", "the recomputed layer's working set"});
    formula += std::string(formula.empty() ? "" : " + ") + "W";
  }
  return derive(formula, terms, r.memory.breakdown.transient_bytes, "B",
                "Zhao et al. 2023 (PyTorch FSDP, arXiv:2304.11277) Sec. 3.3; Korthikanti et al. "
                "2022 (arXiv:2205.05198) Sec. 4.3 and 5",
                on_stage(r, stage));
}

Derivation params_per_gpu(const Scenario& s, const Report& r) {
  const Degrees& g = r.degrees;
  const StageParams st = params_on(s, r, r.memory.peak_stage);
  if (st.expert_params_per_gpu > 0) {
    return derive("Pd ÷ TP + Pe ÷ (EP × eTP)",
                  {{"Pd", st.dense_params, "params", "the stage's dense parameters"},
                   degree("TP", g.tp, "tensor-parallel degree"),
                   {"Pe", st.expert_params, "params", "the stage's routed-expert parameters"},
                   degree("EP", g.ep, "expert-parallel degree"),
                   degree("eTP", s.expert_tp, "expert tensor-parallel degree")},
                  r.memory.params_per_gpu, "",
                  "Megatron-Core MoE: experts split over EP ranks, the rest over TP",
                  on_stage(r, st.stage));
  }
  if (s.memory_model == MemoryModel::kBook) {
    return derive("N ÷ (TP × PP)",
                  {{"N", r.model_params, "params", "the model's parameters"},
                   degree("TP", g.tp, "tensor-parallel degree"),
                   degree("PP", g.pp, "pipeline-parallel degree")},
                  r.memory.params_per_gpu, "",
                  "the book lab: tensor and pipeline splits cut the model, data parallelism "
                  "copies it");
  }
  return derive("P ÷ TP",
                {{"P", st.dense_params, "params",
                  "the stage's parameters: its whole layers, and the embedding or output layer "
                  "on an end stage"},
                 degree("TP", g.tp, "tensor-parallel degree")},
                r.memory.params_per_gpu, "",
                "Megatron-LM: whole layers per stage, word embedding on the first stage",
                "stage " + str(st.stage) + " (" + str(st.layers) + " layers)");
}

Derivation shard_factor(const Report& r) {
  return derive("TP × PP",
                {degree("TP", r.degrees.tp, "tensor-parallel degree"),
                 degree("PP", r.degrees.pp, "pipeline-parallel degree")},
                r.memory.shard_factor, "",
                "the book lab: tensor and pipeline splits cut the model, data parallelism copies "
                "it");
}

Derivation headroom(const Report& r) {
  const MemoryReport& m = r.memory;
  return derive("M − B",
                {{"M", m.gpu_memory_bytes, "B", "the GPU's memory"},
                 {"B", m.per_gpu_bytes, "B", "memory per GPU"}},
                m.headroom_bytes, "B",
                "the GPU's memory (GB = 1e9 bytes) against the memory per GPU; negative: it does "
                "not fit");
}

Derivation bytes_per_param(const Report& r) {
  const Precision& p = r.precision;
  return derive("w + g + μ + m + v",
                {{"w", p.weight_bytes, "weight", "weight bytes"},
                 {"g", p.grad_bytes, "grad", "gradient bytes"},
                 {"μ", p.master_bytes, "master", "master copy bytes"},
                 {"m", p.adam_m_bytes, "Adam m", "Adam's first moment, bytes"},
                 {"v", p.adam_v_bytes, "Adam v", "Adam's second moment, bytes"}},
                p.total_bytes(), "B/param",
                "Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Sec. 3.1: mixed-precision Adam");
}

// Counted from the architecture (model_shape.h) unless the scenario gave it.
Derivation model_params(const Scenario& s, const Report& r) {
  const ModelSpec& m = s.model;
  const ModelShape shape(s);
  if (shape.params() != r.model_params) {
    return derive("N", {{"N", m.params, "params", "the model's parameters, as given"}},
                  r.model_params, "params",
                  m.name == "book-16b" ? "the book lab's 16-billion-parameter model"
                                       : "the model's published parameter count",
                  // Words, not the preset's key ("book-16b"): the page names the model.
                  find_model(m.name) ? "the preset's count" : "as given");
  }
  const int moe = shape.moe_layers();
  std::vector<Term> terms = {
      {"L", 1.0 * (m.layers - moe), "layers", "dense layers"},
      {"Pl", shape.dense_layer().all_params(), "params", "a dense layer's parameters"},
      {"Pe", shape.embedding_params(), "params", "embedding"},
      {"Po", shape.output_params(), "params", "output layer"}};
  std::string formula = "L × Pl + Pe + Po";
  if (moe > 0) {
    terms.push_back({"Lm", 1.0 * moe, "layers", "MoE layers"});
    terms.push_back(
        {"Pm", shape.moe_layer().all_params(), "params", "an MoE layer's, every expert"});
    formula = "L × Pl + Lm × Pm + Pe + Po";
  }
  return derive(formula, terms, r.model_params, "params",
                "Narayanan et al. 2021 (arXiv:2104.04473) Eq. 2, with the attention and MLP "
                "weights of the model's own shape");
}

Derivation step_time(const Report& r) {
  const TimeReport& t = r.time;
  return derive(t.exposed_offload_s > 0 ? "C + B + X + H + O" : "C + B + X + O",
                {{"C", t.compute_s, "s", "the slowest stage's compute"},
                 {"B", t.bubble_s, "s", "pipeline bubble"},
                 {"X", t.exposed_comms_s, "s", "communication not hidden behind compute"},
                 {"H", t.exposed_offload_s, "s", "exposed host copies"},
                 {"O", t.optimizer_s, "s", "optimizer step"}},
                t.step_s, "s",
                "Narayanan et al. 2021 Sec. 2.2 (1F1B runs at its slowest stage's pace)",
                "compute on stage " + str(t.slowest_stage));
}

// Model FLOPs against a peak: the BF16 one (MFU) or the FP8 one.
Derivation mfu_against(const Report& r, const char* formula, const char* peak, double peak_flops,
                       const char* name, double result, const char* source) {
  const TimeReport& t = r.time;
  return derive(formula,
                {{"F", t.model_flops_per_step, "FLOPs", "model FLOPs per step"},
                 {"T", t.step_s, "s", "step time"},
                 {"n", 1.0 * r.active_gpus, "GPUs", "GPUs at work"},
                 {peak, peak_flops, "FLOP/s", name}},
                result, "%", source);
}

// The headline: against the peak the GEMMs run at (step_time.h utilisation_peak_tflops).
Derivation mfu(const Scenario& /*s*/, const Report& r) {
  const std::string peak = r.time.mfu_peak;
  const char* name = peak == "fp4"   ? "the GPU's dense FP4 peak, which its GEMMs run at"
                     : peak == "fp8" ? "the GPU's dense FP8 peak, which its GEMMs run at"
                                     : "the GPU's dense BF16 peak";
  return mfu_against(r, "F ÷ (T × n × P)", "P", r.time.mfu_peak_tflops * 1e12, name, r.time.mfu,
                     "Chowdhery et al. 2022 (PaLM) App. B; Korthikanti et al. 2022 Sec. 6.3");
}

Derivation mfu_bf16(const Scenario& s, const Report& r) {
  return mfu_against(r, "F ÷ (T × n × P16)", "P16", s.gpu.peak_tflops * 1e12,
                     "the GPU's dense BF16 peak", r.time.mfu_bf16_peak,
                     "Chowdhery et al. 2022 (PaLM) App. B");
}

Derivation mfu_fp8(const Scenario& s, const Report& r) {
  return mfu_against(r, "F ÷ (T × n × P8)", "P8", s.gpu.fp8_tflops * 1e12,
                     "the GPU's dense FP8 peak", r.time.mfu_fp8_peak,
                     "Transformer Engine's FP8 GEMMs");
}

// Offload's numbers, as the model gives them: the offloaded layers' activations in host
// memory (memory.h stage_activations) and their copies' time beyond compute (step_time.h).
Derivation offloaded(const Report& r, bool time) {
  const double v = time ? r.time.exposed_offload_s : r.memory.offloaded_bytes;
  const char* unit = time ? "s" : "B";
  return derive("H", {{"H", v, unit, time ? "exposed host copies" : "offloaded activations"}}, v,
                unit, "Megatron-Core cpu_offloading (per layer)");
}
Derivation offloaded_bytes(const Report& r) { return offloaded(r, false); }
Derivation offload_time(const Report& r) { return offloaded(r, true); }

// A mixture of experts' routed GEMMs (moe.h): rows per expert, their efficiency on DeepGEMM's
// curve, the busiest EP rank's load.
Derivation tokens_per_expert(const Scenario& s, const Report& r) {
  const Degrees& d = r.degrees;
  return derive("S × b ÷ c × te ÷ t × e × k × C ÷ E",
                {{"S", 1.0 * s.seq_len, "tokens", "sequence"},
                 {"b", 1.0 * s.micro_batch, "", "micro-batch"},
                 degree("c", d.cp, "CP degree"),
                 degree("te", s.expert_tp, "expert TP"),
                 degree("t", d.tp, "TP degree"),
                 degree("e", d.ep, "EP degree"),
                 {"k", 1.0 * s.model.experts_per_token, "", "experts per token"},
                 {"C", s.expert_capacity(), "", "capacity factor"},
                 {"E", 1.0 * s.model.experts, "", "routed experts"}},
                r.time.tokens_per_expert, "", "Megatron-Core token dispatcher");
}

Derivation expert_gemm_efficiency(const Scenario&, const Report& r) {
  const GemmBracket b = grouped_gemm_bracket(r.time.tokens_per_expert);
  return derive("Ea + (Eb − Ea) × x",
                {{"Ea", b.lo.efficiency, "", "efficiency at " + num(b.lo.rows) + " rows"},
                 {"Eb", b.hi.efficiency, "", "efficiency at " + num(b.hi.rows) + " rows"},
                 {"x", b.position, "", "place between them, log scale"}},
                r.time.expert_gemm_efficiency, "", "DeepGEMM README (H800)",
                num(r.time.tokens_per_expert) + " rows per expert");
}

// The layers' linear GEMMs at their size (gemm_shape.h): their weights over the same, each over
// its GEMM's share of a large GEMM's measured rate.
Derivation gemm_shape_efficiency(const Scenario& s, const Report& r) {
  const ModelShape shape(s);
  const LinearGemmShapes g = linear_gemm_shapes(s, shape, r.degrees);
  const int moe = shape.moe_layers(), dense = shape.layers() - moe;
  return derive("W ÷ S",
                {{"W", g.weights(dense, moe), "params", "the layers' linear weights on a TP rank"},
                 {"S", g.slow_weights(dense, moe), "params",
                  "each over its GEMM's share of a large GEMM's rate"}},
                r.time.gemm_shape_efficiency, "",
                "OpenXLA GPU cost model: cuBLAS BF16 GEMMs by size on H100 and B200",
                num(g.rows) + " rows per GEMM");
}

Derivation expert_load(const Scenario& s, const Report& r) {
  if (s.capacity_factor > 0) {
    return derive("L", {{"L", r.time.expert_load, "", "padded to capacity"}}, r.time.expert_load,
                  "", "Fedus et al. 2021 (Switch Transformer) Sec. 2.1");
  }
  return derive("1 + (λ − 1) × (e − 1) ÷ (E − 1)",
                {{"λ", s.moe_load_imbalance, "", "busiest expert / even share"},
                 degree("e", r.degrees.ep, "EP degree"),
                 {"E", 1.0 * s.model.experts, "", "routed experts"}},
                r.time.expert_load, "", "Wang et al. 2024 (arXiv:2408.15664) Table 2");
}

// The schedule's bubble (pipeline.h bubble_scale) over the step: 1F1B's and the interleaved
// one's as Narayanan's, the schedules that split the backward from the slowest stage's
// forward (f) and weight-gradient (w) shares.
Derivation bubble(const Scenario& s, const Report& r) {
  const TimeReport& t = r.time;
  const std::string shape = "PP " + str(r.degrees.pp) + ", v " + str(r.pipeline.virtual_stages) +
                            ", m " + str(r.pipeline.microbatches);
  const Term step{"T", t.step_s, "s", "step time"};
  const Term base{"S", t.bubble_1f1b_s, "s",
                  "1F1B's bubble: every stage's micro-batch but the longest's"};
  const Term f{"f", t.forward_share, "", "forward (F) share of the longest stage's micro-batch"};
  const Term w{"w", t.weight_grad_share, "",
               "weight-gradient (W) share: the linear layers' GEMMs once more"};
  const Term p = degree("p", r.degrees.pp, "pipeline stages");
  if (!splits_weight_grad(s.schedule) || r.degrees.pp == 1 || s.schedule == Schedule::kZbV) {
    const char* source =
        s.schedule == Schedule::kZbV
            ? "Qi et al. 2024 (arXiv:2405.15362): ZB-V's V of 2 chunks per GPU leaves about "
              "no bubble with many micro-batches; with few (m < p, or a span above m of them "
              "for m ÷ 2), every forward through the V, then every backward, W in the free "
              "slots (core/model/pipeline.h few_microbatch_span)"
            : "Narayanan et al. 2021 Sec. 2.2: the bubble is (p − 1) ÷ v micro-batch times of "
              "the slowest stage; interleaved with m < p, each micro-batch laps the stages v "
              "times: a span of p + (m − 1) ÷ v micro-batch times";
    return derive("B ÷ T", {{"B", t.bubble_s, "s", "pipeline bubble"}, step},
                  r.pipeline.bubble_fraction, "", source, shape);
  }
  if (s.schedule == Schedule::kZbH1) {
    return derive("S × (1 − 2 × w) ÷ T", {base, w, step}, r.pipeline.bubble_fraction, "",
                  "Qi et al. 2023 (arXiv:2401.10241) Sec. 3: ZB-H1's bubble (p − 1)(F + B − W), "
                  "1F1B's (p − 1)(F + B + W) less 2W per stage",
                  shape);
  }
  // DualPipe's f: the pair F&B less a backward run alone (B_full, its all-to-alls unpaired).
  const Term paired{"f", t.forward_share, "",
                    "1 − a lone backward's share of the longest stage's micro-batch"};
  if (s.schedule == Schedule::kDualPipe) {
    return derive("S ÷ (p − 1) × (p ÷ 2 − 1) × (2 − f − 3 × w) ÷ T", {base, p, paired, w, step},
                  r.pipeline.bubble_fraction, "",
                  "DeepSeek-V3 (arXiv:2412.19437) Table 2: DualPipe's bubble "
                  "(p/2 − 1)(F&B + B − 3W), F&B the pair, B a backward run alone",
                  shape);
  }
  return derive("S × (2 − f − 3 × w) ÷ 2 ÷ T", {base, paired, w, step}, r.pipeline.bubble_fraction,
                "",
                "DeepSeek's DualPipe repository (README): DualPipeV's bubble (P/2 − 1)(F&B + B − "
                "3W) on P = 2p stages of half a GPU's layers",
                shape);
}

// ---- Goodput (model/goodput.h) ----------------------------------------------------------------

const char* const kGoodputSource =
    "Daly 2006 (FGCS 22(3)): a failure loses the work since the last checkpoint, half an "
    "interval on average, and the restart; Kokolis et al. 2025 (arXiv:2410.21680) ETTR";

Derivation job_mtbf(const Scenario& s, const Report& r) {
  return derive("3600 ÷ (λ × n)",
                {{"λ", s.reliability.failures_per_gpu_hour(), "per GPU-hour",
                  "failures per GPU-hour, every cause"},
                 {"n", 1.0 * r.gpus, "GPUs", "the job's GPUs"}},
                r.goodput.job_mtbf_s, "s",
                "a job fails when any of its GPUs does: Kokolis et al. 2025 (arXiv:2410.21680), "
                "MTTF = 1 ÷ (nodes × failure rate); rates by default Llama 3's (Dubey et al. 2024, "
                "Table 5: 419 unexpected interruptions in 21.2 million GPU-hours)");
}

Derivation checkpoint_write(const Scenario& s, const Report& r) {
  const GoodputReport& g = r.goodput;
  const double storage = s.reliability.storage_gb_s * 1e9, host = s.gpu.host_link_gb_s * 1e9;
  const bool storage_binds = g.checkpoint_bytes / storage >= g.checkpoint_bytes_per_gpu / host;
  return derive(storage_binds ? "C ÷ S" : "c ÷ H",
                {{"C", g.checkpoint_bytes, "B", "model states: master weights and Adam's moments"},
                 {"S", storage, "B/s", "checkpoint storage bandwidth"},
                 {"c", g.checkpoint_bytes_per_gpu, "B", "the busiest saver's share"},
                 {"H", host, "B/s", "its path out, the host link"}},
                g.checkpoint_write_s, "s",
                "each GPU saves its shard as ZeRO shards it (without ZeRO one replica saves); "
                "the storage's bandwidth or each GPU's own path, whichever binds",
                storage_binds ? "the storage binds" : "each GPU's host link binds");
}

Derivation best_interval(const Report& r) {
  const GoodputReport& g = r.goodput;
  const Term mtbf{"M", g.job_mtbf_s, "s", "the job's mean time between failures"};
  switch (g.best_interval_by) {
    case BestInterval::kNoFailures:
      return derive("86400", {}, g.best_interval_s, "s", "no failures: one checkpoint a day");
    case BestInterval::kWrite:
      return derive("W", {{"W", g.checkpoint_write_s, "s", "checkpoint write"}}, g.best_interval_s,
                    "s",
                    "an async checkpoint waits for the last one's write: no shorter interval "
                    "gains");
    case BestInterval::kMtbf:
      return derive("M", {mtbf}, g.best_interval_s, "s",
                    "a failure loses more than the time between failures");
    case BestInterval::kOptimum:
      break;
  }
  return derive(
      "√(P × P + 2 × A × M × P) − P",
      {{"P", g.checkpoint_staging_s, "s", "checkpoint pause"},
       {"A", g.steady_share, "", "share of time not lost to restarts, reloads and half a pause"},
       mtbf},
      g.best_interval_s, "s",
      "where the effective time's derivative in the interval is 0; for P ≪ M it is "
      "Young's √(2 × P × M) (Young 1974, CACM 17(9); Daly 2006)");
}

Derivation effective_time(const Report& r) {
  const GoodputReport& g = r.goodput;
  const Term interval{"τ", g.checkpoint_interval_s, "s", "checkpoint interval"};
  const Term pause{"P", g.checkpoint_pause_s, "s", "checkpoint pause"};
  const Term loss{"L", g.lost_per_failure_s, "s", "lost per failure: work again, restart, reload"};
  const Term mtbf{"M", g.job_mtbf_s, "s", "the job's mean time between failures"};
  if (g.effective_time <= 0) {
    return derive("0", {}, 0, "",
                  "each failure loses more than the time between failures: the run never "
                  "gets ahead");
  }
  if (g.checkpoint_pause_s <= 0) {
    if (g.job_mtbf_s <= 0) return derive("1", {}, 1, "%", "no failures and nothing to save");
    return derive("1 − L ÷ M", {loss, mtbf}, g.effective_time, "%",
                  "nothing to save: a checkpoint costs no pause");
  }
  if (g.job_mtbf_s <= 0) {
    return derive("τ ÷ (τ + P)", {interval, pause}, g.effective_time, "%",
                  "no failures: only the checkpoints' pauses");
  }
  return derive("(1 − L ÷ M) × τ ÷ (τ + P)", {loss, mtbf, interval, pause}, g.effective_time, "%",
                kGoodputSource);
}

Derivation time_to_train_with_failures(const Report& r) {
  return derive("T ÷ E",
                {{"T", r.time.time_to_train_s, "s", "time to train without failures"},
                 {"E", r.goodput.effective_time, "", "effective time"}},
                r.goodput.time_to_train_s, "s", kGoodputSource);
}

Derivation cost_per_day(const Scenario& s, const Report& r) {
  return derive("n × 24 × c",
                {{"n", 1.0 * r.gpus, "GPUs", "GPUs"},
                 {"c", s.price_per_gpu_hour, "$/GPU-hour", "price per GPU-hour"}},
                r.cost.usd_per_day, "$", "price_per_gpu_hour (set your own)");
}

// A trillion tokens at the run's pace, every GPU of the fleet paid for (cost.h).
Derivation cost_per_trillion_tokens(const Scenario& s, const Report& r) {
  return derive("n × (T ÷ τ) ÷ 3600 × c",
                {{"n", 1.0 * r.gpus, "GPUs", "GPUs"},
                 {"T", 1e12, "tokens", "a trillion tokens"},
                 {"τ", r.time.tokens_per_s, "tokens/s", "tokens per second"},
                 {"c", s.price_per_gpu_hour, "$/GPU-hour", "price per GPU-hour"}},
                r.cost.usd_per_trillion_tokens, "$",
                "GPU-hours per trillion tokens, DeepSeek-V3's unit (arXiv:2412.19437 Sec. 1), "
                "at price_per_gpu_hour (set your own)");
}

Derivation order_cost(const Scenario& s, const Report& r) {
  return derive(
      "T − Tr",
      {{"T", r.time.step_s, "s", "step time in this nesting order, " + order_text(s.order)},
       {"Tr", r.rule_order_step_s, "s", "step time in the chapter's tp,pp,dp"}},
      r.order_cost_s, "s", "the chapter's rule of thumb: TP innermost, PP next, DP outermost",
      s.order == kBookOrder ? "tp,pp,dp is the chapter's order" : "");
}

// The tokens of one micro-batch on one GPU: b × s ÷ CP.
std::vector<Term> micro_batch_terms(const Scenario& s, const Report& r) {
  return {{"b", 1.0 * s.micro_batch, "", "micro-batch size"},
          {"s", 1.0 * s.seq_len, "", "sequence length"},
          degree("CP", r.degrees.cp, "context-parallel degree"),
          {"h", 1.0 * s.model.hidden, "", "hidden size"},
          {"a", kActivationBytes, "B", "bytes per activation value"}};
}

std::vector<Term> with(std::vector<Term> terms, std::initializer_list<Term> more) {
  terms.insert(terms.end(), more);
  return terms;
}

// A seam's bytes per step: its message's formula, times the messages per step.
Derivation per_step(Derivation message, const SeamTraffic& t) {
  message.terms.push_back({"n", t.messages_per_step, "per step", "messages per step"});
  // Parentheses only where the message is a sum: a product reads on.
  int depth = 0;
  bool sum = false;
  for (size_t i = 0; i < message.formula.size(); ++i) {
    const char c = message.formula[i];
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    sum = sum || (depth == 0 && (c == '+' || message.formula.compare(i, 3, "−") == 0));
  }
  const std::string formula = sum ? "(" + message.formula + ") × n" : message.formula + " × n";
  return derive(formula, message.terms, t.bytes_per_gpu_per_step, "B", message.source);
}

const char* kRingSource = "ring volumes, nccl-tests PERFORMANCE.md";

Derivation data_message(const Scenario& s, const Report& r) {
  const Precision& p = r.precision;
  const StageParams st = params_on(s, r, r.comms.stage);
  const DataParallelParts parts = data_parallel_parts(
      s, r.degrees, st.params_per_gpu, r.pipeline.microbatches, st.expert_params_per_gpu);
  std::vector<Term> terms = {
      {"N", 1.0 * r.degrees.dp * r.degrees.cp, "", "DP × CP ranks"},
      {"Ψ", parts.ring_params, "params",
       st.expert_params_per_gpu > 0 ? "parameters on the GPU, experts weighted by their own group"
                                    : "parameters on the GPU"},
      {"g", p.grad_bytes, "B", "gradient bytes per parameter"}};
  const std::string note = on_stage(r, r.comms.stage);
  if (s.zero_stage == 0) {
    return derive("2 × (N − 1) ÷ N × Ψ × g", terms, r.comms.data.bytes_per_message, "B",
                  std::string("ring all-reduce, ") + kRingSource, note);
  }
  terms.push_back({"w", p.weight_bytes, "B", "weight bytes per parameter"});
  terms.push_back({"R", parts.reductions, "", "gradient reduce-scatters per step"});
  terms.push_back({"G", parts.gathers, "", "weight all-gathers per step"});
  return derive("(N − 1) ÷ N × Ψ × (g × R + w × G) ÷ (R + G)", terms,
                r.comms.data.bytes_per_message, "B",
                "reduce-scatter gradients, all-gather weights: Rajbhandari et al. 2020 (ZeRO) "
                "Sec. 7",
                note);
}

Derivation tensor_message(const Scenario& s, const Report& r) {
  const auto terms =
      with(micro_batch_terms(s, r), {degree("TP", r.degrees.tp, "tensor-parallel degree")});
  if (s.sequence_parallel) {
    return derive("(TP − 1) ÷ TP × b × s ÷ CP × h × a", terms, r.comms.tensor.bytes_per_message,
                  "B",
                  "an all-gather or reduce-scatter: Korthikanti et al. 2022 Sec. 4.2.2; "
                  "Megatron-Core tensor_parallel/layers.py");
  }
  return derive("2 × (TP − 1) ÷ TP × b × s ÷ CP × h × a", terms, r.comms.tensor.bytes_per_message,
                "B",
                "a ring all-reduce: Narayanan et al. 2021 (arXiv:2104.04473) Sec. 3.2; "
                "nccl-tests PERFORMANCE.md");
}

Derivation pipeline_message(const Scenario& s, const Report& r) {
  auto terms = micro_batch_terms(s, r);
  if (s.sequence_parallel || s.pp_scatter_gather) {
    terms.push_back(degree("TP", r.degrees.tp, "tensor-parallel degree"));
    return derive("b × s ÷ CP × h × a ÷ TP", terms, r.comms.pipeline.bytes_per_message, "B",
                  "Narayanan et al. 2021 Sec. 4.1; each TP rank sends its slice with SP");
  }
  return derive("b × s ÷ CP × h × a", terms, r.comms.pipeline.bytes_per_message, "B",
                "Narayanan et al. 2021 Sec. 4.1; Megatron-Core sends whole without SP");
}

Derivation context_message(const Scenario& s, const Report& r) {
  const AttentionShape attention = ModelShape(s).attention();
  const double kv = attention.kv_elements_per_token;
  auto terms = micro_batch_terms(s, r);
  terms.erase(terms.begin() + 3);  // h: the K/V values per token stand in for it
  terms.push_back({"kv", kv, "", "K and V values per token"});
  terms.push_back(degree("TP", r.degrees.tp, "tensor-parallel degree"));
  const double bytes = r.comms.context.bytes_per_message;
  switch (s.context_parallel) {
    case ContextParallel::kRing:
      return derive("b × s ÷ CP × kv ÷ TP × a", terms, bytes, "B",
                    "one ring pass: Liu et al. 2023 (Ring Attention, arXiv:2310.01889); "
                    "Megatron-Core p2p CP");
    case ContextParallel::kAllGather:
      return derive("b × s ÷ CP × kv ÷ TP × (CP − 1) × a", terms, bytes, "B",
                    "an all-gather of K/V: Dubey et al. 2024 (Llama 3) Sec. 3.3.2");
    default:
      terms.push_back(
          {"qo", attention.q_and_o_elements_per_token, "", "Q and output values per token"});
      return derive("b × s ÷ CP × (qo ÷ TP + kv ÷ TP) × (CP − 1) ÷ CP × a", terms, bytes, "B",
                    "an all-to-all: Jacobs et al. 2023 (DeepSpeed-Ulysses, arXiv:2309.14509) "
                    "Sec. 3.1");
  }
}

Derivation expert_message(const Scenario& s, const Report& r) {
  const MlpShape moe = ModelShape(s).moe_layer().mlp;
  const auto terms =
      with(micro_batch_terms(s, r), {degree("eTP", s.expert_tp, "expert tensor-parallel degree"),
                                     degree("TP", r.degrees.tp, "tensor-parallel degree"),
                                     {"k", moe.experts_per_token, "", "experts per token"},
                                     {"c", moe.capacity, "", "capacity factor"},
                                     degree("EP", r.degrees.ep, "expert-parallel degree")});
  return derive("b × s ÷ CP × eTP ÷ TP × k × c × h × a × (EP − 1) ÷ EP", terms,
                r.comms.expert.bytes_per_message, "B",
                "Lepikhin et al. 2020 (GShard); Megatron-Core's all-to-all token dispatcher");
}

const char* kLayoutSource =
    "rank layout: ranks numbered innermost seam first (Megatron-LM's tp,pp,dp: Narayanan et "
    "al. 2021 Sec. 3.3); node = rank ÷ GPUs per node, NVLink domain = rank ÷ its GPUs";

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

const char* degree_name(Seam seam) {
  return seam == Seam::kTensor     ? "tensor-parallel degree"
         : seam == Seam::kPipeline ? "pipeline-parallel degree"
                                   : "data-parallel degree";
}

Derivation group_size(const Scenario& s, const Report& r, Seam seam) {
  const Degrees& g = r.degrees;
  const std::string where = spacing(s, g, seam) + ", order " + order_text(s.order);
  const Term own = degree(upper(seam), degree_of(g, seam), degree_name(seam));
  // Gradients are reduced over DP x CP: each CP rank saw part of every sequence (comms.cpp).
  if (seam == Seam::kData && g.cp > 1) {
    return derive("DP × CP", {own, degree("CP", g.cp, "context-parallel degree")},
                  r.comms.data.group_size, "GPUs", kLayoutSource, "DP members are " + where);
  }
  return derive(upper(seam), {own}, degree_of(g, seam) * 1.0, "GPUs", kLayoutSource,
                "members are " + where);
}

// The network's term, with where its value comes from: the GPU preset's fleet ("the H100-80GB
// preset's 400 Gb/s (DGX H100: 8 × ConnectX-7 400 Gb/s, one per GPU)"), or the scenario's own.
std::string network_name(const GpuSpec& g) {
  const std::string what = "the network per GPU per direction";
  const auto preset = find_gpu(g.name);
  if (!preset || preset->network_gb_s != g.network_gb_s) return what + ", as set";
  return what + ": the " + g.name + " preset's " + num(g.network_gb_s * 8) + " Gb/s (" +
         preset->fleet + ")";
}

// An efficiency's term name, with where its value comes from when a calibration fitted it.
std::string efficiency_name(const Scenario& s, const std::string& what) {
  if (!s.calibration.given()) return "the share " + what;
  return "the share " + what + ", fitted to " + calibration_title(s.calibration);
}

// The link a seam's traffic rides, with why: where its groups sit in the nesting order, and
// the level of the fleet they stay inside (layout.h Fabric).
Derivation link(const Scenario& s, const Report& r, Seam seam, const SeamTraffic& t) {
  const Degrees& g = r.degrees;
  const std::string level = t.level;
  const bool spans = level != "nvlink_domain";
  // The node is the NVLink domain unless the GPU's system spans trays (GB200 NVL72).
  const bool trays = s.domain_spans_nodes();
  const std::string domain = trays ? "NVLink domain" : "node";
  std::string where = std::string(upper(seam));
  if (seam == Seam::kPipeline) {
    where += " stages are " + spacing(s, g, seam) + "; stage " + str(r.comms.stage) +
             (spans ? " has a neighbouring stage on another " + domain
                    : "'s neighbouring stages share its " + domain);
  } else {
    where += " groups of " + str(degree_of(g, seam)) + " GPUs, " + spacing(s, g, seam) + ", " +
             (spans ? "span " + domain + "s" : "each sit in one " + domain);
  }
  where += " of " + str(s.domain_gpus()) + " GPUs";
  if (trays && !spans) where += " (NVLink across its trays of " + str(s.gpus_per_node) + ")";
  if (level == "rail") {
    where += ", every member on one rail (the same GPU index of its node of " +
             str(s.gpus_per_node) + ")";
  }
  if (level == "spine") where += ", members on different rails, so through the spine";
  std::string source = std::string(kLayoutSource) + "; NVLink's reach: nccl-tests PERFORMANCE.md";
  DataRate data;
  if (seam == Seam::kData) {
    const StageParams st = params_on(s, r, r.comms.stage);
    const NodeSpans at = node_spans(g, s.gpus_per_node, s.order, s.domain_gpus());
    data = data_rate(s, g, at, st.params_per_gpu, st.expert_params_per_gpu);
    if (data.expert_share > 0) {
      return derive("1 ÷ ((1 − x) ÷ D + x ÷ E)",
                    {{"x", data.expert_share, "", "the routed experts' share of the volume"},
                     {"D", data.dense_bytes_per_s, "B/s", "the dp x cp group's rate"},
                     {"E", data.expert_bytes_per_s, "B/s",
                      "the expert-data-parallel group's rate (" +
                          std::to_string(nics_used(data.expert_level, data.expert)) +
                          " NICs per domain; 0: NVLink)"}},
                    t.link_bytes_per_s, "B/s",
                    source +
                        "; the experts' own group: Megatron-Core parallel_state.py (comms.h "
                        "data_rate)",
                    where);
    }
  }
  if (!spans) {
    return derive("V × η",
                  {{"V", s.gpu.nvlink_gb_s * 1e9, "B/s", "NVLink per GPU per direction"},
                   {"η", s.gpu.nvlink_efficiency, "", efficiency_name(s, "of it NCCL reaches")}},
                  t.link_bytes_per_s, "B/s", source, "NVLink: " + where);
  }
  source += "; rails and the spine: Wang et al. 2023 (Rail-only, arXiv:2307.12169) Sec. 2";
  // A collective spreads over the NICs of its group's members in a domain, up to NVLink
  // (comms.h collective_rate): NVIDIA/nccl#320, #569.
  const auto network = [&](Fabric f, const Reach& reach, double rate, const std::string& why) {
    const int k = nics_used(f, reach);
    const double nvlink = link_rate(Fabric::kDomain, s);
    std::string src = source + "; NICs per domain: NVIDIA/nccl#320, #569 (comms.h)";
    if (k > 1 && rate >= nvlink) {
      return derive("V × η",
                    {{"V", s.gpu.nvlink_gb_s * 1e9, "B/s", "NVLink per GPU per direction"},
                     {"η", s.gpu.nvlink_efficiency, "", efficiency_name(s, "of it NCCL reaches")}},
                    rate, "B/s", src,
                    "NVLink, which carries the ring inside each domain, limits " +
                        std::to_string(k) + " NICs: " + why);
    }
    std::vector<Term> terms = {{"W", s.gpu.network_gb_s * 1e9, "B/s", network_name(s.gpu)}};
    std::string formula = "W";
    if (k > 1) {
      terms.insert(terms.begin(), {"k", 1.0 * k, "NICs", "the group's members in one domain"});
      formula = "k × W";
    }
    if (s.gpu.network_efficiency != 1) {
      terms.push_back(
          {"η", s.gpu.network_efficiency, "", efficiency_name(s, "of it NCCL reaches")});
      formula += " × η";
    }
    if (f == Fabric::kSpine && s.network_oversubscription != 1) {
      terms.push_back({"o", s.network_oversubscription, "", "the spine's oversubscription"});
      formula += " ÷ o";
    }
    if (k > 1 && reach.spread == Spread::kAllReduce && reach.group == 2 * reach.in_domain) {
      terms.push_back({"n", 1.0 * reach.group, "GPUs", "the group on two domains (NCCL's tree)"});
      formula += " × 2 × (n − 1) ÷ n";
    }
    return derive(formula, terms, rate, "B/s", src, "the network: " + why);
  };
  if (seam == Seam::kData) return network(data.dense_level, data.dense, t.link_bytes_per_s, where);
  const Fabric f = level == "spine" ? Fabric::kSpine : Fabric::kRail;
  Reach reach;
  if (seam == Seam::kTensor) {
    const NodeSpans at = node_spans(g, s.gpus_per_node, s.order, s.domain_gpus());
    reach = {s.sequence_parallel ? Spread::kRing : Spread::kAllReduce, at.tp_in_domain, g.tp};
  }
  return network(f, reach, t.link_bytes_per_s, where);
}

Derivation messages(const Scenario& s, const Report& r, Seam seam) {
  const int m = r.pipeline.microbatches;
  const int stage = r.comms.stage;
  const Term micro = {"m", 1.0 * m, "micro-batches", "micro-batches per step"};
  if (seam == Seam::kData) {
    const StageParams st = params_on(s, r, stage);
    const DataParallelParts parts =
        data_parallel_parts(s, r.degrees, st.params_per_gpu, m, st.expert_params_per_gpu);
    return derive("R + G",
                  {{"R", parts.reductions, s.zero_stage == 0 ? "all-reduce" : "reduce-scatter",
                    s.zero_stage == 0 ? "all-reduces per step" : "reduce-scatters per step"},
                   {"G", parts.gathers, "all-gather", "weight gathers per step"}},
                  r.comms.data.messages_per_step, "",
                  "nccl-tests PERFORMANCE.md; Rajbhandari et al. 2020 (ZeRO) Sec. 7: ZeRO-2/3 "
                  "every micro-batch");
  }
  if (seam == Seam::kTensor) {
    return derive(
        "c × L × m",
        {{"c", tensor_collectives_per_layer(s, r.pipeline.split.layers_on(stage)), "per layer",
          "collectives per layer (2 forward + 2 backward; sequence parallelism and "
          "full recomputation add theirs)"},
         {"L", 1.0 * r.pipeline.split.layers_on(stage), "layers", "layers on the stage"},
         micro},
        r.comms.tensor.messages_per_step, "",
        "Narayanan et al. 2021 (arXiv:2104.04473) Sec. 3.2; Megatron-Core "
        "tensor_parallel/layers.py",
        on_stage(r, stage));
  }
  const PipelineSends sends = pipeline_sends(s, r.degrees.pp, stage);
  return derive("(f + k) × m",
                {{"f", 1.0 * sends.next, "forward", "sends forward per micro-batch"},
                 {"k", 1.0 * sends.prev, "backward", "sends backward per micro-batch"},
                 micro},
                r.comms.pipeline.messages_per_step, "", "Narayanan et al. 2021 Sec. 4.1",
                on_stage(r, stage));
}

Derivation link_time(const SeamTraffic& t) {
  return derive("D ÷ W",
                {{"D", t.bytes_per_gpu_per_step, "B", "bytes per GPU per step"},
                 {"W", t.link_bytes_per_s, "B/s", std::string("the link: ") + t.link}},
                t.time_s, "s",
                "nccl-tests PERFORMANCE.md: a collective's time is its bus bytes over the link");
}

// A pipeline GPU's time on the wire: each hop at its own link's rate (comms.cpp).
Derivation pipeline_time(const Scenario& s, const Report& r) {
  const SeamTraffic& t = r.comms.pipeline;
  const int p = r.degrees.pp, stage = r.comms.stage;
  const PipelineSends sends = pipeline_sends(s, p, stage);
  const double to_next = link_rate(stage_hop(s, r.degrees, stage, (stage + 1) % p), s);
  const double to_prev = link_rate(stage_hop(s, r.degrees, stage, (stage + p - 1) % p), s);
  return derive("M × m × (f ÷ Wf + k ÷ Wk)",
                {{"M", t.bytes_per_message, "B", "one send"},
                 {"m", 1.0 * r.pipeline.microbatches, "", "micro-batches per step"},
                 {"f", 1.0 * sends.next, "", "sends forward per micro-batch"},
                 {"Wf", to_next, "B/s", "the link to the next stage"},
                 {"k", 1.0 * sends.prev, "", "sends backward per micro-batch"},
                 {"Wk", to_prev, "B/s", "the link to the previous stage"}},
                t.time_s, "s",
                "nccl-tests PERFORMANCE.md: a transfer's time is its bytes over the link",
                on_stage(r, stage));
}

// The derivations of one seam, for the table below.
using Build = Derivation (*)(const Scenario&, const Report&);
using Traffic = SeamTraffic CommsReport::*;

template <Traffic T, Build Message>
Derivation per_step_of(const Scenario& s, const Report& r) {
  return per_step(Message(s, r), r.comms.*T);
}
template <Seam S>
Derivation group_size_of(const Scenario& s, const Report& r) {
  return group_size(s, r, S);
}
template <Seam S, Traffic T>
Derivation link_of(const Scenario& s, const Report& r) {
  return link(s, r, S, r.comms.*T);
}
template <Seam S>
Derivation messages_of(const Scenario& s, const Report& r) {
  return messages(s, r, S);
}
template <Traffic T>
Derivation time_of(const Scenario&, const Report& r) {
  return link_time(r.comms.*T);
}
template <Derivation (*F)(const Report&)>
Derivation of_report(const Scenario&, const Report& r) {
  return F(r);
}

// Every number a report may explain, under its report key, with the function that derives it
// and the seam whose traffic it needs (none: always): a derivation is built only when asked
// for, so a report lists its keys at no cost.
// The page's first-load wasm module lists the keys a report explains but builds no derivation
// (PE_NO_DERIVATIONS, wasm/CMakeLists.txt): the page asks the planner's module for one when a
// reader opens it. Its table then holds no builder, so none is linked in (13 KB gzipped).
#ifdef PE_NO_DERIVATIONS
constexpr bool kDerivations = false;
#else
constexpr bool kDerivations = true;
#endif

struct Entry {
  using NonZero = double (*)(const Report&);
  constexpr Entry(const char* key_, Traffic seam_, Build build_, NonZero nonzero_ = nullptr)
      : key(key_), seam(seam_), build(kDerivations ? build_ : nullptr), nonzero(nonzero_) {}
  const char* key;
  Traffic seam;     // nullptr: every report explains it
  Build build;      // nullptr without derivations
  NonZero nonzero;  // explained only while this is not 0
};
double moe_report(const Report& r) { return r.time.tokens_per_expert; }
constexpr Traffic kData = &CommsReport::data, kTensor = &CommsReport::tensor,
                  kPipeline = &CommsReport::pipeline, kContext = &CommsReport::context,
                  kExpert = &CommsReport::expert;
constexpr Entry kEntries[] = {
    {"memory.per_gpu_bytes", nullptr, memory_per_gpu},
    {"memory.params_per_gpu", nullptr, params_per_gpu},
    {"memory.breakdown.transient_bytes", nullptr, transient,
     [](const Report& r) { return r.memory.breakdown.transient_bytes; }},
    {"memory.shard_factor", nullptr, of_report<shard_factor>},
    {"memory.headroom_bytes", nullptr, of_report<headroom>},
    {"precision.bytes_per_param", nullptr, of_report<bytes_per_param>},
    {"model_params", nullptr, model_params},
    {"time.step_s", nullptr, of_report<step_time>},
    {"time.mfu", nullptr, mfu},
    {"time.mfu_bf16_peak", nullptr, mfu_bf16},
    {"time.mfu_fp8_peak", nullptr, mfu_fp8, [](const Report& r) { return r.time.mfu_fp8_peak; }},
    {"memory.offloaded_bytes", nullptr, of_report<offloaded_bytes>,
     [](const Report& r) { return r.memory.offloaded_bytes; }},
    {"time.exposed_offload_s", nullptr, of_report<offload_time>,
     [](const Report& r) { return r.time.exposed_offload_s; }},
    {"time.gemm_shape_efficiency", nullptr, gemm_shape_efficiency,
     [](const Report& r) { return r.time.gemm_shape_efficiency < 1 ? 1.0 : 0.0; }},
    {"time.tokens_per_expert", nullptr, tokens_per_expert, moe_report},
    {"time.expert_gemm_efficiency", nullptr, expert_gemm_efficiency, moe_report},
    {"time.expert_load", nullptr, expert_load, moe_report},
    {"pipeline.bubble_fraction", nullptr, bubble},
    {"cost.usd_per_day", nullptr, cost_per_day},
    {"cost.usd_per_trillion_tokens", nullptr, cost_per_trillion_tokens},
    {"goodput.job_mtbf_s", nullptr, job_mtbf, [](const Report& r) { return r.goodput.job_mtbf_s; }},
    {"goodput.checkpoint_write_s", nullptr, checkpoint_write},
    {"goodput.best_interval_s", nullptr, of_report<best_interval>},
    {"goodput.effective_time", nullptr, of_report<effective_time>},
    {"goodput.time_to_train_s", nullptr, of_report<time_to_train_with_failures>,
     [](const Report& r) { return r.goodput.time_to_train_s; }},
    {"order.order_cost_s", nullptr, order_cost},
    {"comms.data.bytes_per_message", kData, data_message},
    {"comms.data.bytes_per_gpu_per_step", kData, per_step_of<kData, data_message>},
    {"comms.tensor.bytes_per_message", kTensor, tensor_message},
    {"comms.tensor.bytes_per_gpu_per_step", kTensor, per_step_of<kTensor, tensor_message>},
    {"comms.pipeline.bytes_per_message", kPipeline, pipeline_message},
    {"comms.pipeline.bytes_per_gpu_per_step", kPipeline, per_step_of<kPipeline, pipeline_message>},
    {"comms.context.bytes_per_message", kContext, context_message},
    {"comms.context.bytes_per_gpu_per_step", kContext, per_step_of<kContext, context_message>},
    {"comms.expert.bytes_per_message", kExpert, expert_message},
    {"comms.expert.bytes_per_gpu_per_step", kExpert, per_step_of<kExpert, expert_message>},
    // Where the three book seams' groups sit, and how often they talk.
    {"comms.data.group_size", kData, group_size_of<Seam::kData>},
    {"comms.data.link_bytes_per_s", kData, link_of<Seam::kData, kData>},
    {"comms.data.messages_per_step", kData, messages_of<Seam::kData>},
    {"comms.tensor.group_size", kTensor, group_size_of<Seam::kTensor>},
    {"comms.tensor.link_bytes_per_s", kTensor, link_of<Seam::kTensor, kTensor>},
    {"comms.tensor.messages_per_step", kTensor, messages_of<Seam::kTensor>},
    {"comms.pipeline.group_size", kPipeline, group_size_of<Seam::kPipeline>},
    {"comms.pipeline.link_bytes_per_s", kPipeline, link_of<Seam::kPipeline, kPipeline>},
    {"comms.pipeline.messages_per_step", kPipeline, messages_of<Seam::kPipeline>},
    {"comms.data.time_s", kData, time_of<kData>},
    {"comms.tensor.time_s", kTensor, time_of<kTensor>},
    // A pipeline stage's two hops may ride different links: each at its own rate.
    {"comms.pipeline.time_s", kPipeline, pipeline_time},
    {"comms.context.time_s", kContext, time_of<kContext>},
    {"comms.expert.time_s", kExpert, time_of<kExpert>},
};

// A seam's numbers while it is active; numbers the report gives 0 when they do not apply (the
// FP8 MFU without an FP8 peak, offload without offloaded layers) while they are not 0.
bool explains(const Entry& e, const Report& r) {
  if (e.nonzero) return e.nonzero(r) != 0;
  return !e.seam || (r.comms.*e.seam).active;
}

Derivation built(const Entry& e, const Scenario& s, const Report& r) {
  Derivation d = e.build(s, r);
  d.key = e.key;
  return d;
}

}  // namespace

std::vector<std::string> explained_keys(const Scenario&, const Report& r) {
  std::vector<std::string> keys;
  for (const Entry& e : kEntries) {
    if (explains(e, r)) keys.push_back(e.key);
  }
  return keys;
}

std::optional<Derivation> derivation(const Scenario& s, const Report& r, std::string_view key) {
  for (const Entry& e : kEntries) {
    if (key == e.key && explains(e, r)) return built(e, s, r);
  }
  return std::nullopt;
}

std::vector<Derivation> derivations(const Scenario& s, const Report& r) {
  std::vector<Derivation> out;
  for (const Entry& e : kEntries) {
    if (explains(e, r)) out.push_back(built(e, s, r));
  }
  return out;
}

}  // namespace pe
