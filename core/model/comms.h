// What crosses the wire, per GPU per training step, for each seam, on the busiest GPU.
#pragma once

#include <vector>

#include "model/layout_facts.h"
#include "model/report.h"
#include "model/scenario.h"

namespace pe {

// Pipeline sends per micro-batch of a GPU on `stage`: to the next stage (forward) and to the
// previous one (backward). With v model chunks per GPU (interleaved) each boundary is crossed
// v times (Narayanan et al. 2021 Sec. 2.2.2).
struct PipelineSends {
  int next = 0;
  int prev = 0;
};
PipelineSends pipeline_sends(const Scenario& s, int pp, int stage);

// Tensor-parallel collectives per layer per micro-batch: 2 forward and 2 backward all-reduces
// (Narayanan et al. 2021 Sec. 3.2); with sequence parallelism an all-gather and a
// reduce-scatter each, and the backward's all-gather of the layer input again (10; Megatron-Core
// tensor_parallel/layers.py); full recomputation repeats the forward's (6 and 14) on the layers
// it re-runs whole: per layer of a stage of `layers`, on average.
double tensor_collectives_per_layer(const Scenario& s, int layers);

// Bytes per second a seam's traffic gets at the level it rides (layout.h Fabric): NVLink inside
// its domain, the network on one rail, each at the share NCCL reaches; across rails the spine's
// share of it, the network / network_oversubscription (an oversubscribed spine gives each
// leaf's uplinks 1/o of its downlinks: Wang et al. 2023, arXiv:2307.12169, Sec. 2; the rail's
// own switch is non-blocking). The bool form: across domains on a rail, or inside one.
double link_rate(Fabric f, const Scenario& s);
double link_rate(bool crosses_nodes, const Scenario& s);

// How a seam's traffic leaves an NVLink domain (NCCL). A ring collective (all-reduce,
// reduce-scatter, all-gather) builds several rings (channels) and spreads them over the
// domain's NICs, one per GPU: every byte of the ring enters and leaves each domain once per
// channel, so a group with k members in a domain moves its bytes through k NICs at once, until
// NVLink, which still carries the ring inside the domain, becomes the limit (NVIDIA/nccl#320:
// "~20 GB/s per NIC" adding up across a DGX A100's eight until NVLink limits; nccl#569:
// 1.6 GB all-reduced over 8 DGX-2 GPUs in 363 ms at 1 per node, 173 ms at 2, 132 ms at 4;
// nccl#687: a ring enters and leaves a node once). The bus rate is min(k x the link, NVLink);
// with one member per domain the ring never touches NVLink: the link alone. The ring passes
// through every domain of its group, so where a group's members fall unevenly (a group
// starting mid-domain, a partial domain) k is the fewest any of its domains holds, and the
// slowest group paces the seam (layout.h DomainSplit); so too for an all-to-all's sender.
// On exactly two domains NCCL's tree all-reduce sends each byte across once, not the ring's
// 2(n-1)/n (nccl#812, nccl#307: two-node tree bus bandwidth above the NICs' limit). Taken where
// n = 2k: k being the fewest, every group that leaves its domain then sits on two, k and k; a
// group split unevenly over two domains is priced as the ring, a bound.
// An all-to-all has each GPU send to every other member directly: the share bound for other
// domains, (n - k)/(n - 1), through its own NIC, the rest over NVLink, both at once.
// Point-to-point sends (pipeline, CP ring passes) ride the sender's own NIC: k = 1.
enum class Spread : signed char { kPointToPoint, kRing, kAllReduce, kAllToAll };
struct Reach {
  Spread spread = Spread::kPointToPoint;
  int in_domain = 1;  // the group's fewest members in a domain it touches (k)
  int group = 1;      // the group's size (n)
};
// The rate a seam's collective reaches at level f: NVLink inside a domain, else as above. The
// NICs it spreads over: k for rings, 1 otherwise (nics_used).
double collective_rate(Fabric f, const Scenario& s, const Reach& r);
int nics_used(Fabric f, const Reach& r);

// The data seam's rate: its dense part over the dp x cp group, the routed experts' gradients
// (a share of the ring's volume, weighted by their own group's (n_e-1)/n_e) over the
// expert-data-parallel group, each at its own group's rate; the blend is the seam's rate.
struct DataRate {
  Reach dense;
  Fabric dense_level = Fabric::kDomain;
  double dense_bytes_per_s = 0;
  double expert_share = 0;  // of the volume; 0 without routed experts over another group
  Reach expert;
  Fabric expert_level = Fabric::kDomain;
  double expert_bytes_per_s = 0;
  double blended_bytes_per_s() const {
    return expert_share > 0
               ? 1 / ((1 - expert_share) / dense_bytes_per_s + expert_share / expert_bytes_per_s)
               : dense_bytes_per_s;
  }
};
DataRate data_rate(const Scenario& s, const Degrees& d, const NodeSpans& spans,
                   double params_per_gpu, double expert_params_per_gpu);

// The level a GPU of pipeline stage a and its counterpart on stage b (same DP, TP and CP
// coordinates) ride, the worst over those pairs, with the ranks numbered in the scenario's
// order (layout.h): the domain when every pair shares one, else the rail when the stages'
// rank distance is a multiple of the node, else the spine. stages_cross_nodes: not the domain.
Fabric stage_hop(const Scenario& s, const Degrees& d, int a, int b);
bool stages_cross_nodes(const Scenario& s, const Degrees& d, int a, int b);

// The traffic of one GPU on pipeline stage `stage`, holding `params_per_gpu` parameters
// (whose gradients the DP group reduces; `expert_params_per_gpu` of them routed experts', which
// the expert-data-parallel group reduces) and `stage_layers` layers, with m micro-batches.
// With context parallelism each GPU holds s/cp of every sequence, so TP and PP move s/cp tokens,
// and the gradients are reduced over the dp x cp ranks (Megatron-Core). The context and expert
// seams are context.h's and moe.h's.
CommsReport stage_comms(const Scenario& s, const Degrees& d, int stage, double params_per_gpu,
                        int stage_layers, int microbatches, double expert_params_per_gpu = 0);

// The same with the layout's node spans and hops from `f`, and the stage's MoE layers given.
CommsReport stage_comms(const Scenario& s, const LayoutFacts& f, int stage, double params_per_gpu,
                        int stage_layers, int stage_moe_layers, int microbatches,
                        double expert_params_per_gpu);

// Only the seams that follow a stage's layers: tensor, context and expert. What step_time
// overlaps with each stage's compute.
struct LayerTraffic {
  SeamTraffic tensor;
  SeamTraffic context;
  SeamTraffic expert;
};
LayerTraffic layer_traffic(const Scenario& s, const LayoutFacts& f, int stage_layers,
                           int stage_moe_layers, int microbatches);
// Only the pipeline seam's sends of a stage (stage_comms' pipeline).
SeamTraffic stage_pipeline_traffic(const Scenario& s, const LayoutFacts& f, int stage,
                                   int microbatches);

// The busiest GPU: the stage that sends the most bytes per step (every stage's params and
// layers from memory.h and pipeline.h). Its stage is in CommsReport::stage. What depends on
// the layout only is read from `f`, as the planner reads it.
CommsReport comms_report(const Scenario& s, const LayoutFacts& f, int microbatches);

// comms_report in two steps, for the planner: every traffic stage's report but its data seam,
// which alone depends on ZeRO (once per configuration but ZeRO), then the data seams under the
// scenario's ZeRO stage and the busiest of the reports (once per ZeRO stage).
void stage_reports_but_data(const Scenario& s, const LayoutFacts& f, int microbatches,
                            std::vector<CommsReport>& reports);
// (A report of `reports`, or of no traffic when there are none.)
const CommsReport& busiest_stage(const Scenario& s, const LayoutFacts& f, int microbatches,
                                 std::vector<CommsReport>& reports);
// busiest_stage in two steps, for the planner: the data seam of each report's stage, which
// depends on the micro-batches, the precision and the ZeRO stage `s` holds but not on the
// schedule, SP or recomputation (so the planner keeps them across those), then the busiest of
// the reports with `data_seams` (one per report, in its order) filled in.
void data_seams(const Scenario& s, const LayoutFacts& f, int microbatches,
                const std::vector<CommsReport>& reports, std::vector<SeamTraffic>& data_seams);
const CommsReport& busiest_stage(const std::vector<SeamTraffic>& data_seams,
                                 std::vector<CommsReport>& reports);
// The reports' pipeline seams again, under the schedule `s` holds now: the only seam of
// stage_reports_but_data that depends on it, so the planner builds the others once for every
// schedule it tries.
void refresh_pipeline_traffic(const Scenario& s, const LayoutFacts& f, int microbatches,
                              std::vector<CommsReport>& reports);

// The seam whose traffic per GPU per step is the largest ("tensor"; ties go to the slower
// link, as the busiest stage's do), or "" when nothing crosses a link: what a one-line
// readout names.
const char* busiest_seam(const CommsReport& c);

// Bytes of one DP all-gather of the weights and of one reduce-scatter of the gradients (or
// all-reduce with ZeRO 0) for a GPU holding `params_per_gpu`: what step_time overlaps.
struct DataParallelParts {
  double ring_params = 0;   // parameters as the dp x cp ring sees them (experts weighted)
  double reduce_bytes = 0;  // per reduction
  double gather_bytes = 0;  // per gather
  double reductions = 0;    // per step: 1, or m with ZeRO-2/3 (every micro-batch)
  double gathers = 0;       // per step: 0 (ZeRO 0), 1 (ZeRO-1/2), 2m (ZeRO-3)
};
DataParallelParts data_parallel_parts(const Scenario& s, const Degrees& d, double params_per_gpu,
                                      int microbatches, double expert_params_per_gpu = 0);

}  // namespace pe
