#include "pipeline.h"

namespace pe {

int microbatches_per_step(const Scenario& s, const Degrees& d) {
  const long long per_round = 1LL * s.micro_batch * d.dp;
  return static_cast<int>((s.global_batch + per_round - 1) / per_round);
}

PipelineReport pipeline_report(const Scenario& s, const Degrees& d) {
  PipelineReport r;
  r.microbatches = microbatches_per_step(s, d);
  r.virtual_stages =
      (s.schedule == Schedule::kInterleaved && d.pp > 1) ? s.virtual_stages : 1;
  r.bubble_fraction = (d.pp - 1.0) / (1.0 * r.virtual_stages * r.microbatches);
  return r;
}

}  // namespace pe
