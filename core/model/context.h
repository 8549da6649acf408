// Context parallelism: the sequence split over the cp ranks of a group, each holding s/cp of
// every sequence's tokens (Megatron-Core context parallelism; Liu et al. 2023, Ring Attention,
// arXiv:2310.01889; Jacobs et al. 2023, DeepSpeed-Ulysses, arXiv:2309.14509). Everything but
// attention is per token, so activations and the FLOPs of a GPU divide by cp; attention needs
// the keys and values of the whole sequence, which the group exchanges every layer.
#pragma once

#include "model/attention_shape.h"
#include "model/report.h"
#include "model/result.h"
#include "model/scenario.h"

namespace pe {

// The context seam's traffic per GPU per step, on the busiest stage's `stage_layers` layers
// with m micro-batches, for the layers' attention (its keys, values, queries and outputs per
// token: attention_shape.h). 16-bit values; each TP rank exchanges the keys and values of its
// own heads (1/tp).
//  ring     Each layer passes its K/V chunk, (s/cp) b kv elements, around the ring: cp-1
//           passes forward; backward passes the K/V chunks again with their gradients, twice
//           as much (Megatron-Core's p2p context parallelism). Full recomputation repeats the
//           forward passes. Megatron-Core overlaps each pass with attention on the chunk
//           already there (step_time.h).
//  all_gather  Each layer all-gathers the K/V chunks before attention, (cp-1)/cp of the
//           sequence's K/V per rank: the ring's volume, in one collective that attention
//           waits for; backward gathers them again and reduce-scatters their gradients
//           (Llama 3, Dubey et al. 2024, Sec. 3.3.2; Megatron-Core's "all_gather").
//  ulysses  Each layer all-to-alls Q, K and V from sequence-split to head-split before attention
//           and the output back after it: (s/cp) b (2h + kv) elements, of which (cp-1)/cp leave
//           the GPU, forward and again backward (DeepSpeed-Ulysses Sec. 3.1).
SeamTraffic context_traffic(const Scenario& s, const AttentionShape& attention, const Degrees& d,
                            int stage_layers, int microbatches);

// The keys and values one attention-kernel call reads: the whole sequence without CP, with
// all_gather (each rank's queries against the gathered keys) and with Ulysses (whole
// sequences, heads split); with ring, one chunk, s / cp (Transformer Engine's load-balanced
// ring: each pass a rank's s / cp queries against a chunk of s / cp keys, or half of one).
double attention_kernel_tokens(const Scenario& s, const Degrees& d);

// The attention kernel's efficiency against its long-sequence rate, by the keys a call reads:
// FlashAttention-3's forward (head dim 128, BF16, H100, batch x sequence 16,384) at 430,
// 517, 566, 590, 614 and 621 TFLOP/s for 512, 1K, 2K, 4K, 8K and 16K tokens (pytorch/benchmark
// pull request 2391, the FA3 paper's set-up). Linear in tokens between them, 1 from 16K;
// below 512 proportional to the tokens, each call then too short to fill its tiles' pipeline
// (an assumption: no published point). Short chunks are why CP at few tokens per rank costs
// attention time, on top of the ring passes it cannot hide.
double attention_kernel_efficiency(double tokens);

// The traffic fields of the context seam (collective, group, bytes, messages); comms.cpp puts
// it on its link. Idle when cp = 1.
//
// Why the core refuses a context degree d.cp for this scenario (empty when it accepts it): cp
// divides the sequence (each rank gets whole tokens) and, with Ulysses, the heads (each rank
// takes whole heads after the all-to-all). Explicit degrees name degrees.cp, auto-factored
// ones seams.context.
Problem context_problem(const Scenario& s, const Degrees& d);

}  // namespace pe
