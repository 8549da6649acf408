// The math behind the numbers: for each number a page shows, its formula in symbols, the terms
// those symbols stand for (each a value the model computed or the scenario gave), the result
// and the source. The result is the report's own number; the formula, evaluated from its terms,
// must give it (tests/explain_test.cpp does so for every derivation of many scenarios), so a
// derivation cannot drift from the model. The rules behind a formula (ZeRO's sharding, the
// collectives per layer, the pipeline's sends) are the model's own functions; this file only
// names the terms and writes them out.
// A report lists the keys it explains; a derivation is built when a reader asks for it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/report.h"
#include "model/scenario.h"

namespace pe {

// One symbol of a formula.
struct Term {
  std::string symbol;  // as the formula writes it: "Ψ", "TP", "w"
  double value = 0;
  std::string unit;     // how the text shows the value: "B", "B/s", "s", "params", ... ("": bare)
  std::string name;     // what it is, in words: "parameters on the GPU"
  bool degree = false;  // a seam's degree, which the text shows by its symbol: "TP 4"
};

struct Derivation {
  std::string key;      // the report's dotted path: "memory.per_gpu_bytes"
  std::string formula;  // in the terms' symbols, numbers, + − × ÷ and parentheses
  std::vector<Term> terms;
  double result = 0;  // the report's number, which the formula computes
  std::string text;   // the result = the formula with each term's value in its place
  std::string source;
};

// The report keys of the numbers this report explains, in a fixed order; no text is built.
std::vector<std::string> explained_keys(const Scenario& s, const Report& r);

// The derivation of one of them, or nullopt when the report does not explain `key`.
std::optional<Derivation> derivation(const Scenario& s, const Report& r, std::string_view key);

// Every one of them, in the order of explained_keys.
std::vector<Derivation> derivations(const Scenario& s, const Report& r);

}  // namespace pe
