// Rivers and lakes as data (hydrology/rivers.h, planet/rivers_output.h): the network and the
// lakes, what can be checked in-process (the files they are
// written to: planet/rivers_output_test).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>

#include <stb_image.h>
#include <tbb/task_arena.h>
#include <tiny_gltf.h>
#include <glm/geometric.hpp>
#include <glm/vec2.hpp>
#include <nlohmann/json.hpp>

#include "export/geojson.h"
#include "export/image.h"
#include "export/maps.h"
#include "export/png_io.h"
#include "geodesy/latlon.h"
#include "hydrology/rivers.h"
#include "planet/config.h"
#include "planet/pipeline.h"
#include "planet/rivers_output.h"
#include "support/river_planets.h"

using namespace planet;
using namespace metrics;
using hydrology::RiverEnd;
namespace fs = std::filesystem;
using namespace river_fixtures;

TEST_CASE("rivers: degenerate input gives no rivers", "[river_data]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(8);
  const std::vector<float> sea(mesh.vertexCount(), -100.0f);  // all sea
  const hydrology::FlowRouting routing = hydrology::routeFlow(mesh, sea, 0.0);
  const std::vector<double> runoff(mesh.vertexCount(), 1.0);
  hydrology::RiverInput in;
  in.mesh = &mesh;
  in.elevation_m = sea;
  in.routing = &routing;
  in.runoff_m3_s = runoff;
  const hydrology::RiverNetwork net = hydrology::extractRivers(in, {});
  CHECK(net.rivers.empty());
  CHECK(net.lakes.empty());
}

TEST_CASE("rivers: a cone island has rivers running down to the sea", "[river_data]") {
  // Elevation falls from the north pole; the southern half is sea. Every land vertex drains,
  // so rivers start high and end at the coast (latitude 0).
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(24);
  std::vector<float> h(mesh.vertexCount());
  for (size_t v = 0; v < h.size(); ++v) h[v] = float(2000.0 * mesh.positions[v].y);
  const hydrology::FlowRouting routing = hydrology::routeFlow(mesh, h, 0.0, {0.3, 5});
  std::vector<double> runoff(mesh.vertexCount(), 0.0);
  for (uint32_t v : routing.order) runoff[v] = 1.0;
  hydrology::RiverInput in;
  in.mesh = &mesh;
  in.radius_m = 1e6;
  in.elevation_m = h;
  in.routing = &routing;
  in.runoff_m3_s = runoff;
  hydrology::RiverParams params;
  params.min_discharge_m3_s = 5.0;
  const hydrology::RiverNetwork net = hydrology::extractRivers(in, params);
  REQUIRE(net.rivers.size() >= 5);
  for (const hydrology::River& r : net.rivers) {
    CHECK(r.points.size() >= 2);
    CHECK(r.end != RiverEnd::kLake);  // a cone has no depressions
    if (r.end == RiverEnd::kSea) CHECK(std::abs(r.points.back().elevation_m) < 1e-6);
    CHECK(r.points.front().discharge_m3_s >= 5.0 - 1e-9);
    // Hand-computed width: 4 * sqrt(Q).
    CHECK(r.points.back().width_m ==
          Approx(4.0 * std::sqrt(r.points.back().discharge_m3_s)).epsilon(1e-12));
  }
  // The largest river carries at least a tenth of the land's runoff... the land is about half
  // of 5762 vertices; rivers meeting the sea split it, so check only that discharge adds up.
  double mouths = 0.0;
  for (const hydrology::River& r : net.rivers)
    if (r.end == RiverEnd::kSea) mouths += r.points.back().discharge_m3_s;
  double land = 0.0;
  for (uint32_t v : routing.order) land += runoff[v];
  CHECK(mouths <= land + 1e-6);
  CHECK(mouths >= 0.3 * land);
}

TEST_CASE("rivers: every river flows downhill on the surface and ends at sea, lake or river",
          "[river_data]") {
  const Fixture& f = defaultPlanet();
  const auto& net = f.network;
  const geodesy::SphereMesh& mesh = *f.planet.mesh;
  const double radius = f.config.planet.radius_m;
  const double sea = f.planet.sea_level_m;
  REQUIRE(net.rivers.size() >= 20);
  size_t points = 0, vertices = 0, off_lattice = 0;
  double worst_rise = 0.0, worst_surface = 0.0, worst_radius = 0.0;
  uint64_t discharge_falls = 0, bad_ends = 0, latlon_off = 0;
  for (size_t i = 0; i < net.rivers.size(); ++i) {
    const hydrology::River& r = net.rivers[i];
    REQUIRE(r.points.size() >= 2);
    points += r.points.size();
    vertices += r.vertices.size();
    for (size_t k = 0; k < r.points.size(); ++k) {
      const hydrology::RiverPoint& p = r.points[k];
      const glm::dvec3 dir = glm::normalize(p.position_m);
      worst_surface = std::max(
          worst_surface, std::abs(p.elevation_m - hydrology::surfaceAt(mesh, net.surface_m, dir)));
      worst_radius =
          std::max(worst_radius, std::abs(glm::length(p.position_m) - radius - p.elevation_m));
      const geodesy::LatLon ll = geodesy::unitToLatLon(dir);
      latlon_off += std::abs(ll.lat_rad * 180 / std::numbers::pi - p.lat_deg) > 1e-9 ||
                    std::abs(ll.lon_rad * 180 / std::numbers::pi - p.lon_deg) > 1e-9 ||
                    std::abs(p.lat_deg) > 90.0 || std::abs(p.lon_deg) > 180.0;
      if (k > 0) {
        const hydrology::RiverPoint& q = r.points[k - 1];
        worst_rise = std::max(worst_rise, p.elevation_m - q.elevation_m);
        discharge_falls += p.discharge_m3_s < q.discharge_m3_s;
      }
    }
    // Points between vertices: the smoothing bent the line off the mesh edges.
    for (const auto& p : r.points) {
      const geodesy::SurfacePoint sp = mesh.locate(glm::vec3(glm::normalize(p.position_m)));
      off_lattice += std::max({sp.bary.x, sp.bary.y, sp.bary.z}) < 0.999f &&
                     std::min({sp.bary.x, sp.bary.y, sp.bary.z}) > 0.001f;
    }
    const hydrology::RiverPoint& mouth = r.points.back();
    switch (r.end) {
      case RiverEnd::kSea:
        bad_ends += std::abs(mouth.elevation_m - sea) > kOnSurfaceM;
        break;
      case RiverEnd::kLake: {
        REQUIRE(r.into < net.lakes.size());
        bad_ends += std::abs(mouth.elevation_m - net.lakes[r.into].level_m) > kOnSurfaceM;
        break;
      }
      case RiverEnd::kRiver: {
        REQUIRE(r.into < net.rivers.size());
        REQUIRE(r.into != i);
        // The mouth is a point of the river it joins, which is at least as large there; its
        // first point only if that river leaves a lake there (a tributary meeting the outlet).
        const auto& joined = net.rivers[r.into];
        const auto& other = joined.points;
        auto it = std::find_if(other.begin(), other.end(), [&](const auto& p) {
          return glm::length(p.position_m - mouth.position_m) < 1e-6;
        });
        const bool at_source = it == other.begin() && joined.source_lake == hydrology::kNoLake;
        bad_ends += it == other.end() || at_source ||
                    it->discharge_m3_s < mouth.discharge_m3_s - 1e-9 ||
                    net.rivers[r.into].strahler < r.strahler;
        break;
      }
      case RiverEnd::kSink:
        bad_ends += 1;  // this planet has a sea
        break;
    }
  }
  INFO("rivers " << net.rivers.size() << ", points " << points << ", vertices " << vertices
                 << ", off the lattice " << off_lattice << ", worst rise " << worst_rise
                 << " m, worst surface error " << worst_surface << " m, radius error "
                 << worst_radius << " m");
  CHECK(worst_rise <= kRiseM);
  CHECK(worst_surface <= kOnSurfaceM);
  CHECK(worst_radius <= 1e-6 * radius);
  CHECK(discharge_falls == 0);
  CHECK(bad_ends == 0);
  CHECK(latlon_off == 0);
  CHECK(points > 2 * vertices);     // smoothing added points
  CHECK(off_lattice > points / 4);  // and most of them are not on the mesh edges
  // Orders: some rivers are tributaries, and the network has grown beyond order 2.
  int max_order = 0;
  for (const auto& r : net.rivers) max_order = std::max(max_order, r.strahler);
  CHECK(max_order >= 3);
}

TEST_CASE("rivers: lakes have closed shorelines at their level and a water surface",
          "[river_data]") {
  // The default config at f = 64 with seed 5: a kept (endorheic) lake and a lake with an
  // outflow (the default seed has no lake at f = 64).
  Fixture f;
  f.config = configAt("default.toml", 64);
  f.config.planet.seed = 5;
  f.planet = eroded(f.config);
  f.network = riversOf(f.planet, f.config);
  const auto& net = f.network;
  const double radius = f.config.planet.radius_m;
  REQUIRE(!net.lakes.empty());
  size_t with_outflow = 0;
  for (const hydrology::LakeShape& lake : net.lakes) {
    INFO("lake level " << lake.level_m << " area " << lake.area_m2);
    REQUIRE(!lake.rings.empty());
    CHECK(lake.rings[0].size() >= 3);
    CHECK(lake.area_m2 > 0.0);
    CHECK(lake.volume_m3 > 0.0);
    REQUIRE(lake.surface_indices.size() >= 3);
    CHECK(lake.surface_indices.size() % 3 == 0);
    // The water surface lies at the lake level; its area is close to the lake's dual area.
    double area = 0.0;
    for (size_t t = 0; t < lake.surface_indices.size(); t += 3) {
      const glm::dvec3& a = lake.surface_m[lake.surface_indices[t]];
      const glm::dvec3& b = lake.surface_m[lake.surface_indices[t + 1]];
      const glm::dvec3& c = lake.surface_m[lake.surface_indices[t + 2]];
      const glm::dvec3 n = glm::cross(b - a, c - a);
      // Counter-clockwise seen from outside, and not flat: an engine reads a triangle of no
      // area as a line (assimp), or drops it.
      CHECK(glm::dot(n, a) > 0.0);
      area += 0.5 * glm::length(n);
    }
    for (const glm::dvec3& p : lake.surface_m)
      CHECK(std::abs(glm::length(p) - radius - lake.level_m) < 1e-6 * radius);
    // At least the faces all of whose corners are under water (a shallow lake between steep
    // shores covers little more), at most about its dual area.
    const auto& mesh = *f.planet.mesh;
    const uint32_t id = uint32_t(&lake - net.lakes.data());
    const double lift = radius + lake.level_m;
    double covered = 0.0;
    for (size_t t = 0; t < mesh.indices.size(); t += 3) {
      const uint32_t* c = &mesh.indices[t];
      if (net.lake_of[c[0]] != id || net.lake_of[c[1]] != id || net.lake_of[c[2]] != id) continue;
      const glm::dvec3 a = lift * glm::normalize(glm::dvec3(mesh.positions[c[0]]));
      const glm::dvec3 b = lift * glm::normalize(glm::dvec3(mesh.positions[c[1]]));
      const glm::dvec3 d = lift * glm::normalize(glm::dvec3(mesh.positions[c[2]]));
      covered += 0.5 * glm::length(glm::cross(b - a, d - a));
    }
    CHECK(area >= covered * (1.0 - 1e-9));
    CHECK(area < 3.0 * lake.area_m2);
    if (lake.outflow_river != hydrology::kNoLake) {
      with_outflow += 1;
      CHECK(net.rivers[lake.outflow_river].source_lake == uint32_t(&lake - net.lakes.data()));
      CHECK_FALSE(lake.endorheic);
    }
  }
  CHECK(with_outflow >= 1);
}

TEST_CASE("rivers: earthlike with cloud rain has 2x the river length in its wettest quarter",
          "[river_data]") {
  // f = 128 (the shipped file has 512): at 64 the driest quarter has no river at all.
  Config config = configAt("earthlike.toml", 128);
  REQUIRE(config.weather.mode == RainMode::kClouds);
  const PlanetState planet = eroded(config);
  const hydrology::RiverNetwork net = riversOf(planet, config);
  const RiverQuarters q = riverLengthByRainQuarter(net, planet, config, planet.rainfall);
  INFO("wettest " << q.wettest << " km per 1000 km2, driest " << q.driest);
  CHECK(q.wettest > 0.0);
  CHECK(q.driest > 0.0);
  CHECK(q.wettest >= 2.0 * q.driest);
}

TEST_CASE("rivers: config keys are validated", "[river_data]") {
  const std::string file = std::string(PLANETGEN_SOURCE_DIR) + "/configs/default.toml";
  const std::string bad[] = {"rivers.min_drainage_cells=-1"};
  try {
    loadConfig(file, bad);
    FAIL("no error");
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("min_drainage_cells") != std::string::npos);
    CHECK(m.find("-1") != std::string::npos);
    CHECK(m.find("(0, 1e+09]") != std::string::npos);
  }
  const std::string zero[] = {"rivers.subdivisions=0"};
  CHECK_THROWS_AS(loadConfig(file, zero), ConfigError);
}

// Hidden (run by hand: hydrology/rivers_test "[.picture]"): the default planet's relief with the
// rivers of rivers.geojson drawn on it (thickness by Strahler order) and lake shores filled,
// cropped around the largest river; written to <build>/river_data/rivers_default.png.
TEST_CASE("rivers: picture of a river network on a continent", "[.picture]") {
  const Config config = configAt("default.toml", 128);
  const PlanetState planet = eroded(config);
  const hydrology::RiverNetwork net = riversOf(planet, config);
  REQUIRE(!net.rivers.empty());
  const planet_export::PlanetSurface surface = surfaceOf(planet, config);
  planet_export::ReliefOptions relief;
  relief.width = 4096;
  planet_export::RgbImage image = planet_export::renderShadedRelief(surface, relief);
  const int w = image.width, h = image.height;
  auto pixel = [&](double lon, double lat) {
    return glm::dvec2((lon + 180.0) / 360.0 * w, (90.0 - lat) / 180.0 * h);
  };
  auto dot = [&](glm::dvec2 p, double radius, planet_export::Rgb c) {
    for (int y = int(p.y - radius); y <= int(p.y + radius); ++y)
      for (int x = int(p.x - radius); x <= int(p.x + radius); ++x)
        if (y >= 0 && y < h && glm::length(glm::dvec2(x + 0.5, y + 0.5) - p) <= radius)
          image.set(((x % w) + w) % w, y, c);
  };
  const planet_export::Rgb river{0.05f, 0.2f, 0.85f}, lake{0.1f, 0.35f, 0.9f};
  for (const hydrology::LakeShape& l : net.lakes)
    for (const auto& ring : l.rings)
      for (const glm::dvec3& d : ring) {
        const geodesy::LatLon ll = geodesy::unitToLatLon(d);
        dot(pixel(ll.lon_rad * 180 / std::numbers::pi, ll.lat_rad * 180 / std::numbers::pi), 2.0,
            lake);
      }
  for (const hydrology::River& r : net.rivers) {
    const double radius = 0.4 + 0.45 * r.strahler;
    for (size_t k = 0; k + 1 < r.points.size(); ++k) {
      glm::dvec2 a = pixel(r.points[k].lon_deg, r.points[k].lat_deg);
      glm::dvec2 b = pixel(r.points[k + 1].lon_deg, r.points[k + 1].lat_deg);
      if (std::abs(b.x - a.x) > w / 2) continue;  // across the antimeridian
      const int steps = int(glm::length(b - a)) + 1;
      for (int s = 0; s <= steps; ++s) dot(a + (b - a) * (double(s) / steps), radius, river);
    }
  }
  // Crop: 1000 x 640 pixels around the middle of the longest river.
  const hydrology::River* longest = &net.rivers[0];
  for (const auto& r : net.rivers)
    if (r.length_m > longest->length_m) longest = &r;
  const glm::dvec2 centre = pixel(longest->points[longest->points.size() / 2].lon_deg,
                                  longest->points[longest->points.size() / 2].lat_deg);
  const planet_export::RgbImage crop =
      planet_export::cropWrapped(image, int(centre.x) - 500, int(centre.y) - 320, 1000, 640);
  const fs::path dir = fs::path(PLANETGEN_BINARY_DIR) / "river_data";
  fs::create_directories(dir);
  std::ofstream(dir / "rivers_default.png", std::ios::binary) << planet_export::encodePngRgb8(crop);
  WARN("wrote " << (dir / "rivers_default.png") << ": longest river " << longest->length_m * 1e-3
                << " km, order " << longest->strahler << ", " << net.rivers.size() << " rivers, "
                << net.lakes.size() << " lakes");
}
