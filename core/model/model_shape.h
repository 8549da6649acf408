// The model's shape, computed once per scenario: its two kinds of layer (a dense layer and,
// for a mixture of experts, an MoE layer), each an attention (attention_shape.h) and an MLP
// (mlp_shape.h), and what the layers, the embedding and the output layer hold and compute.
// Memory, traffic, step time and the derivations read it; a layer's kind is asked here, once,
// instead of in each of them.
#pragma once

#include "model/attention_shape.h"
#include "model/mlp_shape.h"
#include "model/scenario.h"

namespace pe {

// One kind of layer: an attention and an MLP, with two norms (LayerNorm 2h each with GELU,
// RMSNorm h with SwiGLU).
struct LayerShape {
  AttentionShape attention;
  MlpShape mlp;
  // Its parameters but the routed experts, and the routed experts' (mlp_shape.h). A dense
  // layer, head_dim = h/a, g = kv_heads:
  //   attention  2h^2 (Q, O) + 2 h g head_dim (K, V)
  //   MLP        GELU 2 h f, SwiGLU 3 h f (gate, up, down)
  //   GELU/GPT also has biases, h + 2 g head_dim + h (attention) + f + h (MLP), and two
  //   LayerNorms (4h); SwiGLU/Llama has no biases and two RMSNorms (2h).
  // For GPT (g = a, f = 4h) this is 12h^2 + 13h, the layer term of Narayanan et al. 2021
  // (arXiv:2104.04473) Eq. 2. Llama 3 8B/70B/405B come out at 8.03/70.6/405.9 B (Dubey et al.
  // 2024, Table 3). An MoE layer keeps the attention and norms and replaces the MLP by a
  // router, shared and routed experts: Mixtral 8x7B 46.7B, DeepSeek-V3 671B in all.
  double params = 0;
  double expert_params = 0;
  // Forward FLOPs per token: 2 x the matmul weights a token uses (scaled by param_scale) + the
  // attention core. An MoE layer's routed work counts min(c, 1) of its token copies (`kept`:
  // model FLOPs, what MFU counts) or c (`padded`: what the GPUs execute).
  double kept_forward_flops_per_token = 0;
  double padded_forward_flops_per_token = 0;
  // Of the padded forward, the routed experts' grouped GEMMs, 2 k c x one expert's matmul
  // weights (scaled by param_scale): what runs at the grouped GEMM's efficiency and waits for
  // the busiest expert (moe.h). 0 for a dense layer.
  double routed_forward_flops_per_token = 0;
  double all_params() const { return params + expert_params; }
};

// The parameters of a run of layers, unscaled (param_scale): `expert` is what the routed
// experts hold (sharded by EP x expert_tp), `dense` the rest (sharded by TP).
struct LayerParams {
  double dense = 0;
  double expert = 0;
  double total() const { return dense + expert; }
};

class ModelShape {
 public:
  // `capacity` is an MoE's capacity factor (Scenario::expert_capacity), `expert_tp` the TP
  // degree inside each expert.
  ModelShape(const ModelSpec& m, int seq_len, double capacity = 1, int expert_tp = 1);
  explicit ModelShape(const Scenario& s);

  const LayerShape& dense_layer() const { return dense_; }
  const LayerShape& moe_layer() const { return moe_; }  // the dense layer's when dense
  const AttentionShape& attention() const { return dense_.attention; }
  bool moe() const { return moe_.mlp.moe; }
  int seq_len() const { return seq_len_; }
  int hidden() const { return hidden_; }
  int heads() const { return heads_; }
  bool dropout() const { return dropout_; }  // ModelSpec::dropout
  int vocab() const { return vocab_; }
  int layers() const { return layers_; }

  // MoE layers: L - dense_layers (DeepSeek-V3 keeps 3 dense), and those among layers
  // [first, first + count). 0 when dense.
  int moe_layers() const { return moe_layers_in(0, layers_); }
  int moe_layers_in(int first, int count) const;
  LayerParams run_params(int first, int count) const;

  // Word embedding V h, plus learned positions s h (first stage); an untied output layer's
  // V h, plus the final norm (last stage).
  double embedding_params() const { return embedding_params_; }
  double output_params() const { return output_params_; }
  // The shape's parameter count: the layers + embedding + output.
  double params() const { return params_; }
  // The parameters one token uses: each MoE layer's k routed experts instead of all E. With
  // params(), the "total" and "active" counts papers quote: Mixtral 8x7B 46.7B and 12.9B,
  // DeepSeek-V3 671B and 37B.
  double active_params() const;
  // model.params / params(): what parameter-proportional quantities (weights, matmul FLOPs)
  // are scaled by so that they add up to the stated count. 1 when params was derived from
  // the shape.
  double param_scale() const { return param_scale_; }

  // ---- FLOPs ---------------------------------------------------------------------------------

  // The output layer's forward, 2 h V per token (scaled by param_scale).
  double output_forward_flops_per_token() const { return output_flops_; }
  // Forward FLOPs per token of layers [first, first + count), routed work kept or padded.
  double run_forward_flops_per_token(int first, int count, bool padded) const;
  // Forward FLOPs per token that one layer of this kind re-runs when it recomputes `modules`
  // (scenario.h RecomputeModule): core_attn the attention core (fused attention too: its
  // kernel runs again), mla_up_proj MLA's up projections, mlp a dense MLP, moe an MoE MLP
  // (padded), shared_experts the shared experts; layernorm and moe_act only elementwise work
  // (step_time.h). Selective recomputation of GPT's core attention costs 4 s h per token per
  // layer (Korthikanti Sec. 5).
  double module_recompute_flops_per_token(const LayerShape& layer, unsigned modules) const;
  // FLOPs per token the GPUs execute for layers [first, first + count) in one training step:
  // 3 x the padded forward (the backward costs twice the forward), the forward again of the
  // first `full` of them (full recomputation: Narayanan Eq. 3's 96 B s L h^2 (1 + s/(6h) +
  // V/(16 L h)) for GPT when every layer is) and the modules' forward of the others. `core`
  // is the attention core's share, which runs in BF16 whatever the GEMMs do; `routed` the
  // routed experts' grouped GEMMs (LayerShape::routed_forward_flops_per_token).
  struct StepFlops {
    double total = 0;
    double core = 0;
    double routed = 0;
  };
  StepFlops run_step_flops_per_token(int first, int count, unsigned modules, int full) const;
  // Model FLOPs of one step, no recomputation: 3 x forward for every layer and the output
  // layer. For GPT this is Korthikanti et al. 2022 (arXiv:2205.05198) Eq. 7,
  // 72 B s L h^2 (1 + s/(6h) + V/(12 L h)). What MFU counts: below capacity 1 an expert takes
  // capacity x its even share of tokens and the rest skip it (Switch Transformer Sec. 2.1;
  // GShard Sec. 2.2); padding above 1 is hardware work, not model work.
  double model_flops_per_step(double global_batch) const;

 private:
  LayerShape dense_;
  LayerShape moe_;
  int seq_len_, hidden_, heads_, vocab_, layers_, dense_layers_;
  double embedding_params_ = 0, output_params_ = 0, params_ = 0, param_scale_ = 1;
  double output_flops_ = 0;
  bool dropout_ = true;
};

// The shape's parameter count of a model (ModelShape::params).
double shape_params(const ModelSpec& m, int seq_len);

}  // namespace pe
