#include "model/presets.h"

namespace pe {
namespace {

template <class T>
std::optional<T> find(const std::vector<T>& all, const std::string& name) {
  for (const T& item : all) {
    if (item.name == name) return item;
  }
  return std::nullopt;
}

template <class T>
std::string names(const std::vector<T>& all) {
  std::string out;
  for (const T& item : all) out += (out.empty() ? "" : ", ") + item.name;
  return out;
}

// GPT: GELU, learned positions, tied embeddings. Llama: SwiGLU, RoPE, untied, GQA.
ModelSpec gpt(const char* name, int layers, int hidden, int heads, int vocab,
              Position position = Position::kLearned, bool tied = true) {
  ModelSpec m;
  m.name = name;
  m.params = 0;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.vocab = vocab;
  m.position = position;
  m.tied_embeddings = tied;
  return m;
}

ModelSpec llama(const char* name, int layers, int hidden, int heads, int kv, int ffn, int vocab) {
  ModelSpec m = gpt(name, layers, hidden, heads, vocab, Position::kRope, false);
  m.kv_heads = kv;
  m.ffn_hidden = ffn;
  m.activation = Activation::kSwiglu;
  return m;
}

// A Llama-style decoder whose MLPs are routed experts (Mixtral): top_k of `experts` SwiGLU
// experts of width ffn per token.
ModelSpec moe(const char* name, int layers, int hidden, int heads, int kv, int ffn, int vocab,
              int experts, int top_k) {
  ModelSpec m = llama(name, layers, hidden, heads, kv, ffn, vocab);
  m.experts = experts;
  m.experts_per_token = top_k;
  return m;
}

// DeepSeek-V3 (arXiv:2412.19437, Sec. 4.2): 61 layers of h 7168, the first 3 dense (MLP
// 18432 wide), the other 58 with 256 routed experts (top-8) and 1 shared, each 2048 wide;
// 128-head multi-head latent attention; vocabulary 129,280.
ModelSpec deepseek_v3() {
  ModelSpec m = moe("deepseek-v3", 61, 7168, 128, 128, 18432, 129280, 256, 8);
  m.attention = Attention::kLatent;
  m.moe_ffn_hidden = 2048;
  m.shared_experts = 1;
  m.dense_layers = 3;
  return m;
}

}  // namespace

const std::vector<ModelSpec>& model_presets() {
  static const std::vector<ModelSpec> presets = [] {
    // The book's model is the scenario's default (scenario.h ModelSpec, where its shape and
    // its round 16e9 are written once).
    const ModelSpec book;
    return std::vector<ModelSpec>{
        book,
        // Black et al. 2022: rotary, untied; 20.55 B.
        gpt("gpt-neox-20b", 44, 6144, 64, 50432, Position::kRope, false),
        gpt("megatron-22b", 48, 6144, 64, 51200),             // Korthikanti Table 3
        llama("llama3-8b", 32, 4096, 32, 8, 14336, 128256),   // Dubey et al. 2024 Table 3
        llama("llama2-70b", 80, 8192, 64, 8, 28672, 32000),   // Touvron et al. 2023: 69.0 B
        llama("llama3-70b", 80, 8192, 64, 8, 28672, 128256),  // 70.6 B
        gpt("megatron-145b", 80, 12288, 96, 51200),           // Narayanan Table 1: 145.6 B
        gpt("gpt3-175b", 96, 12288, 96, 51200),  // Brown et al. 2020 (Megatron's padded vocab)
        // BigScience 2022: ALiBi (no position table), tied, vocabulary padded to 250,880;
        // 176.2 B (the paper's 176,247,271,424 also counts the embedding's own LayerNorm).
        gpt("bloom-176b", 70, 14336, 112, 250880, Position::kRope, true),
        llama("llama3-405b", 126, 16384, 128, 8, 53248, 128256),  // 405.9 B
        gpt("megatron-530b", 105, 20480, 128, 51200),  // Korthikanti Table 3; Narayanan 529.6 B
        gpt("megatron-1t", 128, 25600, 160, 51200),    // Korthikanti Table 3; Narayanan 1008 B
        // Jiang et al. 2024 (arXiv:2401.04088), Table 1: 46.7B total, 12.9B active.
        moe("mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 8, 2),
        // Mistral AI 2024 (model card): 141B total, 39B active.
        moe("mixtral-8x22b", 56, 6144, 48, 8, 16384, 32768, 8, 2),
        deepseek_v3(),
    };
  }();
  return presets;
}

// Dense bf16 peak, NVLink per direction and HBM bandwidth from the vendors' data sheets.
//
// matmul_efficiency, the fraction of dense peak the transformer's matmuls reach, is the one
// calibrated number per GPU. A100: one value fitted (least squares on the log error, every row
// at once) to the 18 published Megatron-LM runs on A100s, Korthikanti et al. 2022 Table 5 and
// Narayanan et al. 2021 Table 1, with everything else in the model fixed beforehand; no row has
// its own constant (tests/reference_runs_test.cpp holds both tables). H100 and H200 (the same
// compute die): fitted to the Llama 3 405B run on 8,192 H100s (Dubey et al. 2024 Table 4,
// 430 TFLOP/s); the 16,384-GPU run is held out as the check. Blackwell: one value for B200 and
// GB200 (0.64) and one for Blackwell Ultra, B300 and GB300 (0.81), each least squares on the log
// error over Megatron-Bridge's published Llama 3 runs on that family (9 on B200 and GB200, 7 on
// GB300; their FP8 and NVFP4 GEMMs at the measured speedups below; tests/blackwell_runs_test.cpp
// holds the table), everything else fixed first. Blackwell Ultra runs about 1.25x faster than
// Blackwell at the same layouts and the same dense BF16 and FP8 peaks (its 1.4 kW against
// 1.2 kW, and twice the attention's exponent rate, are not in the peaks). No B300 run of a
// dense model is published: it takes GB300's.
//
// gemm_curve: the measured BF16 GEMM curve by size (gemm_shape.h), OpenXLA's H100 table for
// H100, H200 and H800 (one die) and its B200 table for every Blackwell GPU (Blackwell Ultra has
// the same tensor cores for BF16: unmeasured, taken as B200's); none for A100, whose
// calibration on the 18 Megatron runs keeps its single efficiency. The calibrated efficiency
// is a large GEMM's: a small GEMM runs at it times the curve's share (1 from 2^38 m n k on
// Blackwell, 2^37 on Hopper), so none of the fits above moved: their runs' GEMMs are that
// large (the Llama runs' smallest, 8,192 x 2,048 x 16,384 on H100 and 4,096 x 4,096 x 16,384 on
// B200, sit at the curves' tops).
//
// network_gb_s, the network between nodes per GPU per direction, is the GPU's own fleet: the
// DGX system built on it has one compute-fabric port per GPU.
//  - DGX A100: 8 single-port ConnectX-6 HDR InfiniBand, 200 Gb/s each = 25 GB/s per GPU
//    (NVIDIA DGX A100 User Guide, DU-09821-001, "Hardware Overview").
//  - DGX H100 and DGX H200: four OSFP ports serving 8 single-port ConnectX-7, up to 400 Gb/s
//    InfiniBand each = 50 GB/s per GPU (NVIDIA DGX BasePOD reference architecture, "Core
//    Components"; DGX H100 User Guide, "Network Modules").
//  - DGX B200: four OSFP ports serving 8 single-port ConnectX-7, up to 400 Gb/s each
//    (NVIDIA DGX B200 User Guide, "Introduction"; DGX BasePOD, "Core Components").
//  - H800: DeepSeek-V3's cluster, cross-node InfiniBand at 50 GB/s per GPU
//    (arXiv:2412.19437, Sec. 3.2.2).
constexpr const char* kDgxA100 = "DGX A100: 8 × HDR InfiniBand 200 Gb/s, one per GPU";
constexpr const char* kDgxH100 = "DGX H100: 8 × ConnectX-7 400 Gb/s, one per GPU";
//
// fp8_tflops, the dense FP8 peak (NVIDIA H100 and H200 data sheets: 1,979 TFLOP/s SXM, H800 the
// same die; DGX B200 data sheet: 72 PFLOP/s FP8 training for 8 GPUs, 4,500 each dense); A100 has
// no FP8 tensor cores. host_link_gb_s, the GPU's PCIe link to its host per direction: Gen4 x16
// on A100 (32 GB/s), Gen5 x16 on H100, H200, H800 and B200 (64 GB/s).
//
// fp4_tflops, the dense FP4 peak (NVFP4, MXFP4): 9,000 on B200 (DGX B200 data sheet: 144 PFLOP/s
// FP4 with sparsity for 8 GPUs), 10,000 on GB200 (GB200 NVL72: 1,440 PFLOP/s with sparsity for
// 72), 13,500 on B300 and 15,000 on GB300 (below); Hopper has none.
//
// The FP8 and FP4 GEMMs' speedup over BF16's on Blackwell, quantization included, as Transformer
// Engine runs them in training: its GEMM benchmark on a B300 (TransformerEngine
// docs/examples/gemm_profiling, "Autocast" model-config run: hidden 4,096, MLP 16,384, 15,872
// tokens, the 12 GEMMs of a layer's forward, input and weight gradients) measured 12.758 ms a
// layer in BF16, 8.984 in MXFP8 (1.42x; 9.147 with FP8 current scaling, 1.39x) and 6.453 in
// NVFP4 (1.98x): the dynamic quantization, the Hadamard transforms and the scaling eat most of
// FP4's 6x peak. One measurement, a B300's, taken for every Blackwell GPU; the kernel alone
// (pre-quantized) ran 1.83x and 3.48x.
//
// Hopper: the same benchmark on an H200 NVL (same document, "Worked Example: 5B Model on
// H200", autocast) measured 32.014 ms a layer in BF16 and 18.978 with FP8 delayed scaling
// (1.69x; current scaling 20.285, 1.58x; DeepSeek's block scaling 22.882, 1.40x), the kernel
// alone 1.90x. fp8_hybrid is Transformer Engine's default recipe, delayed scaling with the
// HYBRID format: 1.69x, taken for H100, H200 and H800 (one die). The ratio of the peaks, 2x,
// had the planner promise FP8 steps up to a quarter shorter than NVIDIA's runs measured.
constexpr double kMxfp8Speedup = 12.758 / 8.984;
constexpr double kNvfp4Speedup = 12.758 / 6.453;
constexpr double kHopperFp8Speedup = 32.014 / 18.978;
const std::vector<GpuSpec>& gpu_presets() {
  static const std::vector<GpuSpec> presets = {
      {"A100-40GB", 40, 312, 300, 1555, kA100MatmulEfficiency, 25, kDgxA100, 0, 32},
      {"A100-80GB", 80, 312, 300, 2039, kA100MatmulEfficiency, 25, kDgxA100, 0, 32},
      {"H100-80GB", 80, 989, 450, 3350, kH100MatmulEfficiency, 50, kDgxH100, 1979, 64, 0.8, 1.0, 8,
       0, 0, kHopperFp8Speedup, 0, GemmCurve::kHopper},
      {"H200-141GB", 141, 989, 450, 4800, kH100MatmulEfficiency, 50,
       "DGX H200: 8 × ConnectX-7 400 Gb/s, one per GPU", 1979, 64, 0.8, 1.0, 8, 0, 0,
       kHopperFp8Speedup, 0, GemmCurve::kHopper},
      // H100's compute and memory with NVLink cut to 400 GB/s both ways; DeepSeek-V3
      // (arXiv:2412.19437, Sec. 3.2.2) measured 160 GB/s of it. H100's calibration.
      {"H800-80GB", 80, 989, 200, 3350, kH100MatmulEfficiency, 50,
       "DeepSeek-V3's H800 nodes: InfiniBand 400 Gb/s per GPU", 1979, 64, 0.8, 1.0, 8, 0, 0,
       kHopperFp8Speedup, 0, GemmCurve::kHopper},
      {"B200-192GB", 192, 2250, 900, 8000, kBlackwellMatmulEfficiency, 50,
       "DGX B200: 8 × ConnectX-7 400 Gb/s, one per GPU", 4500, 64, 0.8, 1.0, 8, 0, 9000,
       kMxfp8Speedup, kNvfp4Speedup, GemmCurve::kBlackwell},
      // The DGX B200 system itself: B200-192GB as that system exposes it, 1,440 GB for its
      // 8 GPUs (180 GB each; NVIDIA DGX B200 data sheet), 8 per node, one NVLink 5 domain.
      // Checked against nvidia.com/en-us/data-center/dgx-b200 (data sheet): 64 TB/s HBM3e for
      // 8 GPUs (8,000 GB/s each), 14.4 TB/s NVLink over two NVSwitch chips (1.8 TB/s per GPU,
      // 900 each way), 72 PFLOP/s FP8 with sparsity (4,500 dense per GPU; BF16 half that,
      // 2,250: the HGX B200 at 1,000 W, glennklockwood.com/garden/processors/B200), 8 x
      // ConnectX-7 400 Gb/s (50 GB/s per GPU), PCIe Gen5 to the Xeon hosts (64 GB/s).
      {"B200-DGX", 180, 2250, 900, 8000, kBlackwellMatmulEfficiency, 50,
       "DGX B200: 8 × ConnectX-7 400 Gb/s, one per GPU", 4500, 64, 0.8, 1.0, 8, 0, 9000,
       kMxfp8Speedup, kNvfp4Speedup, GemmCurve::kBlackwell},
      // GB200 NVL72 (NVIDIA GB200 NVL72 specifications): 72 Blackwell GPUs in one NVLink 5
      // domain of 18 compute trays, 4 GPUs each; 1.8 TB/s NVLink per GPU both ways (900 each
      // way), 130 TB/s in all; 13.4 TB HBM3e at 576 TB/s (186 GB at 8 TB/s per GPU); 360
      // PFLOP/s BF16 and 720 FP8 with sparsity (2.5 and 5 dense per GPU). Scale-out: one
      // ConnectX-7 400 Gb/s per GPU (GB200 NVL72 compute tray; ConnectX-8 800 Gb/s comes with
      // GB300), 50 GB/s. Host: NVLink-C2C 900 GB/s both ways per superchip, shared by its two
      // GPUs, 225 per GPU per direction. Its efficiency is Blackwell's (above).
      // Checked against nvidia.com/en-us/data-center/gb200-nvl72 (specifications: 720 PFLOP/s
      // FP8 and 360 BF16 with sparsity, 13.4 TB at 576 TB/s, 130 TB/s NVLink, NVLink-C2C 900
      // GB/s per superchip); per GPU the GB200 variant at 1,200 W gives 2,500 dense BF16 and
      // 5,000 FP8 (glennklockwood.com/garden/processors/B200); 186 GB and 4 ConnectX-7 per
      // 4-GPU tray as MLCommons Inference v6.1 lists a GB200 NVL72 (Crusoe, systems/
      // GB200-NVL72_GB200-186GB_aarch64x16_Dynamo.json).
      {"GB200-NVL72", 186, 2500, 900, 8000, kBlackwellMatmulEfficiency, 50,
       "GB200 NVL72: 72 GPUs in one NVLink domain, trays of 4, ConnectX-7 400 Gb/s per GPU", 5000,
       225, 0.8, 1.0, 4, 72, 10000, kMxfp8Speedup, kNvfp4Speedup, GemmCurve::kBlackwell},
      // HGX B300 (Blackwell Ultra), 8 GPUs per node. Checked against nvidia.com/en-us/data-center/
      // hgx (HGX B300: 144 PFLOP/s FP4 with sparsity and 108 without, 72 FP8 and 36 BF16 with
      // sparsity, for 8 GPUs: 13,500, 4,500 and 2,250 dense per GPU; about 2.1 TB HBM3e, 270 GB
      // usable per GPU; 14.4 TB/s NVLink, 900 GB/s each way per GPU; 1.6 TB/s of networking, one
      // ConnectX-8 at 800 Gb/s = 100 GB/s per GPU). HBM 8 TB/s per GPU; host PCIe Gen5 x16.
      {"B300-HGX", 270, 2250, 900, 8000, kBlackwellUltraMatmulEfficiency, 100,
       "HGX B300: 8 × ConnectX-8 800 Gb/s, one per GPU", 4500, 64, 0.8, 1.0, 8, 0, 13500,
       kMxfp8Speedup, kNvfp4Speedup, GemmCurve::kBlackwell},
      // GB300 NVL72 (Blackwell Ultra). Checked against nvidia.com/en-us/data-center/gb300-nvl72
      // (specifications: 1,080 PFLOP/s dense FP4, 720 FP8 and 360 BF16 with sparsity, for 72
      // GPUs: 15,000, 5,000 and 2,500 dense per GPU; up to 20 TB HBM3e at 576 TB/s, 279 GB at
      // 8 TB/s per GPU; 130 TB/s NVLink; 72 ConnectX-8 SuperNICs at 800 Gb/s, 100 GB/s per GPU)
      // and docs.nvidia.com/enterprise-reference-architectures/nvl72-ai-factory (compute tray: 4
      // GPUs, 2 Grace CPUs and 4 ConnectX-8). Host: NVLink-C2C, as GB200.
      {"GB300-NVL72", 279, 2500, 900, 8000, kBlackwellUltraMatmulEfficiency, 100,
       "GB300 NVL72: 72 GPUs in one NVLink domain, trays of 4, ConnectX-8 800 Gb/s per GPU", 5000,
       225, 0.8, 1.0, 4, 72, 15000, kMxfp8Speedup, kNvfp4Speedup, GemmCurve::kBlackwell},
  };
  return presets;
}

const std::vector<Precision>& precision_presets() {
  static const std::vector<Precision> presets = {
      // bf16 weight + bf16 grad + fp32 master, Adam m, Adam v: the book and ZeRO (16 B).
      {"mixed_bf16", 2, 2, 4, 4, 4},
      // Megatron-LM keeps fp32 main gradients (docs dist_optimizer.md,
      // theoretical_memory_usage.py): 18 B.
      {"megatron_fp32_grads", 2, 4, 4, 4, 4},
      // Pure fp32 Adam: the weights are the master copy (16 B).
      {"fp32", 4, 4, 0, 4, 4},
      // FP8 training as Megatron-Core runs it with Transformer Engine (--fp8-format hybrid):
      // GEMMs in FP8 (E4M3 forward, E5M2 gradients), BF16 weights, FP32 main gradients, main
      // weights and Adam states (18 B, as megatron_fp32_grads); the GEMMs' inputs cached in FP8
      // (activations.h). Transformer Engine's FP8 copies of the weights (about 1 B per
      // parameter, kept across micro-batches) are not counted.
      {"fp8_hybrid", 2, 4, 4, 4, 4, true},
      // NVFP4 training as Megatron-Bridge's performance recipes run it (bf16_with_nvfp4_mixed:
      // fp4 "e2m1", fp4_recipe "nvfp4", first_last_layers_bf16 off): every transformer layer's
      // linear GEMMs in NVFP4; the attention core (fused attention) and the output layer in
      // BF16; the GEMMs' inputs cached in NVFP4 (activations.h); FP32 main gradients, main
      // weights and Adam states (18 B). NVIDIA's NVFP4 paper
      // (arXiv:2509.25149, Sec. 4.1) also kept the first 2 and last 8 blocks of its 12B model in
      // BF16 (about 16% of the linear layers) for stability over 10T tokens: not counted here.
      {"nvfp4", 2, 4, 4, 4, 4, false, true},
  };
  return presets;
}

std::optional<ModelSpec> find_model(const std::string& name) { return find(model_presets(), name); }
std::optional<GpuSpec> find_gpu(const std::string& name) { return find(gpu_presets(), name); }
std::optional<Precision> find_precision(const std::string& name) {
  return find(precision_presets(), name);
}

std::string model_names() { return names(model_presets()); }
std::string gpu_names() { return names(gpu_presets()); }
std::string precision_names() { return names(precision_presets()); }

}  // namespace pe
