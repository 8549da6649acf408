#include "model/moe.h"

#include <algorithm>
#include <string>

#include "model/memory.h"
#include "model/transformer.h"

namespace pe {
namespace {

// The non-expert part of an MoE layer: a dense layer without its MLP, plus the router and
// the shared experts.
double moe_layer_dense_params(const ModelSpec& m) {
  return layer_params(m) - mlp_params(m, m.ffn()) + 1.0 * m.hidden * m.experts +
         m.shared_experts * mlp_params(m, m.expert_ffn());
}

// Forward matmul weights one token uses in an MoE layer, its routed experts weighted by
// `routed` (k, or k c with padding).
double moe_layer_used_matmul_params(const ModelSpec& m, double routed) {
  return attention_matmul_params(m) + 1.0 * m.hidden * m.experts +
         (routed + m.shared_experts) * mlp_matmul_params(m, m.expert_ffn());
}

// An MLP's stored activations per token, in bytes: GELU its input and the second matmul's
// input, 2 x 2f; SwiGLU the gate, the up projection and their product, 3 x 2f (activations.h).
double mlp_activation_bytes_per_token(const ModelSpec& m, int ffn) {
  return (m.activation == Activation::kGelu ? 4.0 : 6.0) * ffn;
}

std::string str(long long v) { return std::to_string(v); }

}  // namespace

int moe_layers(const ModelSpec& m) { return m.moe() ? std::max(0, m.layers - m.dense_layers) : 0; }

int moe_layers_in(const ModelSpec& m, int first, int count) {
  if (!m.moe() || count <= 0) return 0;
  const int dense_here = std::max(0, std::min(m.dense_layers, first + count) - first);
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
  p.dense = dense * layer_params(m) + (moe > 0 ? moe * moe_layer_dense_params(m) : 0.0);
  p.expert = moe * routed_expert_params(m);
  return p;
}

double active_params(const ModelSpec& m, int seq_len) {
  const double unused = moe_layers(m) * (m.experts - std::min(m.experts, m.experts_per_token)) *
                        mlp_params(m, m.expert_ffn());
  return shape_params(m, seq_len) - unused;
}

double layer_run_forward_flops_per_token(const ModelSpec& m, int seq_len, int first, int count,
                                         double capacity) {
  const int moe = moe_layers_in(m, first, count), dense = count - moe;
  if (moe == 0) return count * layer_forward_flops_per_token(m, seq_len);
  const double scale = param_scale(m, seq_len);
  const double weights = moe_layer_used_matmul_params(m, m.experts_per_token * capacity);
  return dense * layer_forward_flops_per_token(m, seq_len) +
         moe * (2.0 * weights * scale + attention_core_flops_per_token(m, seq_len));
}

double layer_run_step_flops_per_token(const Scenario& s, int first, int count) {
  const ModelSpec& m = s.model;
  const double c = s.expert_capacity();
  const double forward = layer_run_forward_flops_per_token(m, s.seq_len, first, count, c);
  double again = 0;
  if (s.recompute == Recompute::kFull) {
    again = forward;
  } else if (s.recompute == Recompute::kSelective) {
    again = count * recompute_flops_per_token(m, s.seq_len, s.recompute, s.flash_attention);
  }
  return 3 * forward + again;
}

double moe_layer_extra_activation_bytes(const Scenario& s, const Degrees& d) {
  if (s.recompute == Recompute::kFull) return 0;
  return moe_layer_extra_tensor_bytes(s, d);
}

double moe_layer_extra_tensor_bytes(const Scenario& s, const Degrees& d) {
  const ModelSpec& m = s.model;
  if (!m.moe()) return 0;
  const double tokens = 1.0 * s.seq_len * s.micro_batch / (1.0 * d.cp * d.tp);
  const double k = m.experts_per_token, c = s.expert_capacity();
  const double expert = mlp_activation_bytes_per_token(m, m.expert_ffn());
  const double routed = k * c * (4.0 * m.hidden * s.expert_tp + expert);
  const double shared = m.shared_experts * expert;
  const double router = 4.0 * m.experts;
  return tokens * (routed + shared + router - mlp_activation_bytes_per_token(m, m.ffn()));
}

int expert_data_parallel(const Scenario& s, const Degrees& d) {
  return std::max(1, d.dp * d.cp * d.tp / (d.ep * s.expert_tp));
}

MemoryBreakdown sharded_model_state_bytes(const Scenario& s, const Degrees& d, double dense_per_gpu,
                                          double expert_per_gpu) {
  MemoryBreakdown b = model_state_bytes(dense_per_gpu, s.precision, s.zero_stage, d.dp * d.cp);
  if (expert_per_gpu > 0) {
    const MemoryBreakdown e =
        model_state_bytes(expert_per_gpu, s.precision, s.zero_stage, expert_data_parallel(s, d));
    b.weights_bytes += e.weights_bytes;
    b.grads_bytes += e.grads_bytes;
    b.master_bytes += e.master_bytes;
    b.adam_m_bytes += e.adam_m_bytes;
    b.adam_v_bytes += e.adam_v_bytes;
  }
  return b;
}

double expert_all_to_all_bytes(const Scenario& s, const Degrees& d) {
  const ModelSpec& m = s.model;
  if (!m.moe() || d.ep <= 1) return 0;
  const double tokens = 1.0 * s.seq_len * s.micro_batch / d.cp * s.expert_tp / d.tp;
  return tokens * m.experts_per_token * s.expert_capacity() * m.hidden * kActivationBytes *
         (d.ep - 1.0) / d.ep;
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
