#include "model/moe.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "model/activations.h"
#include "model/collectives.h"
#include "model/gemm_shape.h"
#include "model/memory.h"
#include "model/pipeline.h"

namespace pe {
namespace {

std::string str(long long v) { return std::to_string(v); }

}  // namespace

int expert_data_parallel(const Scenario& s, const Degrees& d) {
  return std::max(1, d.dp * d.cp * d.tp / (d.ep * s.recipe.expert_tp));
}

MemoryBreakdown sharded_model_state_bytes(const Scenario& s, const Degrees& d, double dense_per_gpu,
                                          double expert_per_gpu) {
  // DualPipe's ranks hold two stages' weights and their states (pipeline.h).
  const int copies = parameter_copies(s, d.pp);
  dense_per_gpu *= copies;
  expert_per_gpu *= copies;
  MemoryBreakdown b =
      model_state_bytes(dense_per_gpu, s.recipe.precision, s.recipe.zero_stage, d.dp * d.cp);
  if (expert_per_gpu > 0) {
    const MemoryBreakdown e = model_state_bytes(expert_per_gpu, s.recipe.precision,
                                                s.recipe.zero_stage, expert_data_parallel(s, d));
    b.weights_bytes += e.weights_bytes;
    b.grads_bytes += e.grads_bytes;
    b.master_bytes += e.master_bytes;
    b.adam_m_bytes += e.adam_m_bytes;
    b.adam_v_bytes += e.adam_v_bytes;
  }
  return b;
}

double expert_all_to_all_bytes(const Scenario& s, const MlpShape& moe, const Degrees& d) {
  if (!moe.moe || d.ep <= 1) return 0;
  const double tokens =
      1.0 * s.batch.seq_len * s.recipe.micro_batch / d.cp * s.recipe.expert_tp / d.tp;
  return tokens * moe.experts_per_token * moe.capacity * s.model.hidden * kActivationBytes *
         ring_share(d.ep);
}

SeamTraffic expert_traffic(const Scenario& s, const MlpShape& moe, const Degrees& d,
                           int moe_layers_here, int microbatches) {
  SeamTraffic t;
  t.group_size = d.ep;
  if (d.ep == 1 || !moe.moe) return t;
  t.active = true;
  t.collective = "all-to-all dispatch + combine every MoE layer";
  t.bytes_per_message = expert_all_to_all_bytes(s, moe, d);
  // Full recomputation dispatches and combines again on the layers it re-runs whole (their
  // share taken among the MoE layers).
  const double per_layer = 4.0 + 2.0 * fully_recomputed_share(s, moe_layers_here);
  t.messages_per_step = per_layer * moe_layers_here * microbatches;
  return t;
}

double tokens_per_expert(const Scenario& s, const MlpShape& moe, const Degrees& d) {
  if (!moe.moe) return 0;
  return 1.0 * s.batch.seq_len * s.recipe.micro_batch / d.cp * s.recipe.expert_tp / d.tp * d.ep *
         moe.experts_per_token * moe.capacity / s.model.experts;
}

namespace {

// DeepGEMM README (before commit 37aa127), N 7,168 x K 2,048 on H800: TFLOP/s over the same
// kernel's at 4,096 rows (grouped 1,214; dense 1,168 for the two dense rows).
constexpr GemmPoint kGroupedGemm[] = {{64, 295.0 / 1168},   {128, 510.0 / 1168},
                                      {256, 815.0 / 1214},  {512, 916.0 / 1214},
                                      {1024, 925.0 / 1214}, {4096, 1.0}};

}  // namespace

GemmBracket grouped_gemm_bracket(double rows) {
  GemmBracket b;
  b.lo = {0, 0};
  b.hi = kGroupedGemm[0];
  if (rows < kGroupedGemm[0].rows) {
    b.position = rows / kGroupedGemm[0].rows;
    return b;
  }
  for (const GemmPoint& p : kGroupedGemm) {
    if (rows < p.rows) {
      b.hi = p;
      b.position = log_same_everywhere(rows / b.lo.rows) / log_same_everywhere(p.rows / b.lo.rows);
      return b;
    }
    b.lo = p;
  }
  b.hi = b.lo;
  b.position = 0;
  return b;
}

double grouped_gemm_efficiency(double rows) {
  const GemmBracket b = grouped_gemm_bracket(rows);
  return b.lo.efficiency + (b.hi.efficiency - b.lo.efficiency) * b.position;
}

double expert_load(const Scenario& s, const Degrees& d) {
  if (!s.model.moe() || s.recipe.capacity_factor > 0 || s.model.experts <= 1) return 1;
  return 1 + (s.recipe.moe_load_imbalance - 1) * (d.ep - 1.0) / (s.model.experts - 1.0);
}

double permutation_bytes(const Scenario& s, const MlpShape& moe, const Degrees& d) {
  if (!moe.moe) return 0;
  const double tokens =
      1.0 * s.batch.seq_len * s.recipe.micro_batch / d.cp * s.recipe.expert_tp / d.tp;
  return 2 * 2 * tokens * moe.experts_per_token * moe.capacity * s.model.hidden * kActivationBytes;
}

Problem expert_problem(const Scenario& s, const Degrees& d) {
  const ModelSpec& m = s.model;
  if (d.ep > 1) {
    const char* key = s.recipe.degrees ? "degrees.ep" : "seams.expert";
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
  if (m.moe() && d.tp % s.recipe.expert_tp != 0) {
    return {"expert_tp", "expert_tp is " + str(s.recipe.expert_tp) +
                             ": it must divide the tensor-parallel degree (" + str(d.tp) +
                             "), as each expert's TP group sits inside the layer's"};
  }
  return {};
}

}  // namespace pe
