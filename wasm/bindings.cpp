// The embind layer: declarations only. The core speaks JSON text (contract.h), so the
// boundary is one string in, one string out -- no class handles for JS to .delete(), no
// 64-bit integers. Errors come back as {"error": "..."}; wasm/lab.js turns them into LabError.
#include <string>

#include <emscripten/bind.h>

#include "contract.h"

namespace {

std::string evaluate(const std::string& scenario_json) { return pe::evaluate_json(scenario_json); }

}  // namespace

EMSCRIPTEN_BINDINGS(parallelism_explorer) { emscripten::function("evaluate", &evaluate); }
