#pragma once
// The run configuration: one TOML section per stage, loaded and validated against a schema
// (the table in config.cpp; docs/config.md is generated from it). Algorithms never read files; they
// get the params structs below.

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "erosion/droplet_erosion.h"
#include "erosion/fluvial.h"
#include "export/mesh_export.h"
#include "terrain/ocean.h"
#include "terrain/terrain.h"
#include "tiles/tile_planet.h"
#include "weather/weather_params.h"

namespace planet {

// Where the droplets' rain comes from ([weather] mode): the two producers of one spawn list.
enum class RainMode {
  kUniform,  // sampled uniformly by area over land (weather/uniform_rain.h)
  kClouds,   // rained by clouds in the wind bands (weather/cloud_simulation.h)
};
// "uniform" or "clouds", as the config and summary.json spell it.
const char* rainModeName(RainMode mode);

// [weather] as the pipeline reads it: the source of the rain, and the clouds' settings.
struct WeatherConfig {
  RainMode mode = RainMode::kClouds;
  weather::WeatherParams clouds;
};

// [erosion] keys the pipeline reads around the droplet stage (erosion::ErosionParams holds what
// the droplets themselves read): how many droplets rain, and how hard the rock is.
struct DropletBudget {
  uint64_t droplets = 0;  // total droplets; 0 = droplets_per_land_vertex x land vertices
  double droplets_per_land_vertex = 1.0;
};
struct HardnessParams {
  bool enabled = true;           // erodibility from terrain::erodibilityField; else 1 everywhere
  double min_erodibility = 0.4;  // erodibility of the hardest rock (hardness_min)
  double frequency = 2.0;  // the hardness noise's frequency on the unit sphere (hardness_scale)
};

// The droplet model as the planet uses it by default: gentle. At Earth radius slopes per edge
// are about 0.001, where Lague's parameters (erosion::ErosionParams' own defaults, made for
// heightmaps of a few hundred cells) would plane every droplet's path; here droplets are the
// detail pass after the fluvial stage (docs/erosion.md, "Strength at planet scale").
inline erosion::ErosionParams planetDropletDefaults() {
  erosion::ErosionParams p;
  p.min_slope = 0.0005;
  p.erosion = 0.05;
  p.deposition = 0.05;
  return p;
}

// File units of the engine files ([export] units): the Planet node's scale.
enum class FileUnits { kMetres, kKilometres };

struct PlanetParams {
  uint64_t seed = 42;
  int frequency = 128;  // icosphere frequency: V = 10 f^2 + 2
  double radius_m = 6371000.0;
};

// [export] in the config (the member is `output` because `export` is a C++ keyword).
struct OutputParams {
  bool glb = true;
  bool obj = false;      // planet.obj + planet.mtl (large)
  bool maps = true;      // equirectangular PNG pictures
  int map_width = 1024;  // equirectangular width in pixels; height is width / 2
  int chunks = 0;  // k: land split into 20 k^2 chunk nodes (k divides frequency); 0 = one mesh
  double skirt_depth_m = 0.0;  // > 0: skirts on chunk borders
  int lods = 0;                // n: levels f, f/2, ... f/2^n (2^n divides frequency)
  bool lod_files = false;      // also planet_lod1.glb ... planet_lodN.glb
  planet_export::LandColour color = planet_export::LandColour::kBiome;  // COLOR_0
  bool heightmaps = true;  // heightmap.png (16-bit), .r16, .r32, .json, biome.png, normals.png
  int cube_size = 0;       // > 0: six 16-bit cube-map faces of this size
  // Engine files: see planet_export::GlbOptions.
  bool quantize = true;   // KHR_mesh_quantization
  bool meshopt = false;   // EXT_meshopt_compression
  bool tangents = false;  // TANGENT for normals.png on TEXCOORD_0
  FileUnits units = FileUnits::kMetres;
  planet_export::CollisionNames collision = planet_export::CollisionNames::kNone;
  // planet/masks_output.h: 16-bit texturing masks and climate maps + masks.json;
  // the same fields as glb attributes (_FLOW, _WATER, _TEMPERATURE).
  bool masks = true;
  bool mask_attributes = false;
};

struct CompareParams {
  int globe_size_px = 512;
  int globe_views = 3;          // viewpoints spread evenly in longitude
  double globe_lat_deg = 25.0;  // latitude of every viewpoint
};

// [rivers]: rivers.geojson and planet.glb's Rivers and Lakes nodes (planet/rivers_output.h).
struct RiverConfig {
  bool enabled = true;
  // Rivers are left out below this rain-weighted drainage area, in mean vertex areas.
  double min_drainage_cells = 50.0;
  // Mean runoff of the land (rain minus evapotranspiration); discharge is the rain-weighted
  // drainage area times this. Earth's continents: about 300 mm/yr.
  double runoff_mm_per_yr = 300.0;
  double width_coefficient = 4.0;  // width_m = width_coefficient * discharge_m3_s^0.5
  int subdivisions = 4;            // points per mesh edge after smoothing (1 = none)
};

// Stage switches the pipeline reads (no algorithm does).
struct PipelineParams {
  bool fluvial = true;  // [fluvial] enabled: run the fluvial stage
};

// [tiles]: the tiles `planetgen tiles` and planetgen::makeTileGenerator make of the planet
// (docs/tiles.md).
struct TileConfig {
  tiles::TileParams generator;  // tile edge and the detail above the planet's resolution
  bool skirts = true;           // tile glbs get skirts under their edges
};

struct LimitParams {
  double memory_cap_gib = 0.0;  // 0 = the machine's available memory
};

// Every setting of a run. Config{} is the default planet: the same values as the built-in
// configs/default.toml (a test checks they agree).
struct Config {
  PlanetParams planet;
  terrain::TerrainParams terrain;
  terrain::OceanParams ocean;
  erosion::ErosionParams erosion = planetDropletDefaults();
  DropletBudget droplets;
  HardnessParams hardness;
  erosion::FluvialParams fluvial;
  PipelineParams pipeline;
  WeatherConfig weather;
  OutputParams output;
  CompareParams compare;
  RiverConfig rivers;
  TileConfig tiles;
  LimitParams limits;
  // Not a config key: `--heightmap FILE.png` replaces the noise terrain with this image.
  std::string heightmap_file;
};

// Bad user input: the message names the file (or --set expression), line, key, value and
// what is allowed. The CLI turns it into exit code 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The largest config file loadConfig reads (a config is a few kilobytes); a larger file is
// refused before any of it is read.
inline constexpr uint64_t kMaxConfigFileBytes = uint64_t(1) << 20;

// Loads `file`, then applies each override "section.key=value" in order. Throws ConfigError,
// also for a file that is not a regular file or is larger than kMaxConfigFileBytes.
Config loadConfig(const std::filesystem::path& file, std::span<const std::string> overrides = {});

// As loadConfig, for a config already in memory; origin names it in error messages (a file
// name, or kDefaultConfigOrigin for the built-in default).
Config loadConfigText(const std::string& text, const std::string& origin,
                      std::span<const std::string> overrides = {});

// Applies one "section.key=value" override. Throws ConfigError naming the expression.
void applyOverride(Config& config, const std::string& expression);

// Where a config's values came from, for errors about settings that fail together: origin, and
// " with --set ..." for each override ("bad.toml with --set export.chunks=3").
std::string originWithOverrides(const std::string& origin, std::span<const std::string> overrides);

// The full configuration as a JSON object text {"section": {"key": value, ...}, ...}.
std::string configToJson(const Config& config);

// The full configuration as a TOML text, every key of every section: loadConfigText gives it
// back.
std::string configToToml(const Config& config);

// The planet.glb options of an [export] section.
planet_export::GlbOptions glbOptions(const OutputParams& output);

// Every valid "section.key", in schema order (for docs and tests).
std::vector<std::string> configKeys();

}  // namespace planet
