#include "moe.h"

#include <algorithm>
#include <string>

#include "transformer.h"

namespace pe {
namespace {

bool gpt_style(const ModelSpec& m) { return m.activation == Activation::kGelu; }
double norm_params(const ModelSpec& m) { return gpt_style(m) ? 2.0 * m.hidden : 1.0 * m.hidden; }
double head_dim(const ModelSpec& m) { return 1.0 * m.hidden / m.heads; }

// GPT's biases: Q, K, V and O in attention; the two MLP matmuls.
double attention_bias_params(const ModelSpec& m) {
  if (!gpt_style(m) || m.attention == Attention::kLatent) return 0;
  return 2.0 * m.hidden + 2.0 * m.kv() * head_dim(m);
}
double mlp_params(const ModelSpec& m, int ffn) {
  return mlp_matmul_params(m, ffn) + (gpt_style(m) ? 1.0 * ffn + m.hidden : 0.0);
}
// MLA normalises its two latents (q and kv) with RMSNorms of their ranks.
double attention_params(const ModelSpec& m) {
  double p = attention_matmul_params(m) + attention_bias_params(m);
  if (m.attention == Attention::kLatent) {
    const LatentAttentionShape mla;
    p += mla.q_rank + mla.kv_rank;
  }
  return p;
}
double attention_core_flops_per_token(const ModelSpec& m, int seq_len) {
  if (m.attention == Attention::kLatent) {
    const LatentAttentionShape mla;
    return 2.0 * seq_len * m.heads * (mla.qk_nope + mla.qk_rope + mla.v);
  }
  return 4.0 * seq_len * m.hidden;
}
// The non-expert part of an MoE layer: attention, norms, router, shared experts.
double moe_layer_dense_params(const ModelSpec& m) {
  return attention_params(m) + 2 * norm_params(m) + 1.0 * m.hidden * m.experts +
         m.shared_experts * mlp_params(m, m.expert_ffn());
}
// Forward matmul weights one token uses in an MoE layer, its routed experts weighted by
// `routed` (k, or k c with padding).
double moe_layer_used_matmul_params(const ModelSpec& m, double routed) {
  return attention_matmul_params(m) + 1.0 * m.hidden * m.experts +
         (routed + m.shared_experts) * mlp_matmul_params(m, m.expert_ffn());
}
// An MLP's stored activations per token, in bytes: GELU its input and the second matmul's
// input, 2 x 2f; SwiGLU the gate, the up projection and their product, 3 x 2f.
double mlp_activation_bytes_per_token(const ModelSpec& m, int ffn) {
  return (gpt_style(m) ? 4.0 : 6.0) * ffn;
}

}  // namespace

double attention_matmul_params(const ModelSpec& m) {
  const double h = m.hidden, a = m.heads;
  if (m.attention == Attention::kLatent) {
    const LatentAttentionShape mla;
    const double qk = mla.qk_nope + mla.qk_rope;
    return h * mla.q_rank + mla.q_rank * a * qk + h * (mla.kv_rank + mla.qk_rope) +
           mla.kv_rank * a * (mla.qk_nope + mla.v) + a * mla.v * h;
  }
  return 2 * h * h + 2 * h * m.kv() * head_dim(m);
}

double mlp_matmul_params(const ModelSpec& m, int ffn) {
  return (gpt_style(m) ? 2.0 : 3.0) * m.hidden * ffn;
}

double dense_layer_params(const ModelSpec& m) {
  return attention_params(m) + mlp_params(m, m.ffn()) + 2 * norm_params(m);
}

int moe_layers(const ModelSpec& m) {
  return m.moe() ? std::max(0, m.layers - m.dense_layers) : 0;
}

int moe_layers_in(const ModelSpec& m, int first, int count) {
  if (!m.moe() || count <= 0) return 0;
  const int dense_end = std::min(m.dense_layers, m.layers);
  const int dense_here = std::max(0, std::min(dense_end, first + count) - first);
  return count - std::min(count, dense_here);
}

double routed_expert_params(const ModelSpec& m) {
  return m.moe() ? m.experts * mlp_params(m, m.expert_ffn()) : 0.0;
}

double moe_layer_params(const ModelSpec& m) {
  return moe_layer_dense_params(m) + routed_expert_params(m);
}

LayerParams layer_run_params(const ModelSpec& m, int first, int count) {
  const int moe = moe_layers_in(m, first, count), dense = count - moe;
  LayerParams p;
  p.dense = dense * dense_layer_params(m) + moe * moe_layer_dense_params(m);
  p.expert = moe * routed_expert_params(m);
  return p;
}

double embedding_and_output_params(const ModelSpec& m, int seq_len) {
  const double words = 1.0 * m.vocab * m.hidden;
  const double positions = m.position == Position::kLearned ? 1.0 * seq_len * m.hidden : 0.0;
  return words + positions + (m.tied_embeddings ? 0.0 : words) + norm_params(m);
}

double shape_params(const ModelSpec& m, int seq_len) {
  return layer_run_params(m, 0, m.layers).total() + embedding_and_output_params(m, seq_len);
}

double active_params(const ModelSpec& m, int seq_len) {
  const double unused = moe_layers(m) * (m.experts - std::min(m.experts, m.experts_per_token)) *
                        mlp_params(m, m.expert_ffn());
  return shape_params(m, seq_len) - unused;
}

double counted_params(const ModelSpec& m, int seq_len) {
  const bool gpt = !m.moe() && m.activation == Activation::kGelu && m.kv_heads == 0 &&
                   m.ffn_hidden == 0 && m.position == Position::kLearned && m.tied_embeddings &&
                   m.attention == Attention::kMultiHead;
  return gpt ? gpt_params(m, seq_len) : shape_params(m, seq_len);
}

double layer_run_forward_flops_per_token(const ModelSpec& m, int seq_len, int first, int count,
                                         double capacity) {
  const int moe = moe_layers_in(m, first, count), dense = count - moe;
  const double dense_weights = attention_matmul_params(m) + mlp_matmul_params(m, m.ffn());
  const double moe_weights = moe_layer_used_matmul_params(m, m.experts_per_token * capacity);
  return 2.0 * (dense * dense_weights + moe * moe_weights) +
         count * attention_core_flops_per_token(m, seq_len);
}

double moe_layer_extra_activation_bytes(const Scenario& s, const Degrees& d) {
  const ModelSpec& m = s.model;
  if (!m.moe() || s.recompute == Recompute::kFull) return 0;
  const double tokens = 1.0 * s.seq_len * s.micro_batch / (1.0 * d.cp * d.tp);
  const double k = m.experts_per_token, c = s.expert_capacity();
  const double expert = mlp_activation_bytes_per_token(m, m.expert_ffn());
  const double routed = k * c * (4.0 * m.hidden * s.expert_tp + expert);
  const double shared = m.shared_experts * expert;
  const double router = 4.0 * m.experts;
  return tokens * (routed + shared + router - mlp_activation_bytes_per_token(m, m.ffn()));
}

double expert_all_to_all_bytes(const Scenario& s, const Degrees& d) {
  const ModelSpec& m = s.model;
  if (!m.moe() || d.ep <= 1) return 0;
  const double tokens = 1.0 * s.seq_len * s.micro_batch / d.cp * s.expert_tp / d.tp;
  return tokens * m.experts_per_token * s.expert_capacity() * m.hidden * 2.0 * (d.ep - 1.0) / d.ep;
}

SeamTraffic expert_traffic(const Scenario& s, const Degrees& d, int moe_layers_here,
                           int microbatches) {
  SeamTraffic t;
  t.group_size = d.ep;
  if (d.ep == 1 || !s.model.moe()) return t;
  t.active = true;
  t.collective = "all-to-all dispatch + combine every MoE layer";
  t.bytes_per_message = expert_all_to_all_bytes(s, d);
  const double per_layer = s.recompute == Recompute::kFull ? 6.0 : 4.0;
  t.messages_per_step = per_layer * moe_layers_here * microbatches;
  return t;
}

Problem expert_problem(const Scenario& s, const Degrees& d) {
  const auto str = [](long long v) { return std::to_string(v); };
  const ModelSpec& m = s.model;
  if (d.ep > 1) {
    const char* key = s.degrees ? "degrees.ep" : "seams.expert";
    if (!m.moe()) {
      return {key, "expert-parallel degree " + str(d.ep) + " needs a mixture-of-experts model: " +
                       m.name + " is dense (model.experts is 0)"};
    }
    const long long dp_cp = 1LL * d.dp * d.cp;
    if (dp_cp % d.ep != 0) {
      return {key, "expert-parallel degree " + str(d.ep) + " does not divide dp x cp = " +
                       str(d.dp) + "x" + str(d.cp) + " = " + str(dp_cp) +
                       ": EP groups are carved out of the data- and context-parallel ranks"};
    }
    if (m.experts % d.ep != 0) {
      return {key, "expert-parallel degree " + str(d.ep) + " does not divide the " +
                       str(m.experts) + " experts: each EP rank holds whole experts"};
    }
  }
  if (m.moe() && d.tp % s.expert_tp != 0) {
    return {"expert_tp", "expert_tp is " + str(s.expert_tp) +
                             ": it must divide the tensor-parallel degree (" + str(d.tp) +
                             "), as each expert's TP group sits inside the layer's"};
  }
  return {};
}

}  // namespace pe
