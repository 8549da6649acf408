// The inputs of one training run. Defaults are the book lab: 16 GPUs, 8 per node, data
// parallel only, a 16 B-parameter model at 16 bytes/param on 80 GB GPUs.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>

namespace pe {

// The seams that auto-factor the GPU count. Context splits the sequence; expert splits each
// mixture-of-experts layer's experts over ranks carved out of the data and context ranks, so
// it takes no factor of its own (factorize.h).
struct Seams {
  bool data = true;
  bool tensor = false;
  bool pipeline = false;
  bool context = false;
  bool expert = false;
  bool any() const { return data || tensor || pipeline || context; }
};

// The seams in the order their coordinates vary across ranks, innermost (fastest, so its
// groups are runs of neighbouring ranks and stay in a node) first. The chapter's rule of thumb
// is TP innermost, PP next, DP outermost: each seam's appetite for bandwidth decides.
// Context parallelism is not in the order: it always sits just outside TP (layout.h).
enum class Seam { kTensor, kPipeline, kData, kContext };
using SeamOrder = std::array<Seam, 3>;
constexpr SeamOrder kBookOrder = {Seam::kTensor, Seam::kPipeline, Seam::kData};

// dp x tp x pp x cp = the GPUs in use. ep is not a factor: the EP groups are carved out of
// the dp x cp ranks of each stage (Megatron-Core), so ep divides dp x cp (layout.h).
struct Degrees {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  int cp = 1;
  int ep = 1;
  long long product() const { return 1LL * dp * tp * pp * cp; }
};

enum class Activation { kGelu, kSwiglu };
enum class Position { kLearned, kRope };

// Multi-head attention (grouped when kv_heads < heads), or DeepSeek's multi-head latent
// attention (attention_shape.h says how it is counted).
enum class Attention { kMultiHead, kLatent };

// A decoder-only transformer. The shape (layers, hidden, heads, kv_heads, ffn_hidden,
// activation, position, tied_embeddings, attention, and the experts for a mixture of experts)
// gives the parameters, FLOPs, activations and traffic (model_shape.h, moe.h). `params` is the
// count every parameter-proportional number is scaled to: weights, gradients, optimizer
// states, matmul FLOPs and gradient traffic. It equals the shape's count within 5% (the
// contract refuses more), unless `shape_nominal`: params given without an architecture, so
// the preset's shape is only a template scaled to them.
// Book default: 50 layers x 5120 hidden is 16.0 B params by Narayanan et al. Eq. 2, so the
// book's round 16e9 is consistent with it.
struct ModelSpec {
  std::string name = "book-16b";
  double params = 16e9;
  int layers = 50;
  int hidden = 5120;
  // 80 heads of 64: every tensor-parallel degree the book's 16 GPUs take divides them.
  int heads = 80;
  int vocab = 51200;
  int kv_heads = 0;  // key/value heads (GQA, MQA); 0 = heads (multi-head attention)
  // Each attention head's width; 0 = hidden / heads. Qwen3's heads are wider than that (128
  // with 64 heads on a 4,096 hidden): Q and the attention output are heads x head_dim wide, K
  // and V kv_heads x head_dim. Latent attention has its own (attention_shape.h).
  int head_dim = 0;
  int ffn_hidden = 0;  // MLP width; 0 = 4 x hidden (GPT)
  // GELU: GPT's MLP with biases and LayerNorm (Narayanan Eq. 2); SwiGLU: Llama's gated MLP
  // (three matrices), no biases, RMSNorm (Touvron et al. 2023).
  Activation activation = Activation::kGelu;
  Position position = Position::kLearned;  // learned: an s x h position table; rope: none
  bool tied_embeddings = true;  // the output layer reuses the word embedding (GPT, Megatron)
  bool shape_nominal = false;
  Attention attention = Attention::kMultiHead;
  // Mixture of experts (moe.h). experts = 0: a dense model. Otherwise every layer after the
  // first `dense_layers` replaces its MLP by `experts` routed experts, of which each token
  // uses `experts_per_token` (top-k), plus `shared_experts` every token uses; each expert is
  // an MLP of width `moe_ffn_hidden` (0 = ffn). The dense layers keep the ffn-wide MLP.
  int experts = 0;
  int experts_per_token = 2;
  int moe_ffn_hidden = 0;
  int shared_experts = 0;
  int dense_layers = 0;
  int kv() const { return kv_heads > 0 ? kv_heads : heads; }
  int head() const { return head_dim > 0 ? head_dim : hidden / heads; }
  int ffn() const { return ffn_hidden > 0 ? ffn_hidden : 4 * hidden; }
  bool moe() const { return experts > 0; }
  // Whether training drops out, keeping a 1-byte mask per element it drops (Korthikanti et
  // al. 2022 Sec. 4.1: after attention and after the MLP, and after the embedding). GPT-style
  // models do (Megatron-LM's hidden_dropout 0.1); the SwiGLU family trains without (Llama 3:
  // Megatron-Bridge's Llama providers set hidden_dropout = attention_dropout = 0; Mixtral,
  // DeepSeek-V3 and Qwen likewise), and PyTorch's dropout at p = 0 returns its input, no mask.
  bool dropout() const { return activation == Activation::kGelu; }
  int expert_ffn() const { return moe_ffn_hidden > 0 ? moe_ffn_hidden : ffn(); }
};

// Bytes of each activation, and of its gradient, that crosses the wire: bf16.
constexpr double kActivationBytes = 2;

// Bytes of training state per parameter. Book / ZeRO convention (mixed-precision Adam):
// bf16 weight 2 + bf16 grad 2 + fp32 master 4 + Adam m 4 + Adam v 4 = 16.
struct Precision {
  std::string name = "mixed_bf16";
  double weight_bytes = 2;
  double grad_bytes = 2;
  double master_bytes = 4;
  double adam_m_bytes = 4;
  double adam_v_bytes = 4;
  // GEMMs in FP8 as Transformer Engine runs them (E4M3, or hybrid with E5M2 gradients): at
  // the GPU's FP8 peak, their inputs cached in FP8 for the backward (activations.h); the
  // weights, gradients and optimizer states keep the bytes above.
  bool fp8 = false;
  // GEMMs in NVFP4 (Transformer Engine 2.8+, Blackwell): the transformer layers' linear GEMMs at
  // the GPU's FP4 rate (step_time.h gemm_rate_flops); the attention core and the output layer
  // stay BF16, as in fp8. Their inputs are counted at 16 bits, and the weights, gradients and
  // optimizer states keep the bytes above. fp4 and fp8 are one recipe or the other.
  bool fp4 = false;
  double optimizer_bytes() const { return master_bytes + adam_m_bytes + adam_v_bytes; }
  double total_bytes() const { return weight_bytes + grad_bytes + optimizer_bytes(); }
};

// The calibrated matmul efficiencies (presets.cpp says how they were fitted).
inline constexpr double kA100MatmulEfficiency = 0.68;
inline constexpr double kH100MatmulEfficiency = 0.57;
inline constexpr double kBlackwellMatmulEfficiency = 0.64;       // B200, GB200
inline constexpr double kBlackwellUltraMatmulEfficiency = 0.81;  // B300, GB300

// Which measured GEMM curve (gemm_shape.h) a GPU's small GEMMs follow: Hopper's (H100, H200,
// H800), Blackwell's (B200, GB200, and Blackwell Ultra's B300 and GB300, unmeasured), or none
// (A100 and custom GPUs: every GEMM at the calibrated efficiency).
enum class GemmCurve { kNone, kHopper, kBlackwell };

struct GpuSpec {
  std::string name = "A100-80GB";
  double memory_gb = 80;     // GB = 1e9 bytes
  double peak_tflops = 312;  // dense bf16
  double nvlink_gb_s = 300;  // per direction, per GPU
  double hbm_gb_s = 2039;    // memory bandwidth (elementwise kernels, the optimizer step)
  // Fraction of dense peak the transformer's matmuls reach, calibrated per GPU (presets.cpp
  // says from what); the scenario's `efficiency` overrides it, keeping the GPU's name.
  // Bubble, communication and memory-bound kernels are modelled separately.
  double matmul_efficiency = kA100MatmulEfficiency;
  // The network between nodes, per GPU per direction, as the GPU's fleet ships it (presets.cpp
  // says which system); the scenario's `network_gb_s` overrides it, keeping the GPU's name.
  double network_gb_s = 25;
  // The fleet that network comes from, in words (presets.cpp cites each).
  const char* fleet = "DGX A100: 8 × HDR InfiniBand 200 Gb/s, one per GPU";
  double fp8_tflops = 0;  // dense FP8 peak; 0: no FP8 tensor cores (A100)
  // The GPU's link to its host's memory, per direction: what offloaded activations ride.
  double host_link_gb_s = 32;
  // The share of each link's nominal rate NCCL's collectives reach (its bus bandwidth). NVLink:
  // nccl-tests (PERFORMANCE.md's bus bandwidth) measures about 230-240 of 300 GB/s on DGX A100
  // and 360-370 of 450 GB/s on DGX H100 for large all-reduces. The network is taken at its
  // line rate, which large messages come close to. A calibration (calibrate.h) refits both
  // from a fleet's measured bus bandwidths.
  double nvlink_efficiency = 0.8;
  double network_efficiency = 1.0;
  // The system's shape (presets.cpp cites each): GPUs per node or compute tray, and GPUs per
  // NVLink domain, the scale-up reach (0: one node, as on every DGX/HGX with 8 GPUs). A group
  // inside one domain rides NVLink even across trays (GB200 NVL72: 18 trays of 4, one domain).
  int node_gpus = 8;
  int nvlink_domain_gpus = 0;
  double fp4_tflops = 0;  // dense FP4 peak (NVFP4, MXFP4); 0: no FP4 tensor cores (Hopper)
  // The FP8 and FP4 GEMMs' measured speedup over BF16's at the same shapes, quantization
  // included (presets.cpp cites the measurement); 0: the ratio of the peaks. Either way at
  // most that ratio, so the GEMMs never pass their own peak.
  double fp8_gemm_speedup = 0;
  double fp4_gemm_speedup = 0;
  GemmCurve gemm_curve = GemmCurve::kNone;
  // The share of the schedule's pipeline bubble (pipeline.h) the fleet's runs pay: 1, all of
  // it. One measured step cannot tell it from the matmul efficiency; two runs whose bubbles
  // differ can, and a two-run calibration (calibrate.h) fits it.
  double bubble_paid = 1;
};

enum class Recompute { kNone, kSelective, kFull };
// Megatron-Core's recompute_modules (transformer_config.py), one bit each in its order. moe_act,
// layernorm and mla_up_proj discard their outputs and recompute them; core_attn, mlp, moe and
// shared_experts keep only their inputs and re-run their forward (activations.h).
enum RecomputeModule : unsigned {
  kCoreAttn = 1u << 0,
  kMoeAct = 1u << 1,
  kLayernorm = 1u << 2,
  kMlaUpProj = 1u << 3,
  kMlp = 1u << 4,
  kMoe = 1u << 5,
  kSharedExperts = 1u << 6,
  // Not Megatron's: torchtitan's per-op policy (selective_ac_option "op"), which keeps every
  // other matmul's output and the attention kernel's and recomputes the rest (activations.h).
  kEveryOtherMatmul = 1u << 7,
};
// Which layers full recomputation re-runs (Megatron-Core's recompute_method): uniform, every
// layer, its input kept once per chunk of recompute_layers; block, the first recompute_layers
// of each stage, the rest keeping everything.
enum class RecomputeMethod { kUniform, kBlock };
// Pipeline schedules (pipeline.h): 1F1B, interleaved 1F1B, and those that split the backward
// into its input-gradient (B) and weight-gradient (W) halves: zero bubble ZB-H1 and ZB-V (Qi et
// al. 2023, 2024), DeepSeek's DualPipe and DualPipeV.
enum class Schedule { kOneFOneB, kInterleaved, kZbH1, kZbV, kDualPipe, kDualPipeV };
enum class MemoryModel { kBook, kFull };
// How context parallelism exchanges keys and values (context.h): ring passes (Ring
// Attention; Megatron-Core's cp_comm_type "p2p"), one all-gather (Llama 3; "all_gather") or
// all-to-alls (DeepSpeed-Ulysses; "a2a").
enum class ContextParallel { kRing, kAllGather, kUlysses };

// How the loss meets the logits (memory.h StageActivations): PyTorch's log_softmax then
// nll_loss, which stores the fp32 log-probabilities (4 s b V / t) and writes two gradients of
// that size in the backward (8 s b V / t); or Transformer Engine's parallel_cross_entropy
// (transformer_engine/pytorch/cross_entropy.py), which keeps only the BF16 logits (2 s b V / t)
// and writes their gradient into them in place. Megatron-Bridge's recipes run TE's
// (cross_entropy_loss_fusion, cross_entropy_fusion_impl "te").
enum class CrossEntropy { kUnfused, kTe };

struct Scenario;
struct CalibrationFit;

// One measured run on the user's own fleet, which refits the model's constants to it
// (calibrate.h). `run` is that run's scenario; no run: no calibration. Zero: not measured.
struct Calibration {
  std::string name;                     // how the report names it: "8 × H100, 2026-11-28"
  std::shared_ptr<const Scenario> run;  // shared: a scenario is copied often, this rarely set
  double step_time_s = 0;               // measured time per step (this or the next is required)
  // Measured throughput (torchtitan's "tps"): the step is then the run's tokens per step over
  // (GPUs x this).
  double tokens_per_s_per_gpu = 0;
  double peak_memory_gb = 0;    // measured peak memory on the busiest GPU
  double tflops_per_gpu = 0;    // measured model TFLOP/s per GPU
  double nvlink_bus_gb_s = 0;   // nccl-tests all_reduce_perf bus bandwidth inside a node
  double network_bus_gb_s = 0;  // the same across nodes, per GPU
  // A second run of the same fleet, another layout, and its measured step: with the first it
  // fits the bubble's share paid (GpuSpec::bubble_paid) beside the matmul efficiency.
  std::shared_ptr<const Scenario> second_run;
  double second_step_time_s = 0;
  // The run a kScenario field holds: "calibration.scenario" or "calibration.second_scenario".
  std::shared_ptr<const Scenario>& run_at(const std::string& key) {
    return key == "calibration.second_scenario" ? second_run : run;
  }
  const std::shared_ptr<const Scenario>& run_at(const std::string& key) const {
    return key == "calibration.second_scenario" ? second_run : run;
  }
  // What the run fitted, once the contract has read it (calibrate.h); the scenario's constants
  // already hold the fitted values.
  std::shared_ptr<const CalibrationFit> fit;
  bool given() const { return run != nullptr; }
};

// What interrupts a long run and what a restart costs (goodput.h). The failure rates are the
// Llama 3 405B run's unexpected interruptions (Dubey et al. 2024, arXiv:2407.21783, Sec. 3.3.4,
// Table 5: 419 in a 54-day snapshot on 16,384 H100, 21.23 million GPU-hours), by the table's
// categories: GPU (faulty GPU 148, HBM3 72, SRAM 19, system processor 17, silent data
// corruption 6, thermal interface and sensor 6: 268), host (unplanned host maintenance 32, NIC
// 7, SSD 3, power supply 3, chassis 2, IO expansion board 2, CPU 2, system memory 2: 53),
// network (switch or cable 35) and software (bugs 54, dependency 2, and NCCL watchdog timeouts
// of unknown cause 7: 63). The paper's 47 planned interruptions are not counted.
struct Reliability {
  double gpu_failures_per_million_gpu_hours = 268 / 21.233664;
  double host_failures_per_million_gpu_hours = 53 / 21.233664;
  double network_failures_per_million_gpu_hours = 35 / 21.233664;
  double software_failures_per_million_gpu_hours = 63 / 21.233664;
  // The job's checkpoint storage, written or read: Llama 3's Tectonic sustains 2 TB/s (peaks of
  // 7; Dubey et al. 2024, Sec. 3.3.1).
  double storage_gb_s = 2000;
  // Training waits only for the copy to host memory (PyTorch DCP async_save; Megatron-Core's
  // async save): ByteCheckpoint stalled a 405B run on 8,960 GPUs 0.59 s for a 51 s save
  // (Wan et al., NSDI 2025, Table 8).
  bool async_checkpoint = true;
  // Detect, reschedule and start again, the reload not counted: Kokolis et al. (HPCA 2025,
  // arXiv:2410.21680) put this restart overhead at 5 to 20 minutes; MegaScale (NSDI 2024)
  // recovers within 15. The middle, 10 minutes.
  double restart_s = 600;
  int hot_spares = 0;                // GPUs held idle for restarts, paid for
  double checkpoint_interval_s = 0;  // 0: the best one (goodput.h)
  double failures_per_gpu_hour() const {
    return 1e-6 *
           (gpu_failures_per_million_gpu_hours + host_failures_per_million_gpu_hours +
            network_failures_per_million_gpu_hours + software_failures_per_million_gpu_hours);
  }
};

// The fleet: how many GPUs, how they sit in nodes, and the network between the nodes.
struct Fleet {
  int gpus = 16;
  int gpus_per_node = 8;  // absent with a GPU given: the GPU preset's node_gpus
  // The scale-out network's spine: traffic between rails shares uplinks oversubscribed this
  // many times (1: non-blocking); traffic on one rail stays on its rail switch (link.h).
  double network_oversubscription = 1;
};

// What the optimizer sees of the data: the sequence length and the sequences per step. How a
// step is cut into micro-batches is not here but in the Recipe: it changes how the run is
// executed, not what it trains on, and the planner searches it with the other choices.
struct Batch {
  int seq_len = 2048;
  int global_batch = 512;  // sequences per step (B)
};

// How the run is executed on its fleet: every choice a practitioner (or the planner) makes
// that leaves the model, the data and the hardware as they are. A plan is a Recipe
// (planner.h), so the planner swaps one in and evaluates the scenario as evaluate() does.
struct Recipe {
  Seams seams;
  std::optional<Degrees> degrees;  // explicit degrees override the seams
  SeamOrder order = kBookOrder;    // how ranks are numbered, so which groups share a node
  int micro_batch = 1;             // sequences per micro-batch (b)
  int zero_stage = 0;
  // "book": N spread evenly over TP x PP, weights + optimizer only (the book's panel).
  // "full": whole layers per stage, embedding and output layer on the end stages, activations.
  // A choice of how to count rather than of how to train, kept here because the planner's
  // recipes are counted in full: a plan's Recipe carries the memory model it was sized with.
  MemoryModel memory_model = MemoryModel::kBook;
  Recompute recompute = Recompute::kNone;
  unsigned recompute_modules = kCoreAttn;  // what selective recomputation re-runs
  int recompute_layers = 0;                // with full: 0 every layer, else as the method says
  RecomputeMethod recompute_method = RecomputeMethod::kUniform;
  // ZeRO-3 / FSDP: units (layers) whose weights are gathered ahead of the one computing, FSDP's
  // forward and backward prefetch (Zhao et al. 2023, arXiv:2304.11277, Sec. 3.3.2): 1 by
  // default, as FSDP runs (memory.h transient_bytes).
  int fsdp_prefetch = 1;
  // Layers per stage whose stored activations go to host memory in the forward pass and come
  // back for the backward (Megatron-Core's cpu_offloading): the last of each stage.
  int offload_layers = 0;
  bool sequence_parallel = false;
  Schedule schedule = Schedule::kOneFOneB;
  int virtual_stages = 1;  // model chunks per GPU with the interleaved schedule (v)
  // Layers on the first and last pipeline stages (Megatron-Core's
  // --decoder-first/last-pipeline-num-layers); 0 = even split (pipeline.h).
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  // Overlap switches (Megatron-Core --overlap-grad-reduce, --overlap-param-gather,
  // --tp-comm-overlap): hidden behind compute up to the compute they can overlap (step_time.h).
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  bool tp_comm_overlap = false;
  // Each TP rank sends 1/t of a pipeline activation and the next stage all-gathers it over
  // NVLink: Megatron-LM 2021-22's default scatter/gather (Narayanan Sec. 4.1). Current
  // Megatron-Core divides pipeline sends by t only with sequence parallelism.
  bool pp_scatter_gather = false;
  // Fused attention that never stores the s x s scores (Dao et al. 2022; Megatron-Core's
  // default through Transformer Engine): activations as with selective recompute, and no
  // memory traffic for the scores. Megatron-LM 2021-22 (the papers' runs) had none.
  bool flash_attention = true;
  CrossEntropy cross_entropy = CrossEntropy::kUnfused;
  // CUDA context, NCCL buffers and the allocator's reserve, added to the full memory model.
  // Here rather than with the GPU: it is the software stack's (framework, NCCL, allocator)
  // and moves with it, while the GpuSpec is the hardware a preset names.
  double overhead_gb = 2;
  ContextParallel context_parallel = ContextParallel::kRing;
  // Tensor parallelism inside each expert (Megatron-Core --expert-tensor-parallel-size); it
  // divides tp. Megatron-Core defaults it to tp; 1 keeps experts whole, as DeepSeek-V3 and
  // most MoE recipes run.
  int expert_tp = 1;
  // Tokens an expert takes, as a multiple of an even share (Switch Transformer; Megatron-Core
  // --moe-expert-capacity-factor with padding): buffers, all-to-alls and expert FLOPs scale by
  // it. 0: dropless with balanced routing, the same as 1.
  double capacity_factor = 0;
  // The busiest expert's tokens over an even share, dropless (lambda = 1 + MaxVio). 1.04:
  // auxiliary-loss-free balancing, DeepSeek-V3's (Wang et al. 2024, arXiv:2408.15664, Table 2:
  // MaxVio_global 0.04 at 1B and 3B parameters); 1.72 and 1.52 with an auxiliary loss (same
  // table); 1 in forced-balance benchmarks (NVIDIA's Megatron-Bridge and AutoModel tables).
  double moe_load_imbalance = 1.04;
  // Hide the expert all-to-alls behind computation of another micro-batch (DeepSeek-V3's
  // DualPipe; Megatron-Core --overlap-moe-expert-parallel-comm).
  bool expert_comm_overlap = false;
  // Last, after the scalars the formulas read most: their offsets stay small (below 128
  // bytes a wasm load's offset takes one byte), which keeps the first-load module within its
  // budget (tests/browser/perf.test.mjs).
  Precision precision;
  double expert_capacity() const { return capacity_factor > 0 ? capacity_factor : 1.0; }
  // The modules every layer that is not fully recomputed re-runs.
  unsigned selective_modules() const {
    return recompute == Recompute::kSelective ? recompute_modules : 0u;
  }
};

// What the run costs and what interrupts it.
struct Economics {
  // USD per GPU-hour. 2.0 is a round figure inside the 2024-25 cloud range for A100 and
  // H100 rentals (about $1-4 on demand, less reserved); the page says to set your own.
  double price_per_gpu_hour = 2.0;
  double train_tokens = 0;  // optional token budget for time-to-train; 0 = not asked
  Reliability reliability;
};

// One training run, in the parts the schema groups its fields by (schema.cpp).
// The parts in the order that keeps the most-read members' offsets small (Recipe's comment).
struct Scenario {
  Fleet fleet;
  Batch batch;
  Recipe recipe;
  ModelSpec model;
  GpuSpec gpu;
  Economics economics;
  // A measured run the constants above (the GPU's efficiencies, the recipe's overhead) are
  // refitted to; the contract applies the fit when it reads the scenario (calibrate.h). Beside
  // the parts rather than in one: it is no input of the run but a measurement that rewrites
  // the Gpu's and the Recipe's constants as it is read.
  Calibration calibration;
  // GPUs per NVLink domain: the GPU's, or one node when it gives none.
  int domain_gpus() const {
    return gpu.nvlink_domain_gpus > 0 ? gpu.nvlink_domain_gpus : fleet.gpus_per_node;
  }
  // An NVLink domain wider than a node (a GB200 NVL72's trays): the one place this is decided.
  bool domain_spans_nodes() const { return domain_gpus() > fleet.gpus_per_node; }
};

}  // namespace pe
