#include "reference_runs.h"

#include <nlohmann/json.hpp>

#include "contract.h"

namespace pe {

const std::vector<ReferenceRun>& reference_runs() {
  // Recompute and schedule as each paper reports them; network bandwidth per GPU from the
  // cluster descriptions (HDR 200 Gb/s = 25 GB/s; BLOOM's 4 x 100 Gb/s Omni-Path per 8-GPU
  // node = 6.25 GB/s; Llama 3's 400 Gb/s RoCE = 50 GB/s).
  static const std::vector<ReferenceRun> runs = {
      {"Megatron-LM 145.6B on 1,536 A100", "Narayanan et al. 2021, Table 1",
       R"({"model":"megatron-145b","gpus":1536,"degrees":{"dp":24,"tp":8,"pp":8},
           "gpu":"A100-80GB","network_gb_s":25,"global_batch":2304,"micro_batch":1,
           "recompute":"full","memory_model":"full"})",
       148},
      {"Megatron-LM 22B on 8 A100", "Korthikanti et al. 2022, Table 3",
       R"({"model":"megatron-22b","gpus":8,"degrees":{"dp":1,"tp":8,"pp":1},
           "gpu":"A100-80GB","micro_batch":4,"global_batch":4,"recompute":"selective",
           "sequence_parallel":true,"memory_model":"full"})",
       0},
      {"GPT-3 175B on 64 A100", "Korthikanti et al. 2022, Table 3",
       R"({"model":"gpt3-175b","gpus":64,"degrees":{"dp":1,"tp":8,"pp":8},"gpu":"A100-80GB",
           "micro_batch":1,"global_batch":64,"schedule":"interleaved","virtual_stages":3,
           "recompute":"selective","sequence_parallel":true,"memory_model":"full"})",
       0},
      {"BLOOM-176B on 384 A100", "BigScience 2022 (BLOOM paper; training log: ~150 TFLOP/s)",
       R"({"model":"bloom-176b","gpus":384,"degrees":{"dp":8,"tp":4,"pp":12},
           "gpu":"A100-80GB","network_gb_s":6.25,"micro_batch":2,"global_batch":2048,
           "zero_stage":1,"recompute":"full","memory_model":"full"})",
       150},
      {"GPT-NeoX-20B on 96 A100-40GB", "Black et al. 2022",
       R"({"model":"gpt-neox-20b","gpus":96,"degrees":{"dp":12,"tp":2,"pp":4},
           "gpu":"A100-40GB","micro_batch":4,"global_batch":1536,"zero_stage":1,
           "recompute":"full","memory_model":"full"})",
       0},
      {"Llama 3 405B on 16,384 H100", "Llama 3 Herd of Models 2024, Table 4",
       R"({"model":"llama3-405b","gpus":16384,"degrees":{"dp":128,"tp":8,"pp":16},
           "gpu":"H100-80GB","network_gb_s":50,"seq_len":8192,"global_batch":2048,
           "zero_stage":1,"recompute":"selective","sequence_parallel":true,
           "memory_model":"full"})",
       400},
  };
  return runs;
}

std::string reference_runs_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const ReferenceRun& run : reference_runs()) {
    out.push_back({{"name", run.name},
                   {"source", run.source},
                   {"published_tflops_per_gpu", run.published_tflops_per_gpu},
                   {"report", nlohmann::json::parse(evaluate_json(run.scenario_json, false))}});
  }
  return out.dump();
}

}  // namespace pe
