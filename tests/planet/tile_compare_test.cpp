// planetgen tiles --compare-rain (planet/tile_compare.h): a region's tiles eroded under the
// planet's rain and under uniform rain, from one planet. The pictures read back by stb_image
// at the size metrics.json's run says; under uniform weather the two runs are the same bits
// (uniform rain is the planet's mean over land, which is its rain everywhere then), under
// clouds they differ; thread counts change no byte; a level the tiles do not erode and a region
// of too many tiles are refused.

#include <filesystem>
#include <map>
#include <string>

#include <stb_image.h>
#include <tbb/global_control.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "planet/config.h"
#include "planet/planetgen.h"
#include "planet/tile_compare.h"
#include "support/support.h"

namespace fs = std::filesystem;

namespace {

// A small planet (f = 32, 2000 km, tiles of 32 steps: level 10 is 67.6 m) and a region of
// 1.5 km on a mountain flank (the tiles viewer test's).
const planetgen::Planet& smallPlanet(const std::string& weather) {
  static std::map<std::string, planetgen::Planet> made;
  if (made.count(weather)) return made[weather];
  planetgen::Config config = planet::loadConfigText(
      "[planet]\nseed = 9\nfrequency = 32\nradius_m = 2000000.0\n[weather]\nmode = \"" + weather +
          "\"\n[fluvial]\nreroutings = 1\n[tiles]\ntile_edge = 32\n",
      "test");
  return made[weather] = planetgen::generate(config);
}

planet::TileCompareOptions regionOptions() {
  planet::TileCompareOptions o;
  o.region = {64.0, -120.0, 1500.0};
  o.spacing_m = 100.0;
  o.image_size = 256;
  return o;
}

std::string bytesOf(const fs::path& path) {
  return test_support::readFile(path);
}

nlohmann::json compareInto(const planetgen::Planet& planet, const fs::path& out) {
  const planet::TileCompareResult r =
      planet::compareTileRain(planet, planet.config().tiles.generator, regionOptions(), out);
  REQUIRE(r.level == 10);
  REQUIRE(r.tiles >= 1);
  return nlohmann::json::parse(bytesOf(out / "metrics.json"));
}

const char* const kPictures[] = {"relief_plain.png",   "relief_weather.png", "relief_uniform.png",
                                 "change_weather.png", "change_uniform.png", "difference.png",
                                 "rainfall.png"};

}  // namespace

TEST_CASE("tile compare: cloud rain and uniform rain erode the region's tiles differently",
          "[planet][tiles][erosion]") {
  const test_support::TempDir temp("tile_compare_clouds");
  const fs::path& dir = temp.path;
  const planetgen::Planet& planet = smallPlanet("clouds");
  const nlohmann::json m = compareInto(planet, dir / "out");
  CHECK(m["spacing_m"].get<double>() == Approx(67.6).margin(0.1));
  for (const char* run : {"weather", "uniform"}) {
    INFO(run);
    CHECK(m[run]["eroded_volume_m3"].get<double>() > 0.0);
    CHECK(m[run]["deposited_volume_m3"].get<double>() > 0.0);
    CHECK(m[run]["change_rms_m"].get<double>() > 0.0);
    CHECK(m[run]["gully_density"].get<double>() >= 0.0);
    CHECK(m[run]["gully_density"].get<double>() <= 1.0);
  }
  CHECK(m["weather"]["eroded_volume_m3"].get<double>() !=
        m["uniform"]["eroded_volume_m3"].get<double>());
  // Every picture decodes to the same size, its longer side the size asked for.
  int width = 0, height = 0;
  for (const char* name : kPictures) {
    INFO(name);
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load((dir / "out" / name).c_str(), &w, &h, &channels, 3);
    REQUIRE(pixels != nullptr);
    stbi_image_free(pixels);
    if (width == 0) width = w, height = h;
    CHECK(w == width);
    CHECK(h == height);
    CHECK(std::max(w, h) == regionOptions().image_size);
  }
  CHECK(m["files"].size() == std::size(kPictures) + 1);

  SECTION("the same bytes on one thread as on all of them") {
    {
      tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
      compareInto(planet, dir / "one");
    }
    for (const char* name : kPictures) {
      INFO(name);
      CHECK(bytesOf(dir / "one" / name) == bytesOf(dir / "out" / name));
    }
    CHECK(bytesOf(dir / "one" / "metrics.json") == bytesOf(dir / "out" / "metrics.json"));
  }
}

TEST_CASE("tile compare: under uniform weather both runs are the same bits",
          "[planet][tiles][erosion]") {
  const test_support::TempDir temp("tile_compare_uniform");
  const fs::path& dir = temp.path;
  const nlohmann::json m = compareInto(smallPlanet("uniform"), dir / "out");
  CHECK(m["weather"] == m["uniform"]);
  CHECK(m["weather"]["eroded_volume_m3"].get<double>() > 0.0);
  CHECK(bytesOf(dir / "out" / "relief_weather.png") == bytesOf(dir / "out" / "relief_uniform.png"));
}

TEST_CASE(
    "tile compare: a level the tiles do not erode and a region of too many tiles are refused, "
    "nothing written",
    "[planet][tiles][erosion]") {
  const test_support::TempDir temp("tile_compare_refused");
  const fs::path& dir = temp.path;
  planet::TileCompareOptions o = regionOptions();
  o.spacing_m = 1000.0;
  const planetgen::Planet& planet = smallPlanet("uniform");
  CHECK_THROWS_WITH(
      planet::compareTileRain(planet, planet.config().tiles.generator, o, dir / "out"),
      Catch::Contains("--spacing-m 1000 is not allowed with --compare-rain") &&
          Catch::Contains("allowed: at most 100"));
  CHECK_FALSE(fs::exists(dir / "out"));
  o = regionOptions();
  o.region.radius_m = 20000.0;  // about 200 tiles of 2.2 km at 67.6 m
  CHECK_THROWS_WITH(
      planet::compareTileRain(planet, planet.config().tiles.generator, o, dir / "out"),
      Catch::Contains("--radius-km 20 is not allowed with --compare-rain") &&
          Catch::Contains("at most 100 tiles"));
  CHECK_FALSE(fs::exists(dir / "out"));
}
