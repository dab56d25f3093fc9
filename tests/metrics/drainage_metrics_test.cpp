// The drainage metrics (metrics/drainage_metrics.h) against hand-computed cases, and the fluvial
// stage in the pipeline (planet/pipeline.h) as a user of the shipped configs gets it
// (docs/fluvial.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <tbb/task_arena.h>
#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "geodesy/sphere_mesh.h"
#include "metrics/drainage_metrics.h"
#include "planet/config.h"
#include "planet/pipeline.h"
#include "support/relief_planets.h"
#include "support/river_planets.h"
#include "support/support.h"

using namespace planet;
using namespace metrics;

using river_fixtures::configAt;
using river_fixtures::eroded;

TEST_CASE("rivers: the default planet drains, keeps its coast and its peaks", "[rivers]") {
  const Config config = configAt("default.toml", 96);
  REQUIRE(config.weather.mode == RainMode::kClouds);
  REQUIRE(config.pipeline.fluvial);
  const PlanetState planet = eroded(config);
  const nlohmann::json d = drainageSummary(planet, config);
  INFO(d.dump(1));
  const auto& before = d["before"];
  const auto& after = d["after"];
  CHECK(before["pits_per_10k_land_vertices"].get<double>() > 5.0);  // the noise has pits
  CHECK(after["pits_per_10k_land_vertices"].get<double>() <= 1.0);
  // Steepest descent on the written heights reaches the sea or a lake from all the land: no
  // vertex outside a lake is without a lower neighbour (the epsilon fill after the droplets).
  CHECK(before["steepest_descent"]["sinks_per_10k_land_vertices"].get<double>() > 5.0);
  CHECK(after["steepest_descent"]["sinks_per_10k_land_vertices"].get<double>() == 0.0);
  CHECK(after["steepest_descent"]["reaches_sea_or_lake"].get<double>() >= 0.97);
  CHECK(after["land_draining_to_sea"].get<double>() >= 0.8);
  // Valleys from crest to coast: the highest tenth of the land is carved, its valleys far
  // deeper than the noise's.
  CHECK(d["highest_tenth_within_20m"].get<double>() <= 0.25);
  CHECK(after["highest_tenth_channel_depth_m"].get<double>() >=
        3.0 * before["highest_tenth_channel_depth_m"].get<double>());
  CHECK(after["mean_channel_depth_m"].get<double>() >=
        3.0 * before["mean_channel_depth_m"].get<double>());
  // The channels follow a stream-power slope-area law (binned fit, drainage_metrics.h), on the
  // routing and along steepest descent.
  CHECK(after["slope_area_theta"].get<double>() >= 0.35);
  CHECK(after["slope_area_theta"].get<double>() <= 0.65);
  CHECK(after["slope_area_r2"].get<double>() >= 0.8);
  const auto& sd = after["steepest_descent"];
  CHECK(sd["slope_area_theta"].get<double>() >= 0.35);
  CHECK(sd["slope_area_theta"].get<double>() <= 0.65);
  CHECK(sd["slope_area_r2"].get<double>() >= 0.8);
  // No lattice trenches.
  CHECK(sd["straight_run_share"].get<double>() <= 0.05);
  CHECK(sd["longest_straight_run"].get<uint64_t>() <= 20);
  // Heights as the noise asks, the coast kept.
  CHECK(d["former_sea_raised_over_100m"].get<uint64_t>() == 0);
  CHECK(d["final_max_m"].get<double>() <= d["initial_max_m"].get<double>());
  CHECK(d["final_max_m"].get<double>() >= 0.85 * d["initial_max_m"].get<double>());
  CHECK(d["coastline_moved"].get<double>() <= 0.01);
  // Wetter land is cut deeper and has more channels than drier land.
  CHECK(d["wettest_quarter"]["mean_channel_depth_m"].get<double>() >
        d["driest_quarter"]["mean_channel_depth_m"].get<double>());
  CHECK(d["wettest_quarter"]["channel_length_km_per_1000km2"].get<double>() >=
        2.0 * d["driest_quarter"]["channel_length_km_per_1000km2"].get<double>());
  const auto& matched = d["elevation_matched_quarters"];
  CHECK(matched["elevation_bands"].get<int>() == kElevationBands);
  CHECK(matched["wettest"]["land_vertices"].get<uint64_t>() ==
        matched["driest"]["land_vertices"].get<uint64_t>());
  CHECK(planet.fluvial_stats.routings > config.fluvial.reroutings);
}

TEST_CASE("rivers: the channels' slope-area law does not hang on the droplets' paths", "[rivers]") {
  // One droplet more or less per thousand land vertices sends every droplet after it elsewhere.
  // The droplets leave the fluvial stage's channels as they are (they hand their load to them),
  // so the fit along steepest descent holds for any of these runs, not only the shipped one.
  for (const char* per_vertex : {"0.999", "1.001"}) {
    const std::string overrides[] = {"planet.frequency=96",
                                     std::string("erosion.droplets_per_land_vertex=") + per_vertex};
    const Config config =
        loadConfig(std::string(PLANETGEN_SOURCE_DIR) + "/configs/default.toml", overrides);
    const PlanetState planet = eroded(config);
    REQUIRE(planet.erosion_stats.eroded_volume_m3 > 0.0);
    REQUIRE(planet.erosion_stats.ended_channel > 0);
    const nlohmann::json d = drainageSummary(planet, config);
    const auto& sd = d["after"]["steepest_descent"];
    INFO(per_vertex << " droplets per land vertex: " << sd.dump(1));
    CHECK(sd["slope_area_theta"].get<double>() >= 0.35);
    CHECK(sd["slope_area_theta"].get<double>() <= 0.65);
    CHECK(sd["slope_area_r2"].get<double>() >= 0.8);
    CHECK(d["after"]["slope_area_r2"].get<double>() >= 0.8);
  }
}

TEST_CASE("rivers: under cloud rain the wettest quarter's channels are 1.5x the driest's in depth",
          "[rivers]") {
  // Within elevation bands (both parts with the same elevations), so that the comparison is
  // of rain, not of height (1.9x on the shipped default planet at f = 96, docs/fluvial.md).
  const Config config = configAt("default.toml", 96);
  const PlanetState planet = eroded(config);
  const nlohmann::json d = drainageSummary(planet, config);
  const auto& matched = d["elevation_matched_quarters"];
  INFO(matched.dump(1));
  CHECK(matched["wettest"]["mean_channel_depth_m"].get<double>() >=
        1.5 * matched["driest"]["mean_channel_depth_m"].get<double>());
}

TEST_CASE("rivers: clouds, fluvial stage and droplets bit-identical at 1, 2 and 4 threads",
          "[rivers]") {
  // f = 128: the fluvial stage's coarse level (32) runs too. PLANETGEN_RIVERS_THREAD_SET=
  // "<key>=<value>;..." changes keys the way the CLI's --set does (CI's tsan stage: fewer cloud
  // ticks and droplets, through the same stages at the same frequency).
  std::vector<std::string> overrides = test_support::envList("PLANETGEN_RIVERS_THREAD_SET");
  overrides.insert(overrides.begin(), "planet.frequency=128");
  const Config config =
      loadConfig(std::string(PLANETGEN_SOURCE_DIR) + "/configs/default.toml", overrides);
  INFO("overrides: " << Catch::Detail::stringify(overrides));
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 4}) {
    tbb::task_arena arena(threads);
    arena.execute([&] { results.push_back(eroded(config).elevation_m); });
  }
  CHECK(results[0] == results[1]);
  CHECK(results[0] == results[2]);
}

TEST_CASE("rivers: slope-area fit, binned and per vertex, against hand-computed cases",
          "[rivers]") {
  // S = 0.01 A^-0.5 exactly, A over three decades: both fits give theta 0.5 and R^2 1.
  std::vector<double> x, y;
  for (int i = 0; i < 3000; ++i) {
    x.push_back(6.0 + 0.001 * i);
    y.push_back(-2.0 - 0.5 * x.back());
  }
  SlopeAreaFit exact = slopeAreaFit(x, y);
  CHECK(exact.theta == Approx(0.5).epsilon(1e-9));
  CHECK(exact.r2 == Approx(1.0).epsilon(1e-9));
  CHECK(exact.vertex_theta == Approx(0.5).epsilon(1e-9));
  CHECK(exact.vertex_r2 == Approx(1.0).epsilon(1e-9));
  CHECK(exact.bins == 30);

  // Alternating scatter of +-e around the trend: within each bin it cancels, so the binned fit
  // keeps theta 0.5 and R^2 ~1, while per vertex R^2 = var(trend) / (var(trend) + e^2), with
  // var(trend) = 0.25 (range^2 / 12) for x uniform over a range of 3.
  const double e = 0.3;
  for (size_t i = 0; i < y.size(); ++i) y[i] += (i % 2 ? e : -e);
  SlopeAreaFit noisy = slopeAreaFit(x, y);
  CHECK(noisy.theta == Approx(0.5).margin(1e-3));
  CHECK(noisy.r2 > 0.999);
  const double trend = 0.25 * 9.0 / 12.0;
  CHECK(noisy.vertex_r2 == Approx(trend / (trend + e * e)).epsilon(2e-3));

  // Bins of fewer than kSlopeAreaMinBin vertices are left out of the binned fit.
  // Here one vertex per bin: no bin counts, the per-vertex fit still does.
  std::vector<double> sx, sy;
  for (int i = 0; i < 25; ++i) {
    sx.push_back(6.0 + kSlopeAreaBinDecades * (i + 0.5));
    sy.push_back(-2.0 - 0.5 * sx.back());
  }
  SlopeAreaFit sparse = slopeAreaFit(sx, sy);
  CHECK(sparse.bins == 0);
  CHECK(sparse.theta == 0.0);
  CHECK(sparse.vertex_theta == Approx(0.5).epsilon(1e-9));
}

TEST_CASE("rivers: without droplets the fluvial relief drains everywhere too", "[rivers]") {
  // Seed 5 at f = 64: the stage keeps endorheic lakes whose rims its steady state lowers, and
  // two of them shrink to pits of one vertex (0.70 pits per 10,000 land vertices, steepest
  // descent reaching the sea or a lake from 98.8 % of the land, without the fill after it).
  const std::string overrides[] = {"planet.seed=5", "planet.frequency=64",
                                   "erosion.droplets_per_land_vertex=0"};
  const Config config =
      loadConfig(std::string(PLANETGEN_SOURCE_DIR) + "/configs/default.toml", overrides);
  const PlanetState planet = eroded(config);
  REQUIRE(planet.erosion_stats.droplets == 0);
  const nlohmann::json d = drainageSummary(planet, config);
  const auto& after = d["after"];
  INFO(after.dump(1));
  CHECK(after["pits_per_10k_land_vertices"].get<double>() == 0.0);
  CHECK(after["steepest_descent"]["sinks_per_10k_land_vertices"].get<double>() == 0.0);
  CHECK(after["steepest_descent"]["reaches_sea_or_lake"].get<double>() == 1.0);
}

TEST_CASE("rivers: rain quarters overall and within elevation bands, hand-computed", "[rivers]") {
  // 16 land vertices, elevation = index, so four bands: 0-3, 4-7, 8-11, 12-15. Rain rises with
  // elevation overall, so the driest quarter overall is low land and the wettest high land.
  const std::vector<float> elevation = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const std::vector<float> rain = {5, 1, 3, 2, 9, 8, 6, 7, 12, 10, 11, 13, 15, 14, 4, 0};
  const std::vector<uint32_t> land = {7, 3, 12, 0, 9, 15, 1, 4, 14, 8, 2, 11, 6, 13, 10, 5};
  auto chosen = [](const std::vector<uint8_t>& mask) {
    std::vector<uint32_t> v;
    for (uint32_t i = 0; i < mask.size(); ++i)
      if (mask[i]) v.push_back(i);
    return v;
  };
  // Overall: the four lowest rains (15, 1, 3, 2) and the four highest (12, 13, 11, 8).
  const QuarterMasks overall = rainQuarterMasks(land, 18, rain, {}, 4);
  REQUIRE(overall.driest.size() == 18);
  CHECK(chosen(overall.driest) == std::vector<uint32_t>{1, 2, 3, 15});
  CHECK(chosen(overall.wettest) == std::vector<uint32_t>{8, 11, 12, 13});
  // Within bands: the driest and wettest vertex of each band of four.
  const QuarterMasks banded = rainQuarterMasks(land, 18, rain, elevation, 4);
  CHECK(chosen(banded.driest) == std::vector<uint32_t>{1, 6, 9, 15});
  CHECK(chosen(banded.wettest) == std::vector<uint32_t>{0, 4, 11, 12});
  // Ties break by index: equal rain, the lowest indices are the driest.
  const std::vector<float> flat(16, 1.0f);
  const QuarterMasks tied = rainQuarterMasks(land, 16, flat, {}, 1);
  CHECK(chosen(tied.driest) == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(chosen(tied.wettest) == std::vector<uint32_t>{12, 13, 14, 15});
}

TEST_CASE("rivers: within bands, channel depth is weighted by band alike for both quarters",
          "[rivers]") {
  // Channels are single pits below land at 1000 m (no two adjacent), so each one's depth is
  // its own. Valleys are 10 m deep in the lowest band and 100 m in the highest, the same in
  // the wettest and driest quarter; the wettest holds most of its channels in the highest band
  // and the driest most of its own in the lowest. Pooled over the bands the wettest reads
  // several times deeper; weighted by band alike, the two are equal. With the wettest's valleys
  // twice as deep in each band, its depth is twice the driest's.
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(8);
  const size_t n = mesh.vertexCount();
  std::vector<float> band_elevation(n), rain(n);
  std::vector<uint32_t> land(n);
  for (uint32_t v = 0; v < n; ++v) {
    land[v] = v;
    band_elevation[v] = float(v);
    rain[v] = float((uint64_t(v) * 2654435761u) % 1000u);
  }
  const QuarterMasks masks = rainQuarterMasks(land, n, rain, band_elevation, kElevationBands);
  // Channels: quarter vertices of the lowest and highest band, none next to another; the
  // wettest keeps one in three of the lowest band's, the driest one in three of the highest's.
  std::vector<uint8_t> channel(n, 0);
  int kept[2][2] = {{0, 0}, {0, 0}};  // [wettest, driest][lowest, highest]
  for (uint32_t v = 0; v < n; ++v) {
    const uint8_t band = masks.wettest[v] ? masks.wettest[v] : masks.driest[v];
    if (band != 1 && band != kElevationBands) continue;
    bool free = true;
    for (uint32_t k = mesh.neighbour_offsets[v]; k < mesh.neighbour_offsets[v + 1]; ++k)
      free = free && !channel[mesh.neighbours[k]];
    if (!free) continue;
    const int part = masks.wettest[v] ? 0 : 1, high = band == kElevationBands ? 1 : 0;
    const bool sparse = (part == 0) != (high == 1);
    if (sparse && ++kept[part][high] % 3 != 0) continue;
    if (!sparse) ++kept[part][high];
    channel[v] = 1;
  }
  DrainageNetwork d;
  d.routing.receiver.resize(n);
  for (uint32_t v = 0; v < n; ++v) d.routing.receiver[v] = v;
  d.routing.order = land;
  d.routing.lake_of.assign(n, hydrology::kNoLake);
  d.routing.land_vertices = n;
  d.reaches_sea.assign(n, 0);
  d.area_m2.assign(n, 0.0);
  for (uint32_t v = 0; v < n; ++v)
    if (channel[v]) d.area_m2[v] = 1e30;
  d.plain_area_m2 = d.area_m2;
  for (const double wet_factor : {1.0, 2.0}) {
    std::vector<float> h(n, 1000.0f);
    for (uint32_t v = 0; v < n; ++v) {
      if (!channel[v]) continue;
      const double depth =
          (masks.wettest[v] == kElevationBands || masks.driest[v] == kElevationBands) ? 100.0
                                                                                      : 10.0;
      h[v] = float(1000.0 - depth * (masks.wettest[v] ? wet_factor : 1.0));
    }
    DrainageInput in;
    in.mesh = &mesh;
    in.sea_level_m = -1.0;
    in.elevation_m = h;
    const RainQuarters pooled = rainQuarters(in, d, rain);
    const RainQuarters banded = rainQuarters(in, d, rain, band_elevation);
    CHECK(banded.wettest.mean_channel_depth_m / banded.driest.mean_channel_depth_m ==
          Approx(wet_factor).epsilon(1e-5));
    // The masks' own pooled means (drainageMetrics over the whole quarter) are far apart.
    const DrainageMetrics wet_all = drainageMetrics(in, d, masks.wettest);
    const DrainageMetrics dry_all = drainageMetrics(in, d, masks.driest);
    CHECK(wet_all.mean_channel_depth_m / dry_all.mean_channel_depth_m > 2.0 * wet_factor);
    CHECK(pooled.wettest.mean_channel_depth_m > 0.0);
  }
  CHECK(kept[0][1] > 10);
  CHECK(kept[1][0] > 10);
}

TEST_CASE("rivers: rain quarters by selection equal those of a full sort", "[rivers]") {
  // Many ties (values from a few levels) and band sizes that do not divide by 4: the masks must
  // be the sets a sort by (key, index) gives.
  const size_t n = 5003;
  std::vector<float> rain(n), elevation(n);
  std::vector<uint32_t> land;
  uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(state >> 33);
  };
  for (uint32_t v = 0; v < n; ++v) {
    rain[v] = float(next() % 50);
    elevation[v] = float(next() % 30);
    if (next() % 5 != 0) land.push_back(v);
  }
  std::shuffle(land.begin(), land.end(), std::mt19937(7));
  const auto byKey = [](const std::vector<float>& key) {
    return
        [&key](uint32_t a, uint32_t b) { return key[a] < key[b] || (key[a] == key[b] && a < b); };
  };
  for (const int bands : {1, 3, 4}) {
    std::vector<uint32_t> sorted = land;
    std::sort(sorted.begin(), sorted.end(), byKey(elevation));
    std::vector<uint8_t> driest(n, 0), wettest(n, 0);
    for (int b = 0; b < bands; ++b) {
      const auto first = sorted.begin() + ptrdiff_t(sorted.size() * size_t(b) / size_t(bands));
      const auto last = sorted.begin() + ptrdiff_t(sorted.size() * size_t(b + 1) / size_t(bands));
      std::sort(first, last, byKey(rain));
      const ptrdiff_t quarter = (last - first) / 4;
      for (ptrdiff_t i = 0; i < quarter; ++i) {
        driest[*(first + i)] = 1;
        wettest[*(last - 1 - i)] = 1;
      }
    }
    const QuarterMasks masks = rainQuarterMasks(land, n, rain, elevation, bands);
    // The masks hold 1 + the band; as sets they are the sort's.
    auto asSet = [](const std::vector<uint8_t>& mask) {
      std::vector<uint8_t> set(mask.size());
      for (size_t v = 0; v < mask.size(); ++v) set[v] = mask[v] != 0;
      return set;
    };
    CHECK(asSet(masks.driest) == driest);
    CHECK(asSet(masks.wettest) == wettest);
    CHECK(*std::max_element(masks.wettest.begin(), masks.wettest.end()) == bands);
    CHECK(std::count(driest.begin(), driest.end(), 1) > 0);
  }
}

namespace {

// The neighbour of b most nearly opposite a (the straight continuation of the step a -> b).
uint32_t straightOn(const geodesy::SphereMesh& mesh, uint32_t a, uint32_t b) {
  const glm::vec3 in = glm::normalize(mesh.positions[b] - mesh.positions[a]);
  uint32_t best = b;
  float best_dot = -2.0f;
  for (uint32_t k = mesh.neighbour_offsets[b]; k < mesh.neighbour_offsets[b + 1]; ++k) {
    const uint32_t m = mesh.neighbours[k];
    const float d = glm::dot(in, glm::normalize(mesh.positions[m] - mesh.positions[b]));
    if (d > best_dot) best_dot = d, best = m;
  }
  return best;
}

// Appends `steps` vertices to path, each straight on from the path's last step.
void goStraight(const geodesy::SphereMesh& mesh, std::vector<uint32_t>& path, int steps) {
  for (int i = 0; i < steps; ++i)
    path.push_back(straightOn(mesh, path[path.size() - 2], path.back()));
}

// The neighbour of b that turns 60 deg from the step a -> b (the second most nearly straight).
uint32_t turnAt(const geodesy::SphereMesh& mesh, uint32_t a, uint32_t b) {
  const uint32_t ahead = straightOn(mesh, a, b);
  const glm::vec3 in = glm::normalize(mesh.positions[b] - mesh.positions[a]);
  uint32_t best = b;
  float best_dot = -2.0f;
  for (uint32_t k = mesh.neighbour_offsets[b]; k < mesh.neighbour_offsets[b + 1]; ++k) {
    const uint32_t m = mesh.neighbours[k];
    const float d = glm::dot(in, glm::normalize(mesh.positions[m] - mesh.positions[b]));
    if (m != ahead && d > best_dot) best_dot = d, best = m;
  }
  return best;
}

// A channel along `path` (each vertex drains to the next, the last to itself); every other
// vertex drains to itself and is no channel. Returns the straight runs of it.
StraightRuns runsAlong(const geodesy::SphereMesh& mesh, const std::vector<uint32_t>& path) {
  std::vector<uint32_t> receiver(mesh.vertexCount());
  std::vector<uint8_t> channel(mesh.vertexCount(), 0);
  for (uint32_t v = 0; v < receiver.size(); ++v) receiver[v] = v;
  for (size_t i = 0; i + 1 < path.size(); ++i) receiver[path[i]] = path[i + 1];
  for (uint32_t v : path) channel[v] = 1;
  // Receivers before donors: the path from its end.
  const std::vector<uint32_t> order(path.rbegin(), path.rend());
  return straightRuns(mesh, receiver, order, channel);
}

}  // namespace

TEST_CASE("rivers: straight runs of a hand-made channel along the lattice", "[rivers]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32);
  // Start inside a base face (vertex numbering: face interiors come last) and walk straight on.
  const uint32_t start = uint32_t(mesh.vertexCount() - 200);
  std::vector<uint32_t> path = {start, mesh.neighbours[mesh.neighbour_offsets[start]]};
  goStraight(mesh, path, 11);
  REQUIRE(std::set<uint32_t>(path.begin(), path.end()).size() == path.size());
  // 13 vertices, 12 straight steps: every step is in a run of more than 8.
  StraightRuns straight = runsAlong(mesh, path);
  CHECK(straight.steps == 12);
  CHECK(straight.longest == 12);
  CHECK(straight.share == 1.0);
  // A 60 deg turn after the 5th step: runs of 5 and 7 steps, none longer than 8.
  std::vector<uint32_t> bent(path.begin(), path.begin() + 6);
  bent.push_back(turnAt(mesh, bent[4], bent[5]));
  goStraight(mesh, bent, 6);
  REQUIRE(bent.size() == 13);
  StraightRuns turned = runsAlong(mesh, bent);
  CHECK(turned.steps == 12);
  CHECK(turned.longest == 7);
  CHECK(turned.share == 0.0);
  // Nine straight steps (one more than kStraightRunSteps), then a turn and three: 9 of 12
  // steps are in a long run.
  std::vector<uint32_t> nine(path.begin(), path.begin() + 10);
  nine.push_back(turnAt(mesh, nine[8], nine[9]));
  goStraight(mesh, nine, 2);
  StraightRuns mixed = runsAlong(mesh, nine);
  CHECK(mixed.steps == 12);
  CHECK(mixed.longest == 9);
  CHECK(mixed.share == Approx(9.0 / 12.0));
}

TEST_CASE("rivers: steepest descent on hand-made heights: sinks, lakes, reach", "[rivers]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(16);
  // A cone rising from the southern sea to the north pole: every land vertex has a lower
  // neighbour, and steepest descent reaches the sea from all of it.
  std::vector<float> h = relief_fixtures::conePlanet(mesh);
  DrainageInput in;
  in.mesh = &mesh;
  in.radius_m = 1.0e6;
  in.elevation_m = h;
  {
    const SteepestDescent sd = steepestDescent(mesh, h, 0.0);
    for (uint32_t v : sd.order) CHECK(h[sd.receiver[v]] < h[v]);
    const SteepestMetrics m = steepestMetrics(in, drainageOf(in));
    CHECK(m.reaches_sea_or_lake == 1.0);
    CHECK(m.sinks_per_10k == 0.0);
  }
  // One vertex levelled with its lowest neighbour: a flat, a sink outside any lake, and the
  // walks through it stop there.
  uint32_t flat = 0;
  for (uint32_t v = 0; v < h.size(); ++v)
    if (std::abs(mesh.positions[v].y - 0.5f) < std::abs(mesh.positions[flat].y - 0.5f)) flat = v;
  std::vector<float> levelled = h;
  float lowest = levelled[flat];
  for (uint32_t k = mesh.neighbour_offsets[flat]; k < mesh.neighbour_offsets[flat + 1]; ++k)
    lowest = std::min(lowest, levelled[mesh.neighbours[k]]);
  levelled[flat] = lowest;
  in.elevation_m = levelled;
  const SteepestMetrics m = steepestMetrics(in, drainageOf(in));
  size_t land = 0;
  for (float e : levelled) land += e >= 0.0f;
  CHECK(m.sinks_per_10k == Approx(1e4 / double(land)));
  CHECK(m.reaches_sea_or_lake < 1.0);
  // Dug with its ring below the ring around them, it is a lake of 7 vertices: no sink outside
  // a lake, and every walk ends in the sea or the lake.
  std::vector<float> dug = h;
  std::set<uint32_t> basin = {flat};
  for (uint32_t k = mesh.neighbour_offsets[flat]; k < mesh.neighbour_offsets[flat + 1]; ++k)
    basin.insert(mesh.neighbours[k]);
  float rim = std::numeric_limits<float>::max();
  for (uint32_t b : basin)
    for (uint32_t k = mesh.neighbour_offsets[b]; k < mesh.neighbour_offsets[b + 1]; ++k)
      if (!basin.count(mesh.neighbours[k])) rim = std::min(rim, h[mesh.neighbours[k]]);
  float step = 0.0f;
  for (uint32_t b : basin) dug[b] = rim - 20.0f + (step += 0.5f);
  dug[flat] = rim - 50.0f;
  in.elevation_m = dug;
  const DrainageNetwork lake = drainageOf(in);
  REQUIRE(lake.routing.lake_of[flat] != hydrology::kNoLake);
  REQUIRE(lake.routing.lakes[lake.routing.lake_of[flat]].vertex_count >= kMinLakeVertices);
  const SteepestMetrics with_lake = steepestMetrics(in, lake);
  CHECK(with_lake.sinks_per_10k == 0.0);
  CHECK(with_lake.reaches_sea_or_lake == 1.0);
}

TEST_CASE("rivers: the highest land and the share left within 20 m", "[rivers]") {
  const std::vector<float> initial = {-5, 10, 40, 30, 20, 100, 90, 80, 70, 60, 50, -1};
  // Ten land vertices: the highest tenth is vertex 5, the highest 30 % are 5, 6 and 7.
  std::vector<uint8_t> tenth = highestLand(initial, 0.0, 0.1);
  CHECK(std::count(tenth.begin(), tenth.end(), 1) == 1);
  CHECK(tenth[5] == 1);
  std::vector<uint8_t> top = highestLand(initial, 0.0, 0.3);
  CHECK(top == std::vector<uint8_t>{0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0});
  std::vector<float> after = initial;
  after[5] -= 25.0f;  // cut
  after[6] -= 20.0f;  // just within
  CHECK(shareWithin(initial, after, top) == Approx(2.0 / 3.0));
  CHECK(shareWithin(initial, after, tenth) == 0.0);
}
