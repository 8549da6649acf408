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

// The traffic fields of the context seam (collective, group, bytes, messages); comms.cpp puts
// it on its link. Idle when cp = 1.
//
// Why the core refuses a context degree d.cp for this scenario (empty when it accepts it): cp
// divides the sequence (each rank gets whole tokens) and, with Ulysses, the heads (each rank
// takes whole heads after the all-to-all). Explicit degrees name degrees.cp, auto-factored
// ones seams.context.
Problem context_problem(const Scenario& s, const Degrees& d);

}  // namespace pe
