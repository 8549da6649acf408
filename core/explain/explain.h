// The math behind the numbers: for each number a page shows, its formula, the values plugged
// in, the result and the source, written by the core so the page does no model math. Each
// derivation recomputes its result from the terms it shows; tests/explain_test.cpp checks
// that every one equals the number in the report, so a derivation cannot drift from the model.
// A report lists the keys it explains; a derivation is built when a reader asks for it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/report.h"
#include "model/scenario.h"

namespace pe {

struct Derivation {
  std::string key;      // the report's dotted path: "memory.per_gpu_bytes"
  std::string formula;  // in symbols: "N × B/param ÷ (TP × PP)"
  std::string text;     // with the values: "256 GB = 16e9 params × 16 B/param ÷ (TP 1 × PP 1)"
  double result = 0;    // recomputed from the terms shown
  std::string source;   // where the formula comes from
};

// The report keys of the numbers this report explains, in a fixed order; no text is built.
std::vector<std::string> explained_keys(const Scenario& s, const Report& r);

// The derivation of one of them, or nullopt when the report does not explain `key`.
std::optional<Derivation> derivation(const Scenario& s, const Report& r, std::string_view key);

// Every one of them, in the order of explained_keys.
std::vector<Derivation> derivations(const Scenario& s, const Report& r);

}  // namespace pe
