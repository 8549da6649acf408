#pragma once
// Numbers in the core's own sentences (warnings, the planner's explanation), written as the
// page writes its numbers: three significant digits and decimal units, so a small quantity
// keeps its size ("500 MB", "0.5 GB/s") instead of rounding down to "0 GB".
#include <cmath>
#include <cstdio>
#include <string>

namespace pe {

// 80 -> "80", 0.5 -> "0.5", 72.63 -> "72.6", 6.25 -> "6.25"; 100 and above as a whole number.
inline std::string short_number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 100 ? "%.0f" : "%.3g", v);
  return buf;
}

// Bytes, scaled by 1000 until below 1000: 80e9 -> "80 GB", 0.5e9 -> "500 MB", 1e6 -> "1 MB".
inline std::string bytes_text(double bytes) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int i = 0;
  double v = std::fabs(bytes);
  while (v >= 999.5 && i < 6) {
    v /= 1000;
    ++i;
  }
  return short_number(std::copysign(v, bytes)) + " " + kUnits[i];
}

// The article before a number as it is read aloud: "an" before eight, eleven and eighteen
// ("an 8.96% bubble", "an 80 GB GPU"), "a" otherwise ("a 23.4% bubble"). The leading group
// is the digits before the first separator: "18,000" reads "eighteen thousand".
inline std::string article(const std::string& number) {
  size_t n = 0;
  while (n < number.size() && number[n] >= '0' && number[n] <= '9') ++n;
  const std::string lead = number.substr(0, n);
  return (n > 0 && lead[0] == '8') || lead == "11" || lead == "18" ? "an" : "a";
}

// Whole numbers with thousands separators: 8192 -> "8,192".
inline std::string count_text(long long n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && digits[i - 1] != '-' && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Seconds in one unit chosen by size, as the page writes them: 0.049 -> "49 ms", 3.36 ->
// "3.36 s", 2e-5 -> "20 µs", 2070.4 -> "2070 s" (the warnings and the derivations alike).
inline std::string seconds_text(double v) {
  char text[32];
  const double a = std::fabs(v);
  if (a > 0 && a < 1e-3) {
    std::snprintf(text, sizeof text, "%.3g µs", v * 1e6);
  } else if (a > 0 && a < 1) {
    std::snprintf(text, sizeof text, "%.3g ms", v * 1e3);
  } else if (a >= 1e3 && a < 1e15) {
    std::snprintf(text, sizeof text, "%.0f s", v);  // 2068 s, not 2.07e+03 s
  } else {
    std::snprintf(text, sizeof text, "%.3g s", v);
  }
  return text;
}

}  // namespace pe
