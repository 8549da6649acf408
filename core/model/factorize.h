// Auto-factor: how the GPU count is split across the seams that are switched on.
#pragma once

#include "model/scenario.h"

namespace pe {

// The rule (deterministic, for any count):
//  1. No seam on: the model runs on one GPU (1x1x1) and the rest sit idle.
//  2. Otherwise the count's prime factors, largest first, are dealt one at a time to the
//     enabled seam with the smallest degree so far; ties go to TP, then CP, then PP, then DP
//     (the nesting of layout.h: the chattiest seam innermost). This keeps the seams balanced.
//  3. A seam may refuse a factor when another enabled seam can take it instead: TP must
//     divide gpus_per_node (so a TP group never leaves its node), or, on an NVLink domain
//     wider than the node, divide both the domain and the heads (TP inside the fast domain:
//     GB200 NVL72 takes TP 8 across two trays of 4, on NVLink), PP may not exceed the layer
//     count (each stage needs a layer), and CP must divide the sequence (and the heads, with
//     Ulysses). A factor nobody may take goes to the enabled seam with the smallest degree
//     that can still run it: TP may leave its node (the report warns), PP never has more
//     stages than layers and CP never splits a token (evaluate() says why such a layout fails).
//  4. The expert seam takes no factor: its groups are carved out of the dp x cp ranks
//     (layout.h). With an MoE model it takes the largest degree that divides both dp x cp and
//     the expert count, so each GPU holds the fewest experts.
// 16 GPUs, 8 per node: D 16x1x1, T 1x16x1, P 1x1x16, D+T 4x4x1, D+P 4x1x4, T+P 1x4x4,
// D+T+P 2x4x2. 24: D+T+P 2x4x3. 10240: D+T+P 32x8x40.
Degrees auto_factor(const Scenario& s);

// The three book seams alone, for a model of `layers` layers.
Degrees auto_factor(int gpus, int gpus_per_node, int layers, const Seams& seams);

}  // namespace pe
