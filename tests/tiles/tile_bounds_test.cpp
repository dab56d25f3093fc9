// TileGenerator::heightBounds: the range holds every height of a tile and of its descendants
// (made here down three levels), with the detail on and off, for tiles coarser than, at and
// finer than the planet's level, and refuses ids that name no tile.

#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "geodesy/hash.h"
#include "geodesy/lattice_numbering.h"
#include "support/lattice_planet.h"
#include "tiles/tile_generator.h"

namespace {

constexpr int kPlanetFrequency = 16;
constexpr int kTileEdge = 8;

// Ranges and sea, part of it rough from vertex to vertex, with lakes.
struct RoughPlanet {
  std::vector<float> elevation, water;
  tiles::TilePlanet planet;

  RoughPlanet() {
    const int f = kPlanetFrequency;
    const size_t n = 10 * size_t(f) * size_t(f) + 2;
    elevation = test_support::latticeField(f, [](const glm::dvec3& p, uint32_t v) {
      const double noise = geodesy::unitFromHash(geodesy::hash3(3, 4, v)) - 0.5;
      return 2500.0 * std::sin(3.0 * p.x) * std::cos(2.0 * p.y) + 1500.0 * noise + 200.0;
    });
    water = elevation;
    for (size_t v = 0; v < n; v += 5) water[v] = std::max(water[v], elevation[v] + 30.0f);
    planet.frequency = f;
    planet.radius_m = 6371000.0;
    planet.elevation_m = elevation;
    planet.water_level_m = water;
    planet.spectrum = {777, 2.0, 2.0, 0.5};
  }
};

const RoughPlanet& roughPlanet() {
  static const RoughPlanet planet;
  return planet;
}

// The heights of a tile and of its descendants `depth` levels down.
void subtreeRange(const tiles::TileGenerator& generator, const tiles::TileId& id, int depth,
                  double& lo, double& hi) {
  const tiles::TileMesh mesh = generator.generate(id);
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    lo = std::min({lo, double(mesh.height_m[v]), double(mesh.parent_height_m[v])});
    hi = std::max({hi, double(mesh.height_m[v]), double(mesh.parent_height_m[v])});
  }
  if (depth == 0) return;
  for (const tiles::TileId& child : generator.layout().children(id))
    subtreeRange(generator, child, depth - 1, lo, hi);
}

}  // namespace

TEST_CASE("tiles: heightBounds holds a tile's heights and its descendants'", "[tiles]") {
  for (const bool detail : {true, false}) {
    const tiles::TileGenerator generator(roughPlanet().planet, {kTileEdge, {detail}, {}});
    // Level 0 and 1 are coarser than the planet (f = 16, T = 8: the planet level is 1), 2 and 3
    // finer; each tile sits where the planet is steepest in its face or at a random index.
    for (uint32_t level = 0; level <= 3; ++level) {
      for (uint32_t base : {0u, 7u, 19u}) {
        const uint64_t n = uint64_t(1) << (2 * level);
        const tiles::TileId id{base, level, geodesy::hash3(9, base, level) % n};
        double lo = INFINITY, hi = -INFINITY;
        subtreeRange(generator, id, level == 0 ? 2 : 3, lo, hi);
        const tiles::HeightRange bounds = generator.heightBounds(id);
        INFO("detail " << detail << ", level " << level << ", base " << base << ": heights " << lo
                       << " .. " << hi << " m, bounds " << bounds.min_m << " .. " << bounds.max_m
                       << " m");
        CHECK(bounds.min_m <= lo);
        CHECK(bounds.max_m >= hi);
        // Not absurd: without detail the surface overshoots its vertices by at most half their
        // local range; with it, the octaves' worst case (several times their real spread).
        const double slack = (bounds.max_m - bounds.min_m) - (hi - lo);
        CHECK(slack >= 0.0);
        CHECK(slack <= (detail ? 40.0 : 2.0) * (hi - lo));
      }
    }
  }
}

TEST_CASE("tiles: heightBounds refuses ids that name no tile", "[tiles]") {
  const tiles::TileGenerator generator(roughPlanet().planet, {kTileEdge, {}, {}});
  CHECK_THROWS_AS(generator.heightBounds({20, 0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(generator.heightBounds({0, 1, 4}), std::invalid_argument);
  CHECK_THROWS_AS(generator.heightBounds({0, uint32_t(generator.layout().deepestLevel() + 1), 0}),
                  std::invalid_argument);
}
