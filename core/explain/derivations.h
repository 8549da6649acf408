// Each area's derivations: one function per report number, in symbols over the model's own
// values (explain.h says what a derivation is). explain.cpp lists them by report key; each area
// is written in its file, <area>_derivations.cpp.
#pragma once

#include "explain/explain.h"
#include "model/layout.h"
#include "model/report.h"
#include "model/scenario.h"

namespace pe::explain {

// Memory per GPU (model/memory.h): the total, its parts, the parameters and ZeRO's shards.
Derivation memory_per_gpu(const Scenario& s, const Report& r);
Derivation transient(const Scenario& s, const Report& r);
Derivation params_per_gpu(const Scenario& s, const Report& r);
Derivation shard_factor(const Report& r);
Derivation headroom(const Report& r);
Derivation bytes_per_param(const Report& r);
Derivation model_params(const Scenario& s, const Report& r);

// The step (model/step_time.h): its parts, MFU, offload, the GEMMs' efficiency, experts, the
// bubble.
Derivation step_time(const Report& r);
Derivation mfu(const Scenario& s, const Report& r);
Derivation mfu_bf16(const Scenario& s, const Report& r);
Derivation mfu_fp8(const Scenario& s, const Report& r);
Derivation offloaded_bytes(const Report& r);
Derivation offload_time(const Report& r);
Derivation tokens_per_expert(const Scenario& s, const Report& r);
Derivation expert_gemm_efficiency(const Scenario& s, const Report& r);
Derivation gemm_shape_efficiency(const Scenario& s, const Report& r);
Derivation expert_load(const Scenario& s, const Report& r);
Derivation bubble(const Scenario& s, const Report& r);

// Failures and checkpoints (model/goodput.h), and what the run costs (model/cost.h).
Derivation job_mtbf(const Scenario& s, const Report& r);
Derivation checkpoint_write(const Scenario& s, const Report& r);
Derivation best_interval(const Report& r);
Derivation effective_time(const Report& r);
Derivation time_to_train_with_failures(const Report& r);
Derivation cost_per_day(const Scenario& s, const Report& r);
Derivation cost_per_trillion_tokens(const Scenario& s, const Report& r);

// What crosses the wire (model/comms.h): each seam's messages, where its groups sit, the link
// each rides and its time, and the nesting order's cost.
Derivation order_cost(const Scenario& s, const Report& r);
Derivation data_message(const Scenario& s, const Report& r);
Derivation tensor_message(const Scenario& s, const Report& r);
Derivation pipeline_message(const Scenario& s, const Report& r);
Derivation context_message(const Scenario& s, const Report& r);
Derivation expert_message(const Scenario& s, const Report& r);
Derivation per_step(Derivation message, const SeamTraffic& t);
Derivation group_size(const Scenario& s, const Report& r, Seam seam);
Derivation link(const Scenario& s, const Report& r, Seam seam, const SeamTraffic& t);
Derivation messages(const Scenario& s, const Report& r, Seam seam);
Derivation link_time(const SeamTraffic& t);
Derivation pipeline_time(const Scenario& s, const Report& r);

}  // namespace pe::explain
