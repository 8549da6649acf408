// The contract's JSON value: what the core reads scenarios into and writes reports from.
// Why not a general library: the wasm module is downloaded on the page's first load, and with
// nlohmann/json it was 223 KB (98 KB gzipped); with this type, 182 KB (83 KB). It does only
// what the contract needs, and writes exactly what nlohmann's dump() wrote, so the golden
// reports are unchanged: object keys sorted, compact, numbers in their shortest round-trip
// form (json_number.h). The tests check it against nlohmann, natively.
// Reading follows RFC 8259 strictly: no comments, no trailing commas, valid UTF-8.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace pe {

class Json {
 public:
  // The constructors, destructor and copies are defined in json.cpp, not here: written
  // inline, -O3 copied their string and vector code into every member of every braced list
  // of the report's writer, and the planner's wasm module was 452 KB rather than 366 KB.
  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool b);
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Json(T v) : Json(static_cast<long long>(v), Integer{}) {}
  Json(double v);
  Json(const char* s);
  Json(std::string s);
  Json(const std::vector<std::string>& strings);
  // As nlohmann reads a braced list: an object when every item is a [string, value] pair
  // ({{"dp", 2}, {"tp", 4}}), an array otherwise ({2, 4, 1}).
  Json(std::initializer_list<Json> items);
  Json(const Json& other);
  Json(Json&& other) noexcept;
  Json& operator=(const Json& other);
  Json& operator=(Json&& other) noexcept;
  ~Json();

  static Json array();
  static Json object();

  // One JSON document and nothing after it but whitespace. `error` says what is wrong and at
  // which byte; `duplicate` names the first key given twice in one object ("model.layers").
  struct Parsed;
  static Parsed parse(std::string_view text);

  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_boolean() const { return kind_ == Kind::kBool; }
  bool is_number() const { return kind_ == Kind::kInteger || kind_ == Kind::kNumber; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  bool as_bool() const { return integer_ != 0; }
  double as_number() const;
  const std::string& as_string() const { return text_; }

  // Arrays and objects: their items (for an object, in key order beside keys()).
  size_t size() const { return items_.size(); }
  const std::vector<std::string>& keys() const { return keys_; }
  const Json& operator[](size_t i) const { return items_[i]; }
  std::vector<Json>::const_iterator begin() const { return items_.begin(); }
  std::vector<Json>::const_iterator end() const { return items_.end(); }
  void push_back(Json item);  // a null becomes an array first

  // Objects: the member at `key`, or nullptr. operator[] adds a null member when there is
  // none (a null becomes an object first).
  const Json* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  Json& operator[](std::string_view key);
  const Json& operator[](std::string_view key) const;

  std::string dump() const;

 private:
  enum class Kind : unsigned char { kNull, kBool, kInteger, kNumber, kString, kArray, kObject };
  struct Integer {};
  Json(long long v, Integer);

  void dump_to(std::string& out) const;

  Kind kind_ = Kind::kNull;
  long long integer_ = 0;          // kBool, kInteger
  double number_ = 0;              // kNumber
  std::string text_;               // kString
  std::vector<std::string> keys_;  // kObject: sorted, beside items_
  std::vector<Json> items_;        // kArray, kObject
};

struct Json::Parsed {
  Json value;
  std::string error;      // empty when the text is valid
  std::string duplicate;  // empty when no object repeats a key
};

// A string as a JSON string literal, quotes and escapes included.
std::string quoted(std::string_view text);
void append_quoted(std::string& out, std::string_view text);

}  // namespace pe
