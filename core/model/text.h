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

}  // namespace pe
