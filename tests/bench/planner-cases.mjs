// The planner's yardsticks as scenarios, as tests/bench/core_bench.cpp runs them natively
// (BM_Plan405BOn16384H100, BM_PlanDeepSeekV3On2048H800): Llama 3 405B on 16,384 H100s and
// DeepSeek-V3's five-seam search on 2,048 H800s, each on a 50 GB/s network per GPU.
export const PLANNER_CASES = {
  '405B on 16,384 H100': {
    gpus: 16384,
    model: 'llama3-405b',
    gpu: 'H100-80GB',
    network_gb_s: 50,
    seq_len: 8192,
    global_batch: 2048,
  },
  'DeepSeek-V3 on 2,048 H800': {
    gpus: 2048,
    model: 'deepseek-v3',
    gpu: 'H800-80GB',
    network_gb_s: 50,
    seq_len: 4096,
    global_batch: 15360,
  },
};
