#pragma once
// Whittaker-style biomes: a class per vertex from annual mean temperature and moisture.
//
// Temperature (degrees C) at sea level falls from the equator to the poles,
//   T_sea(lat) = equator_c - (equator_c - pole_c) * |lat / 90 deg|^latitude_exponent,
// (defaults fit Earth's zonal means: 27 C at the equator, about 19 C at 30 deg, 1 C at 60 deg,
// -25 C at the poles), and on land it drops with height above sea level by the lapse rate:
//   T = T_sea(lat) - lapse_rate_c_per_km * max(0, elevation - sea_level) / 1000.
// Moisture is a number in [0, 1] per vertex from the caller: rainfall normalised when the
// weather stage ran, otherwise a proxy (e.g. noise, or zonalMoistureProxy below).
//
// Classes (ids are stable; docs/export.md lists names and colours, export/biome_palette.h
// holds them):
//   sea: ocean, or sea ice where T_sea < sea_ice_below_c;
//   land: ice sheet (snow cap) where T < ice_below_c, tundra below tundra_below_c, boreal
//   forest (or cold desert when dry) below boreal_below_c, temperate classes below
//   tropical_from_c and tropical ones above, split by moisture thresholds.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "geodesy/sphere_mesh.h"

namespace weather {

enum class Biome : uint8_t {
  kOcean = 0,
  kSeaIce = 1,
  kIceSheet = 2,
  kTundra = 3,
  kBorealForest = 4,
  kColdDesert = 5,  // temperate grassland / cold desert
  kShrubland = 6,   // woodland / shrubland
  kTemperateSeasonalForest = 7,
  kTemperateRainforest = 8,
  kSubtropicalDesert = 9,
  kSavanna = 10,  // tropical seasonal forest / savanna
  kTropicalRainforest = 11,
};
inline constexpr int kBiomeCount = 12;

struct BiomeParams {
  double equator_c = 27.0;           // sea-level annual mean temperature at the equator
  double pole_c = -25.0;             // ... at the poles
  double latitude_exponent = 1.7;    // shape of the fall-off toward the poles
  double lapse_rate_c_per_km = 6.5;  // environmental lapse rate (ICAO standard atmosphere)
  double sea_ice_below_c = -10.0;    // sea vertices colder than this (at sea level) are ice
  double ice_below_c = -10.0;        // land colder than this is an ice sheet / snow cap
  double tundra_below_c = -4.0;
  double boreal_below_c = 3.0;
  double tropical_from_c = 20.0;
  double boreal_dry_below = 0.25;  // moisture under which boreal land is cold desert
  // Temperate moisture bands: cold desert < dry < shrubland < seasonal < forest <= rainforest.
  double temperate_dry_below = 0.2;
  double temperate_shrub_below = 0.4;
  double temperate_forest_below = 0.7;
  // Tropical: desert < desert_below <= savanna < rainforest_from <= rainforest.
  double tropical_desert_below = 0.25;
  double tropical_rainforest_from = 0.6;
};

// Sea-level temperature (degrees C) at a latitude in radians.
double seaLevelTemperatureC(double lat_rad, const BiomeParams& params = {});

// Temperature (degrees C) of a point at this latitude and height above sea level (metres,
// negative heights count as 0).
double temperatureC(double lat_rad, double height_above_sea_m, const BiomeParams& params = {});

// One class for a sea or land point.
Biome classifyBiome(double lat_rad, double height_above_sea_m, bool is_sea, double moisture01,
                    const BiomeParams& params = {});

// The class of every vertex (Biome values as bytes). elevation_m and moisture01 have one value
// per vertex (moisture clamped to [0, 1]); a vertex is sea when elevation < sea_level_m.
// Throws std::invalid_argument on a size mismatch. Parallel on the caller's oneTBB arena;
// the result does not depend on the thread count.
std::vector<uint8_t> classifyBiomes(const geodesy::SphereMesh& mesh,
                                    std::span<const float> elevation_m, double sea_level_m,
                                    std::span<const float> moisture01,
                                    const BiomeParams& params = {});

// A simple stand-in when no rainfall is known: the zonal pattern of the general circulation,
// wet at the equator (ITCZ), dry near 30 deg (subtropical highs), wet near 55 deg (storm
// tracks), dry at the poles; smooth in latitude, in [0, 1]. Callers may add noise.
std::vector<float> zonalMoistureProxy(const geodesy::SphereMesh& mesh);

}  // namespace weather
