#include "explain/derive.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "model/text.h"

namespace pe::explain {

std::string num(double v) {
  static const char* const kWords[] = {"million",     "billion",     "trillion",
                                       "quadrillion", "quintillion", "sextillion"};
  char text[48];
  const double a = std::fabs(v);
  if (a < 1e6 && v == std::floor(v)) {
    std::snprintf(text, sizeof text, "%.0f", v);  // whole numbers in full: 25600
    return text;
  }
  if (a >= 1e3 && a < 1e6) {
    std::snprintf(text, sizeof text, "%.0f", v);  // 398700, not 3.987e+05
    return text;
  }
  if (a == 0 || (a >= 1e-3 && a < 1e6)) {
    std::snprintf(text, sizeof text, "%.4g", v);
    return text;
  }
  const int exp3 = static_cast<int>(std::floor(std::log10(a) / 3)) * 3;
  if (exp3 >= 6 && exp3 <= 21) {
    std::snprintf(text, sizeof text, "%.3g %s", v / std::pow(10.0, exp3), kWords[exp3 / 3 - 2]);
  } else {
    std::snprintf(text, sizeof text, "%.3g × 10^%d", v / std::pow(10.0, exp3), exp3);
  }
  return text;
}

// Decimal units, as the page: 256e9 -> "256 GB".
std::string bytes(double v) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int i = 0;
  while (std::fabs(v) >= 999.5 && i < 6) v /= 1000, ++i;
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", v, units[i]);
  return text;
}

std::string secs(double v) { return seconds_text(v); }

std::string str(long long v) { return std::to_string(v); }

// A value as the text shows it, by its unit.
std::string shown(double v, const std::string& unit) {
  if (unit == "B") return bytes(v);
  if (unit == "B/s") return bytes(v) + "/s";
  if (unit == "s") return secs(v);
  if (unit == "$") return "$" + num(v);
  if (unit == "%") return num(v * 100) + "%";
  return unit.empty() ? num(v) : num(v) + " " + unit;
}

// A degree reads as its seam names it: "TP 4".
Term degree(const char* symbol, int value, const char* name) {
  return {symbol, static_cast<double>(value), "", name, true};
}

// A formula cut into its parts: operators, parentheses and spaces as they are, and tokens (a
// symbol or a number): runs of anything else. {text, is_token} each.
std::vector<std::pair<std::string, bool>> parts(const std::string& formula) {
  static const char* const kOps[] = {" ", "(", ")", "+", "−", "×", "÷", "√"};
  const auto op_at = [&formula](size_t i) -> size_t {
    for (const char* o : kOps) {
      if (formula.compare(i, std::strlen(o), o) == 0) return std::strlen(o);
    }
    return 0;
  };
  std::vector<std::pair<std::string, bool>> out;
  size_t i = 0;
  while (i < formula.size()) {
    if (const size_t n = op_at(i)) {
      out.emplace_back(formula.substr(i, n), false);
      i += n;
      continue;
    }
    size_t end = i;
    while (end < formula.size() && op_at(end) == 0) ++end;
    out.emplace_back(formula.substr(i, end - i), true);
    i = end;
  }
  return out;
}

const Term* term_named(const std::vector<Term>& terms, const std::string& symbol) {
  for (const Term& t : terms) {
    if (t.symbol == symbol) return &t;
  }
  return nullptr;
}

// The formula with each symbol replaced by its term's value: "Ψ × w" -> "16 billion params × 2 B".
std::string written(const std::string& formula, const std::vector<Term>& terms) {
  std::string out;
  for (const auto& [text, token] : parts(formula)) {
    const Term* t = token ? term_named(terms, text) : nullptr;
    if (!t) {
      out += text;  // an operator or a number
    } else if (t->degree) {
      out += t->symbol + " " + num(t->value);
    } else {
      out += shown(t->value, t->unit);
    }
  }
  return out;
}

// The terms the formula names, in their order: a formula written for a simpler case (ZeRO 0's
// Ψ × B) leaves the others out.
std::vector<Term> used(const std::string& formula, std::vector<Term> terms) {
  std::vector<Term> out;
  for (Term& t : terms) {
    for (const auto& [text, token] : parts(formula)) {
      if (token && text == t.symbol) {
        out.push_back(std::move(t));
        break;
      }
    }
  }
  return out;
}

// A derivation of `result` (in `unit`): the text is the result, then the formula written out.
// `note` adds what the formula does not show (which stage, which link).
Derivation derive(std::string formula, std::vector<Term> terms, double result,
                  const std::string& unit, std::string source, const std::string& note) {
  Derivation d;
  // A number that is one term as given says where it comes from rather than "x = x".
  const bool given = terms.size() == 1 && formula == terms[0].symbol && !terms[0].degree;
  d.text = shown(result, unit) + (given ? "" : " = " + written(formula, terms)) +
           (note.empty() ? "" : ", " + note);
  d.terms = used(formula, std::move(terms));
  d.formula = std::move(formula);
  d.result = result;
  d.source = std::move(source);
  return d;
}

// "stage 3" where there are stages to tell apart.
std::string on_stage(const Report& r, int stage) {
  return r.degrees.pp > 1 ? "stage " + std::to_string(stage) : "";
}

// The busiest GPU of a stage, as the model places its parameters (memory.h stage_params).
StageParams params_on(const Scenario& s, const Report& r, int stage) {
  return stage_params(s, ModelShape(s), r.degrees, r.pipeline.split, stage);
}

}  // namespace pe::explain
