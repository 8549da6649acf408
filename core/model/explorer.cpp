#include "model/explorer.h"

#include <cmath>
#include <cstdio>

#include "model/activations.h"
#include "model/comms.h"
#include "model/context.h"
#include "model/cost.h"
#include "model/factorize.h"
#include "model/goodput.h"
#include "model/layout.h"
#include "model/memory.h"
#include "model/model_shape.h"
#include "model/moe.h"
#include "model/pipeline.h"
#include "model/schema.h"
#include "model/step_time.h"
#include "model/text.h"
#include "model/validate.h"

namespace pe {
namespace {

std::string str(long long v) { return std::to_string(v); }

// What the report says in words, in two lists (report.h): warnings, where the model assumed
// something or a framework would differ; facts, what the chosen layout is, which the panels
// also show as numbers (idle GPUs, the memory verdict, a seam's link, the nesting order's cost).
struct Sentences {
  std::vector<std::string> warnings, facts;
};

// Selective recomputation of core_attn saves nothing under fused attention: it keeps no scores.
void recompute_sentences(const Scenario& s, const Degrees& d, Sentences& said) {
  std::vector<std::string>& w = said.warnings;
  const ModelSpec& model = s.model;
  if ((s.recipe.selective_modules() & kCoreAttn) && s.recipe.flash_attention) {
    const double scores =
        attention_scores_bytes(model.heads, s.batch.seq_len, s.recipe.micro_batch) / d.tp / d.cp;
    w.push_back(
        "Selective recomputation saves nothing here: fused attention already keeps no s x "
        "s scores (" +
        bytes_text(scores) + " a layer without it).");
  }
}

// The layout: idle GPUs, seams that leave their link, splits Megatron-LM refuses, the batch
// and the schedule against the stages, the nesting order's cost.
[[gnu::always_inline]] inline void layout_sentences(const Scenario& s, const Degrees& d,
                                                    const Report& r, Sentences& said) {
  std::vector<std::string>& w = said.warnings;
  if (!s.recipe.seams.any() && !s.recipe.degrees) {
    const int idle = s.fleet.gpus - 1;
    const std::string others =
        idle == 1 ? "the other GPU sits" : "the other " + str(idle) + " GPUs sit";
    said.facts.push_back(
        "No seam is on: one GPU trains the whole model" +
        (idle == 0 ? std::string(".") : " and " + others + " idle. Turn on a seam to use them."));
  }
  if (r.comms.tensor.active && std::string(r.comms.tensor.link) == "network") {
    // The network's rate per GPU: a collective spread over a node's NICs reaches more
    // (comms.h), which the wire card's rate shows.
    const bool domains = s.domain_spans_nodes();
    said.facts.push_back(std::string("Tensor parallelism spans ") +
                         (domains ? "NVLink domains" : "nodes") +
                         ": its per-layer all-reduces leave the " + (domains ? "domain" : "node") +
                         " over the network (" + short_number(s.gpu.network_gb_s) +
                         " GB/s a GPU). Keep TP within " + str(s.domain_gpus()) + " GPUs.");
  }
  if (s.model.heads % d.tp != 0) {
    w.push_back("TP = " + str(d.tp) + " does not divide the " + str(s.model.heads) +
                " attention heads: Megatron-LM would refuse this split.");
  }
  if (r.global_batch != s.batch.global_batch) {
    w.push_back("Global batch rounded up from " + str(s.batch.global_batch) + " to " +
                str(r.global_batch) + " sequences so each of the " + str(d.dp) +
                " replicas gets whole micro-batches of " + str(s.recipe.micro_batch) + ".");
  }
  if (d.pp > 1 && r.pipeline.microbatches < d.pp) {
    w.push_back("Only " + str(r.pipeline.microbatches) + " micro-batches for " + str(d.pp) +
                " pipeline stages: the bubble dominates. Raise the global batch.");
  }
  if (s.recipe.schedule != Schedule::kOneFOneB && d.pp == 1) {
    w.push_back("The " + enum_name("schedule", s.recipe.schedule) +
                " schedule needs pipeline stages; with PP = 1 it is plain.");
  }
  if (s.recipe.order != kBookOrder && r.order_cost_s > 0) {
    said.facts.push_back("Nesting order " + order_text(s.recipe.order) + " costs " +
                         seconds_text(r.order_cost_s) +
                         " per step against the chapter's tp,pp,dp on the same " + str(d.dp) + "x" +
                         str(d.tp) + "x" + str(d.pp) + " layout.");
  }
}

// Interleaving's assumptions where Megatron-Core's rules do not hold.
[[gnu::always_inline]] inline void interleaving_sentences(const Scenario& s, const Degrees& d,
                                                          const Report& r, Sentences& said) {
  std::vector<std::string>& w = said.warnings;
  const StageSplit& split = r.pipeline.split;
  const std::string layers_text =
      "first stage " + str(split.first) +
      (d.pp > 2 ? ", middle stages " + str(split.middle) +
                      (split.extra_from < d.pp - 1 ? " (" + str(split.middle + 1) + " from stage " +
                                                         str(split.extra_from) + " on)"
                                                   : std::string())
                : std::string()) +
      ", last stage " + str(split.last);
  // How the layers split over the stages when they do not divide evenly is a fact of the
  // layout, not a warning: report.pipeline.stage_layers says it (its rule: "ends", Megatron-
  // Core's embedding and loss counted as a layer each; "balanced", the extra layers on the
  // last middle stages, a split Megatron-LM refuses without first/last_stage_layers), and the
  // page writes it under the stages' memory.
  if (s.recipe.schedule == Schedule::kInterleaved && r.pipeline.virtual_stages > 1) {
    const int v = r.pipeline.virtual_stages, m = r.pipeline.microbatches;
    if (m % d.pp != 0) {
      w.push_back(
          "Interleaving: Megatron-Core needs the micro-batch count to be a multiple of "
          "the " +
          str(d.pp) + " stages, and it is " + str(m) +
          ". Assumed a bubble of (p-1)/v micro-batch times all the same.");
    }
    if (!chunks_even(split, v)) {
      w.push_back("Interleaving: Megatron-Core splits each stage's layers into " + str(v) +
                  " equal chunks, and the stages hold " + layers_text +
                  " layers. Assumed uneven chunks, as custom schedules run them (Llama 3).");
    }
  }
}

// What the model counts (a shape scaled to its parameters, the book's memory model), and
// whether the busiest GPU fits.
[[gnu::always_inline]] inline void memory_sentences(const Scenario& s, const Report& r,
                                                    Sentences& said) {
  std::vector<std::string>& w = said.warnings;
  if (s.model.shape_nominal) {
    w.push_back("model.params is given without an architecture: the " + str(s.model.layers) +
                "-layer, " + str(s.model.hidden) +
                "-wide shape is scaled to it for weights and FLOPs; activations and traffic "
                "use the shape as it is.");
  }
  const Scenario plain;
  const bool practitioner = s.recipe.recompute != plain.recipe.recompute ||
                            s.recipe.sequence_parallel != plain.recipe.sequence_parallel ||
                            s.recipe.schedule != plain.recipe.schedule ||
                            s.recipe.micro_batch != plain.recipe.micro_batch ||
                            s.batch.seq_len != plain.batch.seq_len ||
                            s.recipe.first_stage_layers != 0 || s.recipe.last_stage_layers != 0;
  if (s.recipe.memory_model == MemoryModel::kBook && practitioner) {
    w.push_back(
        "memory_model is \"book\": weights and optimizer only, no activations and no "
        "overhead, so recomputation, sequence parallelism, the micro-batch and the "
        "sequence length do not change the memory. Set memory_model to \"full\" to "
        "count them.");
  }
  const double gb = s.gpu.memory_gb;
  if (r.memory.per_gpu_bytes > r.memory.gpu_memory_bytes) {
    said.facts.push_back("Does not fit: the busiest GPU needs " +
                         bytes_text(r.memory.per_gpu_bytes) + ", more than its " +
                         bytes_text(gb * 1e9) + ".");
  } else if (std::string(r.memory.verdict) == "tight") {
    said.facts.push_back(
        "Tight: the busiest GPU needs " + bytes_text(r.memory.per_gpu_bytes) + " of its " +
        bytes_text(gb * 1e9) + ", " + bytes_text(r.memory.headroom_bytes) +
        " of headroom. Tuned runs run this close, but past " +
        str(std::llround(100 * r.memory.safe_fraction)) +
        "% of the GPU estimates like this one have run out of memory in practice " +
        "(Fujii et al. 2024): the risk is yours.");
  }
}

// A mixture of experts: no ranks to split the experts over, dropped tokens, all-to-alls on
// the network.
[[gnu::always_inline]] inline void expert_sentences(const Scenario& s, const Degrees& d,
                                                    const Report& r, Sentences& said) {
  std::vector<std::string>& w = said.warnings;
  if (s.recipe.seams.expert && s.model.moe() && !s.recipe.degrees && d.ep == 1 &&
      d.dp * d.cp == 1) {
    w.push_back(
        "Expert parallelism carves its groups out of the data- and context-parallel "
        "ranks, and there are none: turn on data or context parallelism to split the "
        "experts.");
  }
  if (s.model.moe() && s.recipe.capacity_factor > 0 && s.recipe.capacity_factor < 1) {
    // Switch Transformer (arXiv:2101.03961) Sec. 2.1: tokens past an expert's capacity skip it.
    w.push_back("capacity_factor " + short_number(s.recipe.capacity_factor) +
                " drops tokens: each expert takes " + short_number(100 * s.recipe.capacity_factor) +
                "% of an even share, so about " +
                short_number(100 * (1 - s.recipe.capacity_factor)) +
                "% of the routed token copies skip their experts. The FLOPs, MFU and HFU count "
                "only the tokens computed; 1 or more (or 0, dropless) trains on every token.");
  }
  if (r.comms.expert.active && std::string(r.comms.expert.link) == "network") {
    const bool domains = s.domain_spans_nodes();
    said.facts.push_back(std::string("Expert parallelism spans ") +
                         (domains ? "NVLink domains" : "nodes") + ": its all-to-alls ride the " +
                         short_number(s.gpu.network_gb_s) + " GB/s network.");
  }
}

// The warnings and facts by concern, each above always inlined into this one function: the page's
// first-load module (-Oz) would otherwise keep each as a call of its own (70 bytes gzipped).
Sentences sentences_of(const Scenario& s, const Degrees& d, const Report& r) {
  Sentences said;
  layout_sentences(s, d, r, said);
  interleaving_sentences(s, d, r, said);
  memory_sentences(s, r, said);
  recompute_sentences(s, d, said);
  expert_sentences(s, d, r, said);
  return said;
}

}  // namespace

Degrees resolve_degrees(const Scenario& s) {
  if (s.recipe.degrees) return *s.recipe.degrees;
  return auto_factor(s);
}

Problem layout_problem(const Scenario& s, const Degrees& d) {
  if (d.pp > s.model.layers) {
    // Explicit degrees are at fault; auto-factored ones come from the GPU count.
    return {s.recipe.degrees ? "degrees.pp" : "gpus",
            "pipeline degree " + str(d.pp) + " exceeds the model's " + str(s.model.layers) +
                " layers: allowed at most one stage per layer (fewer GPUs, or another seam)"};
  }
  if (std::string problem = split_problem(s, d.pp); !problem.empty()) {
    return {"first_stage_layers", problem};
  }
  const int v = s.recipe.schedule == Schedule::kInterleaved ? s.recipe.virtual_stages : 1;
  if (std::string problem = chunks_problem(s, d.pp, v); !problem.empty()) {
    return {"virtual_stages", problem};
  }
  if (std::string problem = schedule_problem(s, d, microbatches_per_step(s, d)); !problem.empty()) {
    return {"schedule", problem};
  }
  if (Problem p = context_problem(s, d); !p.empty()) return p;
  return expert_problem(s, d);
}

std::vector<Degrees> accepted_layouts(const Scenario& s) {
  std::vector<Degrees> out;
  const bool context = s.recipe.seams.context || (s.recipe.degrees && s.recipe.degrees->cp > 1);
  const bool expert =
      s.model.moe() && (s.recipe.seams.expert || (s.recipe.degrees && s.recipe.degrees->ep > 1));
  for (int tp = 1; tp <= s.fleet.gpus; ++tp) {
    if (s.fleet.gpus % tp != 0) continue;
    for (int cp = 1; cp <= (context ? s.fleet.gpus / tp : 1); ++cp) {
      if ((s.fleet.gpus / tp) % cp != 0) continue;
      const int rest = s.fleet.gpus / (tp * cp);
      for (int pp = 1; pp <= rest; ++pp) {
        if (rest % pp != 0) continue;
        const int dp = rest / pp;
        for (int ep = 1; ep <= (expert ? dp * cp : 1); ++ep) {
          if ((dp * cp) % ep != 0) continue;
          const Degrees d{dp, tp, pp, cp, ep};
          if (layout_problem(s, d).empty()) out.push_back(d);
        }
      }
    }
  }
  return out;
}

Result<Report> evaluate(const Scenario& s, bool with_ranks) {
  if (Problem problem = validate(s); !problem.empty()) return Result<Report>::failure(problem);
  const Degrees d = resolve_degrees(s);
  if (Problem problem = layout_problem(s, d); !problem.empty()) {
    return Result<Report>::failure(problem);
  }

  const ModelShape shape(s);  // the layers' kinds, read by memory, traffic and time
  Report r;
  r.degrees = d;
  r.gpus = s.fleet.gpus;
  r.active_gpus = static_cast<int>(d.product());
  r.nodes = (s.fleet.gpus + s.fleet.gpus_per_node - 1) / s.fleet.gpus_per_node;
  r.domain_gpus = s.domain_gpus();
  r.domain_spans_nodes = s.domain_spans_nodes();
  r.model_params = s.model.params;
  r.model_active_params =
      shape.moe() ? s.model.params * shape.active_params() / shape.params() : s.model.params;
  r.precision = s.recipe.precision;
  if (with_ranks) r.ranks = layout(d, s.fleet.gpus_per_node, s.recipe.order);
  r.pipeline = pipeline_report(s, d);
  r.global_batch = r.pipeline.microbatches * s.recipe.micro_batch * d.dp;
  // The layout's split, node spans, hops and shards, computed once for memory, traffic and
  // time, which the planner reads the same way.
  const LayoutFacts facts(s, shape, d);
  r.memory = memory_report(s, facts, r.pipeline.microbatches);
  r.comms = comms_report(s, facts, r.pipeline.microbatches);
  r.time = time_report(s, facts, r.pipeline, r.comms, r.global_batch);
  r.pipeline.bubble_fraction = bubble_fraction(r.time);
  r.cost = cost_report(s, r.time);
  r.goodput = goodput_report(s, r);
  r.rule_order_step_s = r.time.step_s;
  if (s.recipe.order != kBookOrder) {
    // The same layout under the chapter's order. With no seam on, d is one GPU of the fleet:
    // written as explicit degrees it needs a fleet of its size, or the core refuses it (and
    // reading that refusal's value read uninitialised memory).
    Scenario rule = s;
    rule.recipe.order = kBookOrder;
    rule.recipe.degrees = d;
    rule.fleet.gpus = static_cast<int>(d.product());
    if (const Result<Report> ruled = evaluate(rule, false); ruled.ok()) {
      r.rule_order_step_s = ruled.value().time.step_s;
    }
  }
  r.order_cost_s = r.time.step_s - r.rule_order_step_s;
  Sentences said = sentences_of(s, d, r);
  r.warnings = std::move(said.warnings);
  r.facts = std::move(said.facts);
  return r;
}

}  // namespace pe
