#pragma once
// Droplet erosion on a lattice patch (lattice_patch.h): Beyer 2015's droplet (eqs. 5.1-5.8,
// the brush of eq. 5.9), stepped in lattice coordinates on the patch's regular triangular
// lattice like a 2D grid eroder, the height and gradient linear over the triangle under the
// droplet (where a grid eroder takes them bilinear over a square). The tiles' droplet erosion
// at each level's own scale.
//
// Frame: one step is one lattice spacing and heights are measured in spacings (h / spacing_m),
// so slopes are rise over run and Beyer's and Lague's parameters mean the same at every level,
// as on their unit grid. Droplets run one after another in spawn order (each sees those before
// it): serial and deterministic; tiles runs windows in parallel instead.
//
// Spawns: each point of the patch rains droplets[cell] droplets on average (the integer part,
// plus one more with the probability of the fraction), each from its own seed, a pure function
// of the point's seed and its number there, started uniformly over the point's lattice cell.
// A droplet ends when it dries, stalls, runs out of steps, reaches base level (sea, lake: what
// it carries is laid there) or leaves the patch (what it carries leaves with it).

#include <cstdint>
#include <span>

#include "erosion/lattice_patch.h"

namespace erosion {

// Defaults: Lague's implementation of Beyer's algorithm (the same as ErosionParams but
// initial_water, which the planet turns down for its own scale).
struct LatticeDropletParams {
  double inertia = 0.05;      // [0,1] eq. 5.1
  double capacity = 4.0;      // eq. 5.4
  double min_slope = 0.01;    // eq. 5.4
  double deposition = 0.3;    // [0,1] eq. 5.5
  double erosion = 0.3;       // [0,1] eq. 5.6
  double evaporation = 0.01;  // [0,1) eq. 5.8
  double gravity = 4.0;       // eq. 5.7
  double radius = 3.0;        // brush radius in spacings, eq. 5.9
  int max_lifetime = 30;      // steps
  double initial_water = 1.0;
  double initial_speed = 1.0;
};

struct LatticeDropletInput {
  const LatticePatch* patch = nullptr;
  // Per cell: the droplets a point rains on average (>= 0; 0 off the points).
  std::span<const float> droplets;
  // Per cell: the point's seed (the same point has the same seed in every patch).
  std::span<const uint64_t> seed;
  // Per cell: 1 where water ends (sea, lake); empty = nowhere. Not eroded; deposits may land.
  std::span<const uint8_t> base_level;
};

struct LatticeDropletStats {
  uint64_t droplets = 0;
  uint64_t steps = 0;
  double eroded_m3 = 0.0;     // taken by the brushes
  double deposited_m3 = 0.0;  // laid down (inside the patch)
};

// Erodes height_m (per cell, metres) in place and adds each point's loss and gain (metres,
// >= 0) to eroded_m and deposited_m (per cell; either may be empty). Copies follow their
// owners.
LatticeDropletStats erodeLatticeDroplets(const LatticeDropletInput& input,
                                         const LatticeDropletParams& params,
                                         std::span<float> height_m, std::span<float> eroded_m,
                                         std::span<float> deposited_m);

}  // namespace erosion
