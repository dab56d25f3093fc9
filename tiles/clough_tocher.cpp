#include "tiles/clough_tocher.h"

#include <cmath>
#include <numbers>

namespace tiles {

double edgeDerivative5(double centre, double h0, double h1, double h2, double h3, double h4) {
  static const double c1 = std::cos(2.0 * std::numbers::pi / 5.0);
  static const double c2 = std::cos(4.0 * std::numbers::pi / 5.0);
  return 0.4 * ((h0 - centre) + c1 * ((h1 - centre) + (h4 - centre)) +
                c2 * ((h2 - centre) + (h3 - centre)));
}

CloughTocher::CloughTocher(const std::array<double, 3>& f,
                           const std::array<std::array<double, 2>, 3>& d)
    : f_(f) {
  for (int k = 0; k < 3; ++k) {
    const int k1 = (k + 1) % 3;
    near_[k] = f[k] + d[k][0] / 3.0;
    // From V_{k+1} back toward V_k, which is V_{(k+1)+2}.
    far_[k] = f[k1] + d[k1][1] / 3.0;
    // The centroid is (t_{k,k+1} + t_{k,k+2}) / 3 from V_k.
    a_[k] = f[k] + (d[k][0] + d[k][1]) / 9.0;
  }
  for (int k = 0; k < 3; ++k) {
    const int k1 = (k + 1) % 3;
    // The derivative across edge k, linear along the edge (the reduced element): with the
    // centroid direction split into half the edge plus the edge normal (every chart triangle
    // is equilateral), its middle Bezier coefficient is the mean of its end ones.
    e_[k] = ((near_[k] - f[k]) + (far_[k] - f[k1])) / 4.0 + (a_[k] + a_[k1]) / 2.0;
  }
  for (int k = 0; k < 3; ++k) {
    // C1 across the inner edge V_k -- centroid: the centroid is (-1, -1, 3) in the barycentric
    // coordinates of the sub-triangle on the other side, which fixes b_k and c.
    b_[k] = (a_[k] + e_[k] + e_[(k + 2) % 3]) / 3.0;
  }
  c_ = (b_[0] + b_[1] + b_[2]) / 3.0;
}

double CloughTocher::operator()(double l0, double l1, double l2) const {
  const double l[3] = {l0, l1, l2};
  // Sub-triangle k (V_k, V_{k+1}, centroid) holds the points whose smallest weight is l[k+2].
  int k = 0;
  if (l[0] < l[1] && l[0] < l[2]) {
    k = 1;
  } else if (l[1] < l[2]) {
    k = 2;
  }
  const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  const double ma = l[k] - l[k2], mb = l[k1] - l[k2], mc = 3.0 * l[k2];
  const double ma2 = ma * ma, mb2 = mb * mb, mc2 = mc * mc;
  return ma2 * ma * f_[k] + 3.0 * ma2 * mb * near_[k] + 3.0 * ma * mb2 * far_[k] +
         mb2 * mb * f_[k1] + 3.0 * ma2 * mc * a_[k] + 3.0 * mb2 * mc * a_[k1] +
         6.0 * ma * mb * mc * e_[k] + 3.0 * ma * mc2 * b_[k] + 3.0 * mb * mc2 * b_[k1] +
         mc2 * mc * c_;
}

}  // namespace tiles
