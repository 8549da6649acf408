#include "step_time.h"

#include "transformer.h"

namespace pe {

TimeReport time_report(const Scenario& s, int active_gpus, const PipelineReport& pipeline,
                       const CommsReport& comms, int effective_global_batch) {
  TimeReport t;
  const double peak_flops = s.gpu.peak_tflops * 1e12;
  t.model_flops_per_step = model_flops_per_step(s.model, s.seq_len, effective_global_batch);
  t.hardware_flops_per_step =
      hardware_flops_per_step(s.model, s.seq_len, effective_global_batch, s.recompute);
  t.compute_s = t.hardware_flops_per_step / (active_gpus * peak_flops * s.efficiency);
  t.bubble_s = t.compute_s * pipeline.bubble_fraction;
  t.exposed_comms_s = comms.data.time_s + comms.tensor.time_s + comms.pipeline.time_s;
  t.step_s = t.compute_s + t.bubble_s + t.exposed_comms_s;
  t.mfu = t.model_flops_per_step / (t.step_s * active_gpus * peak_flops);
  t.tflops_per_gpu = t.hardware_flops_per_step / (t.step_s * active_gpus) / 1e12;
  t.tokens_per_s = 1.0 * effective_global_batch * s.seq_len / t.step_s;
  if (s.train_tokens > 0) t.time_to_train_s = s.train_tokens / t.tokens_per_s;
  return t;
}

}  // namespace pe
