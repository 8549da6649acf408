// One kind of MLP, answered once per scenario: a dense MLP (GELU: GPT's, with biases; SwiGLU:
// Llama's gated one) or a mixture of experts (Shazeer et al. 2017; Lepikhin et al. 2020,
// GShard; Mixtral, Jiang et al. 2024, arXiv:2401.04088; DeepSeek-V3, arXiv:2412.19437), which
// replaces the dense MLP by a router (an h x E matrix), E routed experts of which each token
// uses k, and S shared experts every token uses; each expert is an MLP of width f_e. What it
// holds, what a token computes and stores, and what it sends to its experts; ModelShape
// (model_shape.h) puts it in a layer beside the attention.
#pragma once

#include "model/scenario.h"

namespace pe {

struct MlpShape {
  bool moe = false;
  // Everything but the routed experts (TP shards it, as Megatron-Core shards shared experts):
  // a dense MLP's matmuls, GELU 2hf (up, down) or SwiGLU 3hf (gate, up, down), and GELU's
  // biases f + h; an MoE's router h E and its S shared experts.
  double params = 0;
  // The routed experts, E x one expert MLP: what EP and expert_tp shard. 0 when dense.
  double expert_params = 0;
  // Of those, the ones a token does not use: E - k experts. What "active" counts leave out.
  double unused_expert_params = 0;
  // Matmul weights a token uses beside the routed experts (a dense MLP's; an MoE's router),
  // and one routed or shared expert's. What the FLOPs follow.
  double matmul_params = 0;
  double expert_matmul_params = 0;
  double experts_per_token = 0;  // k routed experts (0 when dense)
  double shared_experts = 0;     // S
  // Capacity factor c: an expert's buffer is c times its even share of tokens (padded above
  // 1, dropping tokens below: Fedus et al. 2021, Switch Transformer, arXiv:2101.03961,
  // Sec. 2.1). 1 when dense.
  double capacity = 1;
  // Bytes one token stores for the backward pass in this MLP, 16-bit activations, with
  // routing assumed balanced:
  //   dense            w f: GELU its input and the second matmul's input, 2 x 2f (w = 4);
  //                    SwiGLU the gate, the up projection and their product, 3 x 2f (w = 6)
  //   routed experts   k c (2 h etp + w f_e): each token copy's input (2h bytes, repeated
  //                    on the expert's etp ranks; its output is not kept, mlp_shape.cpp)
  //                    and the expert MLP's inner tensors
  //   shared experts   S w f_e
  //   router           4 E (fp32 probabilities: Megatron-Core routes in fp32)
  double stored_bytes_per_token = 0;
  // Its parts, for what recomputation and FP8 drop or shrink (mlp_stored_bytes_per_token):
  // per expert (or the dense MLP) its inner tensors w f and of those the second matmul's input
  // 2f; per routed token copy the input 2 h etp; the router's 4 E.
  double inner_bytes = 0;
  double fc2_input_bytes = 0;
  double copies = 0;  // routed token copies per token, k c (0 when dense)
  double copy_io_bytes = 0;
  double router_bytes = 0;
};

// What one token stores in this MLP when the layer recomputes `modules` (scenario.h
// RecomputeModule): mlp (a dense MLP) and moe (an MoE MLP) keep only their input, which the
// layer counts, so nothing here; moe_act discards the routed experts' activation output (the
// second matmul's input); shared_experts keeps only the shared experts' input. The matmuls'
// inputs are cached at `input_bytes` per element (activations.h ActivationCase: 2, or 1 in FP8
// and 0.5625 in NVFP4, as Transformer Engine's Linear saves its quantized input for the weight
// gradient): a routed copy's input and each second matmul's input. With no module and 16-bit
// inputs, stored_bytes_per_token.
double mlp_stored_bytes_per_token(const MlpShape& mlp, unsigned modules, double input_bytes);

// The scenario's dense MLP (width f) and, for a mixture of experts, its MoE MLP; `expert_tp`
// is the tensor-parallel degree inside each expert (it repeats the token copies' inputs).
MlpShape dense_mlp_shape(const ModelSpec& m);
MlpShape moe_mlp_shape(const ModelSpec& m, double capacity, int expert_tp);

}  // namespace pe
