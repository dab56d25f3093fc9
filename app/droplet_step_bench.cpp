#include "app/droplet_step_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include <glm/vec3.hpp>

#include "app/grid_droplets.h"
#include "erosion/lattice_droplets.h"
#include "erosion/lattice_patch.h"
#include "geodesy/hash.h"
#include "terrain/perlin.h"
#include "tiles/tile_planet.h"

namespace app {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kReliefM = 300.0;
constexpr double kWavelengthM = 3000.0;

// The surface at a point in metres.
float surfaceAt(const terrain::PerlinNoise& noise, double x_m, double y_m) {
  terrain::FbmParams fbm;
  fbm.octaves = 8;
  fbm.frequency = float(1.0 / kWavelengthM);
  return float(kReliefM * terrain::fbm(noise, glm::vec3(float(x_m), float(y_m), 0.5f), fbm));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

DropletStepFigures benchDropletSteps(uint32_t size, double spacing_m, uint64_t seed) {
  const terrain::PerlinNoise noise(seed);
  const size_t n = size_t(size) * size;

  // The lattice patch: its outer ring holds no point, the next ring is the fixed edge.
  std::vector<erosion::PatchCell> cells(n, erosion::PatchCell::kNone);
  std::vector<float> lattice_h(n, 0.0f), droplets(n, 0.0f);
  std::vector<uint64_t> seeds(n, 0);
  for (uint32_t b = 1; b + 1 < size; ++b) {
    for (uint32_t a = 1; a + 1 < size; ++a) {
      const size_t c = size_t(b) * size + a;
      const bool edge = a == 1 || b == 1 || a + 2 == size || b + 2 == size;
      cells[c] = edge ? erosion::PatchCell::kEdge : erosion::PatchCell::kInterior;
      // Lattice vector (a, b) is (a + b / 2, b sqrt(3) / 2) spacings (lattice_patch.h).
      lattice_h[c] =
          surfaceAt(noise, (a + 0.5 * b) * spacing_m, b * 0.8660254037844386 * spacing_m);
      droplets[c] = 1.0f;
      seeds[c] = geodesy::hash3(seed, 0x6c61747469636575ull, c);
    }
  }
  erosion::LatticePatch patch;
  patch.width = size, patch.rows = size, patch.spacing_m = spacing_m;
  patch.cells = cells;
  erosion::LatticeDropletInput input;
  input.patch = &patch;
  input.droplets = droplets;
  input.seed = seeds;

  // The grid: the same surface, heights in Lague's units (slopes per cell of about 0.01 where
  // the metric slope is 0.5).
  std::vector<float> grid_h(n);
  const double to_grid_units = 0.02 / spacing_m;
  for (uint32_t y = 0; y < size; ++y)
    for (uint32_t x = 0; x < size; ++x)
      grid_h[size_t(y) * size + x] =
          float(to_grid_units * surfaceAt(noise, x * spacing_m, y * spacing_m));

  DropletStepFigures figures;
  // The tiles' own law (tiles/tile_planet.h: runs of 1 km, limited by detachment).
  const erosion::LatticeDropletParams tile_law = tiles::TileErosionParams{}.droplets;
  const auto latticeRate = [&](double radius, uint64_t& steps) {
    erosion::LatticeDropletParams params = tile_law;
    params.radius = radius;
    std::vector<float> h = lattice_h;
    const auto t0 = Clock::now();
    const erosion::LatticeDropletStats stats =
        erosion::erodeLatticeDroplets(input, params, h, {}, {});
    steps = stats.steps;
    return double(stats.steps) / std::chrono::duration<double>(Clock::now() - t0).count();
  };
  const auto gridRate = [&] {
    std::vector<float> h = grid_h;
    const auto t0 = Clock::now();
    const GridDropletStats stats = erodeGridDroplets(h, size, n, seed, {});
    figures.grid_steps = stats.steps;
    return double(stats.steps) / std::chrono::duration<double>(Clock::now() - t0).count();
  };
  std::vector<double> tile, tile_r3, grid;
  for (int run = 0; run < 3; ++run) {
    tile.push_back(latticeRate(tile_law.radius, figures.tile_steps));
    tile_r3.push_back(latticeRate(3.0, figures.tile_r3_steps));
    grid.push_back(gridRate());
  }
  figures.tile_steps_per_s = median(tile);
  figures.tile_r3_steps_per_s = median(tile_r3);
  figures.grid_steps_per_s = median(grid);
  return figures;
}

}  // namespace app
