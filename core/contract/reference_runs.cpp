#include "contract/reference_runs.h"

#include "contract/contract.h"
#include "model/schema.h"

namespace pe {
namespace {

using json = Json;

// Megatron-LM as the 2021-22 papers ran it: fp16 (16 B/param: fp16 gradients, Megatron's
// default then), no fused attention, pipeline sends scattered over the TP ranks, one GPU per
// 200 Gb/s HDR InfiniBand port (25 GB/s) on DGX A100 nodes.
json megatron_2022(Json model, int dp, int tp, int pp, int micro, int global, int v,
                   const char* recompute, bool sp) {
  json s = {{"gpus", dp * tp * pp},      {"degrees", {{"dp", dp}, {"tp", tp}, {"pp", pp}}},
            {"gpu", "A100-80GB"},        {"network_gb_s", 25},
            {"seq_len", 2048},           {"micro_batch", micro},
            {"global_batch", global},    {"recompute", recompute},
            {"sequence_parallel", sp},   {"flash_attention", false},
            {"pp_scatter_gather", true}, {"memory_model", "full"}};
  s["model"] = std::move(model);  // a preset's name, or the architecture as an object
  if (v > 1) s["schedule"] = "interleaved", s["virtual_stages"] = v;
  return s;
}

// Llama 3 405B as Meta ran it on H100 (Dubey et al. 2024, Sec. 3.3.2): TP 8, PP 16,
// interleaved with eight one-layer chunks per GPU and the first and last stages one layer
// short, ZeRO-1 with overlapped gradient reduction and parameter gathers, 400 Gb/s RoCE per GPU
// (50 GB/s); the stages differ in DP, CP, sequence length, batch and recomputation.
json llama3_405b_h100(int dp, int cp, int seq_len, int global, const char* recompute) {
  json degrees = {{"dp", dp}, {"tp", 8}, {"pp", 16}};
  if (cp > 1) degrees["cp"] = cp;
  return {{"model", "llama3-405b"},
          {"gpus", dp * cp * 128},
          {"degrees", degrees},
          {"gpu", "H100-80GB"},
          {"network_gb_s", 50},
          {"seq_len", seq_len},
          {"micro_batch", 1},
          {"global_batch", global},
          {"precision", "megatron_fp32_grads"},
          {"zero_stage", 1},
          {"recompute", recompute},
          {"sequence_parallel", true},
          {"schedule", "interleaved"},
          {"virtual_stages", 8},
          {"first_stage_layers", 7},
          {"last_stage_layers", 7},
          {"overlap_grad_reduce", true},
          {"overlap_param_gather", true},
          {"memory_model", "full"}};
}

// Korthikanti et al. 2022 (arXiv:2205.05198) Table 5: end-to-end iteration times on A100 80GB,
// full recomputation vs selective recomputation + sequence parallelism; layouts from their
// Table 3 (DP 1, seq 2048; 175B and 530B interleaved with 3 chunks per GPU).
void korthikanti_table5(std::vector<ReferenceRun>& runs) {
  const char* k5 = "Korthikanti et al. 2022, Table 5";
  struct K5 {
    const char* name;
    const char* model;
    int tp, pp, micro, global, v;
    double full_s, selective_s;
  };
  for (const K5& r : {K5{"22B", "megatron-22b", 8, 1, 4, 4, 1, 1.42, 1.10},
                      K5{"GPT-3 175B", "gpt3-175b", 8, 8, 1, 64, 3, 18.13, 13.75},
                      K5{"530B", "megatron-530b", 8, 35, 1, 280, 3, 49.05, 37.83},
                      K5{"1T", "megatron-1t", 8, 64, 1, 512, 1, 94.42, 71.49}}) {
    const int gpus = r.tp * r.pp;
    for (bool selective : {false, true}) {
      ReferenceRun run;
      run.name = std::string(r.name) + " on " + std::to_string(gpus) + " A100, " +
                 (selective ? "selective + SP" : "full recompute");
      run.source = "Korthikanti et al. 2022, Table 5 (layout: Table 3)";
      run.table = k5;
      run.scenario_json = megatron_2022(r.model, 1, r.tp, r.pp, r.micro, r.global, r.v,
                                        selective ? "selective" : "full", selective)
                              .dump();
      run.metric = Metric::kStepSeconds;
      run.published = selective ? r.selective_s : r.full_s;
      runs.push_back(run);
    }
  }
}

// Narayanan et al. 2021 (arXiv:2104.04473) Table 1: TFLOP/s per GPU (hardware FLOPs, full
// recomputation), vocabulary 51,200, seq 2048, fp16. Micro-batch sizes, interleaving and the
// DDP implementation from the paper's scripts (Megatron-LM examples/sc21/run_table_1.sh):
// PyTorch DDP, which overlaps the gradient all-reduce with the backward pass, up to 18B;
// Megatron's local DDP, reducing after the backward, from 39B on.
void narayanan_table1(std::vector<ReferenceRun>& runs) {
  const char* t1 = "Narayanan et al. 2021, Table 1";
  struct T1 {
    const char* params;
    int layers, hidden, heads, tp, pp, gpus, global, micro, v;
    double tflops;
    bool torch_ddp;
  };
  for (const T1& r : {T1{"1.7B", 24, 2304, 24, 1, 1, 32, 512, 16, 1, 137, true},
                      T1{"3.6B", 30, 3072, 32, 2, 1, 64, 512, 16, 1, 138, true},
                      T1{"7.5B", 36, 4096, 32, 4, 1, 128, 512, 16, 1, 142, true},
                      T1{"18.4B", 40, 6144, 48, 8, 1, 256, 1024, 8, 1, 135, true},
                      T1{"39.1B", 48, 8192, 64, 8, 2, 512, 1536, 4, 1, 138, false},
                      T1{"76.1B", 60, 10240, 80, 8, 4, 1024, 1792, 2, 3, 140, false},
                      T1{"145.6B", 80, 12288, 96, 8, 8, 1536, 2304, 2, 2, 148, false},
                      T1{"310.1B", 96, 16384, 128, 8, 16, 1920, 2160, 1, 2, 155, false},
                      T1{"529.6B", 105, 20480, 128, 8, 35, 2520, 2520, 1, 3, 163, false},
                      T1{"1008B", 128, 25600, 160, 8, 64, 3072, 3072, 1, 1, 163, false}}) {
    // The three with presets load into the lab by name.
    const std::string params = r.params;
    const std::string preset = params == "145.6B"   ? "megatron-145b"
                               : params == "529.6B" ? "megatron-530b"
                               : params == "1008B"  ? "megatron-1t"
                                                    : "";
    const json model = {{"name", "gpt-" + params},
                        {"layers", r.layers},
                        {"hidden", r.hidden},
                        {"heads", r.heads},
                        {"vocab", 51200}};
    json s = megatron_2022(preset.empty() ? model : Json(preset), r.gpus / (r.tp * r.pp), r.tp,
                           r.pp, r.micro, r.global, r.v, "full", false);
    s["overlap_grad_reduce"] = r.torch_ddp;
    ReferenceRun run;
    run.name = std::string("GPT ") + r.params + " on " + std::to_string(r.gpus) + " A100";
    run.source = "Narayanan et al. 2021, Table 1 (layout: examples/sc21/run_table_1.sh)";
    run.table = t1;
    run.scenario_json = s.dump();
    run.metric = Metric::kTflopsPerGpu;
    run.published = r.tflops;
    runs.push_back(run);
  }
}

// Dubey et al. 2024 (Llama 3) Table 4: BF16 MFU on H100 with 16M-token batches of 8,192-token
// sequences, TP 8, PP 16, interleaved with one layer per chunk and the first and last stages
// one layer short (Sec. 3.3.2: 7 + 14 x 8 + 7 layers, eight chunks per GPU), 400 Gb/s RoCE
// per GPU (50 GB/s). The paper names no activation recomputation, and with none this model
// needs 98 GB on the first stage: the run is assumed to recompute selectively as PyTorch's
// torchtitan does (recompute_modules every_other_matmul: every other matmul's output kept),
// which fits in 55 GB; the source line the page shows says so.
void llama3_table4(std::vector<ReferenceRun>& runs) {
  for (int dp : {64, 128}) {
    json s = llama3_405b_h100(dp, 1, 8192, 2048, "selective");
    s["recompute_modules"] = {"every_other_matmul"};
    ReferenceRun run;
    run.name = "Llama 3 405B on " + std::string(dp == 64 ? "8,192" : "16,384") + " H100";
    run.source =
        "Dubey et al. 2024 (Llama 3), Table 4; recomputation assumed (the paper names none): "
        "every other matmul's output kept, as torchtitan's per-op policy";
    run.table = "Llama 3 405B";
    run.scenario_json = s.dump();
    run.metric = Metric::kMfu;
    run.published = dp == 64 ? 0.43 : 0.41;
    runs.push_back(run);
  }
}

// BLOOM-176B (BigScience 2022, arXiv:2211.05100 Sec. 3.4): 384 A100 80GB, TP 4, PP 12, DP 8,
// ZeRO-1, bf16 with fp32 gradients, full recomputation, Megatron-DeepSpeed (no fused
// attention, full-size pipeline sends); 4 x 100 Gb/s Omni-Path per 8-GPU node = 6.25 GB/s per
// GPU. About 150 TFLOP/s per GPU (hardware FLOPs).
void bloom_176b(std::vector<ReferenceRun>& runs) {
  {
    ReferenceRun run;
    run.name = "BLOOM-176B on 384 A100";
    run.source = "BigScience 2022 (BLOOM, arXiv:2211.05100), Sec. 3.4";
    run.table = "BLOOM-176B";
    run.scenario_json = R"({"model":"bloom-176b","gpus":384,"degrees":{"dp":8,"tp":4,"pp":12},
        "gpu":"A100-80GB","network_gb_s":6.25,"micro_batch":2,"global_batch":2048,
        "precision":"megatron_fp32_grads","zero_stage":1,"recompute":"full",
        "flash_attention":false,"memory_model":"full"})";
    run.metric = Metric::kTflopsPerGpu;
    run.published = 150;
    runs.push_back(run);
  }
}

// Llama 3 405B's long-context stage (Dubey et al. 2024, Table 4 and Sec. 3.3.2): 131,072-token
// sequences, 16M-token batches (128 sequences), TP 8, CP 16, PP 16, DP 8 on 16,384 H100,
// 380 TFLOP/s per GPU, 38% BF16 MFU. Meta orders the groups [TP, CP, PP, DP], as layout.h
// does, and gathers keys and values with one all-gather per layer. The paper names no
// recomputation, but with none this model's Megatron-style accounting needs 97 GB per GPU
// (each CP rank holds 8,192 tokens, as each GPU of the 8K stage does, which needs 98 GB
// too) against the 80 GB the run fitted in; with full recomputation it fits and its MFU is
// a lower bound (the run cannot have recomputed more). The tests check that the published
// figure lies between the two.
void llama3_long_context(std::vector<ReferenceRun>& runs) {
  {
    json s = llama3_405b_h100(8, 16, 131072, 128, "full");
    s["context_parallel"] = "all_gather";
    ReferenceRun run;
    run.name = "Llama 3 405B long context (CP 16) on 16,384 H100";
    run.source = "Dubey et al. 2024 (Llama 3), Table 4";
    run.table = "Llama 3 405B, 131K context";
    run.scenario_json = s.dump();
    run.metric = Metric::kMfu;
    run.published = 0.38;
    runs.push_back(run);
  }
}

// DeepSeek-V3 (arXiv:2412.19437, Sec. 3.1-3.3 and 4.2): 2,048 H800 (NVLink within 8-GPU nodes,
// 50 GB/s InfiniBand per GPU across), PP 16, EP 64 over 8 nodes, ZeRO-1 DP, no TP;
// 4,096-token sequences, batch 15,360; BF16 weights, FP32 gradients and master weights,
// BF16 AdamW moments (14 B/param); FP8 GEMMs with their inputs cached in FP8 (Sec. 3.3:
// precision.fp8); RMSNorm and MLA up-projections recomputed (Sec. 3.2.3: recompute_modules
// layernorm and mla_up_proj); the MoE's SwiGLU input cached and its output recomputed
// (Sec. 3.3.3: moe_act); DualPipe hides the expert all-to-alls behind computation.
// Published: 180K H800 GPU-hours per trillion tokens. Not modelled (core/README.md): the
// SwiGLU input cached in FP8 (kept at 16 bits here, more memory), the attention output's
// E5M6 cache (1 byte here, less); the GEMMs take H100's calibrated efficiency. The run keeps
// schedule 1f1b with expert_comm_overlap for DualPipe's hiding: with schedule dualpipe (two
// copies of the parameters, PP + 1 micro-batches in flight, W hiding no all-to-all) the model
// gives 195.8K (+8.8%) at 79.0 GB, over the 80% rule.
void deepseek_v3(std::vector<ReferenceRun>& runs) {
  {
    ReferenceRun run;
    run.name = "DeepSeek-V3 on 2,048 H800";
    run.source = "DeepSeek-AI 2024 (DeepSeek-V3, arXiv:2412.19437), Sec. 1 and 3";
    run.table = "DeepSeek-V3";
    run.scenario_json = R"({"model":"deepseek-v3","gpus":2048,"degrees":{"dp":128,"tp":1,
        "pp":16,"ep":64},"gpu":"H800-80GB","network_gb_s":50,"seq_len":4096,"micro_batch":1,
        "global_batch":15360,"precision":{"weight":2,"grad":4,"master":4,"adam_m":2,
        "adam_v":2,"fp8":true},"zero_stage":1,"recompute":"selective",
        "recompute_modules":["layernorm","mla_up_proj","moe_act"],"expert_comm_overlap":true,
        "overlap_grad_reduce":true,"overlap_param_gather":true,"memory_model":"full"})";
    run.metric = Metric::kGpuHoursPerTrillionTokens;
    run.published = 180e3;
    runs.push_back(run);
  }
}

// Mixtures of experts in NVIDIA's published benchmarks, which force-balance the routing
// (moe_load_imbalance 1) and run dropless. Megatron-Bridge's performance summary
// (docs/performance-summary-archive.md, NeMo 25.09 on DGX-H100; 25.02 on DGX-B200) prints
// tokens per second per GPU, here the step they imply, GBS x seq / (tokens/s/GPU x GPUs);
// NeMo AutoModel's (docs/performance-summary.mdx, DGX-H100, BF16, FSDP2 + EP, "fake balanced
// gate") prints the step. Precision of the 25.09 rows is not printed: FP8, as the page's
// block-scaling note says. Not printed either, so left at this model's defaults: recomputation
// (none), the distributed optimizer (ZeRO-1 for Megatron; FSDP is ZeRO-3) and overlap
// switches (on, as both recipes set them).
void moe_benchmarks(std::vector<ReferenceRun>& runs) {
  struct Nvidia {
    const char* name;
    const char* source;
    const char* scenario;
    double published_s;
  };
  for (const Nvidia& r :
       {Nvidia{"DeepSeek-V3 on 1,024 H100 (Megatron-Bridge 25.09, FP8)",
               "Megatron-Bridge performance summary, NeMo 25.09, DGX-H100: 1,297 tokens/s/GPU",
               R"({"model":"deepseek-v3","gpus":1024,"degrees":{"dp":64,"tp":2,"pp":8,"ep":64},
        "gpu":"H100-80GB","seq_len":4096,"micro_batch":1,"global_batch":8192,
        "precision":"fp8_hybrid","zero_stage":1,"sequence_parallel":true,
        "schedule":"interleaved","virtual_stages":4,"moe_load_imbalance":1,
        "expert_comm_overlap":true,"overlap_grad_reduce":true,"overlap_param_gather":true,
        "memory_model":"full"})",
               8192.0 * 4096 / (1297.0 * 1024)},
        Nvidia{"DeepSeek-V3 on 256 H100 (AutoModel, BF16)",
               "NeMo AutoModel performance summary, DGX-H100: 8.18 s per step",
               R"({"model":"deepseek-v3","gpus":256,"degrees":{"dp":64,"tp":1,"pp":4,"ep":64},
        "gpu":"H100-80GB","seq_len":4096,"micro_batch":1,"global_batch":512,"zero_stage":3,
        "schedule":"interleaved","virtual_stages":8,"moe_load_imbalance":1,
        "overlap_grad_reduce":true,"overlap_param_gather":true,"memory_model":"full"})",
               8.18},
        Nvidia{"DeepSeek-V3 on 1,024 H100 (AutoModel, BF16)",
               "NeMo AutoModel performance summary, DGX-H100: 37.87 s per step",
               R"({"model":"deepseek-v3","gpus":1024,"degrees":{"dp":256,"tp":1,"pp":4,"ep":64},
        "gpu":"H100-80GB","seq_len":4096,"micro_batch":1,"global_batch":8192,"zero_stage":3,
        "schedule":"interleaved","virtual_stages":8,"moe_load_imbalance":1,
        "overlap_grad_reduce":true,"overlap_param_gather":true,"memory_model":"full"})",
               37.87},
        Nvidia{"Mixtral 8x7B on 64 B200 (NeMo 25.02, FP8)",
               "NeMo 25.02 performance summary, DGX-B200: 15,457 tokens/s/GPU",
               R"({"model":"mixtral-8x7b","gpus":64,"degrees":{"dp":64,"tp":1,"pp":1,"ep":8},
        "gpu":"B200-192GB","seq_len":4096,"micro_batch":2,"global_batch":256,
        "precision":"fp8_hybrid","zero_stage":1,"moe_load_imbalance":1,
        "overlap_grad_reduce":true,"overlap_param_gather":true,"memory_model":"full"})",
               256.0 * 4096 / (15457.0 * 64)}}) {
    ReferenceRun run;
    run.name = r.name;
    run.source = r.source;
    run.table = "MoE benchmarks";
    run.scenario_json = r.scenario;
    run.metric = Metric::kStepSeconds;
    run.published = r.published_s;
    runs.push_back(run);
  }
}

// Published parameter counts: Mixtral (Jiang et al. 2024, arXiv:2401.04088, Table 1; Mistral
// AI's 8x22B model card) and DeepSeek-V3 (arXiv:2412.19437, Sec. 1), each model's total and
// active (per token) counts, from the presets' shapes on 8 GPUs.
void moe_parameter_counts(std::vector<ReferenceRun>& runs) {
  struct Count {
    const char* model;
    const char* name;
    const char* source;
    double total, active;
  };
  for (const Count& c :
       {Count{"mixtral-8x7b", "Mixtral 8x7B", "Jiang et al. 2024, Table 1", 46.7e9, 12.9e9},
        Count{"mixtral-8x22b", "Mixtral 8x22B", "Mistral AI 2024, model card", 141e9, 39e9},
        Count{"deepseek-v3", "DeepSeek-V3", "arXiv:2412.19437, Sec. 1", 671e9, 37e9}}) {
    for (const bool active : {false, true}) {
      ReferenceRun run;
      run.name = std::string(c.name) + (active ? " active parameters" : " parameters");
      run.source = c.source;
      run.table = "MoE parameter counts";
      run.scenario_json = json{{"model", c.model}, {"gpus", 8}}.dump();
      run.metric = active ? Metric::kActiveParams : Metric::kParams;
      run.published = active ? c.active : c.total;
      runs.push_back(run);
    }
  }
}

// GPT-NeoX-20B (Black et al. 2022): its configuration only, no published speed.
void gpt_neox_20b(std::vector<ReferenceRun>& runs) {
  ReferenceRun run;
  run.name = "GPT-NeoX-20B on 96 A100-40GB";
  run.source = "Black et al. 2022 (configuration only)";
  run.table = "GPT-NeoX-20B";
  run.scenario_json = R"({"model":"gpt-neox-20b","gpus":96,"degrees":{"dp":12,"tp":2,"pp":4},
      "gpu":"A100-40GB","micro_batch":4,"global_batch":1536,"zero_stage":1,
      "recompute":"full","flash_attention":false,"memory_model":"full"})";
  run.metric = Metric::kTflopsPerGpu;
  run.published = 0;
  runs.push_back(run);
}

std::vector<ReferenceRun> build() {
  std::vector<ReferenceRun> runs;
  korthikanti_table5(runs);
  narayanan_table1(runs);
  llama3_table4(runs);
  bloom_176b(runs);
  llama3_long_context(runs);
  deepseek_v3(runs);
  moe_benchmarks(runs);
  moe_parameter_counts(runs);
  gpt_neox_20b(runs);
  return runs;
}

}  // namespace

const std::vector<ReferenceRun>& reference_runs() {
  static const std::vector<ReferenceRun> runs = build();
  return runs;
}

const char* metric_key(Metric metric) {
  switch (metric) {
    case Metric::kStepSeconds:
      return "step_s";
    case Metric::kMfu:
      return "mfu";
    case Metric::kGpuHoursPerTrillionTokens:
      return "gpu_hours_per_trillion_tokens";
    case Metric::kParams:
      return "model_params";
    case Metric::kActiveParams:
      return "model_active_params";
    case Metric::kTflopsPerGpu:
      break;
  }
  return "tflops_per_gpu";
}

const char* metric_section(Metric metric) {
  switch (metric) {
    case Metric::kGpuHoursPerTrillionTokens:
      return "cost";
    case Metric::kParams:
    case Metric::kActiveParams:
      return "";
    default:
      return "time";
  }
}

std::string reference_runs_json() {
  json out = json::array();
  for (const ReferenceRun& run : reference_runs()) {
    json report = json::parse(evaluate_json(run.scenario_json, false), nullptr, false);
    json row = {{"name", run.name},
                {"source", run.source},
                {"table", run.table},
                {"metric", metric_key(run.metric)},
                {"section", metric_section(run.metric)},
                {"published", run.published}};
    if (report.contains("time")) {
      const std::string section = metric_section(run.metric);
      const json& from = section.empty() ? report : report[section];
      const double predicted = from[metric_key(run.metric)].get<double>();
      row["predicted"] = predicted;
      row["error"] = run.published > 0 ? json(predicted / run.published - 1) : json(nullptr);
    }
    row["report"] = std::move(report);
    out.push_back(std::move(row));
  }
  return out.dump();
}

}  // namespace pe
