// The ocean level (terrain/ocean.h): the area-weighted quantile of the elevations.
#include <catch2/catch.hpp>

#include <vector>

#include "geodesy/sphere_mesh.h"
#include "terrain/ocean.h"
#include "terrain/terrain.h"

TEST_CASE("ocean: area-weighted quantile puts the asked fraction under water", "[planet]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(48);
  const auto elevation = terrain::generateElevation(mesh.positions, 11, terrain::TerrainParams{});
  for (double fraction : {0.0, 0.3, 0.65, 0.9}) {
    const double level = terrain::areaWeightedQuantile(elevation, mesh.vertex_areas, fraction);
    double under = 0, total = 0;
    for (size_t v = 0; v < elevation.size(); ++v) {
      total += mesh.vertex_areas[v];
      if (elevation[v] < level) under += mesh.vertex_areas[v];
    }
    // Under water is below the level; the vertex at the level tips it over the fraction.
    CHECK(under / total <= fraction + 1e-9);
    CHECK(under / total >= fraction - 1e-3);
  }
  // Unequal areas matter: a field that is high exactly where areas are large.
  std::vector<float> e = {0, 1, 2, 3};
  std::vector<float> areas = {1, 1, 1, 5};
  CHECK(terrain::areaWeightedQuantile(e, areas, 0.5) == 3.0);
}
