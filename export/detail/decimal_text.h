#pragma once
// Internal to export/: a fast path for the text of numbers the OBJ writes millions of times.

#include <algorithm>
#include <charconv>
#include <cmath>

namespace planet_export {

// `value` clamped to [0, 1] with four decimals ("0.4271", "1.0000"), the same characters as
// std::to_chars(..., std::chars_format::fixed, 4), which spends about ten times as long: a
// float times 10^4 is exact in double (24 + 14 bits), and rounding it to the nearest integer,
// ties to even, is how to_chars rounds. Checked against to_chars for every float in [0, 1]
// once (docs/performance.md, twelfth session); the test checks a sample and the ties.
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

}  // namespace planet_export
