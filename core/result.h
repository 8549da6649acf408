// A value or a readable error. The core runs without C++ exceptions (the wasm build
// disables them), so every fallible call returns one of these instead of throwing.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace pe {

template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose, like std::optional
  static Result failure(std::string message) {
    Result r;
    r.error_ = std::move(message);
    return r;
  }
  bool ok() const { return value_.has_value(); }
  const T& value() const { return *value_; }
  T& value() { return *value_; }
  const std::string& error() const { return error_; }

 private:
  Result() = default;
  std::optional<T> value_;
  std::string error_;
};

}  // namespace pe
