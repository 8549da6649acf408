#include "model/context.h"

#include <string>

#include "model/activations.h"
#include "model/collectives.h"

namespace pe {
namespace {

std::string str(long long v) { return std::to_string(v); }

}  // namespace

SeamTraffic context_traffic(const Scenario& s, const AttentionShape& attention, const Degrees& d,
                            int stage_layers, int microbatches) {
  SeamTraffic t;
  t.group_size = d.cp;
  if (d.cp == 1) return t;
  t.active = true;
  const double cp = d.cp;
  const double tokens = 1.0 * s.batch.seq_len / cp * s.recipe.micro_batch;
  const double kv = attention.kv_elements_per_token / d.tp;
  // Full recomputation exchanges K/V once more on the layers it re-runs whole.
  const double again = fully_recomputed_share(s, stage_layers);
  const double per_layer = 1.0 * stage_layers * microbatches;
  if (s.recipe.context_parallel == ContextParallel::kRing) {
    t.collective = "ring K/V passes every layer";
    t.bytes_per_message = tokens * kv * kActivationBytes;
    t.messages_per_step = (3.0 + again) * (cp - 1) * per_layer;
  } else if (s.recipe.context_parallel == ContextParallel::kAllGather) {
    t.collective = "all-gather of K/V every layer";
    t.bytes_per_message = tokens * kv * (cp - 1) * kActivationBytes;
    t.messages_per_step = (3.0 + again) * per_layer;
  } else {
    t.collective = "all-to-all of Q, K, V and the output every layer";
    const double elements = attention.q_and_o_elements_per_token / d.tp + kv;
    t.bytes_per_message = tokens * elements * ring_share(d.cp) * kActivationBytes;
    t.messages_per_step = (2.0 + again) * per_layer;
  }
  return t;
}

double attention_kernel_tokens(const Scenario& s, const Degrees& d) {
  const bool ring = d.cp > 1 && s.recipe.context_parallel == ContextParallel::kRing;
  return ring ? 1.0 * s.batch.seq_len / d.cp : s.batch.seq_len;
}

double attention_kernel_efficiency(double tokens) {
  // pytorch/benchmark #2391: FlashAttention-3 forward TFLOP/s by sequence length.
  struct Point {
    double tokens, tflops;
  };
  static constexpr Point kFa3[] = {{512, 430.32},   {1024, 517.099}, {2048, 565.544},
                                   {4096, 590.233}, {8192, 614.234}, {16384, 620.73}};
  constexpr double kLong = kFa3[5].tflops;
  if (tokens <= kFa3[0].tokens) return kFa3[0].tflops / kLong * tokens / kFa3[0].tokens;
  for (int i = 1; i < 6; ++i) {
    if (tokens < kFa3[i].tokens) {
      const Point lo = kFa3[i - 1], hi = kFa3[i];
      const double at = (tokens - lo.tokens) / (hi.tokens - lo.tokens);
      return (lo.tflops + (hi.tflops - lo.tflops) * at) / kLong;
    }
  }
  return 1;
}

Problem context_problem(const Scenario& s, const Degrees& d) {
  if (d.cp == 1) return {};
  const char* key = s.recipe.degrees ? "degrees.cp" : "seams.context";
  if (s.batch.seq_len % d.cp != 0) {
    return {key, "context-parallel degree " + str(d.cp) + " does not divide seq_len (" +
                     str(s.batch.seq_len) +
                     "): each CP rank takes an equal share of every sequence"};
  }
  if (s.recipe.context_parallel == ContextParallel::kUlysses && s.model.heads % d.cp != 0) {
    return {key, "context-parallel degree " + str(d.cp) + " does not divide the " +
                     str(s.model.heads) +
                     " attention heads: Ulysses gives each CP rank whole heads (use ring)"};
  }
  return {};
}

}  // namespace pe
