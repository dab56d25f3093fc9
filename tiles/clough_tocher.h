#pragma once
// A C1 surface through the planet's vertex values: the reduced Clough-Tocher interpolant on
// each planet triangle of the lattice chart (Clough & Tocher 1965; in Bezier form: Farin 1986,
// "Triangular Bernstein-Bezier patches"; Lai & Schumaker 2007, "Spline Functions on
// Triangulations", the Clough-Tocher macro-element). Each triangle is
// split at its centroid into three cubic Bezier patches; the patches meet with C1 continuity
// inside the triangle, and across its edges the surface is C1 because the value and the
// cross-edge derivative along an edge depend only on the edge's two end vertices (the
// cross-edge derivative is linear along the edge). The plain barycentric interpolant is C0
// only: its slope jumps at every planet edge, which a hillshade at ground level shows as
// straight creases 14 km apart (docs/tiles.md).
//
// Coordinates: the lattice chart of a base face, where every planet triangle is equilateral
// with unit edges and the chart continues flat across base-face edges. A vertex's slope enters
// as edge derivatives: D(v -> w), the derivative at v toward its neighbour w, per lattice step.
// Two triangles sharing an edge use the same D at its ends, so they agree along it (and tiles
// evaluate a point in one canonical triangle, so their bits agree too). At the 12 five-valent
// corners the five faces' charts do not fit in one plane: each triangle takes the corner's slope
// from the derivatives along its own two edges, so the value stays continuous everywhere but the
// slope across an edge that leaves a corner can differ near that corner.

#include <array>

namespace tiles {

// Derivative at a vertex toward ring neighbour 0, from its ring values h[0..5]
// counter-clockwise (or clockwise: the formula is symmetric), centre value not needed: the
// least-squares gradient over the hexagon, exact for quadratics.
inline double edgeDerivative6(double h0, double h1, double h2, double h3, double h4, double h5) {
  return ((h0 - h3) + 0.5 * ((h1 + h5) - (h2 + h4))) / 3.0;
}

// The same at one of the 12 five-valent corners, from its 5 ring values and the centre value:
// the least-squares gradient with the ring spread evenly (72 degrees apart) in a chart of the
// cone, g = 2/5 sum_n (h_n - h_c) u_n.
double edgeDerivative5(double centre, double h0, double h1, double h2, double h3, double h4);

// One planet triangle's patches. Vertex k sits at lattice-chart corner k (counter-clockwise);
// its values: f[k], and d[k][0] = D(V_k -> V_{k+1}), d[k][1] = D(V_k -> V_{k+2}).
class CloughTocher {
 public:
  CloughTocher() = default;
  CloughTocher(const std::array<double, 3>& f, const std::array<std::array<double, 2>, 3>& d);

  // Value at barycentric coordinates (l0, l1, l2) (summing to 1, all >= 0). Exactly f[k] at
  // vertex k.
  double operator()(double l0, double l1, double l2) const;

 private:
  // Bezier ordinates (Farin's net): f vertex values; near[k], far[k] the two interior points of
  // edge k (from V_k); a[k] one third toward the centroid from V_k; e[k] the point of
  // sub-triangle k next to edge k; b[k] two thirds toward the centroid; c the centroid.
  std::array<double, 3> f_{}, near_{}, far_{}, a_{}, e_{}, b_{};
  double c_ = 0.0;
};

}  // namespace tiles
