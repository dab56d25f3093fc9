// The library's front door (planet/planetgen.h): the default config, generate with its progress
// and cancel hooks, writeOutputs, and the planet file (savePlanet, loadPlanet).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "planet/planetgen.h"
#include "planetgen_version.h"
#include "support/support.h"

namespace fs = std::filesystem;

namespace {

// A small planet with every stage on: clouds, the fluvial stage, droplets.
planetgen::Config smallConfig() {
  planetgen::Config c = planetgen::defaultConfig();
  c.planet.frequency = 32;
  c.planet.seed = 5;
  c.output.map_width = 128;
  return c;
}

std::string readBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The planet file's checksum (planet/planet_file.cpp): FNV-1a over 64-bit words, then the tail
// bytes, folded. Written out here so that a test can change a file and keep it self-consistent.
uint64_t planetFileChecksum(const std::string& b, size_t n) {
  uint64_t h = 1469598103934665603ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, b.data() + i, 8);
    h = (h ^ word) * 1099511628211ull;
  }
  for (; i < n; ++i) h = (h ^ uint8_t(b[i])) * 1099511628211ull;
  return h ^ (h >> 29);
}

void resign(std::string& bytes) {
  const uint64_t sum = planetFileChecksum(bytes, bytes.size() - 8);
  std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
}

std::string errorOf(const fs::path& file) {
  try {
    planetgen::loadPlanet(file);
  } catch (const planetgen::ConfigError& e) {
    return e.what();
  }
  return "";
}

bool sameFloats(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

}  // namespace

TEST_CASE("planetgen: the default config is Config{}", "[planet][planetgen]") {
  CHECK(planet::configToJson(planetgen::defaultConfig()) == planet::configToJson({}));
}

TEST_CASE("planetgen: generate reports each stage in order and can be cancelled",
          "[planet][planetgen]") {
  planetgen::Config config = smallConfig();
  std::vector<std::string> stages;
  std::vector<double> fractions;
  planetgen::GenerateOptions options;
  options.on_progress = [&](std::string_view stage, double fraction) {
    stages.emplace_back(stage);
    fractions.push_back(fraction);
  };
  const planetgen::Planet planet = planetgen::generate(config, options);
  REQUIRE(stages.size() >= 5);
  CHECK(stages.front() == "icosphere");
  CHECK(std::find(stages.begin(), stages.end(), "terrain") != stages.end());
  CHECK(std::is_sorted(fractions.begin(), fractions.end()));
  CHECK(fractions.back() < 1.0);
  CHECK(planet.vertexCount() == 10 * 32 * 32 + 2);
  CHECK(planet.unitPositions().size() == planet.vertexCount());
  CHECK(planet.triangles().size() == 3 * 20 * 32 * 32);
  CHECK(planet.rainfall().size() == planet.vertexCount());
  CHECK(!sameFloats(planet.elevationM(), planet.initialElevationM()));  // it eroded

  // Cancelled at the third stage boundary: generate stops with Cancelled.
  int asked = 0;
  planetgen::GenerateOptions cancel;
  cancel.cancelled = [&] { return ++asked >= 3; };
  CHECK_THROWS_AS(planetgen::generate(config, cancel), planetgen::Cancelled);
  CHECK(asked == 3);

  // Settings that fail together are refused before any work.
  config.planet.radius_m = 1000.0;
  CHECK_THROWS_AS(planetgen::generate(config), planetgen::ConfigError);
}

TEST_CASE("planetgen: a saved planet loads back bit for bit and writes the same files",
          "[planet][planetgen]") {
  const test_support::TempDir dir("planetgen_file");
  const planetgen::Planet planet = planetgen::generate(smallConfig());
  const fs::path file = dir.path / "small.planet";
  planetgen::savePlanet(planet, file);
  // About 20 bytes per vertex (five float arrays: elevation, initial elevation, change,
  // rainfall, water level; droplet_density is empty) and a header.
  CHECK(fs::file_size(file) > 20 * planet.vertexCount());
  CHECK(fs::file_size(file) < 20 * planet.vertexCount() + 8192);

  const planetgen::Planet back = planetgen::loadPlanet(file);
  CHECK(back.elevationHash() == planet.elevationHash());
  CHECK(sameFloats(back.elevationM(), planet.elevationM()));
  CHECK(sameFloats(back.initialElevationM(), planet.initialElevationM()));
  CHECK(sameFloats(back.rainfall(), planet.rainfall()));
  CHECK(sameFloats(back.waterLevelM(), planet.waterLevelM()));
  CHECK(back.seaLevelM() == planet.seaLevelM());
  CHECK(planet::configToJson(back.config()) == planet::configToJson(planet.config()));
  CHECK(std::equal(back.triangles().begin(), back.triangles().end(), planet.triangles().begin(),
                   planet.triangles().end()));

  // Every output file of the loaded planet equals the generated one's; summary.json too, but
  // for the timings and the memory of the process that wrote it.
  planetgen::writeOutputs(planet, dir.path / "generated");
  planetgen::writeOutputs(back, dir.path / "loaded");
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path / "generated")) {
    const std::string name = entry.path().filename().string();
    INFO(name);
    ++files;
    if (name == "summary.json") {
      auto a = nlohmann::json::parse(readBytes(entry.path()));
      auto b = nlohmann::json::parse(readBytes(dir.path / "loaded" / name));
      for (auto* j : {&a, &b}) {
        j->erase("timings");
        j->erase("export_outputs_s");
        j->erase("peak_rss_bytes");
      }
      CHECK(a == b);
    } else {
      CHECK(readBytes(entry.path()) == readBytes(dir.path / "loaded" / name));
    }
  }
  CHECK(files >= 10);

  // The icosphere of a loaded planet is built once, whichever thread asks first.
  const planetgen::Planet again = planetgen::loadPlanet(file);
  std::vector<const glm::vec3*> seen(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] { seen[t] = again.unitPositions().data(); });
  for (std::thread& t : threads) t.join();
  CHECK(std::count(seen.begin(), seen.end(), seen[0]) == 4);
}

TEST_CASE("planetgen: bad planet files are refused, naming the file and the problem",
          "[planet][planetgen]") {
  const test_support::TempDir dir("planetgen_bad");
  const planetgen::Config config = smallConfig();
  const planetgen::Planet planet = planetgen::generate(config);
  const fs::path good = dir.path / "good.planet";
  planetgen::savePlanet(planet, good);
  const std::string bytes = readBytes(good);
  const fs::path bad = dir.path / "bad.planet";

  CHECK_THAT(errorOf(dir.path / "missing.planet"),
             Catch::Contains("missing.planet") && Catch::Contains("does not exist"));
  CHECK_THAT(errorOf(dir.path), Catch::Contains("is a folder"));

  writeBytes(bad, bytes.substr(0, bytes.size() / 2));
  CHECK_THAT(errorOf(bad), Catch::Contains("bad.planet") && Catch::Contains("truncated"));

  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x10;  // a bit of an elevation
  writeBytes(bad, flipped);
  CHECK_THAT(errorOf(bad), Catch::Contains("corrupt"));

  writeBytes(bad, "not a planet at all, but long enough to have a header");
  CHECK_THAT(errorOf(bad), Catch::Contains("is not a planet file"));

  // Another planetgen version (the header names it), the checksum made to match.
  std::string other = bytes;
  const std::string version = "\"version\":\"" + std::string(planetgen::kVersion) + "\"";
  const size_t at = other.find(version);
  REQUIRE(at != std::string::npos);
  std::string fake(planetgen::kVersion);  // the same length: 0.1.0 -> 9.9.9
  for (char& c : fake)
    if (c != '.') c = '9';
  other.replace(at + 11, fake.size(), fake);
  resign(other);
  writeBytes(bad, other);
  CHECK_THAT(errorOf(bad),
             Catch::Contains("planetgen " + fake) &&
                 Catch::Contains(std::string("this is planetgen ") + planetgen::kVersion));

  // Another format.
  std::string format = bytes;
  format[8] = 7;
  resign(format);
  writeBytes(bad, format);
  CHECK_THAT(errorOf(bad), Catch::Contains("format 7"));

  // Made from other settings than the caller expects.
  planetgen::Config other_seed = config;
  other_seed.planet.seed = 6;
  try {
    planetgen::loadPlanet(good, other_seed);
    FAIL("another seed was accepted");
  } catch (const planetgen::ConfigError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("planet.seed = 5 in the file, 6 expected"));
  }
  CHECK_NOTHROW(planetgen::loadPlanet(good, config));
}

TEST_CASE("planetgen: a loaded planet makes the generated planet's tiles, bit for bit",
          "[planet][planetgen]") {
  const test_support::TempDir dir("planetgen_tiles");
  // Seed 1: the fluvial stage keeps only endorheic lakes, and seed 5's small planet has none.
  planetgen::Config config = smallConfig();
  config.planet.seed = 1;
  const planetgen::Planet planet = planetgen::generate(config);
  // Lakes: the water stands above the ground somewhere, and never below it.
  size_t lake = 0;
  for (size_t v = 0; v < planet.vertexCount(); ++v) {
    REQUIRE(planet.waterLevelM()[v] >= planet.elevationM()[v]);
    lake += planet.waterLevelM()[v] > planet.elevationM()[v];
  }
  CHECK(lake > 0);
  planetgen::savePlanet(planet, dir.path / "small.planet");
  const planetgen::Planet back = planetgen::loadPlanet(dir.path / "small.planet");
  const tiles::TileGenerator made = planetgen::makeTileGenerator(planet);
  const tiles::TileGenerator loaded = planetgen::makeTileGenerator(back);
  CHECK(made.layout().tileEdge() == planet.config().tiles.generator.tile_edge);
  // A tile coarser than the planet, one on the highest ground at 30 m, and one in a lake.
  const auto top = std::max_element(planet.elevationM().begin(), planet.elevationM().end());
  size_t in_lake = 0;
  while (planet.waterLevelM()[in_lake] <= planet.elevationM()[in_lake]) ++in_lake;
  const int fine = made.layout().levelForSpacing(30.0, planet.radiusM());
  const std::vector<tiles::TileId> ids = {
      {3, 1, 2},
      made.tileAt(glm::dvec3(planet.unitPositions()[size_t(top - planet.elevationM().begin())]),
                  fine),
      made.tileAt(glm::dvec3(planet.unitPositions()[in_lake]), fine - 2)};
  for (const tiles::TileId& id : ids) {
    INFO("tile " << id.base << " " << id.level << " " << id.index);
    const tiles::TileMesh a = made.generate(id), b = loaded.generate(id);
    CHECK(sameFloats(a.height_m, b.height_m));
    CHECK(sameFloats(a.parent_height_m, b.parent_height_m));
    CHECK(std::memcmp(a.normals.data(), b.normals.data(), a.normals.size() * 12) == 0);
    CHECK(std::memcmp(a.positions_m.data(), b.positions_m.data(), a.positions_m.size() * 12) == 0);
    CHECK(a.centre_m == b.centre_m);
  }
  // Other tile parameters than the config's: still the same for both.
  const tiles::TileParams coarse{64, {}, {}};
  CHECK(sameFloats(planetgen::makeTileGenerator(planet, coarse).generate(ids[1]).height_m,
                   planetgen::makeTileGenerator(back, coarse).generate(ids[1]).height_m));
  CHECK_THROWS_AS(planetgen::makeTileGenerator(planet, tiles::TileParams{1, {}, {}}),
                  planetgen::ConfigError);
  CHECK_THROWS_AS(planetgen::makeTileGenerator(planetgen::Planet{}), planetgen::ConfigError);
}
