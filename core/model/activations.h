// Activation memory, Korthikanti et al., "Reducing Activation Recomputation in Large
// Transformer Models", MLSys'23 (arXiv:2205.05198). 16-bit activations.
#pragma once

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
// The 10 s b h outside the tensor-parallel region are the two norms' inputs (4), the QKV and
// first MLP inputs (2 + 2) and two dropout masks (2); the 24 inside are Q, K, V and the
// attention output (8) and the MLP's two 4h-wide tensors (16); 5 a s^2 b are the attention
// scores, softmax and dropout (Sec. 4.1).
double activation_bytes_per_layer(int seq_len, int micro_batch, int hidden, int heads, int tp,
                                  bool sequence_parallel, Recompute recompute);

// The same derivation for any shape's dense layer (the Table 2 rows when kv_heads = heads,
// ffn = 4h, GELU): K and V shrink to 2 s b h g/a each with g key/value heads
// (AttentionShape::kv_fraction), the MLP keeps its stored bytes per token
// (MlpShape::stored_bytes_per_token: 4 s b f GELU, 6 s b f SwiGLU). Fused (flash) attention
// stores no scores, as with selective recompute.
double activation_bytes_per_layer(const ModelShape& shape, int micro_batch, int tp,
                                  bool sequence_parallel, Recompute recompute,
                                  bool flash_attention);

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
// dropout mask, s b h p / t; the last keeps the final layer norm's and the output layer's
// inputs, 2 s b h / t each, and the fp32 logits, 4 s b V / t.
// `inflight` is the number of micro-batches the first stage holds: p, or m when m < p.
double first_stage_extra_activation_bytes(int seq_len, int micro_batch, int hidden, int tp,
                                          int inflight);
double last_stage_extra_activation_bytes(int seq_len, int micro_batch, int hidden, int vocab,
                                         int tp);

}  // namespace pe
