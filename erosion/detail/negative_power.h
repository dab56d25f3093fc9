#pragma once
// q^-m for a fixed m, by tables instead of std::pow (the fluvial stage takes one per land vertex
// per routing). q = 2^e f with f in [1, 2): 2^(-m e) from a table over every exponent, f^-m by
// linear interpolation in a table of kSteps + 1 values. The interpolation's relative error is at
// most (1 / kSteps)^2 / 8 * m (m + 1) (the second derivative of f^-m on [1, 2] is at most
// m (m + 1)): 4e-8 at m = 0.35, 2.4e-7 at m = 1, a few float roundings. Values that are not
// positive and normal go to std::pow. Thread-safe once built (read-only).

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace erosion::detail {

class NegativePower {
 public:
  static constexpr int kSteps = 1024;

  explicit NegativePower(double m) : m_(m), mantissa_(kSteps + 1), exponent_(2048) {
    for (int k = 0; k <= kSteps; ++k) mantissa_[k] = std::pow(1.0 + double(k) / kSteps, -m);
    for (int e = 0; e < 2048; ++e) exponent_[e] = std::exp2(-m * double(e - 1023));
  }

  double operator()(double q) const {
    if (!(q > 0.0) || !std::isnormal(q)) return std::pow(q, -m_);
    const uint64_t bits = std::bit_cast<uint64_t>(q);
    const uint64_t e = (bits >> 52) & 0x7ff;
    const uint64_t fraction = bits & ((uint64_t(1) << 52) - 1);
    // The top 10 bits of the fraction pick the interval, the other 42 the point in it.
    constexpr int kShift = 52 - 10;
    static_assert(1 << 10 == kSteps);
    const uint64_t k = fraction >> kShift;
    const double t = double(fraction & ((uint64_t(1) << kShift) - 1)) * 0x1p-42;
    const double a = mantissa_[k], b = mantissa_[k + 1];
    return exponent_[e] * (a + t * (b - a));
  }

 private:
  double m_;
  std::vector<double> mantissa_;
  std::vector<double> exponent_;
};

}  // namespace erosion::detail
