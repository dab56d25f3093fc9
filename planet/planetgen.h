#pragma once
// planetgen, the library's front door: the default planet's settings, generating a planet with
// progress and cancel hooks, writing its files, and saving and loading it as one file a game
// ships. One header, one namespace; the stages' own headers (geodesy/, terrain/, weather/,
// hydrology/, erosion/, metrics/, export/) stay available to tool authors.
//
// Threads: the library never creates threads. Parallel stages run in the caller's oneTBB arena
// (wrap a call in a tbb::task_arena to bound them), and every result is bit-identical for any
// thread count. Errors: bad settings or files throw ConfigError (the message names the file,
// key, value and what is allowed); a failed write throws std::runtime_error naming the path.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec3.hpp>

#include "planet/config.h"
#include "tiles/tile_generator.h"

namespace planet {
struct PlanetState;
}  // namespace planet

namespace planetgen {

// Every setting of a run, one struct per config section (docs/config.md lists each key).
using Config = planet::Config;
// Bad settings or input files; the message says what is allowed.
using ConfigError = planet::ConfigError;

// The default planet's settings: configs/default.toml as built into the library, equal to
// Config{}.
Config defaultConfig();

// A TOML config file, then each override "section.key=value" in order (keys not in the file
// keep their defaults). Throws ConfigError naming the file, line, key, value and what is allowed.
Config loadConfig(const std::filesystem::path& file, std::span<const std::string> overrides = {});

// Thrown by generate when GenerateOptions::cancelled asked it to stop.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("planetgen: generate was cancelled") {}
};

struct GenerateOptions {
  // Called on the calling thread as each stage starts, with its name ("terrain", "weather, epoch
  // 2/4", "erosion (fluvial, droplets), epoch 2/4", ...) and the share of the run done so far,
  // in [0, 1) (an estimate from the default planet's stage times).
  std::function<void(std::string_view stage, double fraction)> on_progress;
  // Asked at every stage boundary (at least once per weather epoch); returning true stops the
  // run there and generate throws Cancelled.
  std::function<bool()> cancelled;
};

// A generated (or loaded) planet: the icosphere and its per-vertex fields. Cheap to copy (the
// data is shared and never changes). Thread-safe: every member may be called concurrently.
class Planet {
 public:
  Planet();  // empty: vertexCount() == 0
  ~Planet();
  Planet(const Planet&);
  Planet& operator=(const Planet&);

  const Config& config() const;
  int frequency() const;     // icosphere frequency f: 10 f^2 + 2 vertices
  double radiusM() const;    // sphere radius, metres
  double seaLevelM() const;  // elevations below it are sea
  size_t vertexCount() const;

  // Vertex positions on the unit sphere (+Y north, longitude 0 on +X); a vertex at elevation e
  // sits at (radius + e) * position. Counter-clockwise triangles seen from outside, 3 indices
  // each. (A loaded planet builds its icosphere on the first call of these two.)
  std::span<const glm::vec3> unitPositions() const;
  std::span<const uint32_t> triangles() const;
  // Per vertex: the final elevation (m), the noise terrain before erosion (m), the rain that
  // fell (droplets per steradian; empty when nothing eroded).
  std::span<const float> elevationM() const;
  std::span<const float> initialElevationM() const;
  std::span<const float> rainfall() const;
  // Per vertex: the water surface (m), the elevation raised to the lake's level where a closed
  // depression holds a lake (hydrology::routeFlow). A loaded planet has it from its file; a
  // generated one routes its flow on the first call (about a second at f = 512).
  std::span<const float> waterLevelM() const;
  // FNV-1a 64 of the final elevations' bytes, as summary.json's elevation_hash: equal hashes
  // mean bit-identical planets.
  std::string elevationHash() const;

  // The pipeline's own record of the planet, for the library's modules.
  const planet::PlanetState& state() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  friend Planet generate(const Config&, const GenerateOptions&);
  friend std::vector<std::string> writeOutputs(const Planet&, const std::filesystem::path&);
  friend void savePlanet(const Planet&, const std::filesystem::path&);
  friend Planet loadPlanet(const std::filesystem::path&);
};

// Icosphere, terrain, ocean, weather, the fluvial stage and droplet erosion, as `planetgen
// generate` runs them. Throws ConfigError for settings that do not work together (for example a
// radius below four times the relief), Cancelled when options.cancelled says so.
Planet generate(const Config& config, const GenerateOptions& options = {});

// Writes planet.glb, the maps, rivers.geojson, masks and summary.json (those the planet's
// [export] and [rivers] settings ask for) into `folder`, all or nothing: the files appear
// together when done, an earlier run's files are replaced, the user's own files are kept.
// Returns warnings for the user (files of theirs that could not be put back). Throws
// std::runtime_error naming the path when a write fails; the folder is then unchanged.
std::vector<std::string> writeOutputs(const Planet& planet, const std::filesystem::path& folder);

// The planet as one binary file (planet file format 2: the config, the per-vertex fields and the
// statistics, little-endian, with a checksum; about 24 bytes per vertex), written atomically.
// Loading it takes milliseconds: the icosphere is rebuilt only when asked for. A file that is
// truncated, corrupt, or written by another planetgen version is refused with ConfigError
// naming the file and the problem; so is, with `expected`, a file made from other settings.
void savePlanet(const Planet& planet, const std::filesystem::path& file);
Planet loadPlanet(const std::filesystem::path& file);
Planet loadPlanet(const std::filesystem::path& file, const Config& expected);

// Tiles: any region of the planet at any level of detail, on demand (docs/tiles.md). The
// generator is built once from the planet's final elevation, sea level, lake levels
// (waterLevelM) and the terrain's noise spectrum, with the config's [tiles] settings or
// `params`; it copies what it needs, so the planet may be dropped afterwards. Then
// generator.generate(id) is a const, thread-safe call a game makes from its own worker threads,
// the same bits for a generated planet and for the same planet saved and loaded. Building it
// takes 0.1-0.3 s at f = 512. Throws ConfigError for params the planet cannot use (a tile edge
// out of range) or an empty planet. The tiles' erosion takes its rivers' threshold, runoff and
// widths from the config's [rivers], as rivers.geojson does (over those of `params`).
tiles::TileGenerator makeTileGenerator(const Planet& planet);
tiles::TileGenerator makeTileGenerator(const Planet& planet, const tiles::TileParams& params);

}  // namespace planetgen
