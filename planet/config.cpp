#include "planet/config.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>

#include <toml++/toml.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>
#include "export/mesh_export.h"
#include "io/file_writer.h"
#include "planet/config_reference.h"
#include "planet/detail/displayed_text.h"
#include "planet/detail/suggest.h"
#include "planet/run_checks.h"

namespace planet {
namespace {

using Json = nlohmann::json;

// One row per config key: how to read it from TOML, what is allowed, how to print it.
// A new key: a field in its params struct, one row in schema() below, its meaning in
// config_meanings.cpp (a test asks for one), docs/config.md regenerated (config_reference_test
// says how), and, for [erosion], its float in DropletContext (erosion/detail/droplet.h).
struct KeySpec {
  std::string_view section;
  std::string_view key;
  std::string allowed;  // human-readable, used in error messages
  // Sets the value from a TOML node; returns false if the node's type or value is not allowed.
  std::function<bool(Config&, const toml::node&)> assign;
  std::function<Json(const Config&)> dump;
};

std::string formatNumber(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

// The node's value if it is a finite number (an integer counts).
std::optional<double> finiteNumber(const toml::node& n) {
  std::optional<double> v;
  if (auto f = n.as_floating_point()) v = f->get();
  if (auto i = n.as_integer()) v = double(i->get());
  if (v && !std::isfinite(*v)) v.reset();
  return v;
}

template <typename Access>
KeySpec realKey(std::string_view section, std::string_view key, Access access, double lo, double hi,
                bool lo_open = false, bool hi_open = false) {
  std::string allowed = "a finite number in " + std::string(lo_open ? "(" : "[") +
                        formatNumber(lo) + ", " + formatNumber(hi) + (hi_open ? ")" : "]");
  return {section, key, allowed,
          [=](Config& c, const toml::node& n) {
            const std::optional<double> v = finiteNumber(n);
            if (!v) return false;
            if (lo_open ? *v <= lo : *v < lo) return false;
            if (hi_open ? *v >= hi : *v > hi) return false;
            access(c) = *v;
            return true;
          },
          [=](const Config& c) { return Json(access(const_cast<Config&>(c))); }};
}

// A size written in MiB (2^20 bytes) and held in bytes.
template <typename Access>
KeySpec mebibyteKey(std::string_view section, std::string_view key, Access access, double lo,
                    double hi) {
  constexpr double kMiB = 1048576.0;
  std::string allowed =
      "a finite number of MiB in [" + formatNumber(lo) + ", " + formatNumber(hi) + "]";
  return {section, key, allowed,
          [=](Config& c, const toml::node& n) {
            const std::optional<double> v = finiteNumber(n);
            if (!v || *v < lo || *v > hi) return false;
            access(c) = size_t(std::llround(*v * kMiB));
            return true;
          },
          [=](const Config& c) { return Json(double(access(const_cast<Config&>(c))) / kMiB); }};
}

template <typename Access>
KeySpec intKey(std::string_view section, std::string_view key, Access access, int64_t lo,
               int64_t hi) {
  std::string allowed = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return {section, key, allowed,
          [=](Config& c, const toml::node& n) {
            auto i = n.as_integer();
            if (!i || i->get() < lo || i->get() > hi) return false;
            using T = std::remove_reference_t<decltype(access(c))>;
            access(c) = T(i->get());
            return true;
          },
          [=](const Config& c) { return Json(access(const_cast<Config&>(c))); }};
}

template <typename Access>
KeySpec boolKey(std::string_view section, std::string_view key, Access access) {
  return {section, key, "true or false",
          [=](Config& c, const toml::node& n) {
            auto b = n.as_boolean();
            if (!b) return false;
            access(c) = b->get();
            return true;
          },
          [=](const Config& c) { return Json(access(const_cast<Config&>(c))); }};
}

// A key whose value is one of a few names, each standing for an enum value.
template <typename Access, typename Enum>
KeySpec enumKey(std::string_view section, std::string_view key, Access access,
                std::vector<std::pair<std::string, Enum>> choices) {
  std::string allowed = "one of";
  for (size_t i = 0; i < choices.size(); ++i)
    allowed += (i ? ", \"" : " \"") + choices[i].first + "\"";
  return {section, key, allowed,
          [=](Config& c, const toml::node& n) {
            auto s = n.as_string();
            if (!s) return false;
            for (const auto& [name, value] : choices) {
              if (name == s->get()) {
                access(c) = value;
                return true;
              }
            }
            return false;
          },
          [=](const Config& c) {
            for (const auto& [name, value] : choices)
              if (access(const_cast<Config&>(c)) == value) return Json(name);
            return Json();
          }};
}

#define FIELD(path)         \
  [](Config & c) -> auto& { \
    return c.path;          \
  }
constexpr double kBig = 1e9;
// With dry_moisture and the rain in [0, 1] of it, a smaller capacity only makes denormal
// moisture and no rain (1e-310 failed late, in the weather stage).
constexpr double kMinMoistureCapacity = 1e-6;

// FIELD(section.member) is a member of Config (planet/config.h). A stage's section is that
// stage's Params struct, declared beside the function that reads it: [terrain]
// terrain::TerrainParams (terrain/terrain.h), [ocean] terrain::OceanParams (terrain/ocean.h),
// [erosion] erosion::ErosionParams (erosion/droplet_erosion.h), [fluvial] erosion::FluvialParams
// (erosion/fluvial.h), [weather] weather::WeatherParams (weather/weather_params.h). The rest
// (the rain mode, the droplet budget, hardness, [planet], [rivers], [export], [compare],
// [limits]) are config.h's own structs, read by the pipeline (docs/architecture.md).
const std::vector<KeySpec>& schema() {
  static const std::vector<KeySpec> rows = {
      intKey("planet", "seed", FIELD(planet.seed), 0, std::numeric_limits<int64_t>::max()),
      intKey("planet", "frequency", FIELD(planet.frequency), 1, 100000),
      realKey("planet", "radius_m", FIELD(planet.radius_m), kMinRadiusM, 1e9),

      intKey("terrain", "octaves", FIELD(terrain.octaves), 1, 16),
      realKey("terrain", "frequency", FIELD(terrain.frequency), 0, 1000, true),
      realKey("terrain", "lacunarity", FIELD(terrain.lacunarity), 1, 4),
      realKey("terrain", "persistence", FIELD(terrain.persistence), 0, 1),
      realKey("terrain", "amplitude_m", FIELD(terrain.amplitude_m), 0, 1e5),
      realKey("terrain", "continent_frequency", FIELD(terrain.continent_frequency), 0, 100, true),
      intKey("terrain", "continent_octaves", FIELD(terrain.continent_octaves), 1, 8),
      realKey("terrain", "continent_amplitude_m", FIELD(terrain.continent_amplitude_m), 0, 1e5),
      realKey("terrain", "ocean_depth_m", FIELD(terrain.ocean_depth_m), 0, 12000),
      realKey("terrain", "continent_sharpness", FIELD(terrain.continent_sharpness), 0, 100),
      realKey("terrain", "ridged_amplitude_m", FIELD(terrain.ridged_amplitude_m), 0, 1e5),
      realKey("terrain", "ridged_frequency", FIELD(terrain.ridged_frequency), 0, 1000, true),
      realKey("terrain", "mountain_belt_frequency", FIELD(terrain.mountain_belt_frequency), 0, 100,
              true),
      realKey("terrain", "warp", FIELD(terrain.warp), 0, 2),
      realKey("terrain", "warp_frequency", FIELD(terrain.warp_frequency), 0, 100, true),
      realKey("terrain", "heightmap_min_m", FIELD(terrain.heightmap_min_m), -1e5, 1e5),
      realKey("terrain", "heightmap_max_m", FIELD(terrain.heightmap_max_m), -1e5, 1e5),

      enumKey(
          "ocean", "mode", FIELD(ocean.mode),
          std::vector<std::pair<std::string, terrain::OceanMode>>{
              {"fraction", terrain::OceanMode::kFraction}, {"level", terrain::OceanMode::kLevel}}),
      realKey("ocean", "fraction", FIELD(ocean.fraction), 0, 1),
      realKey("ocean", "level_m", FIELD(ocean.level_m), -1e5, 1e5),

      intKey("erosion", "droplets", FIELD(droplets.droplets), 0, 1000000000),
      realKey("erosion", "droplets_per_land_vertex", FIELD(droplets.droplets_per_land_vertex), 0,
              1000),
      realKey("erosion", "inertia", FIELD(erosion.inertia), 0, 1),
      realKey("erosion", "capacity", FIELD(erosion.capacity), 0, 16, true),
      realKey("erosion", "min_slope", FIELD(erosion.min_slope), 0, 0.5),
      realKey("erosion", "deposition", FIELD(erosion.deposition), 0, 1),
      realKey("erosion", "erosion", FIELD(erosion.erosion), 0, 1),
      realKey("erosion", "evaporation", FIELD(erosion.evaporation), 0, 1, false, true),
      realKey("erosion", "gravity", FIELD(erosion.gravity), 0, 100, true),
      realKey("erosion", "radius", FIELD(erosion.radius), 1, 8),
      intKey("erosion", "max_lifetime", FIELD(erosion.max_lifetime), 1, 1000),
      realKey("erosion", "initial_water", FIELD(erosion.initial_water), 0, 10, true),
      realKey("erosion", "initial_speed", FIELD(erosion.initial_speed), 0, 10),
      realKey("erosion", "blur", FIELD(erosion.blur), 0, 1),
      intKey("erosion", "batch_size", FIELD(erosion.batch_size), 0, 65536),
      boolKey("erosion", "hardness", FIELD(hardness.enabled)),
      realKey("erosion", "hardness_min", FIELD(hardness.min_erodibility), 0, 1),
      realKey("erosion", "hardness_scale", FIELD(hardness.frequency), 0, 100, true),

      boolKey("fluvial", "enabled", FIELD(pipeline.fluvial)),
      realKey("fluvial", "area_exponent", FIELD(fluvial.area_exponent), 0.1, 1),
      intKey("fluvial", "reroutings", FIELD(fluvial.reroutings), 0, 20),
      realKey("fluvial", "receiver_jitter", FIELD(fluvial.receiver_jitter), 0, 0.99),
      realKey("fluvial", "min_rain", FIELD(fluvial.min_rain), 0, 1, true),
      realKey("fluvial", "rain_uplift", FIELD(fluvial.rain_uplift), 0, 2),
      realKey("fluvial", "lake_evaporation", FIELD(fluvial.lake_evaporation), 0, 1000),
      realKey("fluvial", "channel_cells", FIELD(fluvial.channel_cells), 0, 1e6),
      realKey("fluvial", "hillslope_curvature", FIELD(fluvial.hillslope_curvature), 0, 100),
      realKey("fluvial", "texture", FIELD(fluvial.texture), 0, 4),
      realKey("fluvial", "talus_angle_deg", FIELD(fluvial.talus_angle_deg), 1, 89),

      enumKey("weather", "mode", FIELD(weather.mode),
              std::vector<std::pair<std::string, RainMode>>{{"uniform", RainMode::kUniform},
                                                            {"clouds", RainMode::kClouds}}),
      intKey("weather", "ticks", FIELD(weather.clouds.ticks), 1, 1000000),
      intKey("weather", "epochs", FIELD(weather.clouds.epochs), 1, 1000),
      intKey("weather", "spinup_ticks", FIELD(weather.clouds.spinup_ticks), 0, 100000),
      realKey("weather", "spawn_rate", FIELD(weather.clouds.spawn_rate), 0, 1000, true),
      intKey("weather", "cloud_lifetime", FIELD(weather.clouds.cloud_lifetime), 1, 100000),
      intKey("weather", "grid_frequency", FIELD(weather.clouds.grid_frequency), 4, 1024),
      realKey("weather", "cloud_radius_deg", FIELD(weather.clouds.cloud_radius_deg), 0, 30, true),
      realKey("weather", "moisture_capacity", FIELD(weather.clouds.moisture_capacity),
              kMinMoistureCapacity, 1000),
      realKey("weather", "initial_moisture", FIELD(weather.clouds.initial_moisture), 0, 1000),
      realKey("weather", "pickup_rate", FIELD(weather.clouds.pickup_rate), 0, 1),
      realKey("weather", "dry_moisture", FIELD(weather.clouds.dry_moisture), 0, 1000),
      realKey("weather", "rain_rate", FIELD(weather.clouds.rain_rate), 0, 1),
      realKey("weather", "land_recycling", FIELD(weather.clouds.land_recycling), 0, 1, false, true),
      realKey("weather", "orographic_factor", FIELD(weather.clouds.orographic_factor), 0, 100),
      realKey("weather", "rain_shadow", FIELD(weather.clouds.rain_shadow), 0, 1),
      realKey("weather", "shadow_descent_m", FIELD(weather.clouds.shadow_descent_m), 0, 1e5, true),
      realKey("weather", "band_edge_1_deg", FIELD(weather.clouds.band_edge_1_deg), 0, 90, true,
              true),
      realKey("weather", "band_edge_2_deg", FIELD(weather.clouds.band_edge_2_deg), 0, 90, true,
              true),
      realKey("weather", "band_blend_deg", FIELD(weather.clouds.band_blend_deg), 0, 30),
      realKey("weather", "trade_strength_deg", FIELD(weather.clouds.trade_strength_deg), 0, 10),
      realKey("weather", "westerly_strength_deg", FIELD(weather.clouds.westerly_strength_deg), 0,
              10),
      realKey("weather", "polar_strength_deg", FIELD(weather.clouds.polar_strength_deg), 0, 10),
      realKey("weather", "meridional_ratio", FIELD(weather.clouds.meridional_ratio), 0, 2),
      realKey("weather", "terrain_deflection", FIELD(weather.clouds.terrain_deflection), 0, 1),
      realKey("weather", "velocity_relaxation", FIELD(weather.clouds.velocity_relaxation), 0, 1,
              true),

      boolKey("rivers", "enabled", FIELD(rivers.enabled)),
      realKey("rivers", "min_drainage_cells", FIELD(rivers.min_drainage_cells), 0, 1e9, true),
      realKey("rivers", "runoff_mm_per_yr", FIELD(rivers.runoff_mm_per_yr), 0, 1e5, true),
      realKey("rivers", "width_coefficient", FIELD(rivers.width_coefficient), 0, 1000, true),
      intKey("rivers", "subdivisions", FIELD(rivers.subdivisions), 1, 32),

      boolKey("export", "glb", FIELD(output.glb)),
      boolKey("export", "masks", FIELD(output.masks)),
      boolKey("export", "mask_attributes", FIELD(output.mask_attributes)),
      boolKey("export", "obj", FIELD(output.obj)),
      boolKey("export", "maps", FIELD(output.maps)),
      intKey("export", "map_width", FIELD(output.map_width), 16, 16384),
      intKey("export", "chunks", FIELD(output.chunks), 0, 1024),
      realKey("export", "skirt_depth_m", FIELD(output.skirt_depth_m), 0, 1e5),
      intKey("export", "lods", FIELD(output.lods), 0, 12),
      boolKey("export", "lod_files", FIELD(output.lod_files)),
      enumKey("export", "color", FIELD(output.color),
              std::vector<std::pair<std::string, planet_export::LandColour>>{
                  {"biome", planet_export::LandColour::kBiome},
                  {"terrain", planet_export::LandColour::kTerrain}}),
      boolKey("export", "heightmaps", FIELD(output.heightmaps)),
      intKey("export", "cube_size", FIELD(output.cube_size), 0, 16384),
      boolKey("export", "quantize", FIELD(output.quantize)),
      boolKey("export", "meshopt", FIELD(output.meshopt)),
      boolKey("export", "tangents", FIELD(output.tangents)),
      enumKey("export", "units", FIELD(output.units),
              std::vector<std::pair<std::string, FileUnits>>{{"m", FileUnits::kMetres},
                                                             {"km", FileUnits::kKilometres}}),
      enumKey("export", "collision", FIELD(output.collision),
              std::vector<std::pair<std::string, planet_export::CollisionNames>>{
                  {"none", planet_export::CollisionNames::kNone},
                  {"godot", planet_export::CollisionNames::kGodot},
                  {"unreal", planet_export::CollisionNames::kUnreal}}),

      intKey("compare", "globe_size_px", FIELD(compare.globe_size_px), 16, 8192),
      intKey("compare", "globe_views", FIELD(compare.globe_views), 1, 12),
      realKey("compare", "globe_lat_deg", FIELD(compare.globe_lat_deg), -90, 90),

      intKey("tiles", "tile_edge", FIELD(tiles.generator.tile_edge), 2, 8192),
      boolKey("tiles", "detail", FIELD(tiles.generator.detail.enabled)),
      realKey("tiles", "relief_roughness", FIELD(tiles.generator.detail.relief_roughness), 0, 10),
      realKey("tiles", "valley_floor", FIELD(tiles.generator.detail.valley_floor), 0, 1),
      realKey("tiles", "lake_bed", FIELD(tiles.generator.detail.lake_bed), 0, 1),
      realKey("tiles", "sea_floor", FIELD(tiles.generator.detail.sea_floor), 0, 1),
      realKey("tiles", "hurst", FIELD(tiles.generator.detail.hurst), 0, 2),
      boolKey("tiles", "skirts", FIELD(tiles.skirts)),
      boolKey("tiles", "erosion", FIELD(tiles.generator.erosion.enabled)),
      enumKey("tiles", "erosion_rain", FIELD(tiles.generator.erosion.rain),
              std::vector<std::pair<std::string, tiles::TileRain>>{
                  {"planet", tiles::TileRain::kPlanet}, {"uniform", tiles::TileRain::kUniform}}),
      realKey("tiles", "erosion_droplets_per_point",
              FIELD(tiles.generator.erosion.droplets_per_point), 0, 100),
      realKey("tiles", "erosion_runoff_m", FIELD(tiles.generator.erosion.runoff_m), 0, 10000),
      boolKey("tiles", "erosion_relief", FIELD(tiles.generator.erosion.relief)),
      mebibyteKey("tiles", "erosion_cache_mib", FIELD(tiles.generator.erosion.cache_bytes), 0,
                  65536),

      realKey("limits", "memory_cap_gib", FIELD(limits.memory_cap_gib), 0, kBig),
  };
  return rows;
}
#undef FIELD

// Keys that meant something once and no longer do: refused with what replaced them.
struct RetiredKey {
  std::string_view section;
  std::string_view key;
  std::string_view replaced_by;
};

const std::vector<RetiredKey>& retiredKeys() {
  static const std::vector<RetiredKey> rows = {
      {"fluvial", "duration_yr",
       "the fluvial stage builds the steady-state relief directly (no time steps); "
       "[fluvial] reroutings sets how often it re-routes"},
      {"fluvial", "iterations",
       "the fluvial stage has no time steps; [fluvial] reroutings sets how often it re-routes"},
      {"fluvial", "coarse_frequency",
       "the fluvial stage chooses its coarse levels itself (each a quarter of the frequency, "
       "down to 32)"},
      {"fluvial", "fine_iterations",
       "the fluvial stage has no time steps; [fluvial] reroutings sets how often it re-routes "
       "on the full mesh"},
      {"fluvial", "stream_power_k",
       "uplift over erodibility is chosen per planet so that the highest point is the one the "
       "[terrain] keys ask for; [erosion] hardness still varies the erodibility"},
      {"fluvial", "uplift_m_per_yr",
       "uplift over erodibility is chosen per planet so that the highest point is the one the "
       "[terrain] keys ask for; the noise terrain is the uplift pattern"},
      {"fluvial", "uplift_floor", "the noise terrain's height is the uplift pattern"},
      {"fluvial", "deposition",
       "the relief is the stream-power steady state, with no sediment budget; basins whose rain "
       "does not fill them stay lakes ([fluvial] lake_evaporation)"},
      {"fluvial", "diffusion_m2_per_yr",
       "hillslopes are set by [fluvial] channel_cells and hillslope_curvature"},
  };
  return rows;
}

const RetiredKey* findRetired(std::string_view section, std::string_view key) {
  for (const RetiredKey& r : retiredKeys())
    if (r.section == section && r.key == key) return &r;
  return nullptr;
}

std::string retiredMessage(const RetiredKey& r) {
  return "[" + std::string(r.section) + "] " + std::string(r.key) +
         " is no longer a key: " + std::string(r.replaced_by) + " (docs/fluvial.md).";
}

std::string nearestKey(std::string_view section, std::string_view key) {
  std::string best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const KeySpec& s : schema()) {
    // Prefer keys of the same section; a key in another section costs one more edit. A key that
    // begins like the typed one (skirts -> skirt_depth_m) counts as one edit away.
    size_t common = 0;
    while (common < key.size() && common < s.key.size() && key[common] == s.key[common]) ++common;
    const size_t spelling =
        common >= std::min<size_t>(5, key.size()) ? 1 : editDistance(key, s.key);
    // Ties go to the longer common beginning.
    const size_t d =
        (spelling + (s.section == section ? 0 : 1)) * 64 + 63 - std::min<size_t>(common, 63);
    if (d < best_d) best_d = d, best = std::string(s.section) + "." + std::string(s.key);
  }
  return best;
}

std::string nearestSection(std::string_view section) {
  std::string best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const KeySpec& s : schema()) {
    const size_t d = editDistance(section, s.section);
    if (d < best_d) best_d = d, best = std::string(s.section);
  }
  return best;
}

const KeySpec* findKey(std::string_view section, std::string_view key) {
  for (const KeySpec& s : schema())
    if (s.section == section && s.key == key) return &s;
  return nullptr;
}

bool knownSection(std::string_view section) {
  return std::any_of(schema().begin(), schema().end(),
                     [&](const KeySpec& s) { return s.section == section; });
}

using detail::displayedText;

std::string nodeText(const toml::node& n) {
  std::ostringstream s;
  n.visit([&](auto&& v) { s << v; });
  return displayedText(s.str());
}

std::string where(const std::string& origin, const toml::source_region& src) {
  if (src.begin.line == 0) return origin;
  return origin + ":" + std::to_string(src.begin.line);
}

// The literal of a value as written in `text`, the TOML it was parsed from (its source region:
// 1-based line, and columns counted in code points, the end one past the last); "" if the
// region is not in the text.
std::string_view literalOf(const toml::node& value, std::string_view text) {
  const toml::source_region& where = value.source();
  size_t at = 0;
  for (size_t line = 1; line < where.begin.line; ++line) {
    at = text.find('\n', at);
    if (at == std::string_view::npos) return {};
    ++at;
  }
  const auto skipColumns = [&](size_t from, size_t columns) {
    for (; columns > 0 && from < text.size(); --columns) {
      ++from;
      while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
    }
    return from;
  };
  if (where.begin.line != where.end.line || where.end.column < where.begin.column) return {};
  const size_t begin = skipColumns(at, where.begin.column - 1);
  const size_t end = skipColumns(begin, where.end.column - where.begin.column);
  return text.substr(begin, end - begin);
}

// Whether a float literal names a number too close to 0 for a double: it parsed to 0 although
// its digits are not all 0 (1e-400), or to a subnormal number, which keeps only some of its
// digits (1e-310). toml++ refuses an overflow (1e400) itself but lets underflow pass.
bool underflows(const toml::node& value, std::string_view text) {
  const auto* number = value.as_floating_point();
  if (number == nullptr || !std::isfinite(number->get())) return false;
  if (std::fpclassify(number->get()) == FP_SUBNORMAL) return true;
  if (number->get() != 0.0) return false;
  const std::string_view literal = literalOf(value, text);
  const std::string_view mantissa = literal.substr(0, literal.find_first_of("eE"));
  return mantissa.find_first_of("123456789") != std::string_view::npos;
}

// The end of the message for a value that underflows.
std::string underflowText(const toml::node& value, const KeySpec& spec) {
  return "it is too close to 0 to be held as a number (it would become " + nodeText(value) +
         "); allowed: " + spec.allowed + ", and 0 or at least " +
         formatNumber(std::numeric_limits<double>::min()) + " in size.";
}

void assignOrThrow(Config& config, const KeySpec& spec, const toml::node& value,
                   const std::string& origin, std::string_view text) {
  if (!spec.assign(config, value)) {
    throw ConfigError(where(origin, value.source()) + ": [" + std::string(spec.section) + "] " +
                      std::string(spec.key) + " = " + nodeText(value) +
                      " is not allowed; allowed: " + spec.allowed + ".");
  }
  if (underflows(value, text)) {
    throw ConfigError(where(origin, value.source()) + ": [" + std::string(spec.section) + "] " +
                      std::string(spec.key) + " = " + displayedText(literalOf(value, text)) +
                      " is not allowed: " + underflowText(value, spec));
  }
}

void applyTable(Config& config, const toml::table& root, const std::string& origin,
                std::string_view text) {
  for (const auto& [section_key, section_node] : root) {
    const std::string section = displayedText(section_key.str());
    const auto* table = section_node.as_table();
    if (section_node.is_array_of_tables() && knownSection(section)) {
      throw ConfigError(where(origin, section_key.source()) + ": [[" + section +
                        "]] is an array of tables; the config has one table per section: write [" +
                        section + "].");
    }
    if (!table || !knownSection(section)) {
      const std::string hint =
          table ? " (did you mean [" + nearestSection(section) + "]?)"
                : " (keys belong in a [section]; did you mean " + nearestKey("", section) + "?)";
      throw ConfigError(where(origin, section_key.source()) + ": unknown " +
                        (table ? "section [" + section + "]" : "top-level key '" + section + "'") +
                        hint + ".");
    }
    for (const auto& [key, value] : *table) {
      const KeySpec* spec = findKey(section, key.str());
      if (const RetiredKey* retired = spec ? nullptr : findRetired(section, key.str())) {
        throw ConfigError(where(origin, key.source()) + ": " + retiredMessage(*retired));
      }
      if (!spec) {
        throw ConfigError(where(origin, key.source()) + ": unknown key '" +
                          displayedText(key.str()) + "' in [" + section + "]; did you mean " +
                          nearestKey(section, key.str()) + "?");
      }
      assignOrThrow(config, *spec, value, origin, text);
    }
  }
}

}  // namespace

Config loadConfig(const std::filesystem::path& file, std::span<const std::string> overrides) {
  const std::string origin = displayedText(file.string(), detail::kMaxShownPathChars);
  // Opened once and checked on the descriptor (a regular file, at most kMaxConfigFileBytes)
  // before a byte is read: a 2 GiB file used to be read whole into memory.
  std::string problem;
  const int fd = io::openInputFile(file, kMaxConfigFileBytes, problem);
  if (fd < 0) {
    throw ConfigError(origin + ": cannot read config file: " +
                      (problem == "does not exist" ? "no such file" : "it " + problem) + ".");
  }
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : 0;
      ::close(fd);
      if (error != 0)
        throw ConfigError(origin + ": cannot read config file: " + std::strerror(error) + ".");
      break;
    }
    text.append(buffer, size_t(n));
    if (text.size() > kMaxConfigFileBytes) {  // it grew while being read
      ::close(fd);
      throw ConfigError(origin + ": cannot read config file: it is larger than " +
                        std::to_string(kMaxConfigFileBytes) + " bytes.");
    }
  }
  return loadConfigText(text, origin, overrides);
}

namespace {

// toml++ parses a dotted key recursively, one stack frame per part: a key of some 30,000 parts
// (a 64 KB file) overflowed the stack. The config's keys have two parts ([section] key); a line
// whose key or table header has more than kMaxKeyParts is refused before parsing (toml++
// itself stops nested arrays and inline tables at 256 levels).
constexpr size_t kMaxKeyParts = 256;

void checkKeyDepth(const std::string& text, const std::string& origin) {
  size_t line = 1;
  for (size_t start = 0; start < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view row(text.data() + start, end - start);
    const size_t first = row.find_first_not_of(" \t");
    if (first != std::string_view::npos) {
      // A table header up to its ']', a key up to its '='.
      const size_t stop = row[first] == '[' ? row.find(']', first) : row.find('=', first);
      const std::string_view key =
          row.substr(first, stop == std::string_view::npos ? row.size() : stop - first);
      if (size_t(std::count(key.begin(), key.end(), '.')) >= kMaxKeyParts) {
        throw ConfigError(origin + ":" + std::to_string(line) + ": a key of more than " +
                          std::to_string(kMaxKeyParts) +
                          " dotted parts is not allowed; the config's keys are [section] key.");
      }
    }
    start = end + 1;
  }
}

}  // namespace

Config loadConfigText(const std::string& text, const std::string& origin,
                      std::span<const std::string> overrides) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw ConfigError(origin +
                      ": the config file is empty (taken for a mistake, such as a file cut "
                      "short); write at least one key or a comment to run on the defaults "
                      "(planetgen config --print-default prints them).");
  }
  if (text.find('\0') != std::string::npos) {
    throw ConfigError(origin + ": not a TOML text file (it contains NUL bytes).");
  }
  checkKeyDepth(text, origin);
  Config config;
  try {
    const toml::table root = toml::parse(text, origin);
    applyTable(config, root, origin, text);
  } catch (const toml::parse_error& e) {
    throw ConfigError(origin + ":" + std::to_string(e.source().begin.line) + ":" +
                      std::to_string(e.source().begin.column) +
                      ": TOML syntax error: " + std::string(e.description()) + ".");
  }
  for (const std::string& expression : overrides) applyOverride(config, expression);
  const std::string from = originWithOverrides(origin, overrides);
  if (const std::string problem =
          planet_export::glbOptionsProblem(config.planet.frequency, glbOptions(config.output));
      !problem.empty()) {
    throw ConfigError(from + ": [export] " + problem);
  }
  try {
    weather::validate(config.weather.clouds);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(from + ": " + e.what());
  }
  return config;
}

std::string originWithOverrides(const std::string& origin, std::span<const std::string> overrides) {
  std::string text = origin;
  for (size_t i = 0; i < overrides.size(); ++i)
    text += (i == 0 ? " with --set " : " --set ") + displayedText(overrides[i]);
  return text;
}

void applyOverride(Config& config, const std::string& expression) {
  const std::string origin = "--set " + displayedText(expression);
  const size_t eq = expression.find('=');
  const size_t dot = expression.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 ||
      dot + 1 == eq || eq + 1 == expression.size()) {
    throw ConfigError(origin +
                      ": malformed override; expected section.key=value, e.g. "
                      "--set erosion.droplets=200000.");
  }
  auto trim = [](std::string s) {
    s.erase(0, s.find_first_not_of(" \t"));
    s.erase(s.find_last_not_of(" \t") + 1);
    return s;
  };
  const std::string section = trim(expression.substr(0, dot));
  const std::string key = trim(expression.substr(dot + 1, eq - dot - 1));
  const std::string value = trim(expression.substr(eq + 1));
  const KeySpec* spec = findKey(section, key);
  if (const RetiredKey* retired = spec ? nullptr : findRetired(section, key)) {
    throw ConfigError(origin + ": " + retiredMessage(*retired));
  }
  if (!spec) {
    throw ConfigError(origin + ": unknown key '" + displayedText(section + "." + key) +
                      "'; did you mean " + nearestKey(section, key) + "?");
  }
  toml::table parsed;
  try {
    parsed = toml::parse("v = " + value, origin);
  } catch (const toml::parse_error&) {
    // A bare word is taken as a string, so --set ocean.mode=level works without quotes.
    if (value.find_first_of("\"'=[]{}\n") != std::string::npos) {
      throw ConfigError(origin + ": the value '" + displayedText(value) +
                        "' is not a TOML value; allowed: " + spec->allowed + ".");
    }
    parsed.insert("v", value);
  }
  if (parsed.size() != 1 || !parsed.contains("v")) {
    throw ConfigError(origin + ": the value '" + displayedText(value) +
                      "' is not a single TOML value.");
  }
  if (!spec->assign(config, *parsed.get("v"))) {
    throw ConfigError(origin + ": [" + section + "] " + key + " = " + displayedText(value) +
                      " is not allowed; allowed: " + spec->allowed + ".");
  }
  if (underflows(*parsed.get("v"), "v = " + value)) {
    throw ConfigError(origin + ": [" + section + "] " + key + " = " + displayedText(value) +
                      " is not allowed: " + underflowText(*parsed.get("v"), *spec));
  }
}

std::string configToJson(const Config& config) {
  Json j = Json::object();
  for (const KeySpec& s : schema()) j[std::string(s.section)][std::string(s.key)] = s.dump(config);
  return j.dump();
}

std::string configToToml(const Config& config) {
  std::string out, section;
  for (const KeySpec& s : schema()) {
    if (s.section != section) {
      section = s.section;
      out += (out.empty() ? "[" : "\n[") + section + "]\n";
    }
    // JSON's numbers, booleans and plain strings are TOML's too (doubles keep their point or
    // exponent, so a float stays a float).
    out += std::string(s.key) + " = " + s.dump(config).dump() + "\n";
  }
  return out;
}

std::vector<ConfigKeyInfo> configSchema() {
  const Config defaults;
  std::vector<ConfigKeyInfo> keys;
  for (const KeySpec& s : schema()) {
    keys.push_back(
        {std::string(s.section), std::string(s.key), s.allowed, s.dump(defaults).dump()});
  }
  return keys;
}

std::vector<std::string> configKeys() {
  std::vector<std::string> keys;
  for (const KeySpec& s : schema())
    keys.push_back(std::string(s.section) + "." + std::string(s.key));
  return keys;
}

const char* rainModeName(RainMode mode) {
  return mode == RainMode::kClouds ? "clouds" : "uniform";
}

planet_export::GlbOptions glbOptions(const OutputParams& output) {
  planet_export::GlbOptions options;
  options.chunks = output.chunks;
  options.skirt_depth_m = output.skirt_depth_m;
  options.lods = output.lods;
  options.quantize = output.quantize;
  options.meshopt = output.meshopt;
  options.tangents = output.tangents;
  options.metres_per_unit = output.units == FileUnits::kKilometres ? 1000.0 : 1.0;
  options.collision = output.collision;
  return options;
}

}  // namespace planet
