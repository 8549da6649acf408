// Grisu2 (Florian Loitsch, "Printing Floating-Point Numbers Quickly and Accurately with
// Integers", PLDI 2010, section 5), the algorithm nlohmann/json's dump() uses, so the
// contract's numbers are written digit for digit as they were: the boundaries of the double
// are scaled by a cached power of ten into a 64-bit window, and digits are generated until they
// fall inside the boundaries. Its output reads back to the same double, and is the shortest
// such digit string for all but a small fraction of doubles (then one digit longer).
// The layout is nlohmann's: positional for decimal exponents -4..15 with a ".0" on whole
// numbers, otherwise d.ddde+XX with at least two exponent digits.
#include "json/json_number.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace pe {
namespace {

// A floating-point number f * 2^e with a 64-bit significand ("do-it-yourself floating point").
struct Fp {
  uint64_t f;
  int e;
};

Fp minus(Fp x, Fp y) { return {x.f - y.f, x.e}; }

// The upper 64 bits of the 128-bit product, rounded.
Fp times(Fp x, Fp y) {
  const uint64_t a = x.f >> 32, b = x.f & 0xFFFFFFFFu, c = y.f >> 32, d = y.f & 0xFFFFFFFFu;
  const uint64_t ac = a * c, bc = b * c, ad = a * d, bd = b * d;
  const uint64_t mid = (bd >> 32) + (ad & 0xFFFFFFFFu) + (bc & 0xFFFFFFFFu) + (1u << 31);
  return {ac + (ad >> 32) + (bc >> 32) + (mid >> 32), x.e + y.e + 64};
}

Fp normalized(Fp x) {
  while ((x.f >> 63) == 0) x.f <<= 1, --x.e;
  return x;
}

// The double and the midpoints to its neighbours, m- and m+, with m+ normalized and m- at
// the same exponent: every decimal strictly between them reads back to the double.
struct Boundaries {
  Fp w, minus, plus;
};

Boundaries boundaries_of(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const uint64_t kHidden = uint64_t{1} << 52;
  const int biased = static_cast<int>(bits >> 52);
  const uint64_t fraction = bits & (kHidden - 1);
  const Fp v = biased == 0 ? Fp{fraction, 1 - 1075} : Fp{fraction + kHidden, biased - 1075};
  // At a power of two the lower neighbour is half as far away.
  const bool lower_closer = fraction == 0 && biased > 1;
  const Fp plus = normalized({2 * v.f + 1, v.e - 1});
  Fp minus = lower_closer ? Fp{4 * v.f - 1, v.e - 2} : Fp{2 * v.f - 1, v.e - 1};
  minus = {minus.f << (minus.e - plus.e), plus.e};
  return {normalized(v), minus, plus};
}

// 10^k rounded to a 64-bit significand, for k = -300, -292, ..., 324 (computed exactly from
// rationals): the table Grisu scales by.
struct CachedPower {
  uint64_t f;
  int e;
  int k;
};
// clang-format off
constexpr CachedPower kPowers[] = {
    {0xAB70FE17C79AC6CAULL, -1060, -300},
    {0xFF77B1FCBEBCDC4FULL, -1034, -292},
    {0xBE5691EF416BD60CULL, -1007, -284},
    {0x8DD01FAD907FFC3CULL, -980, -276},
    {0xD3515C2831559A83ULL, -954, -268},
    {0x9D71AC8FADA6C9B5ULL, -927, -260},
    {0xEA9C227723EE8BCBULL, -901, -252},
    {0xAECC49914078536DULL, -874, -244},
    {0x823C12795DB6CE57ULL, -847, -236},
    {0xC21094364DFB5637ULL, -821, -228},
    {0x9096EA6F3848984FULL, -794, -220},
    {0xD77485CB25823AC7ULL, -768, -212},
    {0xA086CFCD97BF97F4ULL, -741, -204},
    {0xEF340A98172AACE5ULL, -715, -196},
    {0xB23867FB2A35B28EULL, -688, -188},
    {0x84C8D4DFD2C63F3BULL, -661, -180},
    {0xC5DD44271AD3CDBAULL, -635, -172},
    {0x936B9FCEBB25C996ULL, -608, -164},
    {0xDBAC6C247D62A584ULL, -582, -156},
    {0xA3AB66580D5FDAF6ULL, -555, -148},
    {0xF3E2F893DEC3F126ULL, -529, -140},
    {0xB5B5ADA8AAFF80B8ULL, -502, -132},
    {0x87625F056C7C4A8BULL, -475, -124},
    {0xC9BCFF6034C13053ULL, -449, -116},
    {0x964E858C91BA2655ULL, -422, -108},
    {0xDFF9772470297EBDULL, -396, -100},
    {0xA6DFBD9FB8E5B88FULL, -369, -92},
    {0xF8A95FCF88747D94ULL, -343, -84},
    {0xB94470938FA89BCFULL, -316, -76},
    {0x8A08F0F8BF0F156BULL, -289, -68},
    {0xCDB02555653131B6ULL, -263, -60},
    {0x993FE2C6D07B7FACULL, -236, -52},
    {0xE45C10C42A2B3B06ULL, -210, -44},
    {0xAA242499697392D3ULL, -183, -36},
    {0xFD87B5F28300CA0EULL, -157, -28},
    {0xBCE5086492111AEBULL, -130, -20},
    {0x8CBCCC096F5088CCULL, -103, -12},
    {0xD1B71758E219652CULL, -77, -4},
    {0x9C40000000000000ULL, -50, 4},
    {0xE8D4A51000000000ULL, -24, 12},
    {0xAD78EBC5AC620000ULL, 3, 20},
    {0x813F3978F8940984ULL, 30, 28},
    {0xC097CE7BC90715B3ULL, 56, 36},
    {0x8F7E32CE7BEA5C70ULL, 83, 44},
    {0xD5D238A4ABE98068ULL, 109, 52},
    {0x9F4F2726179A2245ULL, 136, 60},
    {0xED63A231D4C4FB27ULL, 162, 68},
    {0xB0DE65388CC8ADA8ULL, 189, 76},
    {0x83C7088E1AAB65DBULL, 216, 84},
    {0xC45D1DF942711D9AULL, 242, 92},
    {0x924D692CA61BE758ULL, 269, 100},
    {0xDA01EE641A708DEAULL, 295, 108},
    {0xA26DA3999AEF774AULL, 322, 116},
    {0xF209787BB47D6B85ULL, 348, 124},
    {0xB454E4A179DD1877ULL, 375, 132},
    {0x865B86925B9BC5C2ULL, 402, 140},
    {0xC83553C5C8965D3DULL, 428, 148},
    {0x952AB45CFA97A0B3ULL, 455, 156},
    {0xDE469FBD99A05FE3ULL, 481, 164},
    {0xA59BC234DB398C25ULL, 508, 172},
    {0xF6C69A72A3989F5CULL, 534, 180},
    {0xB7DCBF5354E9BECEULL, 561, 188},
    {0x88FCF317F22241E2ULL, 588, 196},
    {0xCC20CE9BD35C78A5ULL, 614, 204},
    {0x98165AF37B2153DFULL, 641, 212},
    {0xE2A0B5DC971F303AULL, 667, 220},
    {0xA8D9D1535CE3B396ULL, 694, 228},
    {0xFB9B7CD9A4A7443CULL, 720, 236},
    {0xBB764C4CA7A44410ULL, 747, 244},
    {0x8BAB8EEFB6409C1AULL, 774, 252},
    {0xD01FEF10A657842CULL, 800, 260},
    {0x9B10A4E5E9913129ULL, 827, 268},
    {0xE7109BFBA19C0C9DULL, 853, 276},
    {0xAC2820D9623BF429ULL, 880, 284},
    {0x80444B5E7AA7CF85ULL, 907, 292},
    {0xBF21E44003ACDD2DULL, 933, 300},
    {0x8E679C2F5E44FF8FULL, 960, 308},
    {0xD433179D9C8CB841ULL, 986, 316},
    {0x9E19DB92B4E31BA9ULL, 1013, 324},};
// clang-format on

// The cached power that brings a product with binary exponent `e` into [-60, -32]: then the
// integral part of a scaled number fits 32 bits and its fraction leaves room for digits.
CachedPower cached_power(int e) {
  constexpr int kAlpha = -60;
  const int f = kAlpha - e - 1;
  const int k = f * 78913 / (1 << 18) + (f > 0);  // ceil(f * log10(2))
  return kPowers[(300 + k + 7) / 8];
}

// The largest power of ten not above n (n > 0), and its number of digits.
int largest_pow10(uint32_t n, uint32_t& pow10) {
  pow10 = 1000000000;
  int digits = 10;
  while (pow10 > n) pow10 /= 10, --digits;
  return digits;
}

// Moves the last digit down while that brings the number closer to w and stays inside.
void round_toward_w(char* buf, int len, uint64_t dist, uint64_t delta, uint64_t rest,
                    uint64_t ten_k) {
  while (rest < dist && delta - rest >= ten_k &&
         (rest + ten_k < dist || dist - rest > rest + ten_k - dist)) {
    --buf[len - 1];
    rest += ten_k;
  }
}

// Digits of w (between low and high, all scaled) into buf; the number is buf * 10^exponent.
void generate_digits(char* buf, int& len, int& exponent, Fp low, Fp w, Fp high) {
  uint64_t delta = minus(high, low).f;
  uint64_t dist = minus(high, w).f;
  const Fp one{uint64_t{1} << -high.e, high.e};
  uint32_t integral = static_cast<uint32_t>(high.f >> -one.e);
  uint64_t fractional = high.f & (one.f - 1);
  uint32_t pow10;
  for (int n = largest_pow10(integral, pow10); n > 0;) {
    buf[len++] = static_cast<char>('0' + integral / pow10);
    integral %= pow10;
    --n;
    const uint64_t rest = (uint64_t{integral} << -one.e) + fractional;
    if (rest <= delta) {
      exponent += n;
      return round_toward_w(buf, len, dist, delta, rest, uint64_t{pow10} << -one.e);
    }
    pow10 /= 10;
  }
  int m = 0;
  do {
    fractional *= 10;
    buf[len++] = static_cast<char>('0' + (fractional >> -one.e));
    fractional &= one.f - 1;
    ++m;
    delta *= 10;
    dist *= 10;
  } while (fractional > delta);
  exponent -= m;
  round_toward_w(buf, len, dist, delta, fractional, one.f);
}

// The digits of a positive finite double: buf * 10^exponent reads back to it.
void grisu2(char* buf, int& len, int& exponent, double value) {
  const Boundaries b = boundaries_of(value);
  const CachedPower c = cached_power(b.plus.e);
  const Fp scale{c.f, c.e};
  const Fp w = times(b.w, scale);
  Fp low = times(b.minus, scale), high = times(b.plus, scale);
  // One unit in from each side: the products may be off by one in the last place.
  low.f += 1;
  high.f -= 1;
  len = 0;
  exponent = -c.k;
  generate_digits(buf, len, exponent, low, w, high);
}

void append_exponent(std::string& out, int e) {
  out += e < 0 ? '-' : '+';
  const int k = e < 0 ? -e : e;
  if (k >= 100) out += static_cast<char>('0' + k / 100);
  out += static_cast<char>('0' + k / 10 % 10);
  out += static_cast<char>('0' + k % 10);
}

// digits * 10^(n - k) with k digits: positional between 1e-4 and 1e15, else d.ddde+XX.
void append_layout(std::string& out, const char* digits, int k, int n) {
  constexpr int kMinExp = -4, kMaxExp = 15;
  if (k <= n && n <= kMaxExp) {
    out.append(digits, static_cast<size_t>(k)).append(static_cast<size_t>(n - k), '0') += ".0";
  } else if (0 < n && n <= kMaxExp) {
    out.append(digits, static_cast<size_t>(n)) += '.';
    out.append(digits + n, static_cast<size_t>(k - n));
  } else if (kMinExp < n && n <= 0) {
    out.append("0.").append(static_cast<size_t>(-n), '0').append(digits, static_cast<size_t>(k));
  } else {
    out += digits[0];
    if (k > 1) out.append(".").append(digits + 1, static_cast<size_t>(k - 1));
    out += 'e';
    append_exponent(out, n - 1);
  }
}

}  // namespace

void append_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  if (std::signbit(v)) {
    out += '-';
    v = -v;
  }
  if (v == 0) {
    out += "0.0";
    return;
  }
  char digits[24];
  int len = 0, exponent = 0;
  grisu2(digits, len, exponent, v);
  append_layout(out, digits, len, len + exponent);
}

}  // namespace pe
