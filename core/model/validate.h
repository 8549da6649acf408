// One validation layer for every scenario field: ranges and the rules that tie fields
// together. The JSON reader checks types; everything else is here, so C++ callers, the CLI,
// the wasm module and the page get the same messages, each naming the field and what is allowed.
#pragma once

#include <string>

#include "model/result.h"
#include "model/scenario.h"

namespace pe {

// Empty when the scenario is valid, else the field at fault and one sentence:
// "<field> ...: allowed ...". Ranges come from the field table (schema.h).
Problem validate(const Scenario& s);

// Whether model.params is within 5% of what the shape counts at this sequence length (a
// learned position table grows with it), or the shape is only a template scaled to params.
bool params_match_shape(const ModelSpec& m, int seq_len);

// A number as a person writes it in a message: 80, -16, 0.5, 1e+308.
std::string show_number(double v);

}  // namespace pe
