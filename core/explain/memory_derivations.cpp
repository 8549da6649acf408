// Memory per GPU (model/memory.h): the total, its parts, the parameters and ZeRO's shards.
#include "explain/derivations.h"
#include "explain/derive.h"
#include "model/activations.h"
#include "model/moe.h"
#include "model/pipeline.h"
#include "model/presets.h"

namespace pe::explain {

namespace {

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

}  // namespace

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
  std::string formula = states_formula("Ψ", "N", s.recipe.zero_stage);
  if (st.expert_params_per_gpu > 0) {
    terms.push_back({"Ψe", st.expert_params_per_gpu, "params", "routed-expert parameters on it"});
    terms.push_back(
        {"E", 1.0 * expert_data_parallel(s, r.degrees), "", "the experts' data-parallel group"});
    formula += " + " + states_formula("Ψe", "E", s.recipe.zero_stage);
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
    const double per_unit =
        (1.0 + s.recipe.fsdp_prefetch) * kActivationBytes + s.recipe.precision.grad_bytes;
    terms.push_back({"U", gathered / per_unit, "params", "the largest unit on the GPU"});
    terms.push_back(
        {"f", 1.0 * s.recipe.fsdp_prefetch, "", "units gathered ahead (fsdp_prefetch)"});
    terms.push_back({"g", s.recipe.precision.grad_bytes, "B", "gradient bytes per parameter"});
    formula = "(2 × (1 + f) + g) × U";
  }
  const double loss = stage == d.pp - 1 && s.recipe.cross_entropy == CrossEntropy::kUnfused
                          ? loss_backward_transient_bytes(s.batch.seq_len, s.recipe.micro_batch,
                                                          s.model.vocab, d.tp) /
                                d.cp
                          : 0.0;
  if (loss > 0 && loss >= moment) {
    terms.push_back({"s", 1.0 * s.batch.seq_len, "tokens", "sequence length"});
    terms.push_back({"b", 1.0 * s.recipe.micro_batch, "", "micro-batch"});
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
                   degree("eTP", s.recipe.expert_tp, "expert tensor-parallel degree")},
                  r.memory.params_per_gpu, "",
                  "Megatron-Core MoE: experts split over EP ranks, the rest over TP",
                  on_stage(r, st.stage));
  }
  if (s.recipe.memory_model == MemoryModel::kBook) {
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

}  // namespace pe::explain
