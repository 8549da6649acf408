// The contract's JSON value (json.h): building, comparing and writing. Reading is json_read.cpp;
// numbers are json_number.cpp.
#include "json/json.h"

#include <algorithm>
#include <charconv>

#include "json/json_number.h"

namespace pe {

Json::Json(bool b) : kind_(Kind::kBool), integer_(b) {}
Json::Json(long long v, Integer) : kind_(Kind::kInteger), integer_(v) {}
Json::Json(double v) : kind_(Kind::kNumber), number_(v) {}
Json::Json(const char* s) : kind_(Kind::kString), text_(s) {}
Json::Json(std::string s) : kind_(Kind::kString), text_(std::move(s)) {}
Json::Json(const Json& other) = default;
Json::Json(Json&& other) noexcept = default;
Json& Json::operator=(const Json& other) = default;
Json& Json::operator=(Json&& other) noexcept = default;
Json::~Json() = default;

Json::Json(const std::vector<std::string>& strings) : kind_(Kind::kArray) {
  items_.assign(strings.begin(), strings.end());
}

Json::Json(std::initializer_list<Json> items) {
  const bool pairs = std::all_of(items.begin(), items.end(), [](const Json& item) {
    return item.is_array() && item.size() == 2 && item[0].is_string();
  });
  if (!pairs || items.size() == 0) {
    kind_ = Kind::kArray;
    items_.assign(items.begin(), items.end());
    return;
  }
  kind_ = Kind::kObject;
  for (const Json& pair : items) (*this)[pair[0].as_string()] = pair[1];
}

Json Json::array() {
  Json j;
  j.kind_ = Kind::kArray;
  return j;
}

Json Json::object() {
  Json j;
  j.kind_ = Kind::kObject;
  return j;
}

double Json::as_number() const {
  return kind_ == Kind::kNumber ? number_ : static_cast<double>(integer_);
}

void Json::push_back(Json item) {
  if (is_null()) kind_ = Kind::kArray;
  items_.push_back(std::move(item));
}

const Json* Json::find(std::string_view key) const {
  const auto at = std::lower_bound(keys_.begin(), keys_.end(), key);
  if (at == keys_.end() || *at != key) return nullptr;
  return &items_[static_cast<size_t>(at - keys_.begin())];
}

Json& Json::operator[](std::string_view key) {
  if (is_null()) kind_ = Kind::kObject;
  const auto at = std::lower_bound(keys_.begin(), keys_.end(), key);
  const auto i = at - keys_.begin();
  if (at == keys_.end() || *at != key) {
    keys_.emplace(at, key);
    items_.emplace(items_.begin() + i);
  }
  return items_[static_cast<size_t>(i)];
}

const Json& Json::operator[](std::string_view key) const {
  static const Json kNone;
  const Json* found = find(key);
  return found ? *found : kNone;
}

// As nlohmann escapes (and JSON.stringify): the two that must be, the five short forms, any
// other control character as \u00xx; everything else, UTF-8 included, as it is, a run at a
// time. Appended in place: the report writes a few thousand strings.
void append_quoted(std::string& out, std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  size_t plain = 0;  // the start of the run of characters copied as they are
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) continue;
    out.append(text.substr(plain, i - plain));
    plain = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  }
  out.append(text.substr(plain));
  out += '"';
}

std::string quoted(std::string_view text) {
  std::string out;
  append_quoted(out, text);
  return out;
}

void Json::dump_to(std::string& out) const {
  switch (kind_) {
    case Kind::kNull:
      out += "null";
      return;
    case Kind::kBool:
      out += integer_ ? "true" : "false";
      return;
    case Kind::kInteger: {
      char digits[24];
      out.append(digits, std::to_chars(digits, digits + sizeof digits, integer_).ptr);
      return;
    }
    case Kind::kNumber:
      append_number(out, number_);
      return;
    case Kind::kString:
      append_quoted(out, text_);
      return;
    case Kind::kArray:
    case Kind::kObject:
      out += is_array() ? '[' : '{';
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) out += ',';
        if (is_object()) {
          append_quoted(out, keys_[i]);
          out += ':';
        }
        items_[i].dump_to(out);
      }
      out += is_array() ? ']' : '}';
      return;
  }
}

std::string Json::dump() const {
  std::string out;
  dump_to(out);
  return out;
}

}  // namespace pe
