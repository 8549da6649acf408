// A derivation's formula evaluated from its terms, independently of the code that wrote it: a
// small recursive-descent reader of the formulas' grammar (numbers, the terms' symbols, + − ×
// ÷, parentheses and √ of what follows it; × and ÷ bind tighter than + and −, all left to
// right).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "explain/explain.h"

namespace pe::test {

class FormulaReader {
 public:
  FormulaReader(const std::string& formula, const std::vector<Term>& terms)
      : text_(formula), terms_(terms) {}

  // The value, or nullopt with error() saying what could not be read.
  std::optional<double> value() {
    const double v = sum();
    skip_spaces();
    if (error_.empty() && at_ < text_.size()) error_ = "unread text at byte " + std::to_string(at_);
    if (!error_.empty()) return std::nullopt;
    return v;
  }
  const std::string& error() const { return error_; }

 private:
  bool take(const char* op) {
    skip_spaces();
    const std::string o = op;
    if (text_.compare(at_, o.size(), o) != 0) return false;
    at_ += o.size();
    return true;
  }
  void skip_spaces() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }
  double sum() {
    double v = product();
    while (error_.empty()) {
      if (take("+")) {
        v += product();
      } else if (take("−")) {
        v -= product();
      } else {
        return v;
      }
    }
    return v;
  }
  double product() {
    double v = factor();
    while (error_.empty()) {
      if (take("×")) {
        v *= factor();
      } else if (take("÷")) {
        v /= factor();
      } else {
        return v;
      }
    }
    return v;
  }
  double factor() {
    if (take("√")) return std::sqrt(factor());
    if (take("(")) {
      const double v = sum();
      if (!take(")")) error_ = "no ) at byte " + std::to_string(at_);
      return v;
    }
    skip_spaces();
    const size_t start = at_;
    while (at_ < text_.size() && !stops(at_)) ++at_;
    const std::string token = text_.substr(start, at_ - start);
    if (token.empty()) {
      error_ = "no value at byte " + std::to_string(start);
      return 0;
    }
    for (const Term& t : terms_) {
      if (t.symbol == token) return t.value;
    }
    char* end = nullptr;
    const double v = std::strtod(token.c_str(), &end);
    if (*end != '\0') error_ = "no term named " + token;
    return v;
  }
  // Where a token ends: a space, a parenthesis or an operator.
  bool stops(size_t i) const {
    for (const char* op : {" ", "(", ")", "+", "−", "×", "÷", "√"}) {
      if (text_.compare(i, std::string(op).size(), op) == 0) return true;
    }
    return false;
  }

  std::string text_;
  const std::vector<Term>& terms_;
  size_t at_ = 0;
  std::string error_;
};

// Whether two numbers agree to within a few rounding errors.
inline bool agree(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// What is wrong with the scenario's derivations, "" when nothing: each derivation's formula,
// evaluated from its terms by a reader of its own, gives the derivation's result, that is the
// number the report shows, and every derivation names its source and every term.
inline std::string formulas_disagree(const Scenario& s, const Report& r,
                                     const nlohmann::json& report) {
  const std::vector<Derivation> all = derivations(s, r);
  if (all.size() < 6) return std::to_string(all.size()) + " derivations, fewer than 6";
  for (const Derivation& d : all) {
    FormulaReader reader(d.formula, d.terms);
    const std::optional<double> v = reader.value();
    if (!v) return d.key + ": " + d.formula + ": " + reader.error();
    if (!agree(*v, d.result)) {
      return d.key + ": " + d.formula + " gives " + std::to_string(*v) + ", not " +
             std::to_string(d.result);
    }
    std::string pointer = "/" + d.key;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    const double reported = report[nlohmann::json::json_pointer(pointer)].get<double>();
    if (!agree(d.result, reported)) {
      return d.key + ": " + std::to_string(d.result) + " vs the report's " +
             std::to_string(reported);
    }
    if (d.source.empty()) return d.key + ": no source";
    for (const Term& t : d.terms) {
      if (t.name.empty()) return d.key + ": term " + t.symbol + " has no name";
    }
  }
  return "";
}

inline void expect_formulas_compute(const Scenario& s, const Report& r,
                                    const nlohmann::json& report) {
  EXPECT_EQ(formulas_disagree(s, r, report), "");
}

}  // namespace pe::test
