// A value or a readable error. The core runs without C++ exceptions (the wasm build
// disables them), so every fallible call returns one of these instead of throwing.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace pe {

// What is wrong with a scenario: the dotted path of the field at fault ("gpus",
// "model.layers"), or "" when the scenario as a whole is at fault, and one sentence that says
// what is wrong and what is allowed. Empty message: nothing is wrong.
struct Problem {
  std::string key;
  std::string message;
  bool empty() const { return message.empty(); }
};

template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose, like std::optional
  static Result failure(Problem problem) {
    Result r;
    r.problem_ = std::move(problem);
    return r;
  }
  static Result failure(std::string message) { return failure(Problem{"", std::move(message)}); }
  bool ok() const { return value_.has_value(); }
  const T& value() const { return *value_; }
  T& value() { return *value_; }
  const std::string& error() const { return problem_.message; }
  const std::string& error_key() const { return problem_.key; }
  const Problem& problem() const { return problem_; }

 private:
  Result() = default;
  std::optional<T> value_;
  Problem problem_;
};

}  // namespace pe
