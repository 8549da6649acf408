// Reading JSON text (RFC 8259) into a Json: a recursive-descent parser that stops at the first
// error and says what it expected at which byte. Strict, as nlohmann's parser was: no comments,
// no trailing commas, no leading zeros, no control characters or invalid UTF-8 in strings; a
// UTF-8 byte order mark at the start is skipped.
#include <cerrno>
#include <cstdlib>

#include "json/json.h"

namespace pe {
namespace {

// Deeper documents are refused rather than recursed into (a scenario nests two levels).
constexpr int kMaxDepth = 256;

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") at_ = 3;
  }

  Json::Parsed read() {
    Json::Parsed out;
    out.value = value("", 0);
    skip_space();
    if (error_.empty() && at_ < text_.size()) fail("bytes after the document");
    out.error = error_;
    if (error_.empty()) out.duplicate = duplicate_;
    if (!error_.empty()) out.value = Json();
    return out;
  }

 private:
  std::string_view text_;
  size_t at_ = 0;
  std::string error_;
  std::string duplicate_;

  bool failed() const { return !error_.empty(); }
  void fail(const std::string& what) {
    if (!failed()) error_ = what + " at byte " + std::to_string(at_);
  }
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  bool done() const { return at_ >= text_.size(); }
  void skip_space() {
    while (!done() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++at_;
  }
  bool take(char c) {
    skip_space();
    if (peek() != c || done()) return false;
    ++at_;
    return true;
  }

  // `path` is the dotted key of the enclosing objects ("model."), for naming a duplicate.
  Json value(const std::string& path, int depth) {
    skip_space();
    if (depth > kMaxDepth) return fail("nesting deeper than 256 levels"), Json();
    if (done()) return fail("unexpected end: expected a value"), Json();
    const char c = peek();
    if (c == '{') return object(path, depth);
    if (c == '[') return array(path, depth);
    if (c == '"') return Json(string());
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    if (literal("true")) return Json(true);
    if (literal("false")) return Json(false);
    if (literal("null")) return Json();
    return fail("unexpected character: expected a value"), Json();
  }

  bool literal(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  Json object(const std::string& path, int depth) {
    ++at_;  // {
    Json out = Json::object();
    if (take('}')) return out;
    do {
      skip_space();
      if (peek() != '"' || done()) return fail("expected a key in quotes"), Json();
      const std::string key = string();
      if (!take(':')) return fail("expected ':' after a key"), Json();
      const std::string dotted = path + key;
      Json item = value(dotted + ".", depth + 1);
      if (failed()) return Json();
      if (out.contains(key) && duplicate_.empty()) duplicate_ = dotted;
      out[key] = std::move(item);  // the last one counts, as in JavaScript
    } while (take(','));
    if (!take('}')) return fail("expected ',' or '}'"), Json();
    return out;
  }

  Json array(const std::string& path, int depth) {
    ++at_;  // [
    Json out = Json::array();
    if (take(']')) return out;
    do {
      out.push_back(value(path, depth + 1));
      if (failed()) return Json();
    } while (take(','));
    if (!take(']')) return fail("expected ',' or ']'"), Json();
    return out;
  }

  Json number() {
    const size_t start = at_;
    bool integral = true;
    if (peek() == '-') ++at_;
    if (peek() == '0') {
      ++at_;
    } else if (!digits()) {
      return fail("expected a digit"), Json();
    }
    if (peek() == '.') {
      ++at_;
      integral = false;
      if (!digits()) return fail("expected a digit after '.'"), Json();
    }
    if (peek() == 'e' || peek() == 'E') {
      ++at_;
      integral = false;
      if (peek() == '+' || peek() == '-') ++at_;
      if (!digits()) return fail("expected a digit in the exponent"), Json();
    }
    const std::string token(text_.substr(start, at_ - start));
    if (integral) {
      errno = 0;
      const long long whole = std::strtoll(token.c_str(), nullptr, 10);
      if (errno == 0) return Json(whole);
    }
    return Json(std::strtod(token.c_str(), nullptr));  // past 2^63 too: a double, as in JS
  }

  bool digits() {
    const size_t start = at_;
    while (peek() >= '0' && peek() <= '9' && !done()) ++at_;
    return at_ > start;
  }

  std::string string() {
    ++at_;  // "
    std::string out;
    while (!failed()) {
      if (done()) return fail("unterminated string"), "";
      const unsigned char c = static_cast<unsigned char>(text_[at_]);
      if (c == '"') {
        ++at_;
        return out;
      }
      if (c < 0x20) return fail("control character in a string"), "";
      if (c == '\\') {
        escape(out);
      } else if (c < 0x80) {
        out += static_cast<char>(c);
        ++at_;
      } else {
        utf8(out);
      }
    }
    return "";
  }

  void escape(std::string& out) {
    ++at_;  // backslash
    const char c = peek();
    ++at_;
    switch (c) {
      case '"':
        out += '"';
        return;
      case '\\':
        out += '\\';
        return;
      case '/':
        out += '/';
        return;
      case 'b':
        out += '\b';
        return;
      case 'f':
        out += '\f';
        return;
      case 'n':
        out += '\n';
        return;
      case 'r':
        out += '\r';
        return;
      case 't':
        out += '\t';
        return;
      case 'u':
        return unicode_escape(out);
      default:
        --at_;
        return fail("invalid escape in a string");
    }
  }

  long hex4() {
    if (at_ + 4 > text_.size()) return -1;
    long v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[at_++];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  }

  // \uXXXX, with a surrogate pair for a code point past U+FFFF; a lone surrogate is invalid.
  void unicode_escape(std::string& out) {
    long cp = hex4();
    if (cp < 0) return fail("expected four hex digits after \\u");
    if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("lone low surrogate in a string");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      const bool pair = text_.substr(at_, 2) == "\\u";
      at_ += pair ? 2 : 0;
      const long low = pair ? hex4() : -1;
      if (low < 0xDC00 || low > 0xDFFF) return fail("high surrogate without a low one");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, cp);
  }

  static void append_utf8(std::string& out, long cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // One well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, at most
  // U+10FFFF), copied as it is.
  void utf8(std::string& out) {
    const unsigned char lead = static_cast<unsigned char>(text_[at_]);
    const int extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
    if (extra == 0 || lead > 0xF4 || lead == 0xC0 || lead == 0xC1 || at_ + extra >= text_.size()) {
      return fail("invalid UTF-8 in a string");
    }
    long cp = lead & (0x3F >> extra);
    for (int i = 1; i <= extra; ++i) {
      const unsigned char c = static_cast<unsigned char>(text_[at_ + static_cast<size_t>(i)]);
      if ((c & 0xC0) != 0x80) return fail("invalid UTF-8 in a string");
      cp = (cp << 6) | (c & 0x3F);
    }
    const long smallest[] = {0, 0x80, 0x800, 0x10000};
    if (cp < smallest[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return fail("invalid UTF-8 in a string");
    }
    out.append(text_.substr(at_, static_cast<size_t>(extra) + 1));
    at_ += static_cast<size_t>(extra) + 1;
  }
};

}  // namespace

Json::Parsed Json::parse(std::string_view text) { return Reader(text).read(); }

}  // namespace pe
