#include "comms.h"

#include "layout.h"

namespace pe {
namespace {

constexpr double kActivationBytes = 2;  // bf16 activations and activation gradients

void ride(SeamTraffic& t, bool crosses_nodes, const Scenario& s) {
  t.link = crosses_nodes ? "network" : "nvlink";
  t.link_bytes_per_s = (crosses_nodes ? s.network_gb_s : s.gpu.nvlink_gb_s) * 1e9;
  t.bytes_per_gpu_per_step = t.bytes_per_message * t.messages_per_step;
  t.time_s = t.bytes_per_gpu_per_step / t.link_bytes_per_s;
}

// Data parallel: one gradient synchronisation per step. A ring all-reduce of S bytes sends
// 2 (n-1)/n S per rank (nccl-tests PERFORMANCE.md), i.e. a reduce-scatter plus an all-gather
// of (n-1)/n S each. ZeRO-1/2 reduce-scatter the gradients and all-gather the updated weights:
// the same volume. ZeRO-3 all-gathers the weights again in the backward pass: 1.5x
// (Rajbhandari et al. 2020, Sec. 7).
SeamTraffic data_traffic(const Scenario& s, const Degrees& d, double grad_params,
                         bool crosses_nodes) {
  SeamTraffic t;
  t.group_size = d.dp;
  if (d.dp == 1) return t;
  t.active = true;
  const double share = (d.dp - 1.0) / d.dp;
  const Precision& p = s.precision;
  double bytes;
  if (s.zero_stage == 0) {
    t.collective = "ring all-reduce of gradients";
    bytes = 2.0 * share * grad_params * p.grad_bytes;
  } else if (s.zero_stage < 3) {
    t.collective = "reduce-scatter gradients + all-gather weights";
    bytes = share * grad_params * (p.grad_bytes + p.weight_bytes);
  } else {
    t.collective = "all-gather weights twice + reduce-scatter gradients";
    bytes = share * grad_params * (p.grad_bytes + 2.0 * p.weight_bytes);
  }
  t.bytes_per_message = bytes;
  t.messages_per_step = 1;
  ride(t, crosses_nodes, s);
  return t;
}

// Tensor parallel: every layer all-reduces b s h activations twice forward and twice
// backward; per GPU 8 b s h (t-1)/t elements per layer per micro-batch (Narayanan Sec. 3.2;
// ring all-reduce volume). Sequence parallelism swaps each all-reduce for an all-gather plus
// a reduce-scatter of the same volume (Korthikanti Sec. 4.2.2). Full recomputation repeats the
// forward pass and its two all-reduces.
SeamTraffic tensor_traffic(const Scenario& s, const Degrees& d, int stage_layers,
                           int microbatches, bool crosses_nodes) {
  SeamTraffic t;
  t.group_size = d.tp;
  if (d.tp == 1) return t;
  t.active = true;
  t.collective = s.sequence_parallel ? "all-gather + reduce-scatter every layer"
                                     : "all-reduce every layer";
  const double bsh = 1.0 * s.micro_batch * s.seq_len * s.model.hidden;
  const double ring_share = 2.0 * (d.tp - 1.0) / d.tp;
  const int collectives_per_layer = s.recompute == Recompute::kFull ? 6 : 4;
  t.bytes_per_message = ring_share * bsh * kActivationBytes;
  t.messages_per_step = 1.0 * collectives_per_layer * stage_layers * microbatches;
  ride(t, crosses_nodes, s);
  return t;
}

// Pipeline parallel: each stage boundary carries b s h activations forward and their
// gradients backward per micro-batch (Narayanan Sec. 4.1). With TP each of the t ranks sends
// only its 1/t slice (Megatron's scatter/gather optimisation). A middle stage sends both ways;
// the interleaved schedule crosses every boundary v times.
SeamTraffic pipeline_traffic(const Scenario& s, const Degrees& d, int microbatches,
                             bool crosses_nodes) {
  SeamTraffic t;
  t.group_size = d.pp;
  if (d.pp == 1) return t;
  t.active = true;
  t.collective = "point-to-point send/recv";
  const double bsh = 1.0 * s.micro_batch * s.seq_len * s.model.hidden;
  const int directions = d.pp > 2 ? 2 : 1;
  const int v = s.schedule == Schedule::kInterleaved ? s.virtual_stages : 1;
  t.bytes_per_message = bsh * kActivationBytes / d.tp;
  t.messages_per_step = 1.0 * directions * microbatches * v;
  ride(t, crosses_nodes, s);
  return t;
}

}  // namespace

CommsReport comms_report(const Scenario& s, const Degrees& d, double grad_params,
                         int stage_layers, int microbatches) {
  const NodeSpans spans = node_spans(d, s.gpus_per_node, s.order);
  CommsReport r;
  r.data = data_traffic(s, d, grad_params, spans.dp_group_spans_nodes);
  r.tensor = tensor_traffic(s, d, stage_layers, microbatches, spans.tp_group_spans_nodes);
  r.pipeline = pipeline_traffic(s, d, microbatches, spans.pp_neighbours_span_nodes);
  return r;
}

}  // namespace pe
