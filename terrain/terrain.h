#pragma once
// Base terrain: elevation in metres at every vertex of the icosphere, from 3D noise evaluated
// on the unit sphere (no seam, no pole pinching). Because the noise is a function of the 3D
// position, the same seed gives the same continents at any mesh frequency.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

namespace terrain {

struct TerrainParams {
  // Detail fBm (Perlin), documented in docs/config.md.
  int octaves = 8;
  double frequency = 2.0;  // first-octave frequency on the unit sphere
  double lacunarity = 2.0;
  double persistence = 0.5;
  double amplitude_m = 1200.0;  // detail relief (half range)
  // Continents: a low-frequency fBm shaped into land masses and ocean basins.
  double continent_frequency = 0.9;
  int continent_octaves = 4;
  double continent_amplitude_m = 600.0;  // height of the continental plateau above the shelf
  double ocean_depth_m = 4000.0;         // depth of the ocean basins below the shelf
  double continent_sharpness = 3.0;      // >= 0; larger = steeper continental shelves
  // Mountains: ridged fBm added where the continent mask is high.
  double ridged_amplitude_m = 3500.0;
  double ridged_frequency = 2.5;
  double mountain_belt_frequency = 1.2;  // where mountain belts run (low-frequency field)
  // Domain warp: positions are displaced by a vector noise before sampling (unit-sphere units).
  double warp = 0.15;
  double warp_frequency = 1.5;
  // Imported heightmaps (--heightmap) without a sidecar JSON map 0..max to this range.
  double heightmap_min_m = -8000.0;
  double heightmap_max_m = 8000.0;
};

// Elevation (m, before the ocean level is applied) at a unit-sphere point. Pure function of
// (p, seed, params); identical at any mesh resolution.
class Terrain {
 public:
  Terrain(uint64_t seed, const TerrainParams& params);
  ~Terrain();
  Terrain(const Terrain&) = delete;
  Terrain& operator=(const Terrain&) = delete;
  float elevationAt(const glm::vec3& unit_position) const;

 private:
  friend std::vector<float> generateElevation(std::span<const glm::vec3>, uint64_t,
                                              const TerrainParams&, std::vector<float>*);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The seed of the detail fBm's noise field (TerrainParams' octaves, frequency, lacunarity and
// persistence): what tiles continue above the planet's resolution.
uint64_t detailNoiseSeed(uint64_t seed);

// Elevation at every position, parallel over vertices on the caller's oneTBB arena. If
// mountain_belts is set, it receives the mountain-belt weight in [0, 1] of every position
// (where the ridged mountains stand; the fluvial stage's uplift pattern).
std::vector<float> generateElevation(std::span<const glm::vec3> unit_positions, uint64_t seed,
                                     const TerrainParams& params,
                                     std::vector<float>* mountain_belts = nullptr);

}  // namespace terrain
