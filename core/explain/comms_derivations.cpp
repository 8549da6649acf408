// What crosses the wire (model/comms.h): each seam's messages, where its groups sit, the link
// each rides and its time, and the nesting order's cost.

#include "explain/derivations.h"
#include "explain/derive.h"
#include "model/calibrate.h"
#include "model/comms.h"
#include "model/presets.h"

namespace pe::explain {

Derivation order_cost(const Scenario& s, const Report& r) {
  return derive(
      "T − Tr",
      {{"T", r.time.step_s, "s", "step time in this nesting order, " + order_text(s.recipe.order)},
       {"Tr", r.rule_order_step_s, "s", "step time in the chapter's tp,pp,dp"}},
      r.order_cost_s, "s", "the chapter's rule of thumb: TP innermost, PP next, DP outermost",
      s.recipe.order == kBookOrder ? "tp,pp,dp is the chapter's order" : "");
}

namespace {

// The tokens of one micro-batch on one GPU: b × s ÷ CP.
std::vector<Term> micro_batch_terms(const Scenario& s, const Report& r) {
  return {{"b", 1.0 * s.recipe.micro_batch, "", "micro-batch size"},
          {"s", 1.0 * s.batch.seq_len, "", "sequence length"},
          degree("CP", r.degrees.cp, "context-parallel degree"),
          {"h", 1.0 * s.model.hidden, "", "hidden size"},
          {"a", kActivationBytes, "B", "bytes per activation value"}};
}

std::vector<Term> with(std::vector<Term> terms, std::initializer_list<Term> more) {
  terms.insert(terms.end(), more);
  return terms;
}

}  // namespace

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

namespace {

const char* kRingSource = "ring volumes, nccl-tests PERFORMANCE.md";

}  // namespace

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
  if (s.recipe.zero_stage == 0) {
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
  if (s.recipe.sequence_parallel) {
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
  if (s.recipe.sequence_parallel || s.recipe.pp_scatter_gather) {
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
  switch (s.recipe.context_parallel) {
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
  const auto terms = with(micro_batch_terms(s, r),
                          {degree("eTP", s.recipe.expert_tp, "expert tensor-parallel degree"),
                           degree("TP", r.degrees.tp, "tensor-parallel degree"),
                           {"k", moe.experts_per_token, "", "experts per token"},
                           {"c", moe.capacity, "", "capacity factor"},
                           degree("EP", r.degrees.ep, "expert-parallel degree")});
  return derive("b × s ÷ CP × eTP ÷ TP × k × c × h × a × (EP − 1) ÷ EP", terms,
                r.comms.expert.bytes_per_message, "B",
                "Lepikhin et al. 2020 (GShard); Megatron-Core's all-to-all token dispatcher");
}

namespace {

const char* kLayoutSource =
    "rank layout: ranks numbered innermost seam first (Megatron-LM's tp,pp,dp: Narayanan et "
    "al. 2021 Sec. 3.3); node = rank ÷ GPUs per node, NVLink domain = rank ÷ its GPUs";

const char* upper(Seam seam) {
  return seam == Seam::kTensor ? "TP" : seam == Seam::kPipeline ? "PP" : "DP";
}

// "8 ranks apart (TP 4 × PP 2 nested inside)", or "neighbouring ranks" for the innermost.
std::string spacing(const Scenario& s, const Degrees& g, Seam seam) {
  const long long stride = stride_of(g, s.recipe.order, seam);
  if (stride == 1) return "neighbouring ranks";
  std::string inner;
  for (Seam other : s.recipe.order) {
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

}  // namespace

Derivation group_size(const Scenario& s, const Report& r, Seam seam) {
  const Degrees& g = r.degrees;
  const std::string where = spacing(s, g, seam) + ", order " + order_text(s.recipe.order);
  const Term own = degree(upper(seam), degree_of(g, seam), degree_name(seam));
  // Gradients are reduced over DP x CP: each CP rank saw part of every sequence (comms.cpp).
  if (seam == Seam::kData && g.cp > 1) {
    return derive("DP × CP", {own, degree("CP", g.cp, "context-parallel degree")},
                  r.comms.data.group_size, "GPUs", kLayoutSource, "DP members are " + where);
  }
  return derive(upper(seam), {own}, degree_of(g, seam) * 1.0, "GPUs", kLayoutSource,
                "members are " + where);
}

namespace {

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

// Where a seam's groups sit in the nesting order, and the level of the fleet they stay inside
// (layout.h Fabric): "TP groups of 4 GPUs, neighbouring ranks, each sit in one node of 8 GPUs".
std::string where_groups_sit(const Scenario& s, const Report& r, Seam seam,
                             const std::string& level) {
  const Degrees& g = r.degrees;
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
  if (trays && !spans) where += " (NVLink across its trays of " + str(s.fleet.gpus_per_node) + ")";
  if (level == "rail") {
    where += ", every member on one rail (the same GPU index of its node of " +
             str(s.fleet.gpus_per_node) + ")";
  }
  if (level == "spine") where += ", members on different rails, so through the spine";
  return where;
}

Derivation nvlink_rate(const Scenario& s, double rate, const std::string& source,
                       const std::string& note) {
  return derive("V × η",
                {{"V", s.gpu.nvlink_gb_s * 1e9, "B/s", "NVLink per GPU per direction"},
                 {"η", s.gpu.nvlink_efficiency, "", efficiency_name(s, "of it NCCL reaches")}},
                rate, "B/s", source, note);
}

// A collective on the network spreads over the NICs of its group's members in a domain, up to
// NVLink (comms.h collective_rate): NVIDIA/nccl#320, #569.
Derivation network_rate(const Scenario& s, Fabric f, const Reach& reach, double rate,
                        const std::string& source, const std::string& why) {
  const int k = nics_used(f, reach);
  const std::string src = source +
                          "; rails and the spine: Wang et al. 2023 (Rail-only, arXiv:2307.12169) "
                          "Sec. 2; NICs per domain: NVIDIA/nccl#320, #569 (comms.h)";
  if (k > 1 && rate >= link_rate(Fabric::kDomain, s)) {
    return nvlink_rate(s, rate, src,
                       "NVLink, which carries the ring inside each domain, limits " +
                           std::to_string(k) + " NICs: " + why);
  }
  std::vector<Term> terms = {{"W", s.gpu.network_gb_s * 1e9, "B/s", network_name(s.gpu)}};
  std::string formula = "W";
  if (k > 1) {
    terms.insert(terms.begin(), {"k", 1.0 * k, "NICs", "the group's fewest members in a domain"});
    formula = "k × W";
  }
  if (s.gpu.network_efficiency != 1) {
    terms.push_back({"η", s.gpu.network_efficiency, "", efficiency_name(s, "of it NCCL reaches")});
    formula += " × η";
  }
  if (f == Fabric::kSpine && s.fleet.network_oversubscription != 1) {
    terms.push_back({"o", s.fleet.network_oversubscription, "", "the spine's oversubscription"});
    formula += " ÷ o";
  }
  if (k > 1 && reach.spread == Spread::kAllReduce && reach.group == 2 * reach.in_domain) {
    terms.push_back({"n", 1.0 * reach.group, "GPUs", "the group on two domains (NCCL's tree)"});
    formula += " × 2 × (n − 1) ÷ n";
  }
  return derive(formula, terms, rate, "B/s", src, "the network: " + why);
}

// The gradients' link: with routed experts, the dense and the experts' groups' rates blended by
// their shares of the volume; else the dense group's.
Derivation data_link(const Scenario& s, const Report& r, const SeamTraffic& t,
                     const std::string& source, const std::string& where) {
  const Degrees& g = r.degrees;
  const StageParams st = params_on(s, r, r.comms.stage);
  const NodeSpans at = node_spans(g, s.fleet.gpus_per_node, s.recipe.order, s.domain_gpus());
  const DataRate data = data_rate(s, g, at, st.params_per_gpu, st.expert_params_per_gpu);
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
  if (std::string(t.level) == "nvlink_domain") {
    return nvlink_rate(s, t.link_bytes_per_s, source, "NVLink: " + where);
  }
  return network_rate(s, data.dense_level, data.dense, t.link_bytes_per_s, source, where);
}

}  // namespace

// The link a seam's traffic rides, with why: where its groups sit, and the level of the fleet
// they stay inside.
Derivation link(const Scenario& s, const Report& r, Seam seam, const SeamTraffic& t) {
  const std::string level = t.level;
  const std::string where = where_groups_sit(s, r, seam, level);
  const std::string source =
      std::string(kLayoutSource) + "; NVLink's reach: nccl-tests PERFORMANCE.md";
  if (seam == Seam::kData) return data_link(s, r, t, source, where);
  if (level == "nvlink_domain") {
    return nvlink_rate(s, t.link_bytes_per_s, source, "NVLink: " + where);
  }
  const Fabric f = level == "spine" ? Fabric::kSpine : Fabric::kRail;
  Reach reach;
  if (seam == Seam::kTensor) {
    const NodeSpans at =
        node_spans(r.degrees, s.fleet.gpus_per_node, s.recipe.order, s.domain_gpus());
    reach = {s.recipe.sequence_parallel ? Spread::kRing : Spread::kAllReduce, at.tp.in_domain,
             r.degrees.tp};
  }
  return network_rate(s, f, reach, t.link_bytes_per_s, source, where);
}

Derivation messages(const Scenario& s, const Report& r, Seam seam) {
  const int m = r.pipeline.microbatches;
  const int stage = r.comms.stage;
  const Term micro = {"m", 1.0 * m, "micro-batches", "micro-batches per step"};
  if (seam == Seam::kData) {
    const StageParams st = params_on(s, r, stage);
    const DataParallelParts parts =
        data_parallel_parts(s, r.degrees, st.params_per_gpu, m, st.expert_params_per_gpu);
    return derive(
        "R + G",
        {{"R", parts.reductions, s.recipe.zero_stage == 0 ? "all-reduce" : "reduce-scatter",
          s.recipe.zero_stage == 0 ? "all-reduces per step" : "reduce-scatters per step"},
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

}  // namespace pe::explain
