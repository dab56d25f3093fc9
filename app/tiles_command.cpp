#include "app/tiles_command.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include <tbb/global_control.h>
#include <CLI/CLI.hpp>

#include "app/cli.h"
#include "geodesy/icosahedron.h"
#include "io/atomic_file.h"
#include "io/signals.h"
#include "planet/planetgen.h"
#include "planet/run_checks.h"
#include "planet/tile_bake.h"
#include "planet/tile_compare.h"

namespace app {
namespace {

// A flag's value that is not allowed: the flag, the value, what is allowed.
struct BadFlag {
  std::string message;
};

[[noreturn]] void bad(const std::string& flag, const std::string& value,
                      const std::string& allowed) {
  throw BadFlag{flag + " " + (value.empty() ? "''" : value) +
                " is not allowed; allowed: " + allowed + "."};
}

std::string number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

std::optional<double> parseNumber(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return std::nullopt;
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

std::optional<long> parseInteger(const std::string& text) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-'))
    return std::nullopt;
  char* end = nullptr;
  const long x = std::strtol(text.c_str(), &end, 10);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return x;
}

struct Checked {
  double lat_deg = 0.0, lon_deg = 0.0;
  double radius_km = 0.0;
  double spacing_m = 0.0;
  int shard = 0, shards = 1;
  int threads = 0;  // 0: all cores
  std::optional<int> tile_edge;
};

// The checks that need no planet.
Checked checkSyntax(const TilesArgs& a) {
  Checked c;
  const std::string center_allowed =
      "LAT,LON in degrees, latitude in [-90, 90], longitude in [-180, 180]";
  const size_t comma = a.center.find(',');
  if (comma == std::string::npos) bad("--center", a.center, center_allowed);
  const auto lat = parseNumber(a.center.substr(0, comma));
  const auto lon = parseNumber(a.center.substr(comma + 1));
  if (!lat || !lon || *lat < -90.0 || *lat > 90.0 || *lon < -180.0 || *lon > 180.0)
    bad("--center", a.center, center_allowed);
  c.lat_deg = *lat, c.lon_deg = *lon;

  const auto radius = parseNumber(a.radius_km);
  if (!radius || *radius <= 0.0)
    bad("--radius-km", a.radius_km, "a number above 0 (km along the surface)");
  c.radius_km = *radius;
  const auto spacing = parseNumber(a.spacing_m);
  if (!spacing || *spacing < 0.5)
    bad("--spacing-m", a.spacing_m, "a number of at least 0.5 (metres between tile vertices)");
  c.spacing_m = *spacing;
  if (const double most = tiles::TileErosionParams{}.max_spacing_m;
      a.compare_rain && c.spacing_m > most) {
    bad("--spacing-m", a.spacing_m,
        "with --compare-rain at most " + number(most) +
            " (metres: the tiles erode the levels of that spacing and finer)");
  }

  if (!a.shard.empty()) {
    const std::string allowed = "K/N with integers 0 <= K < N <= 100000";
    const size_t slash = a.shard.find('/');
    if (slash == std::string::npos) bad("--shard", a.shard, allowed);
    const auto k = parseInteger(a.shard.substr(0, slash));
    const auto n = parseInteger(a.shard.substr(slash + 1));
    if (!k || !n || *n < 1 || *n > 100000 || *k < 0 || *k >= *n) bad("--shard", a.shard, allowed);
    c.shard = int(*k), c.shards = int(*n);
  }
  if (!a.threads.empty()) {
    const auto t = parseInteger(a.threads);
    if (!t || *t < 1 || *t > 1024) bad("--threads", a.threads, "an integer in [1, 1024]");
    c.threads = int(*t);
  }
  if (!a.tile_edge.empty()) {
    const auto t = parseInteger(a.tile_edge);
    if (!t || *t < 2 || *t > tiles::kMaxTileEdge)
      bad("--tile-edge", a.tile_edge,
          "an integer in [2, " + std::to_string(tiles::kMaxTileEdge) + "] (lattice steps)");
    c.tile_edge = int(*t);
  }
  return c;
}

// The checks against the planet: its size, its own spacing, the deepest level.
void checkAgainstPlanet(const TilesArgs& a, const Checked& c, const planetgen::Config& config) {
  const double radius_m = config.planet.radius_m;
  const double half_round_km = M_PI * radius_m / 1000.0;
  if (c.radius_km > half_round_km) {
    bad("--radius-km", a.radius_km,
        "above 0 and at most " + number(half_round_km) +
            " (half the planet's circumference: the whole planet)");
  }
  const int f = config.planet.frequency;
  const double planet_spacing = geodesy::icosahedron().edge_arc / double(f) * radius_m;
  if (c.spacing_m > planet_spacing) {
    bad("--spacing-m", a.spacing_m,
        "0.5 to " + number(planet_spacing) + " (the planet's own spacing at frequency " +
            std::to_string(f) + "; tiles are finer)");
  }
  const tiles::TileLayout layout(f, c.tile_edge.value_or(config.tiles.generator.tile_edge));
  const int deepest = layout.deepestLevel();
  const double finest = layout.levelSpacingRad(deepest) * radius_m;
  if (c.spacing_m < finest) {
    bad("--spacing-m", a.spacing_m,
        "at least " + number(finest) + " (level " + std::to_string(deepest) +
            ", the deepest tile level of this planet: lattice ids hold 29 bits a coordinate)");
  }
}

int fail(int code, const std::string& message) {
  std::cerr << "planetgen: error: " << message << "\n";
  return code;
}

// --compare-rain: the region's tiles under the planet's rain and under uniform rain.
int runCompareRain(const TilesArgs& args, const Checked& checked, const planetgen::Planet& planet,
                   Verbosity verbosity, std::chrono::steady_clock::time_point start, int threads) {
  planet::TileCompareOptions options;
  options.region = {checked.lat_deg, checked.lon_deg, checked.radius_km * 1000.0};
  options.spacing_m = checked.spacing_m;
  planet::TileCompareResult result;
  try {
    tiles::TileParams params = planet.config().tiles.generator;
    if (checked.tile_edge) params.tile_edge = *checked.tile_edge;
    result = planet::compareTileRain(planet, params, options, args.out_dir);
  } catch (const planetgen::ConfigError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const std::bad_alloc&) {
    return fail(kExitTooLarge, "out of memory while comparing the tiles' rain.");
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  }
  if (verbosity != Verbosity::kQuiet) {
    std::printf(
        "planetgen: compared %zu tiles (level %d, %.3g m spacing) under the planet's rain and "
        "uniform rain, to %s in %.1f s on %d threads\n",
        result.tiles, result.level, result.spacing_m, args.out_dir.c_str(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), threads);
  }
  for (const std::string& warning : result.warnings)
    std::cerr << "planetgen: warning: " << warning << "\n";
  return kExitOk;
}

}  // namespace

std::vector<std::string> joinNegativeValues(std::vector<std::string> args) {
  for (size_t k = 0; k + 1 < args.size(); ++k) {
    const std::string& next = args[k + 1];
    const bool negative = next.size() > 1 && next[0] == '-' &&
                          (std::isdigit(static_cast<unsigned char>(next[1])) || next[1] == '.');
    if (negative &&
        (args[k] == "--center" || args[k] == "--radius-km" || args[k] == "--spacing-m")) {
      args[k] += "=" + next;
      args.erase(args.begin() + std::ptrdiff_t(k) + 1);
    }
  }
  return args;
}

CLI::App* addTilesCommand(CLI::App& app, TilesArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "tiles", "Bake a region of a planet as 3D Tiles (glb) with per-tile heightmaps");
  cmd->add_option("--config", args.config_file,
                  "TOML config file (default: the built-in configs/default.toml)");
  cmd->add_option("--planet", args.planet_file,
                  "Planet file (planetgen::savePlanet) instead of generating the planet");
  cmd->add_option("--center", args.center, "Centre of the region: LAT,LON in degrees")->required();
  cmd->add_option("--radius-km", args.radius_km, "Radius of the region (km along the surface)")
      ->required();
  cmd->add_option("--spacing-m", args.spacing_m,
                  "Largest vertex spacing of the finest tiles (m, at least 0.5)")
      ->required();
  cmd->add_option("--out", args.out_dir, "Output folder")->required();
  cmd->add_option("--shard", args.shard, "Make shard K of N (0 <= K < N) of the bake")
      ->type_name("K/N");
  cmd->add_option("--threads", args.threads, "Worker threads (default: all cores)")
      ->type_name("INT");
  cmd->add_option("--tile-edge", args.tile_edge, "Overrides [tiles] tile_edge")->type_name("INT");
  cmd->add_option("--set", args.overrides,
                  "Override a config key: section.key=value (not with --planet, whose file "
                  "holds its config)")
      ->allow_extra_args(false);
  cmd->add_flag("--compare-rain", args.compare_rain,
                "Instead of a tileset: the region's tiles eroded under the planet's rain and "
                "under uniform rain, pictures and metrics.json");
  return cmd;
}

int runTiles(const TilesArgs& args, Verbosity verbosity) {
  io::markOutputRun();
  const auto start = std::chrono::steady_clock::now();
  Checked checked;
  try {
    checked = checkSyntax(args);
  } catch (const BadFlag& e) {
    return fail(kExitBadInput, e.message);
  }
  if (args.compare_rain && !args.shard.empty())
    return fail(kExitBadInput, "--shard " + args.shard +
                                   " is not allowed with --compare-rain; allowed: no --shard "
                                   "(the comparison is made whole).");
  if (!args.planet_file.empty() && !args.overrides.empty())
    return fail(kExitBadInput, "--set " + args.overrides.front() +
                                   " is not allowed with --planet " + args.planet_file +
                                   "; allowed: --set with --config or the built-in config (a "
                                   "planet file holds the config it was made from).");
  if (const std::string problem = io::outputFolderProblem(args.out_dir); !problem.empty())
    return fail(kExitBadInput, "--out " + args.out_dir + " " + problem + ".");

  std::optional<tbb::global_control> limit;
  if (checked.threads > 0)
    limit.emplace(tbb::global_control::max_allowed_parallelism, size_t(checked.threads));
  const int threads =
      int(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));

  planetgen::Planet planet;
  try {
    std::optional<planetgen::Config> config;
    if (!args.config_file.empty() || args.planet_file.empty())
      config = loadCommandConfig(args.config_file, args.overrides);
    if (!args.planet_file.empty()) {
      planet = config ? planetgen::loadPlanet(args.planet_file, *config)
                      : planetgen::loadPlanet(args.planet_file);
    }
    const planetgen::Config& settings = config ? *config : planet.config();
    checkAgainstPlanet(args, checked, settings);
    if (args.planet_file.empty()) {
      planet::checkRun(settings,
                       planet::originWithOverrides(configOrigin(args.config_file), args.overrides));
      if (verbosity == Verbosity::kVerbose)
        std::cerr << "planetgen: generating the planet (f = " << settings.planet.frequency << ")\n";
      planet = planetgen::generate(settings);
      if (verbosity == Verbosity::kVerbose)
        std::cerr << "planetgen: planet ready after "
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
                  << " s\n";
    }
  } catch (const BadFlag& e) {
    return fail(kExitBadInput, e.message);
  } catch (const planetgen::ConfigError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const std::bad_alloc&) {
    return fail(kExitTooLarge, "out of memory; try a smaller [planet] frequency.");
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  }

  if (args.compare_rain) return runCompareRain(args, checked, planet, verbosity, start, threads);
  planet::TileBakeOptions options;
  options.region = {checked.lat_deg, checked.lon_deg, checked.radius_km * 1000.0};
  options.spacing_m = checked.spacing_m;
  options.shard = checked.shard;
  options.shards = checked.shards;
  options.skirts = planet.config().tiles.skirts;
  options.sea_level_m = planet.seaLevelM();
  options.threads = threads;
  if (verbosity == Verbosity::kVerbose) {
    options.on_tile = [](size_t done, size_t total) {
      if (done == total || done % 50 == 0)
        std::cerr << "planetgen: tiles " << done << "/" << total << "\n";
    };
  }
  planet::TileBakeResult result;
  try {
    tiles::TileParams params = planet.config().tiles.generator;
    if (checked.tile_edge) params.tile_edge = *checked.tile_edge;
    const tiles::TileGenerator generator = planetgen::makeTileGenerator(planet, params);
    planet = {};  // the generator holds what it needs
    result = planet::bakeTiles(generator, options, args.out_dir);
  } catch (const planetgen::ConfigError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const std::invalid_argument& e) {
    return fail(kExitBadInput, std::string("--spacing-m ") + args.spacing_m + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return fail(kExitTooLarge, "out of memory while baking tiles.");
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (verbosity != Verbosity::kQuiet) {
    std::printf(
        "planetgen: baked %zu of %zu tiles (level %d, %.3g m spacing; %zu at that level cover "
        "the region), %llu vertices, to %s in %.1f s on %d threads",
        result.shard_tiles, result.plan_tiles, result.level, result.spacing_m, result.region_tiles,
        static_cast<unsigned long long>(result.vertices), args.out_dir.c_str(), seconds, threads);
    if (checked.shards > 1) std::printf(" (shard %d/%d)", checked.shard, checked.shards);
    std::printf("\n");
  }
  for (const std::string& warning : result.warnings)
    std::cerr << "planetgen: warning: " << warning << "\n";
  return kExitOk;
}

}  // namespace app
