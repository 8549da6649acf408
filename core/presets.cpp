#include "presets.h"

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

}  // namespace

const std::vector<ModelSpec>& model_presets() {
  static const std::vector<ModelSpec> presets = {
      // name, params, layers, hidden, heads, vocab
      {"book-16b", 16e9, 50, 5120, 40, 51200},          // the book lab
      {"gpt-neox-20b", 0, 44, 6144, 64, 50432},         // Black et al. 2022
      {"megatron-22b", 0, 48, 6144, 64, 51200},         // Korthikanti Table 3
      {"llama-70b", 70e9, 80, 8192, 64, 32000},         // Touvron et al. 2023 (Llama 2)
      {"megatron-145b", 0, 80, 12288, 96, 51200},       // Narayanan Table 1
      {"gpt3-175b", 0, 96, 12288, 96, 51200},           // Brown et al. 2020; Korthikanti Table 3
      {"bloom-176b", 0, 70, 14336, 112, 250680},        // BigScience 2022
      {"llama3-405b", 405e9, 126, 16384, 128, 128256},  // Llama 3 Herd, Table 3
      {"megatron-530b", 0, 105, 20480, 128, 51200},     // Korthikanti Table 3
      {"megatron-1t", 0, 128, 25600, 160, 51200},       // Korthikanti Table 3
  };
  return presets;
}

const std::vector<GpuSpec>& gpu_presets() {
  // Dense bf16 peak and NVLink bandwidth per direction, from the vendors' data sheets.
  static const std::vector<GpuSpec> presets = {
      {"A100-40GB", 40, 312, 300},  {"A100-80GB", 80, 312, 300},
      {"H100-80GB", 80, 989, 450},  {"H200-141GB", 141, 989, 450},
      {"B200-192GB", 192, 2250, 900},
  };
  return presets;
}

const std::vector<Precision>& precision_presets() {
  static const std::vector<Precision> presets = {
      // bf16 weight + bf16 grad + fp32 master, Adam m, Adam v: the book and ZeRO (16 B).
      {"mixed_bf16", 2, 2, 4, 4, 4},
      // Megatron-LM keeps fp32 main gradients (docs dist_optimizer.md): 18 B.
      {"megatron_fp32_grads", 2, 4, 4, 4, 4},
      // Pure fp32 Adam: the weights are the master copy (16 B).
      {"fp32", 4, 4, 0, 4, 4},
  };
  return presets;
}

std::optional<ModelSpec> find_model(const std::string& name) {
  return find(model_presets(), name);
}
std::optional<GpuSpec> find_gpu(const std::string& name) { return find(gpu_presets(), name); }
std::optional<Precision> find_precision(const std::string& name) {
  return find(precision_presets(), name);
}

std::string model_names() { return names(model_presets()); }
std::string gpu_names() { return names(gpu_presets()); }
std::string precision_names() { return names(precision_presets()); }

}  // namespace pe
