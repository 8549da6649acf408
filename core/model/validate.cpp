#include "model/validate.h"

#include <cmath>

#include "model/model_shape.h"
#include "model/schema.h"

namespace pe {
namespace {

std::string str(long long v) { return std::to_string(v); }

// The row's range: lo <= v <= hi (lo < v when the row says so), finite.
Problem out_of_range(const Field& f, double v) {
  const bool ok = std::isfinite(v) && (f.min_exclusive ? v > f.min : v >= f.min) && v <= f.max;
  if (ok) return {};
  return {f.key, std::string(f.key) + " is " + show_number(v) + ": allowed " +
                     (f.min_exclusive ? "more than " : "") + show_number(f.min) + " to " +
                     show_number(f.max)};
}

Problem ranges(const Scenario& s) {
  for (const Field& f : fields()) {
    const bool ranged =
        (f.type == FieldType::kInteger || f.type == FieldType::kNumber) && f.get && f.max > f.min;
    if (!ranged) continue;
    if (std::string(f.key).rfind("degrees.", 0) == 0 && !s.recipe.degrees) continue;
    if (Problem p = out_of_range(f, f.get(s)); !p.empty()) return p;
  }
  return {};
}

Problem degrees_problem(const Scenario& s) {
  const Degrees& d = *s.recipe.degrees;
  if (d.product() == s.fleet.gpus) return {};
  const std::string factors =
      d.cp == 1 ? "dp x tp x pp = " + str(d.dp) + "x" + str(d.tp) + "x" + str(d.pp)
                : "dp x tp x pp x cp = " + str(d.dp) + "x" + str(d.tp) + "x" + str(d.pp) + "x" +
                      str(d.cp);
  return {"degrees", "degrees: " + factors + " = " + str(d.product()) + ", but gpus is " +
                         str(s.fleet.gpus) + ": the product must equal gpus"};
}

}  // namespace

bool params_match_shape(const ModelSpec& m, int seq_len) {
  return m.shape_nominal || std::fabs(m.params / shape_params(m, seq_len) - 1) <= 0.05;
}

// No iostreams: they would add half again to the wasm module; the JSON writer's shortest
// round-trip form is linked anyway.
std::string show_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
    return std::to_string(static_cast<long long>(v));
  }
  return Json(v).dump();
}

Problem validate(const Scenario& s) {
  if (Problem p = ranges(s); !p.empty()) return p;
  const ModelSpec& m = s.model;
  // With no head width given, a head is h / a wide, so the heads must divide the hidden size.
  if (m.head_dim == 0 && (m.heads > m.hidden || m.hidden % m.heads != 0)) {
    return {"model.heads", "model.heads is " + str(m.heads) + ": it must divide model.hidden (" +
                               str(m.hidden) + ") so every head has the same size, or give " +
                               "model.head_dim"};
  }
  if (m.kv_heads > m.heads || (m.kv_heads > 0 && m.heads % m.kv_heads != 0)) {
    return {"model.kv_heads", "model.kv_heads is " + str(m.kv_heads) +
                                  ": it must divide model.heads (" + str(m.heads) +
                                  ") so the query heads share key/value heads evenly"};
  }
  if (m.moe() && m.experts_per_token > m.experts) {
    return {"model.experts_per_token", "model.experts_per_token is " + str(m.experts_per_token) +
                                           ": allowed 1 to model.experts (" + str(m.experts) +
                                           "); a token cannot use more "
                                           "experts than there are"};
  }
  if (m.moe() && m.dense_layers >= m.layers) {
    return {"model.dense_layers", "model.dense_layers is " + str(m.dense_layers) +
                                      ": allowed 0 to model.layers - 1 (" + str(m.layers - 1) +
                                      ") so that some layer has experts"};
  }
  if (!params_match_shape(m, s.batch.seq_len)) {
    const double counted = shape_params(m, s.batch.seq_len);
    {
      return {"model.params",
              "model.params is " + show_number(m.params) + " but the architecture counts " +
                  show_number(std::round(counted)) + ", " +
                  show_number(std::round(100 * (m.params / counted - 1))) +
                  "% apart: allowed within 5% of it (leave params out to use the count)"};
    }
  }
  if (const int domain = s.gpu.nvlink_domain_gpus; domain % s.fleet.gpus_per_node != 0) {
    return {"nvlink_domain_gpus", "nvlink_domain_gpus is " + str(domain) +
                                      (s.gpu.name == "custom" ? "" : " (" + s.gpu.name + ")") +
                                      ": allowed 0 (one node) or a multiple of gpus_per_node (" +
                                      str(s.fleet.gpus_per_node) +
                                      "), so the domain holds whole nodes"};
  }
  if (s.recipe.precision.total_bytes() <= 0) {
    return {"precision", "precision: bytes per parameter add up to 0; allowed: a positive total"};
  }
  if (s.recipe.precision.fp8 && s.gpu.fp8_tflops <= 0) {
    return {"precision", "precision " + s.recipe.precision.name + " needs gpu_fp8_tflops, 0 on " +
                             s.gpu.name +
                             ": allowed on H100, H200, H800, B200, GB200, B300, GB300"};
  }
  if (s.recipe.precision.fp4 && s.recipe.precision.fp8) {
    return {"precision.fp4",
            "precision.fp4 and precision.fp8 are both on: Transformer Engine runs "
            "one recipe, FP8 or NVFP4"};
  }
  if (s.recipe.precision.fp4 && s.gpu.fp4_tflops <= 0) {
    return {"precision", "precision " + s.recipe.precision.name + " needs gpu_fp4_tflops, 0 on " +
                             s.gpu.name + ": allowed on B200, GB200, B300, GB300"};
  }
  if (s.recipe.micro_batch > s.batch.global_batch) {
    return {"micro_batch", "micro_batch is " + str(s.recipe.micro_batch) +
                               ": allowed 1 to global_batch (" + str(s.batch.global_batch) + ")"};
  }
  if (s.recipe.degrees) return degrees_problem(s);
  return {};
}

}  // namespace pe
