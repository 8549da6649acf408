#include "model/mlp_shape.h"

#include <algorithm>

namespace pe {
namespace {

bool gelu(const ModelSpec& m) { return m.activation == Activation::kGelu; }

// One MLP of width f: its matmuls, and with them its biases (GELU).
double mlp_matmul_params(const ModelSpec& m, int ffn) {
  return (gelu(m) ? 2.0 : 3.0) * m.hidden * ffn;
}
double mlp_params(const ModelSpec& m, int ffn) {
  return mlp_matmul_params(m, ffn) + (gelu(m) ? 1.0 * ffn + m.hidden : 0.0);
}

// Bytes an MLP of width f stores per token (w f above).
double mlp_stored_bytes_per_token(const ModelSpec& m, int ffn) {
  return (gelu(m) ? 4.0 : 6.0) * ffn;
}

}  // namespace

MlpShape dense_mlp_shape(const ModelSpec& m) {
  MlpShape mlp;
  mlp.params = mlp_params(m, m.ffn());
  mlp.matmul_params = mlp_matmul_params(m, m.ffn());
  mlp.stored_bytes_per_token = mlp_stored_bytes_per_token(m, m.ffn());
  mlp.inner_bytes = mlp.stored_bytes_per_token;
  mlp.fc2_input_bytes = kActivationBytes * m.ffn();
  return mlp;
}

MlpShape moe_mlp_shape(const ModelSpec& m, double capacity, int expert_tp) {
  const double h = m.hidden, k = m.experts_per_token, c = capacity;
  const double expert = mlp_params(m, m.expert_ffn());
  MlpShape mlp;
  mlp.moe = true;
  mlp.params = 1.0 * m.hidden * m.experts + m.shared_experts * expert;
  mlp.expert_params = m.experts * expert;
  mlp.unused_expert_params = (m.experts - std::min(m.experts, m.experts_per_token)) * expert;
  mlp.matmul_params = 1.0 * m.hidden * m.experts;
  mlp.expert_matmul_params = mlp_matmul_params(m, m.expert_ffn());
  mlp.experts_per_token = k;
  mlp.shared_experts = m.shared_experts;
  mlp.capacity = c;
  const double stored = mlp_stored_bytes_per_token(m, m.expert_ffn());
  // A routed copy keeps its input, 2 h 16-bit values on each of the expert's etp ranks, for
  // the first matmul's weight gradient. Its output is not kept: Megatron-Core permutes the
  // routing probabilities with the tokens and multiplies them in inside the expert's
  // activation (experts.py activation_func_with_probs; moe_utils.permute returns
  // permuted_probs), so the combine's unpermute saves nothing, and the probabilities'
  // gradient needs only the activation's output, which the second matmul keeps anyway.
  // DeepSeek-V3 (arXiv:2412.19437, Sec. 3.3.3) likewise lists the expert's input and its
  // SwiGLU input as what the MoE caches.
  const double routed = k * c * (2.0 * h * expert_tp + stored);
  const double shared = m.shared_experts * stored;
  const double router = 4.0 * m.experts;
  mlp.stored_bytes_per_token = routed + shared + router;
  mlp.inner_bytes = stored;
  mlp.fc2_input_bytes = kActivationBytes * m.expert_ffn();
  mlp.copies = k * c;
  mlp.copy_io_bytes = 2.0 * h * expert_tp;
  mlp.router_bytes = router;
  return mlp;
}

double mlp_stored_bytes_per_token(const MlpShape& mlp, unsigned modules, double input_bytes) {
  // The second matmul's input, 2f bytes at 16 bits, at input_bytes per element.
  const double scale = input_bytes / kActivationBytes;
  const double expert = mlp.inner_bytes - mlp.fc2_input_bytes * (1 - scale);
  if (!mlp.moe) return modules & kMlp ? 0.0 : expert;
  if (modules & kMoe) return 0.0;
  const double routed_inner = modules & kMoeAct ? mlp.inner_bytes - mlp.fc2_input_bytes : expert;
  // A copy's input is the first matmul's input.
  const double io = mlp.copy_io_bytes * scale;
  const double shared = modules & kSharedExperts ? 0.0 : mlp.shared_experts * expert;
  return mlp.copies * (io + routed_inner) + shared + mlp.router_bytes;
}

}  // namespace pe
