#include "explain/explain.h"

#include "explain/derivations.h"

namespace pe {
namespace {

using namespace explain;

// The derivations of one seam, for the table below.
using Build = Derivation (*)(const Scenario&, const Report&);
using Traffic = SeamTraffic CommsReport::*;

template <Traffic T, Build Message>
Derivation per_step_of(const Scenario& s, const Report& r) {
  return per_step(Message(s, r), r.comms.*T);
}
template <Seam S>
Derivation group_size_of(const Scenario& s, const Report& r) {
  return group_size(s, r, S);
}
template <Seam S, Traffic T>
Derivation link_of(const Scenario& s, const Report& r) {
  return link(s, r, S, r.comms.*T);
}
template <Seam S>
Derivation messages_of(const Scenario& s, const Report& r) {
  return messages(s, r, S);
}
template <Traffic T>
Derivation time_of(const Scenario&, const Report& r) {
  return link_time(r.comms.*T);
}
template <Derivation (*F)(const Report&)>
Derivation of_report(const Scenario&, const Report& r) {
  return F(r);
}

// Every number a report may explain, under its report key, with the function that derives it
// and the seam whose traffic it needs (none: always): a derivation is built only when asked
// for, so a report lists its keys at no cost.
// The page's first-load wasm module lists the keys a report explains but builds no derivation
// (PE_NO_DERIVATIONS, wasm/CMakeLists.txt): the page asks the planner's module for one when a
// reader opens it. Its table then holds no builder, so none is linked in (13 KB gzipped).
#ifdef PE_NO_DERIVATIONS
constexpr bool kDerivations = false;
#else
constexpr bool kDerivations = true;
#endif

struct Entry {
  using NonZero = double (*)(const Report&);
  constexpr Entry(const char* key_, Traffic seam_, Build build_, NonZero nonzero_ = nullptr)
      : key(key_), seam(seam_), build(kDerivations ? build_ : nullptr), nonzero(nonzero_) {}
  const char* key;
  Traffic seam;     // nullptr: every report explains it
  Build build;      // nullptr without derivations
  NonZero nonzero;  // explained only while this is not 0
};
double moe_report(const Report& r) { return r.time.tokens_per_expert; }
constexpr Traffic kData = &CommsReport::data, kTensor = &CommsReport::tensor,
                  kPipeline = &CommsReport::pipeline, kContext = &CommsReport::context,
                  kExpert = &CommsReport::expert;
constexpr Entry kEntries[] = {
    {"memory.per_gpu_bytes", nullptr, memory_per_gpu},
    {"memory.params_per_gpu", nullptr, params_per_gpu},
    {"memory.breakdown.transient_bytes", nullptr, transient,
     [](const Report& r) { return r.memory.breakdown.transient_bytes; }},
    {"memory.shard_factor", nullptr, of_report<shard_factor>},
    {"memory.headroom_bytes", nullptr, of_report<headroom>},
    {"precision.bytes_per_param", nullptr, of_report<bytes_per_param>},
    {"model_params", nullptr, model_params},
    {"time.step_s", nullptr, of_report<step_time>},
    {"time.mfu", nullptr, mfu},
    {"time.mfu_bf16_peak", nullptr, mfu_bf16},
    {"time.mfu_fp8_peak", nullptr, mfu_fp8, [](const Report& r) { return r.time.mfu_fp8_peak; }},
    {"memory.offloaded_bytes", nullptr, of_report<offloaded_bytes>,
     [](const Report& r) { return r.memory.offloaded_bytes; }},
    {"time.exposed_offload_s", nullptr, of_report<offload_time>,
     [](const Report& r) { return r.time.exposed_offload_s; }},
    {"time.gemm_shape_efficiency", nullptr, gemm_shape_efficiency,
     [](const Report& r) { return r.time.gemm_shape_efficiency < 1 ? 1.0 : 0.0; }},
    {"time.tokens_per_expert", nullptr, tokens_per_expert, moe_report},
    {"time.expert_gemm_efficiency", nullptr, expert_gemm_efficiency, moe_report},
    {"time.expert_load", nullptr, expert_load, moe_report},
    {"pipeline.bubble_fraction", nullptr, bubble},
    {"cost.usd_per_day", nullptr, cost_per_day},
    {"cost.usd_per_trillion_tokens", nullptr, cost_per_trillion_tokens},
    {"goodput.job_mtbf_s", nullptr, job_mtbf, [](const Report& r) { return r.goodput.job_mtbf_s; }},
    {"goodput.checkpoint_write_s", nullptr, checkpoint_write},
    {"goodput.best_interval_s", nullptr, of_report<best_interval>},
    {"goodput.effective_time", nullptr, of_report<effective_time>},
    {"goodput.time_to_train_s", nullptr, of_report<time_to_train_with_failures>,
     [](const Report& r) { return r.goodput.time_to_train_s; }},
    {"order.order_cost_s", nullptr, order_cost},
    {"comms.data.bytes_per_message", kData, data_message},
    {"comms.data.bytes_per_gpu_per_step", kData, per_step_of<kData, data_message>},
    {"comms.tensor.bytes_per_message", kTensor, tensor_message},
    {"comms.tensor.bytes_per_gpu_per_step", kTensor, per_step_of<kTensor, tensor_message>},
    {"comms.pipeline.bytes_per_message", kPipeline, pipeline_message},
    {"comms.pipeline.bytes_per_gpu_per_step", kPipeline, per_step_of<kPipeline, pipeline_message>},
    {"comms.context.bytes_per_message", kContext, context_message},
    {"comms.context.bytes_per_gpu_per_step", kContext, per_step_of<kContext, context_message>},
    {"comms.expert.bytes_per_message", kExpert, expert_message},
    {"comms.expert.bytes_per_gpu_per_step", kExpert, per_step_of<kExpert, expert_message>},
    // Where the three book seams' groups sit, and how often they talk.
    {"comms.data.group_size", kData, group_size_of<Seam::kData>},
    {"comms.data.link_bytes_per_s", kData, link_of<Seam::kData, kData>},
    {"comms.data.messages_per_step", kData, messages_of<Seam::kData>},
    {"comms.tensor.group_size", kTensor, group_size_of<Seam::kTensor>},
    {"comms.tensor.link_bytes_per_s", kTensor, link_of<Seam::kTensor, kTensor>},
    {"comms.tensor.messages_per_step", kTensor, messages_of<Seam::kTensor>},
    {"comms.pipeline.group_size", kPipeline, group_size_of<Seam::kPipeline>},
    {"comms.pipeline.link_bytes_per_s", kPipeline, link_of<Seam::kPipeline, kPipeline>},
    {"comms.pipeline.messages_per_step", kPipeline, messages_of<Seam::kPipeline>},
    {"comms.data.time_s", kData, time_of<kData>},
    {"comms.tensor.time_s", kTensor, time_of<kTensor>},
    // A pipeline stage's two hops may ride different links: each at its own rate.
    {"comms.pipeline.time_s", kPipeline, pipeline_time},
    {"comms.context.time_s", kContext, time_of<kContext>},
    {"comms.expert.time_s", kExpert, time_of<kExpert>},
};

// A seam's numbers while it is active; numbers the report gives 0 when they do not apply (the
// FP8 MFU without an FP8 peak, offload without offloaded layers) while they are not 0.
bool explains(const Entry& e, const Report& r) {
  if (e.nonzero) return e.nonzero(r) != 0;
  return !e.seam || (r.comms.*e.seam).active;
}

Derivation built(const Entry& e, const Scenario& s, const Report& r) {
  Derivation d = e.build(s, r);
  d.key = e.key;
  return d;
}

}  // namespace

std::vector<std::string> explained_keys(const Scenario&, const Report& r) {
  std::vector<std::string> keys;
  for (const Entry& e : kEntries) {
    if (explains(e, r)) keys.push_back(e.key);
  }
  return keys;
}

std::optional<Derivation> derivation(const Scenario& s, const Report& r, std::string_view key) {
  for (const Entry& e : kEntries) {
    if (key == e.key && explains(e, r)) return built(e, s, r);
  }
  return std::nullopt;
}

std::vector<Derivation> derivations(const Scenario& s, const Report& r) {
  std::vector<Derivation> out;
  for (const Entry& e : kEntries) {
    if (explains(e, r)) out.push_back(built(e, s, r));
  }
  return out;
}

}  // namespace pe
