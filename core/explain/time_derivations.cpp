// The step (model/step_time.h): its parts, MFU, offload, the GEMMs' efficiency, experts, the
// bubble.
#include "explain/derivations.h"
#include "explain/derive.h"
#include "model/moe.h"
#include "model/pipeline.h"
#include "model/step_time.h"
#include "model/text.h"

namespace pe::explain {

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

namespace {

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

}  // namespace

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

namespace {

// Offload's numbers, as the model gives them: the offloaded layers' activations in host
// memory (memory.h stage_activations) and their copies' time beyond compute (step_time.h).
Derivation offloaded(const Report& r, bool time) {
  const double v = time ? r.time.exposed_offload_s : r.memory.offloaded_bytes;
  const char* unit = time ? "s" : "B";
  return derive("H", {{"H", v, unit, time ? "exposed host copies" : "offloaded activations"}}, v,
                unit, "Megatron-Core cpu_offloading (per layer)");
}

}  // namespace
Derivation offloaded_bytes(const Report& r) { return offloaded(r, false); }
Derivation offload_time(const Report& r) { return offloaded(r, true); }

// A mixture of experts' routed GEMMs (moe.h): rows per expert, their efficiency on DeepGEMM's
// curve, the busiest EP rank's load.
Derivation tokens_per_expert(const Scenario& s, const Report& r) {
  const Degrees& d = r.degrees;
  return derive("S × b ÷ c × te ÷ t × e × k × C ÷ E",
                {{"S", 1.0 * s.batch.seq_len, "tokens", "sequence"},
                 {"b", 1.0 * s.recipe.micro_batch, "", "micro-batch"},
                 degree("c", d.cp, "CP degree"),
                 degree("te", s.recipe.expert_tp, "expert TP"),
                 degree("t", d.tp, "TP degree"),
                 degree("e", d.ep, "EP degree"),
                 {"k", 1.0 * s.model.experts_per_token, "", "experts per token"},
                 {"C", s.recipe.expert_capacity(), "", "capacity factor"},
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
  const LinearGemmShapes g = linear_gemm_shapes(s, shape, r.degrees, s.recipe.micro_batch);
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
  if (s.recipe.capacity_factor > 0) {
    return derive("L", {{"L", r.time.expert_load, "", "padded to capacity"}}, r.time.expert_load,
                  "", "Fedus et al. 2021 (Switch Transformer) Sec. 2.1");
  }
  return derive("1 + (λ − 1) × (e − 1) ÷ (E − 1)",
                {{"λ", s.recipe.moe_load_imbalance, "", "busiest expert / even share"},
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
  // The share of it the fleet's runs pay, where a two-run calibration found it not all.
  const auto paid = [&](const std::string& formula, std::vector<Term> terms) {
    if (s.gpu.bubble_paid == 1) return std::make_pair(formula, terms);
    terms.push_back({"k", s.gpu.bubble_paid, "", "share of the bubble the fleet's runs pay"});
    return std::make_pair("k × " + formula, terms);
  };
  if (!splits_weight_grad(s.recipe.schedule) || r.degrees.pp == 1 ||
      s.recipe.schedule == Schedule::kZbV) {
    const char* source =
        s.recipe.schedule == Schedule::kZbV
            ? "Qi et al. 2024 (arXiv:2405.15362): ZB-V's V of 2 chunks per GPU leaves about "
              "no bubble with many micro-batches; with few (m < p), every forward through the "
              "V, then every backward, W in the free slots; from p on, at least what p − 1 span "
              "and never past ZB-H1's (core/model/pipeline.h few_microbatch_span)"
            : "Narayanan et al. 2021 Sec. 2.2: the bubble is (p − 1) ÷ v micro-batch times of "
              "the slowest stage; interleaved with m < p, each micro-batch laps the stages v "
              "times: a span of p + (m − 1) ÷ v micro-batch times";
    const double k =
        bubble_share(s, r.degrees.pp, r.pipeline.virtual_stages, r.pipeline.microbatches);
    const std::string paid_note =
        s.gpu.bubble_paid == 1 ? ""
        : k == s.gpu.bubble_paid
            ? "; × bubble_paid " + short_number(k) + ", the share paid"
            : "; × " + short_number(k) + " of it paid: bubble_paid " +
                  short_number(s.gpu.bubble_paid) +
                  (s.recipe.schedule == Schedule::kZbV
                       ? " held at 1, past which twice the micro-batches, whose span stays, "
                         "would shorten the step"
                       : " held at v ÷ (v − 1), past which more micro-batches, filling the laps, "
                         "would shorten the step");
    return derive("B ÷ T", {{"B", t.bubble_s, "s", "pipeline bubble"}, step},
                  r.pipeline.bubble_fraction, "", std::string(source) + paid_note, shape);
  }
  if (s.recipe.schedule == Schedule::kZbH1) {
    const auto [formula, terms] = paid("S × (1 − 2 × w) ÷ T", {base, w, step});
    return derive(formula, terms, r.pipeline.bubble_fraction, "",
                  "Qi et al. 2023 (arXiv:2401.10241) Sec. 3: ZB-H1's bubble (p − 1)(F + B − W), "
                  "1F1B's (p − 1)(F + B + W) less 2W per stage",
                  shape);
  }
  // DualPipe's f: the pair F&B less a backward run alone (B_full, its all-to-alls unpaired).
  const Term paired{"f", t.forward_share, "",
                    "1 − a lone backward's share of the longest stage's micro-batch"};
  if (s.recipe.schedule == Schedule::kDualPipe) {
    const auto [formula, terms] =
        paid("S ÷ (p − 1) × (p ÷ 2 − 1) × (2 − f − 3 × w) ÷ T", {base, p, paired, w, step});
    return derive(formula, terms, r.pipeline.bubble_fraction, "",
                  "DeepSeek-V3 (arXiv:2412.19437) Table 2: DualPipe's bubble "
                  "(p/2 − 1)(F&B + B − 3W), F&B the pair, B a backward run alone",
                  shape);
  }
  const auto [formula, terms] = paid("S × (2 − f − 3 × w) ÷ 2 ÷ T", {base, paired, w, step});
  return derive(formula, terms, r.pipeline.bubble_fraction, "",
                "DeepSeek's DualPipe repository (README): DualPipeV's bubble (P/2 − 1)(F&B + B − "
                "3W) on P = 2p stages of half a GPU's layers",
                shape);
}

}  // namespace pe::explain
