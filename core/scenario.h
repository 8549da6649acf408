// The inputs of one training run. Defaults are the book lab: 16 GPUs, 8 per node, data
// parallel only, a 16 B-parameter model at 16 bytes/param on 80 GB GPUs.
#pragma once

#include <array>
#include <optional>
#include <string>

namespace pe {

struct Seams {
  bool data = true;
  bool tensor = false;
  bool pipeline = false;
  bool any() const { return data || tensor || pipeline; }
};

// The seams in the order their coordinates vary across ranks, innermost (fastest, so its
// groups are runs of neighbouring ranks and stay in a node) first. The chapter's rule of thumb
// is TP innermost, PP next, DP outermost: each seam's appetite for bandwidth decides.
enum class Seam { kTensor, kPipeline, kData };
using SeamOrder = std::array<Seam, 3>;
constexpr SeamOrder kBookOrder = {Seam::kTensor, Seam::kPipeline, Seam::kData};

struct Degrees {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  long long product() const { return 1LL * dp * tp * pp; }
};

// A GPT-style decoder. `params` is authoritative for memory and FLOPs; the architecture
// drives activations and traffic. Book default: 50 layers x 5120 hidden is 16.0 B params
// by Narayanan et al. Eq. 2, so the book's round 16e9 is consistent with it.
struct ModelSpec {
  std::string name = "book-16b";
  double params = 16e9;
  int layers = 50;
  int hidden = 5120;
  int heads = 40;
  int vocab = 51200;
};

// Bytes of training state per parameter. Book / ZeRO convention (mixed-precision Adam):
// bf16 weight 2 + bf16 grad 2 + fp32 master 4 + Adam m 4 + Adam v 4 = 16.
struct Precision {
  std::string name = "mixed_bf16";
  double weight_bytes = 2;
  double grad_bytes = 2;
  double master_bytes = 4;
  double adam_m_bytes = 4;
  double adam_v_bytes = 4;
  double optimizer_bytes() const { return master_bytes + adam_m_bytes + adam_v_bytes; }
  double total_bytes() const { return weight_bytes + grad_bytes + optimizer_bytes(); }
};

struct GpuSpec {
  std::string name = "A100-80GB";
  double memory_gb = 80;       // GB = 1e9 bytes
  double peak_tflops = 312;    // dense bf16
  double nvlink_gb_s = 300;    // per direction, per GPU
};

enum class Recompute { kNone, kSelective, kFull };
enum class Schedule { kOneFOneB, kInterleaved };
enum class MemoryModel { kBook, kFull };

struct Scenario {
  int gpus = 16;
  int gpus_per_node = 8;
  Seams seams;
  std::optional<Degrees> degrees;  // explicit degrees override the seams
  SeamOrder order = kBookOrder;    // how ranks are numbered, so which groups share a node
  ModelSpec model;
  int seq_len = 2048;
  int micro_batch = 1;     // sequences per micro-batch (b)
  int global_batch = 512;  // sequences per step (B)
  Precision precision;
  GpuSpec gpu;
  double network_gb_s = 25;  // inter-node, per GPU per direction (InfiniBand HDR 200 Gb/s)
  int zero_stage = 0;
  // "book": N spread evenly over TP x PP, weights + optimizer only (the book's panel).
  // "full": whole layers per stage, embedding and output layer on the end stages, activations.
  MemoryModel memory_model = MemoryModel::kBook;
  Recompute recompute = Recompute::kNone;
  bool sequence_parallel = false;
  Schedule schedule = Schedule::kOneFOneB;
  int virtual_stages = 1;  // model chunks per GPU with the interleaved schedule (v)
  // Achievable fraction of dense peak for the model's matmuls. 0.5: Narayanan et al. report
  // 44-52% of A100 peak end to end on 1-3k GPUs (arXiv:2104.04473, Table 1).
  double efficiency = 0.5;
  double train_tokens = 0;  // optional token budget for time-to-train; 0 = not asked
  // USD per GPU-hour. 2.0 is a round figure inside the 2024-25 cloud range for A100 and
  // H100 rentals (about $1-4 on demand, less reserved); the page says to set your own.
  double price_per_gpu_hour = 2.0;
};

}  // namespace pe
