#pragma once
// Internal to export/: a fast path for the text of numbers the OBJ writes millions of times.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace planet_export {

// `value` clamped to [0, 1] with four decimals ("0.4271", "1.0000"), the same characters as
// std::to_chars(..., std::chars_format::fixed, 4), which spends about ten times as long: a
// float times 10^4 is exact in double (24 + 14 bits), and rounding it to the nearest integer,
// ties to even, is how to_chars rounds. Checked against to_chars for every float in [0, 1]
// once (docs/performance.md, "Design decisions"); the test checks a sample and the ties.
// NaN and -0 (which to_chars writes with its sign) go to to_chars. Otherwise writes 6
// characters; returns the end.
inline char* putUnitFixed4(char* p, float value) {
  const float clamped = std::clamp(value, 0.0f, 1.0f);
  if (!(clamped >= 0.0f) || std::signbit(clamped))
    return std::to_chars(p, p + 8, clamped, std::chars_format::fixed, 4).ptr;
  const auto q = unsigned(std::nearbyint(double(clamped) * 10000.0));
  const unsigned fraction = q % 10000;
  p[0] = char('0' + q / 10000);
  p[1] = '.';
  p[2] = char('0' + fraction / 1000);
  p[3] = char('0' + fraction / 100 % 10);
  p[4] = char('0' + fraction / 10 % 10);
  p[5] = char('0' + fraction % 10);
  return p + 6;
}

// The shortest text that reads back as `value`: the same characters as std::to_chars(p, end,
// value), which spends about 45 ns on a float. Magnitudes in [2^20, 2^24) (metres of a planet's
// surface on most axes) take a fast path: such a float is a multiple of 1/8 (of 1/4, 1/2 or 1
// higher up), so its shortest text is its integer part and at most one decimal, the one nearest
// to the fraction, ties to the even digit (to_chars' rule): 1/8 -> 1, 2/8 -> 2, 3/8 -> 4, 4/8
// -> 5, 5/8 -> 6, 6/8 -> 8, 7/8 -> 9. That decimal is within 0.05 of the value and each float's
// rounding interval is at least 1/8 wide, so it reads back the same; no integer is (the
// fraction is at least 1/8 away from both). Whole numbers ending in three or more zeros go to
// to_chars, which may write them shorter in scientific form (1e+06). Checked against to_chars
// for every float of those magnitudes (docs/performance.md, "Design decisions"); writes at
// most 24 characters.
inline char* putShortestFloat(char* p, float value) {
  constexpr float kLow = 1048576.0f, kHigh = 16777216.0f;  // 2^20, 2^24
  const float magnitude = std::abs(value);
  if (!(magnitude >= kLow && magnitude < kHigh)) return std::to_chars(p, p + 24, value).ptr;
  const auto eighths = uint32_t(magnitude * 8.0f);  // exact: the float's last bit is >= 1/8
  const uint32_t whole = eighths >> 3, fraction = eighths & 7u;
  if (fraction == 0 && whole % 1000 == 0) return std::to_chars(p, p + 24, value).ptr;
  if (value < 0.0f) *p++ = '-';
  p = std::to_chars(p, p + 10, whole).ptr;
  if (fraction != 0) {
    constexpr char kDigit[8] = {'0', '1', '2', '4', '5', '6', '8', '9'};
    *p++ = '.';
    *p++ = kDigit[fraction];
  }
  return p;
}

}  // namespace planet_export
