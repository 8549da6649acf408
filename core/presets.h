// Named models, GPUs and precision conventions a user can pick instead of typing numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenario.h"

namespace pe {

// Architectures from their papers. params = 0 means "from the architecture" (Narayanan Eq. 2);
// models whose MLP or attention differ from GPT's (Llama: SwiGLU, grouped-query attention)
// carry their published count instead.
const std::vector<ModelSpec>& model_presets();
const std::vector<GpuSpec>& gpu_presets();
const std::vector<Precision>& precision_presets();

std::optional<ModelSpec> find_model(const std::string& name);
std::optional<GpuSpec> find_gpu(const std::string& name);
std::optional<Precision> find_precision(const std::string& name);

// "a, b, c": the names a user may choose from, for error messages.
std::string model_names();
std::string gpu_names();
std::string precision_names();

}  // namespace pe
