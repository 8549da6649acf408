// Memory per GPU: model states (ZeRO, Rajbhandari et al. SC'20, arXiv:1910.02054) and
// activations (Korthikanti et al. 2022).
#pragma once

#include "report.h"
#include "scenario.h"

namespace pe {

// Model states of one GPU holding `params` parameters, with ZeRO stage z over a DP group of d:
//   stage 0: (w + g + o) Psi       stage 1: (w + g) Psi + o Psi / d
//   stage 2: w Psi + (g + o) Psi/d stage 3: (w + g + o) Psi / d
// With the book's w=2, g=2, o=12 this is ZeRO's 16 Psi, 4 Psi + 12 Psi/d, 2 Psi + 14 Psi/d,
// 16 Psi/d (Sec. 5, Fig. 1).
MemoryBreakdown model_state_bytes(double params, const Precision& precision, int zero_stage,
                                  int dp);

// One pipeline stage's GPU (every GPU of a stage holds the same).
StageMemory stage_memory(const Scenario& s, const Degrees& d, int stage, int microbatches);

// The most-loaded stage without computing them all: among middle stages with equal layers the
// first holds the most in-flight micro-batches, so only the first stage, the second, the first
// with an extra layer and the last (output layer, logits) can be the peak.
StageMemory peak_stage_memory(const Scenario& s, const Degrees& d, int microbatches);

// Memory of every stage and of the most-loaded GPU. The "book" model spreads N evenly
// (params per GPU = N/(TP x PP)) and counts model states only, as the book's panel does; the
// "full" model places whole layers on stages (pipeline.h stage_split), the embedding on the
// first stage and the output layer on the last, and adds activations for the micro-batches each
// stage holds in flight and the overhead (overhead_gb). Either way `fits` means under
// safe_fraction (80%) of the GPU's memory (report.h).
double safe_memory_fraction();
MemoryReport memory_report(const Scenario& s, const Degrees& d, int microbatches);

}  // namespace pe
