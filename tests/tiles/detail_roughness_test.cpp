// The detail's amplitude per planet vertex (tiles/detail_roughness.h) on hand-made planets:
// proportional to the local relief, less at the bottom of a valley, under a lake and under the
// sea, nothing on flat ground or with the detail switched off.

#include <vector>

#include <catch2/catch.hpp>

#include "geodesy/lattice_numbering.h"
#include "tiles/detail_roughness.h"

namespace {

constexpr int kFrequency = 6;

// Flat ground at 0 m with one pit of depth 100 m at an interior vertex of base face 3.
struct PitPlanet {
  geodesy::LatticeNumbering numbering{kFrequency};
  std::vector<float> elevation = std::vector<float>(10 * kFrequency * kFrequency + 2, 0.0f);
  uint32_t pit = numbering.vertex(3, 2, 2);
  uint32_t beside = numbering.vertex(3, 3, 2);  // one of the pit's ring
  uint32_t far = numbering.vertex(9, 2, 2);
  PitPlanet() { elevation[pit] = -100.0f; }
};

}  // namespace

TEST_CASE("detail roughness: relief times the factor of the ground", "[tiles]") {
  PitPlanet planet;
  tiles::DetailParams params;  // relief_roughness 0.5, valley_floor 0.3, lake_bed 0.2, sea 0.5
  std::vector<float> r =
      tiles::detailRoughness(planet.numbering, planet.elevation, {}, -1000.0, params);
  // The pit: relief 100 m, its ring 100 m above it (a valley floor): 0.5 * 100 * 0.3.
  CHECK(r[planet.pit] == Approx(15.0));
  // Beside it: relief 100 m, but convex there (its ring's mean is below it): 0.5 * 100.
  CHECK(r[planet.beside] == Approx(50.0));
  // Flat ground: no relief, no detail.
  CHECK(r[planet.far] == 0.0f);

  // Under the sea, half.
  r = tiles::detailRoughness(planet.numbering, planet.elevation, {}, 10.0, params);
  CHECK(r[planet.beside] == Approx(25.0));
  // Under a lake (water 0.5 m or more above the ground), a fifth.
  std::vector<float> water = planet.elevation;
  water[planet.beside] = 1.0f;
  r = tiles::detailRoughness(planet.numbering, planet.elevation, water, -1000.0, params);
  CHECK(r[planet.beside] == Approx(10.0));
  water[planet.beside] = 0.4f;
  r = tiles::detailRoughness(planet.numbering, planet.elevation, water, -1000.0, params);
  CHECK(r[planet.beside] == Approx(50.0));

  params.enabled = false;
  r = tiles::detailRoughness(planet.numbering, planet.elevation, {}, -1000.0, params);
  CHECK(r[planet.pit] == 0.0f);
  CHECK(r[planet.beside] == 0.0f);
}

TEST_CASE("detail roughness: a corner and an edge vertex see their rings across faces", "[tiles]") {
  PitPlanet planet;
  // A bump on icosahedron corner 0 and on a base-edge point: their rings cross base faces.
  const uint32_t corner = 0;
  const uint32_t edge = planet.numbering.vertex(0, 3, 0);
  planet.elevation[corner] = 60.0f;
  planet.elevation[edge] = 40.0f;
  const std::vector<float> r =
      tiles::detailRoughness(planet.numbering, planet.elevation, {}, -1000.0, {});
  CHECK(r[corner] == Approx(30.0));  // relief 60 (ring at 0), convex
  CHECK(r[edge] == Approx(20.0));
}
