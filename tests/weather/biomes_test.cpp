// Whittaker-style biomes (weather/biomes.h): temperature by latitude and height, the classes;
// their legend (export/biome_palette.h) names every class.

#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "export/biome_palette.h"
#include "support/export_maps_planet.h"
#include "weather/biomes.h"

using namespace planet_export;
using namespace export_maps_fixtures;

TEST_CASE("biomes: temperature by latitude and height", "[weather][biomes]") {
  const weather::BiomeParams p;
  CHECK(weather::seaLevelTemperatureC(0.0) == Approx(27.0));
  CHECK(weather::seaLevelTemperatureC(kPi / 6) == Approx(19.0).margin(1.5));
  CHECK(weather::seaLevelTemperatureC(kPi / 3) == Approx(1.0).margin(1.5));
  CHECK(weather::seaLevelTemperatureC(-kPi / 2) == Approx(-25.0));
  CHECK(weather::temperatureC(0.0, 1000.0) == Approx(27.0 - 6.5));
  CHECK(weather::temperatureC(0.0, -3000.0) == Approx(27.0));  // below sea level: no lapse gain
  CHECK(weather::temperatureC(0.3, 2000.0, p) < weather::temperatureC(0.3, 1000.0, p));
}

TEST_CASE("biomes: classes follow the Whittaker diagram", "[weather][biomes]") {
  CHECK(weather::classifyBiome(0.0, -100.0, true, 0.5) == weather::Biome::kOcean);
  CHECK(weather::classifyBiome(1.5, -100.0, true, 0.5) == weather::Biome::kSeaIce);
  CHECK(weather::classifyBiome(0.0, 200.0, false, 0.9) == weather::Biome::kTropicalRainforest);
  CHECK(weather::classifyBiome(0.0, 200.0, false, 0.4) == weather::Biome::kSavanna);
  CHECK(weather::classifyBiome(0.0, 200.0, false, 0.05) == weather::Biome::kSubtropicalDesert);
  CHECK(weather::classifyBiome(0.75, 100.0, false, 0.5) ==
        weather::Biome::kTemperateSeasonalForest);
  CHECK(weather::classifyBiome(0.75, 100.0, false, 0.1) == weather::Biome::kColdDesert);
  CHECK(weather::classifyBiome(0.75, 100.0, false, 0.3) == weather::Biome::kShrubland);
  CHECK(weather::classifyBiome(0.75, 100.0, false, 0.9) == weather::Biome::kTemperateRainforest);
  CHECK(weather::classifyBiome(1.05, 100.0, false, 0.5) == weather::Biome::kBorealForest);
  CHECK(weather::classifyBiome(1.2, 100.0, false, 0.5) == weather::Biome::kTundra);
  CHECK(weather::classifyBiome(1.5, 100.0, false, 0.5) == weather::Biome::kIceSheet);
  // Snow caps: a 6 km peak on the equator is colder than -10 C (27 - 39).
  CHECK(weather::classifyBiome(0.0, 6000.0, false, 0.9) == weather::Biome::kIceSheet);
  // The legend (export) has an entry for every class the classifier (weather) makes.
  STATIC_REQUIRE(kBiomePaletteSize == weather::kBiomeCount);
  for (int id = 0; id < weather::kBiomeCount; ++id) CHECK(biomeName(uint8_t(id)) != "unknown");
  CHECK(biomeName(weather::kBiomeCount) == "unknown");

  TestPlanet planet(16);
  for (size_t v = 0; v < planet.mesh.vertexCount(); ++v) {
    const bool sea = planet.elevation[v] < 0.0f;
    const weather::Biome b = weather::Biome(planet.biome[v]);
    REQUIRE(sea == (b == weather::Biome::kOcean || b == weather::Biome::kSeaIce));
  }
  CHECK_THROWS_AS(
      weather::classifyBiomes(planet.mesh, planet.elevation, 0.0, std::vector<float>(3)),
      std::invalid_argument);
}
