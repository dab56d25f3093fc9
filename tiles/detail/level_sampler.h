#pragma once
// Heights of one level's lattice points: the planet's surface (Clough-Tocher, C1) plus the
// detail, as a pure function of the canonical point. A sampler prepares what the points it is
// given need (the planet triangles they fall in, with their patches and detail corrections)
// and then answers for any of them; the preparation changes no bit of any answer, so two
// samplers prepared for different tiles agree wherever their points meet.
//
// Height at a point p of planet triangle t (barycentric l):
//   h(p) = S(l) + sigma(l) (N(p) - CT[N](l)) - beta_t B(l)
// S: the elevation's Clough-Tocher patch; sigma: the detail amplitude's patch (>= 0); N: the
// level's octave sum at p's unit position; CT[N]: the patch through N's values at the planet
// vertices, so the detail vanishes there; B = (27 l0 l1 l2)^2, a bump that is 0 with zero slope
// on the triangle's edges (C1 across them), and beta_t makes the detail's mean over t zero.
// At a planet vertex h is the planet's elevation exactly.

#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "tiles/clough_tocher.h"
#include "tiles/detail/surface_model.h"
#include "tiles/lattice_point.h"

namespace tiles::detail {

// Mean of B = (27 l0 l1 l2)^2 over a triangle: 729 * 2 * 2! 2! 2! / 8! = 729 / 2520.
constexpr double kBumpMean = 729.0 / 2520.0;

class LevelSampler {
 public:
  // points: canonical points of `level` whose heights will be asked. Parallel on the caller's
  // oneTBB arena.
  LevelSampler(const SurfaceModel& model, int level, std::span<const LatticePoint> points);

  // Height (m above the radius) of canonical point p (one given to the constructor, or in a
  // planet triangle one of them fell in), with unit position `unit` (ignored where p is a
  // planet vertex). Thread-safe (const).
  double height(const LatticePoint& p, const glm::dvec3& unit) const;

 private:
  // Where a point falls: a planet vertex, or a planet triangle (key: the planet's face id)
  // with barycentric weights for its corners.
  struct Place {
    bool at_vertex = false;
    uint32_t vertex = 0;
    uint64_t triangle = 0;
    uint32_t base = 0, i = 0, j = 0;
    bool down = false;
    double l[3] = {0.0, 0.0, 0.0};
  };
  struct Triangle {
    CloughTocher elevation, roughness, noise_low, noise_high;
    double beta = 0.0;
  };
  struct VertexFields {
    double elevation = 0.0, roughness = 0.0, noise_low = 0.0, noise_high = 0.0;
  };

  Place place(const LatticePoint& p) const;
  Triangle buildTriangle(const Place& t) const;
  const VertexFields& fields(uint32_t vertex) const;
  double detailAt(const Triangle& t, const double* l, const glm::dvec3& unit) const;

  const SurfaceModel& model_;
  const LevelDetail& detail_;
  uint64_t frequency_ = 0;
  bool with_detail_ = false;
  std::vector<uint32_t> vertex_ids_;  // sorted
  std::vector<VertexFields> vertex_fields_;
  std::vector<uint64_t> triangle_keys_;  // sorted
  std::vector<Triangle> triangles_;
};

}  // namespace tiles::detail
