// The fluvial stage in the pipeline (planet/pipeline.h): what a user of the shipped configs gets
// (docs/fluvial.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <tbb/task_arena.h>
#include <nlohmann/json.hpp>

#include "metrics/drainage_metrics.h"
#include "planet/config.h"
#include "planet/pipeline.h"
#include "support/river_planets.h"

using namespace planet;
using namespace metrics;

using river_fixtures::configAt;
using river_fixtures::eroded;

TEST_CASE("rivers: the default planet drains, keeps its coast and its peaks", "[rivers]") {
  const Config config = configAt("default.toml", 96);
  REQUIRE(config.weather.mode == RainMode::kClouds);
  REQUIRE(config.fluvial.enabled);
  const PlanetState planet = eroded(config);
  const nlohmann::json d = drainageSummary(planet, config);
  INFO(d.dump(1));
  const auto& before = d["before"];
  const auto& after = d["after"];
  CHECK(before["pits_per_10k_land_vertices"].get<double>() > 5.0);  // the noise has pits
  CHECK(after["pits_per_10k_land_vertices"].get<double>() <= 5.0);
  CHECK(after["land_draining_to_sea"].get<double>() >= 0.8);
  CHECK(after["mean_channel_depth_m"].get<double>() >=
        2.0 * before["mean_channel_depth_m"].get<double>());
  // The channels follow a stream-power slope-area law (binned fit, drainage_metrics.h).
  CHECK(after["slope_area_theta"].get<double>() >= 0.35);
  CHECK(after["slope_area_theta"].get<double>() <= 0.65);
  CHECK(after["slope_area_r2"].get<double>() >= 0.8);
  CHECK(d["former_sea_raised_over_100m"].get<uint64_t>() == 0);
  CHECK(d["final_max_m"].get<double>() <= d["initial_max_m"].get<double>());
  CHECK(d["coastline_moved"].get<double>() <= 0.01);
  // Wetter land is cut deeper and has more channels than drier land.
  CHECK(d["wettest_quarter"]["mean_channel_depth_m"].get<double>() >
        d["driest_quarter"]["mean_channel_depth_m"].get<double>());
  CHECK(d["wettest_quarter"]["channel_length_km_per_1000km2"].get<double>() >=
        2.0 * d["driest_quarter"]["channel_length_km_per_1000km2"].get<double>());
  // The same within elevation bands (both parts with the same elevations): cloud rain still
  // cuts the wet part deeper (docs/fluvial.md: 2.9x on the shipped default planet).
  const auto& matched = d["elevation_matched_quarters"];
  CHECK(matched["elevation_bands"].get<int>() == kElevationBands);
  CHECK(matched["wettest"]["mean_channel_depth_m"].get<double>() >=
        1.5 * matched["driest"]["mean_channel_depth_m"].get<double>());
  CHECK(matched["wettest"]["land_vertices"].get<uint64_t>() ==
        matched["driest"]["land_vertices"].get<uint64_t>());
  CHECK(planet.fluvial_stats.iterations == config.fluvial.iterations);
  CHECK(planet.fluvial_stats.sediment_balance_error < 1e-9);
}

TEST_CASE("rivers: clouds, fluvial stage and droplets bit-identical at 1, 2 and 4 threads",
          "[rivers]") {
  Config config = configAt("default.toml", 48);
  config.fluvial.coarse_frequency = 24;  // the coarse-to-fine path too
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
    CHECK(masks.driest == driest);
    CHECK(masks.wettest == wettest);
    CHECK(std::count(driest.begin(), driest.end(), 1) > 0);
  }
}
