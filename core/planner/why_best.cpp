#include "planner/why_best.h"

#include <algorithm>

#include "model/pipeline.h"
#include "model/text.h"

namespace pe {
namespace {

// The explanation speaks as the page does: "a 23.4% bubble", "an 8.96% bubble", "72.6 GB".
std::string percent(double fraction) { return short_number(100 * fraction) + "%"; }
// "a 23.4%", "an 8.96%".
std::string a_percent(double fraction) {
  const std::string text = percent(fraction);
  return article(text) + " " + text;
}
std::string gb(double bytes) { return bytes_text(bytes); }

std::string count(long long n) { return count_text(n); }

// Why nothing is feasible: the layers and heads, the batch, or memory, with its numbers.
std::string why_none(const Scenario& base, const PlanResult& r) {
  const std::string gpus = count(base.fleet.gpus) + " GPUs";
  if (r.layouts == 0) {
    return "No layout: no DP x TP x PP of " + gpus + " has TP dividing the " +
           count(base.model.heads) + " heads and at most " + count(base.model.layers) +
           " pipeline stages (one per layer). Use a GPU count with more small factors.";
  }
  if (r.layouts_batch_refused == r.layouts) {
    // The smallest batch some layout's DP divides: rounding up to a multiple of 64 suggested
    // the batch just refused (64 on 14 GPUs, DP 7 or 14) or another none divides (128).
    return "No layout: the global batch of " + count(base.batch.global_batch) +
           " sequences divides by none of the DP degrees " + gpus +
           " allow (every replica needs a whole number of sequences). The smallest batch above "
           "it that one of them divides is " +
           count(r.batch_suggested) + ".";
  }
  const double has = base.gpu.memory_gb * 1e9;
  const double margin = 1 - r.memory_limit_bytes / has;
  const std::string limit = margin > 1e-9
                                ? "the " + gb(r.memory_limit_bytes) + " each GPU may use (its " +
                                      gb(has) + " less " + a_percent(margin) + " margin)"
                                : "the " + gb(has) + " of each GPU";
  return "No layout fits: the least any configuration needs is " + gb(r.least_bytes) +
         " per GPU, more than " + limit + ". Use more or larger GPUs.";
}

// A link in words: the report's "nvlink" and "network".
std::string link_words(const std::string& link) {
  return link == "nvlink" ? "NVLink" : link == "network" ? "the network" : link;
}

}  // namespace

// The batch too small for the fleet: the best plan runs fewer micro-batches than stages (the
// bubble (p - 1)/m passes 100%), or the batch caps DP below one replica per node. The
// suggestion is the smallest batch with m = 4p micro-batches for the same layout, bubble
// (p - 1)/(4p) < 25%, and DP able to reach one replica per node.
std::vector<std::string> batch_warnings(const Scenario& base, const PlanResult& r) {
  std::vector<std::string> out;
  if (r.top.empty()) return out;
  const Plan& p = r.top.front();
  const int m = base.batch.global_batch / (p.recipe.micro_batch * p.degrees.dp);
  const long long nodes = std::max(1, base.fleet.gpus / std::max(1, base.fleet.gpus_per_node));
  const long long for_stages = 4LL * p.degrees.pp * p.recipe.micro_batch * p.degrees.dp;
  const long long for_dp = nodes * 4;
  if (p.degrees.pp > 1 && m < p.degrees.pp) {
    out.push_back("The global batch of " + count(base.batch.global_batch) +
                  " sequences is small for " + count(base.fleet.gpus) +
                  " GPUs: the best layout runs " + count(m) + " micro-batches through " +
                  count(p.degrees.pp) + " pipeline stages, " +
                  a_percent(p.figures.bubble_fraction) + " bubble (MFU " + percent(p.figures.mfu) +
                  "). A global batch of " + count(for_stages) + " sequences would give " +
                  count(4LL * p.degrees.pp) + " micro-batches, a bubble under 25%.");
  }
  if (base.batch.global_batch < nodes) {
    out.push_back("The global batch of " + count(base.batch.global_batch) +
                  " sequences starves DP: " + "fewer sequences than the " + count(nodes) +
                  " nodes, so DP cannot give each node a replica and TP or PP must grow past a "
                  "node. A global batch of " +
                  count(for_dp) + " sequences or more lets DP reach one replica per node.");
  }
  return out;
}

std::string why_best(const Scenario& base, const PlanResult& r, PlanRank rank) {
  if (r.top.empty()) return why_none(base, r);
  const Plan& p = r.top.front();
  const Degrees& d = p.degrees;
  std::string why = "DP " + std::to_string(d.dp) + " x TP " + std::to_string(d.tp) + " x PP " +
                    std::to_string(d.pp) +
                    (d.cp > 1 ? " x CP " + std::to_string(d.cp) : std::string()) +
                    (d.ep > 1 ? " (EP " + std::to_string(d.ep) + ")" : std::string()) + " wins: ";
  // A TP group wider than a node that stays in the NVLink domain (a GB200 NVL72's trays).
  const bool trays = d.tp > base.fleet.gpus_per_node && base.domain_spans_nodes();
  why += d.tp > 1 ? std::string("TP ") + std::to_string(d.tp) +
                        (std::string(p.figures.comms.tensor.link) != "nvlink"
                             ? " pays for all-reduces over the network"
                         : trays ? " stays inside the " + std::to_string(base.domain_gpus()) +
                                       "-GPU NVLink domain (across trays of " +
                                       std::to_string(base.fleet.gpus_per_node) +
                                       "), its per-layer all-reduces on NVLink"
                                 : " keeps the per-layer all-reduces on NVLink")
                  : std::string("no TP, so no per-layer all-reduces");
  why += d.pp > 1 ? ", PP " + std::to_string(d.pp) +
                        (splits_weight_grad(p.recipe.schedule)
                             ? std::string(" with ") + schedule_words(p.recipe.schedule)
                             : std::string()) +
                        " costs " + a_percent(p.figures.bubble_fraction) + " bubble"
                  : ", no pipeline bubble";
  if (d.cp > 1) {
    why += ", CP " + std::to_string(d.cp) + " splits each sequence (its K/V ride " +
           link_words(p.figures.comms.context.link) + ")";
  }
  if (d.ep > 1) {
    why += ", EP " + std::to_string(d.ep) + " splits the experts (their all-to-alls ride " +
           link_words(p.figures.comms.expert.link) + ")";
  }
  why += ", and it needs " + gb(p.figures.per_gpu_bytes) + " of the " +
         gb(base.gpu.memory_gb * 1e9) + " per GPU";
  const bool failures = rank == PlanRank::kTimeWithFailures;
  if (failures) {
    why += "; with failures and checkpoints " + percent(p.figures.effective_time) +
           " of its time is new "
           "work";
  }
  if (r.top.size() > 1) {
    const double lead = r.top[1].figures.rank_s / p.figures.rank_s - 1;
    const std::string to_train = failures ? " to train with failures" : "";
    why += ties_with_best(r.top[1].figures.rank_s, p.figures.rank_s)
               ? "; the next layout is " + percent(lead) + " slower" + to_train + ", within " +
                     percent(kTieWithin) + ": the model cannot tell them apart"
               : "; " + percent(lead) + " faster" + to_train + " than the next layout";
  }
  return why + ".";
}

}  // namespace pe
