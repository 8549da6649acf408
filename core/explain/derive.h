// How a derivation is written: numbers as the page writes them, a formula's text with each
// term's value in its place, and the terms every area's derivations share. The areas'
// derivations (derivations.h) are built from these; explain.cpp lists them by report key.
#pragma once

#include <string>
#include <vector>

#include "explain/explain.h"
#include "model/memory.h"
#include "model/report.h"
#include "model/scenario.h"

namespace pe::explain {

// Numbers as the page writes them, in words past a million: 25600, 0.0625, "16 billion".
std::string num(double v);
// Bytes in the lab's units (GB = 1e9 B).
std::string bytes(double v);
// Seconds as the page writes them.
std::string secs(double v);
// A whole number.
std::string str(long long v);
// A value with its unit, as the text shows it.
std::string shown(double v, const std::string& unit);
// A seam's degree as a term ("TP 4").
Term degree(const char* symbol, int value, const char* name);
// The derivation of `result`: the formula, its terms (only those it uses), the text with each
// value in its place, and the source; `note` says where (a stage) or what is assumed.
Derivation derive(std::string formula, std::vector<Term> terms, double result,
                  const std::string& unit, std::string source, const std::string& note = "");
// "stage 3" where there are stages to tell apart.
std::string on_stage(const Report& r, int stage);
// The busiest GPU of a stage, as the model places its parameters (memory.h stage_params).
StageParams params_on(const Scenario& s, const Report& r, int stage);

}  // namespace pe::explain
