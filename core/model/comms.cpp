#include "model/comms.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "model/activations.h"
#include "model/collectives.h"
#include "model/context.h"
#include "model/layout.h"
#include "model/memory.h"
#include "model/moe.h"
#include "model/pipeline.h"

namespace pe {
namespace {

void ride(SeamTraffic& t, Fabric f, const Scenario& s, const Reach& reach = {}) {
  t.link = f == Fabric::kDomain ? "nvlink" : "network";
  t.level = fabric_name(f);
  t.link_bytes_per_s = collective_rate(f, s, reach);
  t.nics = nics_used(f, reach);
  t.bytes_per_gpu_per_step = t.bytes_per_message * t.messages_per_step;
  t.time_s = t.bytes_per_gpu_per_step / t.link_bytes_per_s;
}

// An all-to-all inside a domain of several nodes rides NVLink between all its members. A run
// may instead treat each block of whole nodes as its domain: NCCL_MNNVL_ENABLE=0 has NCCL see
// a multi-node NVLink domain's trays as separate nodes, reached over their NICs, and DeepEP's
// internode kernels send between nodes over RDMA. Then each GPU sends over NVLink and its NIC
// at once (collective_rate). The model takes the faster route: NVLink's on today's fleets
// (NVLink 9x a NIC or more); with a NIC near NVLink's rate the split one, so that a larger
// domain, which keeps every smaller block's route open, never slows an all-to-all (a law).
void ride_all_to_all(SeamTraffic& t, Fabric level, const Scenario& s, const NodeSpans& spans,
                     const Reach& reach, const std::array<int, NodeSpans::kParts>& in_part,
                     bool off_rail) {
  ride(t, level, s, reach);
  if (level != Fabric::kDomain) return;
  for (int i = 0; i < spans.parts; ++i) {
    if (in_part[i] >= reach.group) continue;
    const Reach split{Spread::kAllToAll, in_part[i], reach.group};
    const Fabric across = fabric_of(true, off_rail);
    if (collective_rate(across, s, split) > t.link_bytes_per_s) ride(t, across, s, split);
  }
}

// Pipeline: each stage boundary carries b s h activations forward and their gradients backward
// per micro-batch (Narayanan Sec. 4.1). Each of the t ranks sends its 1/t slice only with
// sequence parallelism (Megatron-Core p2p_communication.py) or the 2021-22 scatter/gather. A
// GPU sends forward to the next stage and backward to the previous one; with v chunks per GPU
// it crosses its boundaries v times, and the last stage's chunk feeds the first stage's next.
// Each hop rides its own link: NVLink when the two stages share a node.
SeamTraffic pipeline_traffic(const Scenario& s, const LayoutFacts& f, int stage, int microbatches) {
  const Degrees& d = f.degrees();
  SeamTraffic t;
  t.group_size = d.pp;
  if (d.pp == 1) return t;
  t.active = true;
  t.collective = "point-to-point send/recv";
  const double bsh = 1.0 * s.recipe.micro_batch * s.batch.seq_len / d.cp * s.model.hidden;
  const bool sliced = s.recipe.sequence_parallel || s.recipe.pp_scatter_gather;
  t.bytes_per_message = bsh * kActivationBytes / (sliced ? d.tp : 1);
  const int p = d.pp;
  const PipelineSends sends = pipeline_sends(s, p, stage);
  const int prev_stage = (stage + p - 1) % p;
  const Fabric next = f.hop(stage), prev = f.hop(prev_stage);
  t.messages_per_step = 1.0 * (sends.next + sends.prev) * microbatches;
  t.bytes_per_gpu_per_step = t.bytes_per_message * t.messages_per_step;
  t.time_s = t.bytes_per_message * microbatches *
             (sends.next / link_rate(next, s) + sends.prev / link_rate(prev, s));
  // The slowest level a send rides: the report names it and its rate.
  const Fabric worst =
      std::max(sends.next > 0 ? next : Fabric::kDomain, sends.prev > 0 ? prev : Fabric::kDomain);
  t.link = worst == Fabric::kDomain ? "nvlink" : "network";
  t.level = fabric_name(worst);
  t.link_bytes_per_s = link_rate(worst, s);
  t.nics = nics_used(worst, Reach{});
  return t;
}

// Tensor: per layer per micro-batch, two all-reduces of b s h forward and two backward
// (Narayanan Sec. 3.2), each 2 (t-1)/t b s h per GPU (ring, nccl-tests PERFORMANCE.md): 8 b s h
// (t-1)/t. With sequence parallelism each becomes an all-gather plus a reduce-scatter of
// (t-1)/t b s h each, and the backward all-gathers the sharded layer input again for the weight
// gradients (Megatron-Core tensor_parallel/layers.py): 10 b s h (t-1)/t. Full recomputation
// repeats the forward's collectives: 12 and 14.
SeamTraffic tensor_traffic(const Scenario& s, const Degrees& d, int stage_layers, int microbatches,
                           Fabric level, int in_domain) {
  SeamTraffic t;
  t.group_size = d.tp;
  if (d.tp == 1) return t;
  t.active = true;
  const double bsh = 1.0 * s.recipe.micro_batch * s.batch.seq_len / d.cp * s.model.hidden;
  const double share = ring_share(d.tp);
  if (s.recipe.sequence_parallel) {
    t.collective = "all-gather + reduce-scatter every layer";
    t.bytes_per_message = share * bsh * kActivationBytes;
  } else {
    t.collective = "all-reduce every layer";
    t.bytes_per_message = 2 * share * bsh * kActivationBytes;
  }
  t.messages_per_step = tensor_collectives_per_layer(s, stage_layers) * stage_layers * microbatches;
  ride(t, level, s,
       {s.recipe.sequence_parallel ? Spread::kRing : Spread::kAllReduce, in_domain, d.tp});
  return t;
}

SeamTraffic data_traffic(const Scenario& s, const Degrees& d, double params_per_gpu,
                         double expert_params_per_gpu, int microbatches, const NodeSpans& spans) {
  SeamTraffic t;
  t.group_size = d.dp * d.cp;
  if (d.dp * d.cp == 1) return t;
  t.active = true;
  static const char* const names[] = {
      "ring all-reduce of gradients", "reduce-scatter gradients + all-gather weights",
      "reduce-scatter gradients every micro-batch + all-gather weights",
      "all-gather weights twice + reduce-scatter gradients, every micro-batch"};
  t.collective = names[std::clamp(s.recipe.zero_stage, 0, 3)];
  const DataParallelParts parts =
      data_parallel_parts(s, d, params_per_gpu, microbatches, expert_params_per_gpu);
  const double bytes = parts.reduce_bytes * parts.reductions + parts.gather_bytes * parts.gathers;
  t.messages_per_step = parts.reductions + parts.gathers;
  t.bytes_per_message = bytes / t.messages_per_step;
  const DataRate rate = data_rate(s, d, spans, params_per_gpu, expert_params_per_gpu);
  ride(t, rate.dense_level, s, rate.dense);
  t.link_bytes_per_s = rate.blended_bytes_per_s();
  t.time_s = t.bytes_per_gpu_per_step / t.link_bytes_per_s;
  return t;
}

}  // namespace

DataRate data_rate(const Scenario& s, const Degrees& d, const NodeSpans& spans,
                   double params_per_gpu, double expert_params_per_gpu) {
  DataRate r;
  const Spread spread = s.recipe.zero_stage == 0 ? Spread::kAllReduce : Spread::kRing;
  r.dense = {spread, spans.dp_cp.in_domain, d.dp * d.cp};
  r.dense_level = fabric_of(spans.dp_cp_group_spans_nodes, spans.dp_cp_off_rail);
  r.dense_bytes_per_s = collective_rate(r.dense_level, s, r.dense);
  if (d.ep == 1 || !(expert_params_per_gpu > 0) || d.dp * d.cp == 1) return r;
  // Routed experts' gradients reduce over their own expert-data-parallel group, which may sit
  // elsewhere in the fleet (Mixtral on 64 GPUs with EP 8: one member per node, one NIC, where
  // the dense part spreads over eight).
  const DataParallelParts parts =
      data_parallel_parts(s, d, params_per_gpu, 1, expert_params_per_gpu);
  if (!(parts.ring_params > 0)) return r;
  r.expert_share =
      (parts.ring_params - (params_per_gpu - expert_params_per_gpu)) / parts.ring_params;
  const int n_e = expert_data_parallel(s, d);
  // Without expert TP the TP ranks hold copies of the experts: members of the group too.
  const int tp_copies = d.tp / std::max(1, s.recipe.expert_tp);
  const int k_e = std::min(n_e, spans.edp_in_domain * (spans.tp_group_spans_nodes ? 1 : tp_copies));
  r.expert = {spread, k_e, n_e};
  const bool spans_domains = spans.edp_spans_nodes || (tp_copies > 1 && spans.tp_group_spans_nodes);
  r.expert_level = spans_domains ? fabric_of(true, spans.edp_off_rail) : Fabric::kDomain;
  r.expert_bytes_per_s = collective_rate(r.expert_level, s, r.expert);
  if (!(r.expert_share > 0)) r.expert_share = 0;
  return r;
}

PipelineSends pipeline_sends(const Scenario& s, int pp, int stage) {
  if (v_shape(s.recipe.schedule) && pp > 1) {
    // A V: the first chunk runs down the stages, the second back up; the turn on the last
    // stage is local, so the end stages send once each way, the others twice.
    const int sends = (stage < pp - 1) + (stage > 0);
    return {sends, sends};
  }
  const int v = s.recipe.schedule == Schedule::kInterleaved ? s.recipe.virtual_stages : 1;
  // The last stage's send forward wraps to stage 0 only between chunks (v > 1).
  return {stage < pp - 1 ? v : v - 1, stage > 0 ? v : v - 1};
}

double tensor_collectives_per_layer(const Scenario& s, int layers) {
  const double again = fully_recomputed_share(s, layers);
  return s.recipe.sequence_parallel ? 10 + 4 * again : 4 + 2 * again;
}

double link_rate(Fabric f, const Scenario& s) {
  if (f == Fabric::kDomain) return s.gpu.nvlink_gb_s * 1e9 * s.gpu.nvlink_efficiency;
  const double rail = s.gpu.network_gb_s * 1e9 * s.gpu.network_efficiency;
  return f == Fabric::kRail ? rail : rail / s.fleet.network_oversubscription;
}

int nics_used(Fabric f, const Reach& r) {
  if (f == Fabric::kDomain) return 0;
  return r.spread == Spread::kRing || r.spread == Spread::kAllReduce ? std::max(1, r.in_domain) : 1;
}

double collective_rate(Fabric f, const Scenario& s, const Reach& r) {
  const double nvlink = link_rate(Fabric::kDomain, s);
  if (f == Fabric::kDomain) return nvlink;
  const double nic = link_rate(f, s);
  const double k = std::max(1, r.in_domain), n = std::max(r.group, r.in_domain);
  switch (r.spread) {
    case Spread::kPointToPoint:
      return nic;
    case Spread::kAllToAll: {
      // Per byte sent: (n-k)/(n-1) through the NIC, (k-1)/(n-1) over NVLink, at once.
      if (n <= 1) return nic;
      const double seconds_per_byte = std::max((n - k) / (n - 1) / nic, (k - 1) / (n - 1) / nvlink);
      return seconds_per_byte > 0 ? 1 / seconds_per_byte : nvlink;
    }
    case Spread::kAllReduce:
    case Spread::kRing: {
      // One member per domain: no NVLink hop inside, the NIC alone.
      if (k == 1) return nic;
      // Two domains: the tree's one crossing per byte against the ring's 2(n-1)/n.
      const bool tree = r.spread == Spread::kAllReduce && n == 2 * k;
      return std::min(k * nic * (tree ? 2 * (n - 1) / n : 1), nvlink);
    }
  }
  return nic;
}

double link_rate(bool crosses_nodes, const Scenario& s) {
  return link_rate(crosses_nodes ? Fabric::kRail : Fabric::kDomain, s);
}

Fabric stage_hop(const Scenario& s, const Degrees& d, int a, int b) {
  if (!stages_cross_nodes(s, d, a, b)) return Fabric::kDomain;
  const long long apart = std::abs(1LL * (b - a)) * stride_of(d, s.recipe.order, Seam::kPipeline);
  return apart % s.fleet.gpus_per_node == 0 ? Fabric::kRail : Fabric::kSpine;
}

// Rank offsets modulo the domain's size repeat within that many steps of each coordinate, so
// that many of each suffice.
bool stages_cross_nodes(const Scenario& s, const Degrees& d, int a, int b) {
  const long long g = s.domain_gpus();
  const long long sdp = stride_of(d, s.recipe.order, Seam::kData);
  const long long stp = stride_of(d, s.recipe.order, Seam::kTensor);
  const long long spp = stride_of(d, s.recipe.order, Seam::kPipeline);
  const long long scp = stride_of(d, s.recipe.order, Seam::kContext);
  for (long long i = 0; i < std::min<long long>(d.dp, g); ++i) {
    for (long long j = 0; j < std::min<long long>(d.tp, g); ++j) {
      for (long long c = 0; c < std::min<long long>(d.cp, g); ++c) {
        const long long base = i * sdp + j * stp + c * scp;
        if ((base + a * spp) / g != (base + b * spp) / g) return true;
      }
    }
  }
  return false;
}

// Data parallel. ZeRO 0: one ring all-reduce of the gradients per step, 2 (d-1)/d of their
// bytes (nccl-tests PERFORMANCE.md). ZeRO-1 (Megatron's distributed optimizer): reduce-scatter
// the gradients and all-gather the updated weights once per step, (d-1)/d each. ZeRO-2
// (DeepSpeed) reduce-scatters the gradients after every micro-batch's backward; ZeRO-3 / FSDP
// also all-gathers the weights for every forward and again for every backward (DeepSpeed,
// PyTorch FSDP; Rajbhandari et al. 2020 Sec. 7 counts one micro-batch: 1.5x plain DP).
//
// With context parallelism the group is the dp x cp ranks (each CP rank saw part of every
// sequence). Routed experts' gradients are reduced over their own expert-data-parallel group,
// dp cp tp / (ep etp) ranks (moe.h): the volume below weighs each part by its own group's
// (n-1)/n.
DataParallelParts data_parallel_parts(const Scenario& s, const Degrees& d, double params_per_gpu,
                                      int microbatches, double expert_params_per_gpu) {
  DataParallelParts p;
  const int n = d.dp * d.cp;
  if (n == 1) return p;
  const double share = ring_share(n);
  // The parameters as the dp x cp ring sees them: the experts' count weighted by their own
  // group's (n_e-1)/n_e against (n-1)/n.
  double params = params_per_gpu;
  if (expert_params_per_gpu > 0) {
    const int n_e = expert_data_parallel(s, d);
    params =
        params_per_gpu - expert_params_per_gpu + expert_params_per_gpu * ring_share(n_e) / share;
  }
  p.ring_params = params;
  const Precision& pr = s.recipe.precision;
  switch (s.recipe.zero_stage) {
    case 0:
      p.reduce_bytes = 2 * share * params * pr.grad_bytes;
      p.reductions = 1;
      break;
    case 1:
    case 2:
      p.reduce_bytes = share * params * pr.grad_bytes;
      p.reductions = s.recipe.zero_stage == 1 ? 1 : microbatches;
      p.gather_bytes = share * params * pr.weight_bytes;
      p.gathers = 1;
      break;
    default:
      p.reduce_bytes = share * params * pr.grad_bytes;
      p.reductions = microbatches;
      p.gather_bytes = share * params * pr.weight_bytes;
      p.gathers = 2.0 * microbatches;
      break;
  }
  return p;
}

LayerTraffic layer_traffic(const Scenario& s, const LayoutFacts& f, int stage_layers,
                           int stage_moe_layers, int microbatches) {
  const Degrees& d = f.degrees();
  const NodeSpans& spans = f.spans();
  LayerTraffic r;
  r.tensor =
      tensor_traffic(s, d, stage_layers, microbatches,
                     fabric_of(spans.tp_group_spans_nodes, spans.tp_off_rail), spans.tp.in_domain);
  r.context = context_traffic(s, f.shape().attention(), d, stage_layers, microbatches);
  if (r.context.active) {
    // Ring passes are sends to the next CP rank; the all-gather a ring collective; Ulysses
    // all-to-alls.
    const Spread spread =
        s.recipe.context_parallel == ContextParallel::kRing        ? Spread::kPointToPoint
        : s.recipe.context_parallel == ContextParallel::kAllGather ? Spread::kRing
                                                                   : Spread::kAllToAll;
    const Fabric level = fabric_of(spans.cp_group_spans_nodes, spans.cp_off_rail);
    const Reach reach{spread, spans.cp.in_domain, d.cp};
    if (spread == Spread::kAllToAll) {
      ride_all_to_all(r.context, level, s, spans, reach, spans.cp_in_part, spans.cp_off_rail);
    } else {
      ride(r.context, level, s, reach);
    }
  }
  if (f.shape().moe() && d.ep > 1) {
    r.expert = expert_traffic(s, f.shape().moe_layer().mlp, d, stage_moe_layers, microbatches);
    if (r.expert.active)
      ride_all_to_all(r.expert, fabric_of(spans.ep_group_spans_nodes, spans.ep_off_rail), s, spans,
                      {Spread::kAllToAll, spans.ep_in_domain, d.ep}, spans.ep_in_part,
                      spans.ep_off_rail);
  }
  return r;
}

SeamTraffic stage_pipeline_traffic(const Scenario& s, const LayoutFacts& f, int stage,
                                   int microbatches) {
  return pipeline_traffic(s, f, stage, microbatches);
}

namespace {

// Every field of `r`, in place: the planner's hot loop fills a few of these per
// configuration, and a CommsReport is 300-odd bytes to construct and copy.
void fill_stage_comms(CommsReport& r, const Scenario& s, const LayoutFacts& f, int stage,
                      double params_per_gpu, int stage_layers, int stage_moe_layers,
                      int microbatches, double expert_params_per_gpu) {
  const LayerTraffic layers = layer_traffic(s, f, stage_layers, stage_moe_layers, microbatches);
  r.stage = stage;
  r.data =
      data_traffic(s, f.degrees(), params_per_gpu, expert_params_per_gpu, microbatches, f.spans());
  r.tensor = layers.tensor;
  r.pipeline = pipeline_traffic(s, f, stage, microbatches);
  r.context = layers.context;
  r.expert = layers.expert;
}

}  // namespace

CommsReport stage_comms(const Scenario& s, const LayoutFacts& f, int stage, double params_per_gpu,
                        int stage_layers, int stage_moe_layers, int microbatches,
                        double expert_params_per_gpu) {
  CommsReport r;
  fill_stage_comms(r, s, f, stage, params_per_gpu, stage_layers, stage_moe_layers, microbatches,
                   expert_params_per_gpu);
  return r;
}

CommsReport stage_comms(const Scenario& s, const Degrees& d, int stage, double params_per_gpu,
                        int stage_layers, int microbatches, double expert_params_per_gpu) {
  const ModelShape shape(s);
  const LayoutFacts f(s, shape, d);
  const int moe = shape.moe_layers_in(f.split().first_layer(stage), stage_layers);
  return stage_comms(s, f, stage, params_per_gpu, stage_layers, moe, microbatches,
                     expert_params_per_gpu);
}

CommsReport comms_report(const Scenario& s, const LayoutFacts& f, int microbatches) {
  std::vector<CommsReport> reports;
  stage_reports_but_data(s, f, microbatches, reports);
  return busiest_stage(s, f, microbatches, reports);
}

void stage_reports_but_data(const Scenario& s, const LayoutFacts& f, int microbatches,
                            std::vector<CommsReport>& reports) {
  // One stage of each kind: a stage like one already seen sends the same and cannot be the
  // busiest instead of it (LayoutFacts::traffic_stages).
  reports.resize(f.traffic_stages().size());
  for (size_t i = 0; i < reports.size(); ++i) {
    const int stage = f.traffic_stages()[i];
    const StageParams& p = f.params(stage);
    const LayerTraffic layers = layer_traffic(s, f, p.layers, p.moe_layers, microbatches);
    CommsReport& r = reports[i];
    r.stage = stage;
    r.data = SeamTraffic{};
    r.tensor = layers.tensor;
    r.pipeline = pipeline_traffic(s, f, stage, microbatches);
    r.context = layers.context;
    r.expert = layers.expert;
  }
}

void refresh_pipeline_traffic(const Scenario& s, const LayoutFacts& f, int microbatches,
                              std::vector<CommsReport>& reports) {
  for (CommsReport& r : reports) r.pipeline = pipeline_traffic(s, f, r.stage, microbatches);
}

namespace {
const CommsReport kNoTraffic;  // what busiest_stage names when there are no stages

// The busiest of `reports`, their data seams filled in.
const CommsReport& busiest_of_filled(const std::vector<CommsReport>& reports) {
  const CommsReport* best = &kNoTraffic;
  double most = -1;
  auto time = [](const CommsReport& c) {
    return c.data.time_s + c.tensor.time_s + c.pipeline.time_s + c.context.time_s + c.expert.time_s;
  };
  for (const CommsReport& r : reports) {
    const double bytes = r.data.bytes_per_gpu_per_step + r.tensor.bytes_per_gpu_per_step +
                         r.pipeline.bytes_per_gpu_per_step + r.context.bytes_per_gpu_per_step +
                         r.expert.bytes_per_gpu_per_step;
    if (bytes > most * (1 + 1e-12) || (bytes >= most * (1 - 1e-12) && time(r) > time(*best))) {
      most = bytes;
      best = &r;
    }
  }
  return *best;
}

SeamTraffic stage_data_traffic(const Scenario& s, const LayoutFacts& f, int stage,
                               int microbatches) {
  const StageParams& p = f.params(stage);
  return data_traffic(s, f.degrees(), p.params_per_gpu, p.expert_params_per_gpu, microbatches,
                      f.spans());
}
}  // namespace

const CommsReport& busiest_stage(const Scenario& s, const LayoutFacts& f, int microbatches,
                                 std::vector<CommsReport>& reports) {
  for (CommsReport& r : reports) r.data = stage_data_traffic(s, f, r.stage, microbatches);
  return busiest_of_filled(reports);
}

void data_seams(const Scenario& s, const LayoutFacts& f, int microbatches,
                const std::vector<CommsReport>& reports, std::vector<SeamTraffic>& data_seams) {
  data_seams.resize(reports.size());
  for (size_t i = 0; i < reports.size(); ++i) {
    data_seams[i] = stage_data_traffic(s, f, reports[i].stage, microbatches);
  }
}

const CommsReport& busiest_stage(const std::vector<SeamTraffic>& data_seams,
                                 std::vector<CommsReport>& reports) {
  for (size_t i = 0; i < reports.size(); ++i) reports[i].data = data_seams[i];
  return busiest_of_filled(reports);
}

const char* busiest_seam(const CommsReport& c) {
  const std::pair<const char*, const SeamTraffic*> seams[] = {{"data", &c.data},
                                                              {"tensor", &c.tensor},
                                                              {"pipeline", &c.pipeline},
                                                              {"context", &c.context},
                                                              {"expert", &c.expert}};
  const char* name = "";
  const SeamTraffic* most = nullptr;
  for (const auto& [seam, t] : seams) {
    if (!t->active || !(t->bytes_per_gpu_per_step > 0)) continue;
    const bool more = !most || t->bytes_per_gpu_per_step > most->bytes_per_gpu_per_step ||
                      (t->bytes_per_gpu_per_step == most->bytes_per_gpu_per_step &&
                       t->link_bytes_per_s < most->link_bytes_per_s);
    if (more) name = seam, most = t;
  }
  return name;
}

}  // namespace pe
