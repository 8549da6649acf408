// The core's own JSON (core/json/json.h) against RFC 8259 and against nlohmann/json, the library it
// replaced: the reports must be written byte for byte as before.
#include "json/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

namespace pe {
namespace {

std::string text_of(double v) { return Json(v).dump(); }

TEST(JsonNumber, LaysOutDigitsAsJavaScriptAndNlohmannDo) {
  EXPECT_EQ(text_of(0.1), "0.1");
  EXPECT_EQ(text_of(16), "16.0");  // a double stays a double: ".0"
  EXPECT_EQ(text_of(-0.0), "-0.0");
  EXPECT_EQ(text_of(0.0001), "0.0001");           // positional down to 1e-4 ...
  EXPECT_EQ(text_of(0.00001), "1e-05");           // ... then an exponent of at least two digits
  EXPECT_EQ(text_of(1e14), "100000000000000.0");  // positional up to 15 digits ...
  EXPECT_EQ(text_of(1e15), "1e+15");
  EXPECT_EQ(text_of(1.5e300), "1.5e+300");
  EXPECT_EQ(text_of(0.1 + 0.2), "0.30000000000000004");  // the shortest that reads back
  EXPECT_EQ(text_of(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(text_of(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(text_of(std::nan("")), "null");
  EXPECT_EQ(text_of(-INFINITY), "null");
  EXPECT_EQ(Json(16).dump(), "16");
}

// Every double reads back to itself, and is written as nlohmann wrote it: random bit patterns
// (every exponent) and random values of the report's scales.
TEST(JsonNumber, MatchesNlohmannOnAMillionDoubles) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> scale(-30, 30);
  for (int i = 0; i < 1000000; ++i) {
    double v;
    if (i % 2) {
      const uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof v);
    } else {
      v = std::pow(10.0, scale(rng));
    }
    const std::string ours = text_of(v);
    ASSERT_EQ(ours, nlohmann::json(v).dump()) << "bits of " << ours;
    if (std::isfinite(v)) ASSERT_EQ(std::strtod(ours.c_str(), nullptr), v) << ours;
  }
}

TEST(JsonWrite, SortsKeysEscapesAndNests) {
  Json o = {{"b", 1}, {"a", {1, 2.5, "x"}}, {"c", nullptr}};
  o["quote"] = "say \"hi\"\\\n\x01";
  o["unicode"] = "μ";
  EXPECT_EQ(o.dump(),
            R"({"a":[1,2.5,"x"],"b":1,"c":null,"quote":"say \"hi\"\\\n\u0001","unicode":"μ"})");
  EXPECT_EQ(Json({{"a", 1}, 2}).dump(), R"([["a",1],2])");  // not all pairs: an array
}

TEST(JsonRead, ReadsWhatItWritesAndWhatNlohmannReads) {
  for (const char* text : {R"({"a":[1,-2,3.5e2,true,false,null],"b":{"c":"\u00e9\ud83d\ude00"}})",
                           " [ ] ", "\xEF\xBB\xBF{}", "-0", "1E-3", R"("\/\b\f\n\r\t")"}) {
    const Json::Parsed ours = Json::parse(text);
    ASSERT_EQ(ours.error, "") << text;
    EXPECT_EQ(ours.value.dump(), nlohmann::json::parse(text).dump()) << text;
  }
}

// Past 64 bits an integer reads as the nearest double, as JavaScript's JSON.parse reads it
// (nlohmann kept up to 2^64 - 1 exact).
TEST(JsonRead, ReadsAnIntegerPast64BitsAsADouble) {
  EXPECT_EQ(Json::parse("9223372036854775807").value.dump(), "9223372036854775807");
  EXPECT_EQ(Json::parse("9223372036854775808").value.dump(), "9.223372036854776e+18");
}

TEST(JsonRead, RefusesWhatRfc8259RefusesAndSaysWhere) {
  for (const char* text : {"",
                           "{",
                           "[1,]",
                           "{\"a\":1,}",
                           "01",
                           "1.",
                           "-",
                           ".5",
                           "1e",
                           "tru",
                           "nul",
                           "\"\x01\"",
                           "\"\\x\"",
                           "\"\\ud800\"",
                           "\"\\udc00\"",
                           "\"\xC0\xAF\"",
                           "\"\xED\xA0\x80\"",
                           "\"\xF5\x80\x80\x80\"",
                           "\"\x80\"",
                           "{\"a\" 1}",
                           "{1:2}",
                           "[1 2]",
                           "{} {}",
                           "// x\n{}",
                           "NaN",
                           "'a'"}) {
    const Json::Parsed ours = Json::parse(text);
    EXPECT_NE(ours.error, "") << text;
    EXPECT_NE(ours.error.find(" at byte "), std::string::npos) << ours.error;
    EXPECT_TRUE(nlohmann::json::parse(text, nullptr, false).is_discarded()) << text;
  }
  EXPECT_EQ(Json::parse("{} {}").error, "bytes after the document at byte 3");
  EXPECT_EQ(Json::parse(std::string(300, '[')).error, "nesting deeper than 256 levels at byte 257");
}

TEST(JsonRead, NamesTheFirstKeyGivenTwiceByItsDottedPath) {
  EXPECT_EQ(Json::parse(R"({"gpus":1,"gpus":2})").duplicate, "gpus");
  EXPECT_EQ(Json::parse(R"({"model":{"layers":1,"x":[{"y":1,"y":2}],"layers":2}})").duplicate,
            "model.x.y");
  EXPECT_EQ(Json::parse(R"({"a":{"b":1},"c":{"b":1}})").duplicate, "");
  EXPECT_EQ(Json::parse(R"({"a":1,"a":2)").duplicate, "");  // invalid: the error comes first
}

}  // namespace
}  // namespace pe
