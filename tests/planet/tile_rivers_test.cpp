// Rivers continue into the tiles: where a river of the planet's rivers.geojson crosses a tile of
// the first eroded level, the tile has a channel within two planet spacings of the river's line,
// at least 2 m deeper than its banks, whose drainage area is within 25 % of the planet's. On
// earthlike at f = 64 (its own settings otherwise; about 110 km between planet vertices) with
// 64-step tiles, so the test takes seconds, at two places: the rivers with the largest and the
// tenth largest discharge, each half-way along an edge of its course, in the tile there that
// the course crosses.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <glm/geometric.hpp>

#include "geodesy/icosahedron.h"
#include "metrics/drainage_metrics.h"
#include "planet/pipeline.h"
#include "planet/planetgen.h"
#include "planet/rivers_output.h"

namespace {

// Distance (radians on the unit sphere) from direction p to the great-circle arc a-b.
double arcDistance(const glm::dvec3& p, const glm::dvec3& a, const glm::dvec3& b) {
  const glm::dvec3 n = glm::normalize(glm::cross(a, b));
  const glm::dvec3 q = glm::normalize(p - glm::dot(p, n) * n);
  if (glm::dot(glm::cross(a, q), n) >= 0.0 && glm::dot(glm::cross(q, b), n) >= 0.0)
    return std::abs(std::asin(std::clamp(glm::dot(p, n), -1.0, 1.0)));
  return std::min(std::acos(std::clamp(glm::dot(p, a), -1.0, 1.0)),
                  std::acos(std::clamp(glm::dot(p, b), -1.0, 1.0)));
}

}  // namespace

TEST_CASE("tile rivers: a river of the planet is a channel in the tiles it crosses",
          "[planet][tiles][erosion]") {
  const std::vector<std::string> overrides{"planet.frequency=64", "tiles.erosion=true",
                                           "tiles.tile_edge=64"};
  const planetgen::Config config = planetgen::loadConfig(
      std::filesystem::path(PLANETGEN_SOURCE_DIR) / "configs/earthlike.toml", overrides);
  const planetgen::Planet planet = planetgen::generate(config);
  const planet::PlanetState& state = planet.state();
  const metrics::DrainageNetwork drainage =
      metrics::drainageOf(planet::drainageInputOf(state, config));
  const hydrology::RiverNetwork rivers = planet::riversOf(state, config, drainage);
  const tiles::TileGenerator generator = planetgen::makeTileGenerator(planet);
  const tiles::TileLayout& layout = generator.layout();
  int level = 0;
  while (level < layout.deepestLevel() && !generator.erodes(level)) ++level;
  REQUIRE(generator.erodes(level));
  const double radius = config.planet.radius_m;
  const double planet_spacing = geodesy::icosahedron().edge_arc / 64.0;  // radians
  const double spacing_m = layout.levelSpacingRad(level) * radius;

  // Rivers by discharge at their mouth, largest first.
  std::vector<size_t> order(rivers.rivers.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rivers.rivers[a].points.back().discharge_m3_s >
           rivers.rivers[b].points.back().discharge_m3_s;
  });
  REQUIRE(order.size() >= 10);
  const auto unit = planet.unitPositions();
  for (size_t pick : {order[0], order[9]}) {
    const hydrology::River& river = rivers.rivers[pick];
    REQUIRE(river.vertices.size() >= 3);
    // Half-way along the edge from the course's middle vertex to the next.
    const size_t at = river.vertices.size() / 2 - 1;
    const uint32_t v = river.vertices[at], r = river.vertices[at + 1];
    const glm::dvec3 a = glm::normalize(glm::dvec3(unit[v])),
                     b = glm::normalize(glm::dvec3(unit[r]));
    // The tile the river crosses there: its course bends about the edge's line by up to 11 %
    // of the edge (tiles/detail/river_course.h), far more than a tile's width, so the tiles
    // across the line, half a tile apart, and of them the one holding the largest drainage.
    const glm::dvec3 middle = glm::normalize(a + b);
    const glm::dvec3 across = glm::normalize(glm::cross(middle, b - a));
    const double edge = std::acos(std::clamp(glm::dot(a, b), -1.0, 1.0));
    const double tile = layout.levelSpacingRad(level) * layout.tileEdge();
    tiles::TileMesh mesh;
    size_t channel = 0;
    tiles::TileId last{};
    bool any = false;
    for (double o = -0.12 * edge; o <= 0.12 * edge; o += 0.5 * tile) {
      const tiles::TileId id = generator.tileAt(glm::normalize(middle + o * across), level);
      if (any && id == last) continue;
      last = id;
      tiles::TileMesh m = generator.generate(id);
      REQUIRE(m.masks.flow_m2.size() == m.vertexCount());
      size_t most = 0;  // the tile's vertex of the largest drainage area
      for (size_t k = 1; k < m.vertexCount(); ++k)
        if (m.masks.flow_m2[k] > m.masks.flow_m2[most]) most = k;
      if (!any || m.masks.flow_m2[most] > mesh.masks.flow_m2[channel]) {
        mesh = std::move(m);
        channel = most;
      }
      any = true;
    }
    REQUIRE(any);
    const glm::dvec3 where = glm::normalize(mesh.position(channel));
    double distance = 1e9;
    for (size_t k = 0; k + 1 < river.vertices.size(); ++k) {
      distance =
          std::min(distance, arcDistance(where, glm::normalize(glm::dvec3(unit[river.vertices[k]])),
                                         glm::normalize(glm::dvec3(unit[river.vertices[k + 1]]))));
    }
    // Its banks: the vertices 4 to 8 spacings away, their median height.
    std::vector<float> banks;
    for (size_t k = 0; k < mesh.vertexCount(); ++k) {
      const double d = glm::distance(mesh.position(k), mesh.position(channel)) / spacing_m;
      if (d >= 4.0 && d <= 8.0) banks.push_back(mesh.height_m[k]);
    }
    REQUIRE(banks.size() >= 10);
    std::nth_element(banks.begin(), banks.begin() + banks.size() / 2, banks.end());
    const double depth = double(banks[banks.size() / 2]) - double(mesh.height_m[channel]);
    const double planet_area = drainage.area_m2[v];
    const double area = mesh.masks.flow_m2[channel];
    INFO("river " << pick << " (" << river.points.back().discharge_m3_s
                  << " m3/s at its mouth), level " << level << " (" << spacing_m << " m): channel "
                  << distance / planet_spacing << " planet spacings from the river, " << depth
                  << " m below its banks, area " << area / 1e6 << " km2 against the planet's "
                  << planet_area / 1e6 << " km2");
    CHECK(distance <= 2.0 * planet_spacing);
    CHECK(depth >= 2.0);
    CHECK(std::abs(area - planet_area) <= 0.25 * planet_area);
  }
}
