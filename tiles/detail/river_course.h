#pragma once
// The course of a planet river along one planet edge at tile scale. The planet routes water
// from vertex to vertex along its edges, 13.8 km long on earthlike: carved as they are, its
// rivers would be straight trenches across a 30 m tile. Here the course bends about the edge's
// line as alluvial rivers do: meanders of wavelength about 11 channel widths (Leopold & Wolman
// 1960), of uneven length, height and lean, with a slow wander of the whole course. The course is a
// pure function of the planet's seed and the edge's upstream vertex, described as a fraction of the
// edge: every level and every window that holds the edge draws the same curve at its own
// resolution, and it meets the edge's ends, so a river's courses join at the planet's vertices.

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tiles::detail {

class RiverCourse {
 public:
  // seed: the planet's; vertex: the planet vertex the edge leaves (the river's upstream end);
  // width_m: the river's channel width there (rivers.geojson's); edge_m: the edge's length.
  RiverCourse(uint64_t seed, uint32_t vertex, double width_m, double edge_m);

  // Offset from the edge's line at fraction s (0 at the upstream vertex, 1 at the receiver),
  // as a fraction of the edge's length, to the left seen downstream; 0 at s = 0 and s = 1.
  double offset(double s) const;
  // The largest |offset| the course can take: a bound, not its maximum.
  double reach() const {
    return meander_ * (1.0 + std::abs(skew_) + std::abs(flat_)) + std::abs(wander_[0]) +
           std::abs(wander_[1]);
  }
  int halfWaves() const { return half_waves_; }

  // The lattice points of the course at `steps` lattice steps per edge, in the frame where the
  // edge runs from (0, 0) to (steps, 0) along the lattice's first direction (chart offsets as
  // in window_chart.h, x (1, 0) + y (0, 1), (0, 1) at 60 degrees to the left of (1, 0)), from
  // the upstream end: consecutive points are lattice neighbours, the first is (0, 0) and the
  // last (steps, 0).
  std::vector<std::array<int64_t, 2>> lattice(uint32_t steps) const;

 private:
  struct Wave {
    double cycles = 0.0, amplitude = 0.0, phase = 0.0;  // amplitude sin(2 pi cycles s + phase)
  };
  int half_waves_ = 1;              // meander half-waves along the edge
  double meander_ = 0.0;            // their amplitude, fraction of the edge
  double skew_ = 0.0, flat_ = 0.0;  // their shape: sin p + flat sin 3p + skew cos 3p
  Wave drift_[4];                   // of the meanders' phase (radians)
  Wave swell_;                      // of their amplitude (share taken off)
  double wander_[2] = {0.0, 0.0};   // the course's wander, sin(k pi s), k = 1, 2
};

}  // namespace tiles::detail
