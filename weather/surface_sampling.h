#pragma once
// Internal to weather/: reading the terrain under a point and drawing random points in a disc
// on the unit sphere. Shared by the cloud step and the rain-to-droplet conversion.

#include <cmath>
#include <span>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include "geodesy/hash.h"
#include "geodesy/sphere_mesh.h"

namespace weather {

struct Terrain {
  const geodesy::SphereMesh* mesh = nullptr;
  std::span<const float> elevation_m;  // one per vertex
  // The height the air feels, one per vertex (e.g. smoothed); empty = max(elevation, sea level).
  std::span<const float> ground_m;
  double sea_level_m = 0.0;

  double groundOf(uint32_t v) const {
    return ground_m.empty() ? std::fmax(elevation_m[v], sea_level_m) : ground_m[v];
  }
};

// Barycentric interpolation of the elevation at a surface point (metres).
inline double elevationAt(const Terrain& t, const geodesy::SurfacePoint& sp) {
  const uint32_t* v = &t.mesh->indices[3 * size_t(sp.face)];
  return double(sp.bary.x) * t.elevation_m[v[0]] + double(sp.bary.y) * t.elevation_m[v[1]] +
         double(sp.bary.z) * t.elevation_m[v[2]];
}

// The height the air feels at a surface point (Terrain::ground_m interpolated).
inline double groundAt(const Terrain& t, const geodesy::SurfacePoint& sp) {
  const uint32_t* v = &t.mesh->indices[3 * size_t(sp.face)];
  return double(sp.bary.x) * t.groundOf(v[0]) + double(sp.bary.y) * t.groundOf(v[1]) +
         double(sp.bary.z) * t.groundOf(v[2]);
}

// Gradient of the ground height (Terrain::ground_m) over a face's flat triangle,
// projected onto the tangent plane at p: metres per radian of arc (the triangle's chords are
// arcs to within (edge length)^2 / 24).
inline glm::dvec3 groundGradient(const Terrain& t, uint32_t face, const glm::dvec3& p) {
  const uint32_t* v = &t.mesh->indices[3 * size_t(face)];
  const glm::dvec3 a(t.mesh->positions[v[0]]), b(t.mesh->positions[v[1]]),
      c(t.mesh->positions[v[2]]);
  const double ha = t.groundOf(v[0]), hb = t.groundOf(v[1]), hc = t.groundOf(v[2]);
  if (ha == hb && hb == hc) return glm::dvec3(0.0);
  const glm::dvec3 n = glm::cross(b - a, c - a);
  const double twice_area = glm::length(n);
  if (!(twice_area > 0.0)) return glm::dvec3(0.0);
  const glm::dvec3 nn = n / twice_area;
  // grad(lambda_a) = nn x (c - b) / (2 area), and so on around the triangle.
  const glm::dvec3 g =
      (ha * glm::cross(nn, c - b) + hb * glm::cross(nn, a - c) + hc * glm::cross(nn, b - a)) /
      twice_area;
  return g - glm::dot(g, p) * p;
}

// Random points within an angular radius of a centre: uniform in the tangent-plane disc, then
// projected onto the sphere (uniform by area to second order in the radius). The tangent basis
// is built once per centre, and the disc is drawn by rejection from its square, so a point
// costs a few multiplications.
class DiscSampler {
 public:
  DiscSampler(const glm::dvec3& centre, double radius_rad)
      : centre_(centre), radius_(std::tan(radius_rad)) {
    // Any tangent basis will do; take the one least parallel to the centre.
    const glm::dvec3 axis = std::fabs(centre.x) < 0.6   ? glm::dvec3(1, 0, 0)
                            : std::fabs(centre.y) < 0.6 ? glm::dvec3(0, 1, 0)
                                                        : glm::dvec3(0, 0, 1);
    u_ = glm::normalize(glm::cross(centre, axis));
    v_ = glm::cross(centre, u_);
  }

  glm::dvec3 sample(geodesy::HashStream& rng) const { return sample(centre_, rng); }

  // The same around another point near the centre (within a few radii): the centre's basis is
  // tilted from that point's tangent plane by their angle, which shifts the sample by a
  // fraction of that angle squared.
  glm::dvec3 sample(const glm::dvec3& near, geodesy::HashStream& rng) const {
    double x, y;
    do {
      x = 2.0 * rng.uniform() - 1.0;
      y = 2.0 * rng.uniform() - 1.0;
    } while (x * x + y * y > 1.0);
    return glm::normalize(glm::normalize(near) + radius_ * (x * u_ + y * v_));
  }

 private:
  glm::dvec3 centre_, u_, v_;
  double radius_;
};

}  // namespace weather
