#include "comms.h"

#include <algorithm>

#include "layout.h"
#include "memory.h"
#include "pipeline.h"

namespace pe {
namespace {

constexpr double kActivationBytes = 2;  // bf16 activations and activation gradients

void ride(SeamTraffic& t, bool crosses_nodes, const Scenario& s) {
  t.link = crosses_nodes ? "network" : "nvlink";
  t.link_bytes_per_s = link_rate(crosses_nodes, s);
  t.bytes_per_gpu_per_step = t.bytes_per_message * t.messages_per_step;
  t.time_s = t.bytes_per_gpu_per_step / t.link_bytes_per_s;
}


// Pipeline: each stage boundary carries b s h activations forward and their gradients backward
// per micro-batch (Narayanan Sec. 4.1). Each of the t ranks sends its 1/t slice only with
// sequence parallelism (Megatron-Core p2p_communication.py) or the 2021-22 scatter/gather. A
// GPU sends forward to the next stage and backward to the previous one; with v chunks per GPU
// it crosses its boundaries v times, and the last stage's chunk feeds the first stage's next.
// Each hop rides its own link: NVLink when the two stages share a node.
SeamTraffic pipeline_traffic(const Scenario& s, const Degrees& d, int stage, int microbatches) {
  SeamTraffic t;
  t.group_size = d.pp;
  if (d.pp == 1) return t;
  t.active = true;
  t.collective = "point-to-point send/recv";
  const double bsh = 1.0 * s.micro_batch * s.seq_len * s.model.hidden;
  const bool sliced = s.sequence_parallel || s.pp_scatter_gather;
  t.bytes_per_message = bsh * kActivationBytes / (sliced ? d.tp : 1);
  const int v = s.schedule == Schedule::kInterleaved ? s.virtual_stages : 1;
  const int p = d.pp;
  // Sends per micro-batch to the next stage (forward) and the previous one (backward).
  const int next = stage < p - 1 ? v : v - 1;  // the last stage wraps to stage 0 (v > 1)
  const int prev = stage > 0 ? v : v - 1;
  const int next_stage = (stage + 1) % p, prev_stage = (stage + p - 1) % p;
  const bool next_crosses = stages_cross_nodes(s, d, stage, next_stage);
  const bool prev_crosses = stages_cross_nodes(s, d, stage, prev_stage);
  t.messages_per_step = 1.0 * (next + prev) * microbatches;
  t.bytes_per_gpu_per_step = t.bytes_per_message * t.messages_per_step;
  t.time_s = t.bytes_per_message * microbatches *
             (next / link_rate(next_crosses, s) + prev / link_rate(prev_crosses, s));
  const bool crosses = (next > 0 && next_crosses) || (prev > 0 && prev_crosses);
  t.link = crosses ? "network" : "nvlink";
  t.link_bytes_per_s = link_rate(crosses, s);
  return t;
}

// Tensor: per layer per micro-batch, two all-reduces of b s h forward and two backward
// (Narayanan Sec. 3.2), each 2 (t-1)/t b s h per GPU (ring, nccl-tests PERFORMANCE.md): 8 b s h
// (t-1)/t. With sequence parallelism each becomes an all-gather plus a reduce-scatter of
// (t-1)/t b s h each, and the backward all-gathers the sharded layer input again for the weight
// gradients (Megatron-Core tensor_parallel/layers.py): 10 b s h (t-1)/t. Full recomputation
// repeats the forward's collectives: 12 and 14.
SeamTraffic tensor_traffic(const Scenario& s, const Degrees& d, int stage_layers,
                           int microbatches, bool crosses_nodes) {
  SeamTraffic t;
  t.group_size = d.tp;
  if (d.tp == 1) return t;
  t.active = true;
  const double bsh = 1.0 * s.micro_batch * s.seq_len * s.model.hidden;
  const double share = (d.tp - 1.0) / d.tp;
  const bool full = s.recompute == Recompute::kFull;
  int per_layer;
  if (s.sequence_parallel) {
    t.collective = "all-gather + reduce-scatter every layer";
    t.bytes_per_message = share * bsh * kActivationBytes;
    per_layer = full ? 14 : 10;
  } else {
    t.collective = "all-reduce every layer";
    t.bytes_per_message = 2 * share * bsh * kActivationBytes;
    per_layer = full ? 6 : 4;
  }
  t.messages_per_step = 1.0 * per_layer * stage_layers * microbatches;
  ride(t, crosses_nodes, s);
  return t;
}

SeamTraffic data_traffic(const Scenario& s, const Degrees& d, double params_per_gpu,
                         int microbatches, bool crosses_nodes) {
  SeamTraffic t;
  t.group_size = d.dp;
  if (d.dp == 1) return t;
  t.active = true;
  static const char* const names[] = {
      "ring all-reduce of gradients", "reduce-scatter gradients + all-gather weights",
      "reduce-scatter gradients every micro-batch + all-gather weights",
      "all-gather weights twice + reduce-scatter gradients, every micro-batch"};
  t.collective = names[std::clamp(s.zero_stage, 0, 3)];
  const DataParallelParts parts = data_parallel_parts(s, d, params_per_gpu, microbatches);
  const double bytes = parts.reduce_bytes * parts.reductions + parts.gather_bytes * parts.gathers;
  t.messages_per_step = parts.reductions + parts.gathers;
  t.bytes_per_message = bytes / t.messages_per_step;
  ride(t, crosses_nodes, s);
  return t;
}

}  // namespace

double link_rate(bool crosses_nodes, const Scenario& s) {
  return crosses_nodes ? s.network_gb_s * 1e9 : s.gpu.nvlink_gb_s * 1e9 * kNvlinkEfficiency;
}

// Rank offsets modulo the node size repeat within gpus_per_node steps of each coordinate, so
// that many of each suffice.
bool stages_cross_nodes(const Scenario& s, const Degrees& d, int a, int b) {
  const long long g = s.gpus_per_node;
  const long long sdp = stride_of(d, s.order, Seam::kData);
  const long long stp = stride_of(d, s.order, Seam::kTensor);
  const long long spp = stride_of(d, s.order, Seam::kPipeline);
  for (long long i = 0; i < std::min<long long>(d.dp, g); ++i) {
    for (long long j = 0; j < std::min<long long>(d.tp, g); ++j) {
      const long long base = i * sdp + j * stp;
      if ((base + a * spp) / g != (base + b * spp) / g) return true;
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
DataParallelParts data_parallel_parts(const Scenario& s, const Degrees& d,
                                      double params_per_gpu, int microbatches) {
  DataParallelParts p;
  if (d.dp == 1) return p;
  const double share = (d.dp - 1.0) / d.dp;
  const Precision& pr = s.precision;
  switch (s.zero_stage) {
    case 0:
      p.reduce_bytes = 2 * share * params_per_gpu * pr.grad_bytes;
      p.reductions = 1;
      break;
    case 1:
    case 2:
      p.reduce_bytes = share * params_per_gpu * pr.grad_bytes;
      p.reductions = s.zero_stage == 1 ? 1 : microbatches;
      p.gather_bytes = share * params_per_gpu * pr.weight_bytes;
      p.gathers = 1;
      break;
    default:
      p.reduce_bytes = share * params_per_gpu * pr.grad_bytes;
      p.reductions = microbatches;
      p.gather_bytes = share * params_per_gpu * pr.weight_bytes;
      p.gathers = 2.0 * microbatches;
      break;
  }
  return p;
}

CommsReport stage_comms(const Scenario& s, const Degrees& d, int stage, double params_per_gpu,
                        int stage_layers, int microbatches) {
  const NodeSpans spans = node_spans(d, s.gpus_per_node, s.order);
  CommsReport r;
  r.stage = stage;
  r.data = data_traffic(s, d, params_per_gpu, microbatches, spans.dp_group_spans_nodes);
  r.tensor = tensor_traffic(s, d, stage_layers, microbatches, spans.tp_group_spans_nodes);
  r.pipeline = pipeline_traffic(s, d, stage, microbatches);
  return r;
}

CommsReport comms_report(const Scenario& s, const Degrees& d, int microbatches) {
  CommsReport best;
  double most = -1;
  const StageSplit split = stage_split(s, d.pp);
  for (int stage = 0; stage < d.pp; ++stage) {
    // Middle stages differ only in their pipeline hops' links: a node boundary falls after
    // at most every node's worth of stages, so two middle stages per boundary suffice; the
    // loop is cheap anyway (PP <= layers).
    const double params = stage_memory(s, d, stage, microbatches).params_per_gpu;
    CommsReport r = stage_comms(s, d, stage, params, split.layers_on(stage), microbatches);
    const double bytes = r.data.bytes_per_gpu_per_step + r.tensor.bytes_per_gpu_per_step +
                         r.pipeline.bytes_per_gpu_per_step;
    const double time = r.data.time_s + r.tensor.time_s + r.pipeline.time_s;
    if (bytes > most * (1 + 1e-12) || (bytes >= most * (1 - 1e-12) && time > best.data.time_s +
                                       best.tensor.time_s + best.pipeline.time_s)) {
      most = bytes;
      best = r;
    }
  }
  return best;
}

}  // namespace pe
