// One validation layer for every scenario field: ranges and the rules that tie fields
// together. The JSON reader checks types; everything else is here, so C++ callers, the CLI,
// the wasm module and the page get the same messages, each naming the field and what is allowed.
#pragma once

#include <string>

#include "scenario.h"

namespace pe {

// Empty when the scenario is valid, else one sentence: "<field> ...: allowed ...".
std::string validate(const Scenario& s);

}  // namespace pe
