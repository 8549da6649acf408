// Activation memory, Korthikanti et al., "Reducing Activation Recomputation in Large
// Transformer Models", MLSys'23 (arXiv:2205.05198). 16-bit activations, FP8 where Transformer
// Engine caches them.
#pragma once

#include <algorithm>

#include "model/model_shape.h"
#include "model/scenario.h"

namespace pe {

// Bytes one transformer layer keeps for one micro-batch until its backward pass (Table 2):
//   no parallelism                       s b h (34 + 5 a s / h)
//   tensor parallel t                    s b h (10 + 24/t + 5 a s / (h t))
//   tensor + sequence parallel           s b h / t (34 + 5 a s / h)
//   tensor parallel + selective          s b h (10 + 24/t)
//   tensor + sequence + selective        s b h 34 / t
//   full recompute                       2 s b h (the layer's input only; / t with sequence
//                                        parallel, which shards that input, Sec. 4.2.2)
// Split by the module that keeps each tensor (Sec. 4.1), so that recomputing a module drops
// its own (layer_stored_bytes):
//   outside the TP region (/ t only with SP)
//     the two norms' inputs                  4 s b h
//     the two norms' outputs, the QKV and    4 s b h   layernorm discards them; FP8 caches
//     first MLP matmuls' inputs                        them at 1 byte, NVFP4 at 0.5625
//     two dropout masks                      2 s b h
//   inside (/ t)
//     Q, K, V                                (2 + 4 g/a) s b h   mla_up_proj discards them (MLA's
//                                                                latents, kept anyway, uncounted)
//     the output projection's input          2 s b h   FP8: 1 byte; NVFP4: 0.5625
//     scores, softmax, dropout               5 a s^2 b   core_attn discards them; fused
//                                                        (flash) attention keeps none
//     the MLP's inner tensors                w f s b (mlp_shape.h: mlp, moe, moe_act,
//                                                    shared_experts, FP8)
// core_attn, mlp, moe and shared_experts keep only their inputs, which other modules already
// count; Megatron-Core's transformer_config.py (recompute_modules). With GPT's shape (g = a,
// f = 4h, GELU) the parts add up to Table 2's 34 s b h + 5 a s^2 b.
double activation_bytes_per_layer(int seq_len, int micro_batch, int hidden, int heads, int tp,
                                  bool sequence_parallel, Recompute recompute);

// The attention core's s x s tensors a layer keeps without fused attention: scores, softmax
// and its dropout mask, 5 a s^2 b bytes (Table 2), before any split over TP or CP.
inline double attention_scores_bytes(double heads, double seq_len, double micro_batch) {
  return 5.0 * heads * seq_len * seq_len * micro_batch;
}

// The same derivation for any shape's dense layer (the Table 2 rows when kv_heads = heads,
// ffn = 4h, GELU): K and V shrink to 2 s b h g/a each with g key/value heads
// (AttentionShape::kv_fraction), the MLP keeps its stored bytes per token
// (MlpShape::stored_bytes_per_token: 4 s b f GELU, 6 s b f SwiGLU). Selective recomputation is
// core_attn's; fused (flash) attention stores no scores, as with selective recompute.
double activation_bytes_per_layer(const ModelShape& shape, int micro_batch, int tp,
                                  bool sequence_parallel, Recompute recompute,
                                  bool flash_attention);

// How the activations of a layer are held on one GPU: its micro-batch, TP and CP degrees (each
// CP rank keeps s/cp of every sequence), sequence parallelism, fused attention, FP8 or NVFP4
// caching.
struct ActivationCase {
  int micro_batch = 1;
  int tp = 1;
  int cp = 1;
  bool sequence_parallel = false;
  bool flash_attention = true;
  bool fp8 = false;
  bool fp4 = false;
  // Bytes per element of a GEMM's input kept for its weight gradient: Transformer Engine's Linear
  // keeps the quantized input, only its column-wise data ("Discard row-wise data since it is not
  // needed in backward pass", transformer_engine/pytorch/module/linear.py): FP8 one byte; NVFP4
  // 4-bit values with one E4M3 scale per 16 (NVIDIA arXiv:2509.25149 Sec. 2), 0.5625; else the
  // 16-bit input.
  double gemm_input_bytes() const { return fp4 ? 0.5625 : fp8 ? 1.0 : 2.0; }
};
ActivationCase activation_case(const Scenario& s, int tp, int cp);

// One layer of this kind (ModelShape::dense_layer or moe_layer) recomputing `modules`: what it
// keeps, per GPU per micro-batch, by the parts above. An MoE layer's MLP holds the s b/(cp t)
// tokens each GPU keeps an even share of (routing balanced).
double layer_stored_bytes(const ModelShape& shape, const LayerShape& layer, const ActivationCase& c,
                          unsigned modules);
// torchtitan's per-op selective checkpointing (selective_ac_option "op": torchtitan
// models/llama3/infra/parallelize.py, _save_list and _custom_policy), module every_other_matmul:
// a layer's matmuls in forward order (Q, K, V, O, then the MLP's) count through one counter and
// the odd calls' outputs are saved with the attention kernel's output; everything else is
// recomputed in the backward. The counter runs on across steps, so with an odd number of
// matmuls the saved half alternates: the larger is taken. An MoE MLP counts half its stored
// bytes and half its matmuls. Per token: the saved outputs' bytes, and the recomputed
// matmuls' weights (their forward FLOPs, model_shape.h).
struct EveryOtherMatmul {
  double saved_bytes_per_token = 0;
  double recomputed_params = 0;
};
EveryOtherMatmul every_other_matmul(const ModelShape& shape, const LayerShape& layer);

// A fully recomputed layer keeps its input, 2 s b h (/ t with SP), per GPU per micro-batch.
double layer_checkpoint_bytes(const ModelShape& shape, const ActivationCase& c);

// Of a stage's `layers`, how many full recomputation re-runs whole: all of them (uniform, or
// recompute_layers 0), the first recompute_layers (block), none without full recomputation.
// `r` stands in for the scenario's recompute (the planner tries each). Inline, with the share:
// the planner asks them several times of every stage it times.
inline int fully_recomputed_layers(const Scenario& s, Recompute r, int layers) {
  if (r != Recompute::kFull) return 0;
  if (s.recipe.recompute_layers == 0 || s.recipe.recompute_method == RecomputeMethod::kUniform)
    return layers;
  return std::min(s.recipe.recompute_layers, layers);
}
inline int fully_recomputed_layers(const Scenario& s, int layers) {
  return fully_recomputed_layers(s, s.recipe.recompute, layers);
}
// Of them, the share: what repeats the forward's collectives (comms.h, context.h, moe.h).
inline double fully_recomputed_share(const Scenario& s, int layers) {
  const int full = fully_recomputed_layers(s, layers);
  return full == layers ? (full > 0 ? 1.0 : 0.0) : 1.0 * full / layers;
}

// What an MoE layer stores for its backward pass beyond a dense layer, per GPU per micro-batch
// (negative when its experts store less than the dense MLP): its MLP's stored bytes per token
// (mlp_shape.h) less the dense MLP's, for the s b / (cp tp) tokens each GPU of a stage's
// tp x cp x dp ranks keeps an even share of (routing assumed balanced). `_tensor_` whatever
// is kept for the backward: what the layer's elementwise kernels write and read in any case
// (step_time.h); `_activation_` what is kept: with full recomputation a layer keeps only its
// input, no difference.
double moe_layer_extra_tensor_bytes(const ModelShape& shape, int micro_batch, int tp, int cp);
double moe_layer_extra_activation_bytes(const ModelShape& shape, int micro_batch, int tp, int cp,
                                        Recompute recompute);

// Bytes outside the layers (Sec. 4.3), per micro-batch: the first stage keeps the embedding
// dropout mask, s b h p / t, when the model drops out (ModelSpec::dropout); the last keeps the
// final layer norm's and the output layer's inputs, 2 s b h / t each, and the fp32 logits, 4 s b V
// / t. `inflight` is the number of micro-batches the first stage holds: p, or m when m < p.
double first_stage_extra_activation_bytes(int seq_len, int micro_batch, int hidden, int tp,
                                          int inflight);
// With Transformer Engine's cross entropy the logits are kept in BF16, 2 s b V / t, and
// the loss's backward writes into them (no transient).
double last_stage_extra_activation_bytes(int seq_len, int micro_batch, int hidden, int vocab,
                                         int tp, CrossEntropy loss = CrossEntropy::kUnfused);
// The loss's backward on the last stage holds, beside the stored fp32 log-probabilities, the
// gradient with respect to them and the one with respect to the logits: 8 s b V / t
// (memory.h StageActivations).
double loss_backward_transient_bytes(int seq_len, int micro_batch, int vocab, int tp);

}  // namespace pe
