#pragma once
// Checks of a whole run's settings that no single config key can make: joint constraints
// between keys, and the input files named on the command line. Run before any work, so that a
// config the loader accepts either works or is refused up front (exit 2).

#include <string>

#include "planet/config.h"

namespace planet {

// The bounds of the checks below (the config reference states them from these).
inline constexpr double kMinRadiusM = 1.0;       // [planet] radius_m, also the key's own minimum
inline constexpr double kRadiusPerRelief = 4.0;  // radius_m >= this x the relief bound
inline constexpr double kReliefMargin = 1.1;     // the noise terrain's relief bound: 1.1 x ...
inline constexpr double kMaxClouds = 1e9;        // clouds spawned by cloud rain, at most

// The largest |elevation| (m) the terrain can produce before the ocean level is applied: the
// noise terrain's amplitudes (each noise field lies in [-1, 1], with a 10 % margin), or the
// heightmap's range (`heightmap_range` when a sidecar gives it, else [terrain]
// heightmap_min_m/max_m).
double reliefBoundM(const Config& config, double heightmap_min_m, double heightmap_max_m);

// Throws ConfigError naming `origin` (the config file), the keys, their values and what is
// allowed when:
//  - [planet] radius_m is below 1 m or below 4 x the relief bound (after the ocean level shift
//    elevations may span twice the bound; a quarter of the radius keeps every vertex far from
//    the centre and the erosion's slopes finite);
//  - [weather] mode = "clouds" and spawn_rate * 4 pi * (ticks + spinup_ticks) > 1e9 clouds;
//  - the heightmap (config.heightmap_file) is not a regular file of at most 1 GiB, or its
//    sidecar (same name, .json) exists and is not a valid one of at most 1 MiB.
void checkRun(const Config& config, const std::string& origin);

}  // namespace planet
