#pragma once
// The yardstick for the tiles' droplets: a plain C++ droplet eroder on a square grid, the form
// game-terrain droplet erosion usually takes (Beyer 2015, ch. 5, with the parameters of
// Sebastian Lague's widely used implementation). Per step: the height and gradient bilinear over
// the grid cell under the droplet, a new heading with inertia, one cell's length, then erosion
// through a radius-3 brush or a bilinear deposit. `planetgen bench` runs it beside the tiles'
// lattice eroder (erosion/lattice_droplets.h) on the same surface and prints both step rates
// (tile_droplet_steps_per_s, grid_droplet_steps_per_s): a step on the tile lattice must not cost
// more than a step on a grid. Not used to make terrain.

#include <cstdint>
#include <span>

namespace app {

// Lague's parameters; heights in units where a slope per cell of about 0.01 is typical.
struct GridDropletParams {
  float inertia = 0.05f;
  float capacity = 4.0f;
  float min_capacity = 0.01f;
  float erode = 0.3f;
  float deposit = 0.3f;
  float evaporate = 0.01f;
  float gravity = 4.0f;
  int max_steps = 30;
  float radius = 3.0f;  // brush radius in cells
};

struct GridDropletStats {
  uint64_t droplets = 0;
  uint64_t steps = 0;  // steps a droplet made to a new point on the grid
};

// Runs `droplets` droplets over height (size x size, row-major, size >= 2) in place, one after
// another; droplet k starts at a point drawn from (seed, k). Deterministic.
GridDropletStats erodeGridDroplets(std::span<float> height, uint32_t size, uint64_t droplets,
                                   uint64_t seed, const GridDropletParams& params);

}  // namespace app
