// Named models, GPUs and precision conventions a user can pick instead of typing numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/scenario.h"

namespace pe {

// Architectures from their papers, counted from their shapes (model_shape.h): params = 0, the
// shape's count, which matches each paper's published count (tests/presets_test.cpp). The
// book's model keeps its round 16e9.
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
