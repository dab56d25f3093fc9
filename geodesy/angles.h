#pragma once
// atan2 for the tiny angles a fine mesh is full of. Internal to geodesy: building an f = 1024
// mesh takes 52 million arc tangents (face areas and edge arcs), and libm's atan2 was half of
// the build time.

#include <cmath>

namespace geodesy {

// atan2(y, x) for y >= 0. When y <= x / 128 (every face and edge from f = 150 on) it sums
// the Taylor series of atan(y / x) to the t^7 term; the first term left out is below
// t^9 / 9 < 2e-18 relative, under double rounding, so the result matches atan2 to the last
// bit or two.
inline double atan2NonNegative(double y, double x) {
  if (x > 0.0 && y <= x * (1.0 / 128.0)) {
    const double t = y / x, t2 = t * t;
    return t * (1.0 - t2 * (1.0 / 3.0 - t2 * (1.0 / 5.0 - t2 * (1.0 / 7.0))));
  }
  return std::atan2(y, x);
}

}  // namespace geodesy
