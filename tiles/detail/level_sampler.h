#pragma once
// Heights of one level's lattice points: the planet's surface (Clough-Tocher, C1) plus the
// detail, as a pure function of the canonical point. A sampler prepares what the points it is
// given need (the planet triangles they fall in, with their patches and detail corrections)
// and then answers for any of them; the preparation changes no bit of any answer, so two
// samplers prepared for different tiles agree wherever their points meet.
//
// Height at a point p of planet triangle t (barycentric l), V the corner of t nearest p:
//   h(p) = S(l) + sigma(l) sum_o A_o (n_o(p) - n_o(V) pin_o(|p - V|)) - beta_t B(l)
// S: the elevation's Clough-Tocher patch; sigma: the detail amplitude's patch (>= 0); n_o the
// level's octaves (detail_noise.h) with amplitudes A_o; pin_o = (1 - d^2 / r_o^2)^3 within the
// octave's pin radius r_o <= 1/2 step, so each octave is 0 at every planet vertex and only
// changed within its own correlation length of it; B = (27 l0 l1 l2)^2, 0 with zero slope on
// t's edges (C1 across them), and beta_t makes the detail's mean over t zero. At a planet
// vertex h is the planet's elevation exactly.

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
  // height() of many points (units: their unit positions), into out[0 .. points.size()). The
  // noise runs eight points at a time; each point gets height()'s bits, whatever its company.
  void heights(std::span<const LatticePoint> points, std::span<const glm::dvec3> units,
               double* out) const;

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
    CloughTocher elevation, roughness;
    double beta = 0.0;
  };

  // Up to eight points whose octave sums are wanted together: each point's unit position and
  // its nearest triangle corner (squared chart distance, that corner's octave values).
  static constexpr int kLanes = 8;
  struct Lanes {
    int count = 0;
    glm::dvec3 unit[kLanes];
    double near_d2[kLanes];
    const double* pinned[kLanes];
    // A point at barycentric l of a triangle whose corners' octave values are
    // corner_noise[corner * octave_count + octave].
    void add(const double* l, const glm::dvec3& position, const double* corner_noise,
             size_t octave_count);
  };

  Place place(const LatticePoint& p) const;
  Triangle buildTriangle(const Place& t, const double* corner_noise) const;
  size_t vertexSlot(uint32_t vertex) const;
  // The detail's octave sum, octaves [first, last), at each point of `lanes`, pinned to 0 at
  // the planet's vertices.
  void octaves(const Lanes& lanes, size_t first, size_t last, double* out) const;

  const SurfaceModel& model_;
  const LevelDetail& detail_;
  uint64_t frequency_ = 0;
  size_t octave_count_ = 0;
  std::vector<uint32_t> vertex_ids_;     // sorted
  std::vector<double> vertex_noise_;     // octave values per vertex: [slot * octaves + o]
  std::vector<uint64_t> triangle_keys_;  // sorted
  std::vector<Triangle> triangles_;
  std::vector<double> corner_noise_;  // per triangle: 3 corners x octaves
};

}  // namespace tiles::detail
