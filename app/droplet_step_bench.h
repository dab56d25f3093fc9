#pragma once
// `planetgen bench`'s droplet step figures: the tiles' lattice eroder (erosion/lattice_droplets.h)
// and the plain grid eroder (grid_droplets.h) on the same fBm surface, one droplet per point,
// one thread each (both run their droplets one after another).

#include <cstdint>

namespace app {

struct DropletStepFigures {
  double tile_steps_per_s = 0.0;     // the lattice eroder with the tiles' parameters
  double tile_r3_steps_per_s = 0.0;  // the same with the grid's radius-3 brush
  double grid_steps_per_s = 0.0;     // the grid eroder, Lague's parameters
  // Steps of one run of each (the same in every run: the eroders are deterministic).
  uint64_t tile_steps = 0, tile_r3_steps = 0, grid_steps = 0;
};

// A surface of size x size points at spacing_m (metres), relief about 300 m over 3 km: an
// earthlike mountain slope at the tiles' 30 m. Each figure is the median of three runs, the
// three eroders taking turns.
DropletStepFigures benchDropletSteps(uint32_t size, double spacing_m, uint64_t seed);

}  // namespace app
