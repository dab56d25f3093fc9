#pragma once
// What the tile generator takes: the planet as plain data (the planet module fills it from its
// state or a planet file) and the tile parameters. No type of the planet module appears here.

#include <cstdint>
#include <span>

#include "geodesy/sphere_mesh.h"
#include "tiles/detail_noise.h"

namespace tiles {

struct TilePlanet {
  int frequency = 0;  // the planet's icosphere frequency f
  geodesy::Spacing spacing = geodesy::Spacing::kSineWeights;
  double radius_m = 6371000.0;
  double sea_level_m = 0.0;
  // Per planet vertex, numbered like geodesy::buildIcosphere(f): the planet's final (eroded)
  // ground elevation in metres above radius_m. 10 f^2 + 2 values.
  std::span<const float> elevation_m;
  // Optional (empty or one value per vertex): the water surface, above the ground where a lake
  // lies (hydrology::FlowRouting::water_level_m). Lake beds get less detail.
  std::span<const float> water_level_m;
  // The terrain's detail fBm, which the tiles continue above the planet's resolution.
  NoiseSpectrum spectrum;
};

// How the detail above the planet's resolution is shaped by what the planet knows. Its
// amplitude at the planet's own spacing, per vertex, is relief_roughness times the local relief
// (highest minus lowest elevation of the vertex and its ring), so steep slopes get more, then
// scaled down on valley floors, lake beds and the sea floor; finer octaves fall off with the
// terrain's persistence.
struct DetailParams {
  bool enabled = true;
  double relief_roughness = 0.5;  // amplitude at the planet spacing per metre of local relief
  double valley_floor = 0.3;      // factor at the bottom of a valley (concave vertex), in [0, 1]
  double lake_bed = 0.2;          // factor under a lake, in [0, 1]
  double sea_floor = 0.5;         // factor below sea level, in [0, 1]
  // Amplitude exponent of the finer octaves: amplitude ~ wavelength^hurst. 0: the terrain's
  // own, -log(persistence) / log(lacunarity) (1 for the usual 0.5 and 2: every octave as steep
  // as the last). Below 1, slopes grow toward small scales as on real mountains; 0.7 is what
  // elevation models of mountains measure from tens of metres to kilometres (docs/tiles.md).
  double hurst = 0.7;
};

struct TileParams {
  // Requested lattice steps per tile edge (TileLayout derives the actual T from the planet's
  // frequency: the largest o 2^k <= this, o the odd part of f).
  int tile_edge = 256;
  DetailParams detail;
};

}  // namespace tiles
