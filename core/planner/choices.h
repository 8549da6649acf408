// What the planner chooses beyond the layout: recomputation, activation offload and FP8, each
// from a small, principled set rather than every combination of the fields.
#pragma once

#include <vector>

#include "model/scenario.h"

namespace pe {

// One way to trade compute (or host traffic) for activation memory.
struct RecomputeChoice {
  Recompute recompute = Recompute::kNone;
  unsigned modules = kCoreAttn;  // with selective
  int layers = 0;                // with full: 0 every layer (uniform), else the first of a stage
  RecomputeMethod method = RecomputeMethod::kUniform;
  int offload_layers = 0;  // without recomputation only
  // The choice, as a recipe's fields.
  void apply_to(Recipe& r) const {
    r.recompute = recompute;
    r.recompute_modules = modules;
    r.recompute_layers = layers;
    r.recompute_method = method;
    r.offload_layers = offload_layers;
  }
};

// For a layout whose largest stage holds `most_layers` layers:
// - none;
// - selective core_attn, Megatron-Core's default (only without flash attention, which already
//   keeps no scores: the choice would change nothing);
// - selective every_other_matmul, torchtitan's per-op policy (selective_ac_option "op");
// - selective on the cheap modules, Megatron-Core's "light" set (transformer_config.py's
//   recompute_modules doc: layernorm, moe_act and mla_up_proj recompute little), with the dense
//   MLP for a dense model (layernorm + mlp);
// - full, every layer (uniform, recompute_layers 0), and the first 1, 2, 4, ... layers of each
//   stage (block) below the stage's size;
// - with the host link (host_link_gb_s > 0) and one pipeline stage (`pp` 1), activation
//   offload of the last 1, 2, 4, ... layers up to the stage's size, without recomputation:
//   Megatron-Core refuses cpu_offloading with recompute_granularity set, and with pipeline
//   parallelism (transformer_config.py), so a plan a framework cannot run is not offered.
std::vector<RecomputeChoice> recompute_choices(const Scenario& base, int most_layers, int pp);

// The precisions searched: the scenario's, and, when the GPU has an FP8 peak
// (gpu_fp8_tflops > 0), the same bytes with the GEMMs in FP8 (or without, if the scenario's is
// FP8; in FP8, if it is FP4: FP4 is not searched, only kept when asked for). FP8 changes the GEMMs
// and the cached inputs, not the states (scenario.h Precision): the bytes stay, the name is the
// preset with those bytes and that FP8 switch, else "custom".
std::vector<Precision> precision_choices(const Scenario& base);

}  // namespace pe
