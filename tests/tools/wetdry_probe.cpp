// What sets the channel depth of the wettest and driest quarters (split by the cloud run's rain,
// within elevation quartiles of the noise) on the uniform-rain run of `planetgen compare`: per
// quartile and quarter, over the channel vertices (drainage area >= 50 mean cells, outside
// lakes) of the uniform run, the means of what sets a steady-state channel's depth. Not part of
// the tool; a probe for docs/fluvial.md ("What does not hold"):
//
//   wetdry_probe CONFIG [--set section.key=value]...
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include <glm/geometric.hpp>

#include "metrics/drainage_metrics.h"
#include "planet/config.h"
#include "planet/pipeline.h"
#include "terrain/hardness.h"

namespace {

struct Sums {
  double n = 0, depth = 0, depth_noise = 0, depth_cloud = 0, log_area = 0, uplift = 0, k = 0,
         u_over_k = 0, slope = 0, coast_hops = 0, noise_relief = 0, detail = 0, h = 0, h0 = 0,
         hill_share = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: wetdry_probe CONFIG [--set k=v]...\n");
    return 2;
  }
  std::vector<std::string> sets;
  for (int i = 2; i + 1 < argc; i += 2) sets.push_back(argv[i + 1]);
  const planet::Config config = planet::loadConfig(argv[1], sets);
  planet::StageTimer timer;
  const planet::StageCallback quiet = [](const std::string&) {};
  planet::PlanetState base = planet::buildPlanet(config, timer, quiet);
  planet::Config cloud_config = config, uniform_config = config;
  cloud_config.weather.mode = planet::RainMode::kClouds;
  uniform_config.weather.mode = planet::RainMode::kUniform;
  planet::PlanetState cloud = base, uniform = base;
  planet::erodePlanet(cloud, cloud_config, timer, quiet, true);
  planet::erodePlanet(uniform, uniform_config, timer, quiet, true);

  const geodesy::SphereMesh& mesh = *base.mesh;
  const size_t n = mesh.vertexCount();
  const float sea = float(base.sea_level_m);
  const std::vector<float>& noise = base.initial_elevation_m;
  // The stage's uplift pattern (two passes of x <- (x + ring mean) / 2, floored at 15 % of
  // the highest land), its erodibility.
  std::vector<float> low = noise, next(n);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t v = 0; v < n; ++v) {
      double s = 0;
      const uint32_t b = mesh.neighbour_offsets[v], e = mesh.neighbour_offsets[v + 1];
      for (uint32_t k = b; k < e; ++k) s += low[mesh.neighbours[k]];
      next[v] = float(0.5 * low[v] + 0.5 * s / double(e - b));
    }
    low.swap(next);
  }
  double top = 0;
  for (size_t v = 0; v < n; ++v)
    if (noise[v] >= sea) top = std::max(top, double(noise[v] - sea));
  std::vector<float> erod(n, 1.0f);
  if (config.hardness.enabled)
    erod = terrain::erodibilityField(mesh.positions, config.planet.seed,
                                     config.hardness.min_erodibility, config.hardness.frequency);
  // Hops to the sea (breadth first from the sea).
  std::vector<int> hops(n, -1);
  std::deque<uint32_t> queue;
  for (uint32_t v = 0; v < n; ++v)
    if (noise[v] < sea) hops[v] = 0, queue.push_back(v);
  while (!queue.empty()) {
    const uint32_t v = queue.front();
    queue.pop_front();
    for (uint32_t k = mesh.neighbour_offsets[v]; k < mesh.neighbour_offsets[v + 1]; ++k) {
      const uint32_t m = mesh.neighbours[k];
      if (hops[m] < 0) hops[m] = hops[v] + 1, queue.push_back(m);
    }
  }
  const metrics::DrainageInput input = planet::drainageInputOf(uniform, uniform_config);
  const metrics::DrainageNetwork d = metrics::drainageOf(input);
  const metrics::QuarterMasks masks = metrics::rainQuarterMasks(d.routing.order, n, cloud.rainfall,
                                                                noise, metrics::kElevationBands);
  // Bands as rainQuarterMasks makes them: equal counts of land by noise elevation.
  std::vector<uint32_t> land(d.routing.order.begin(), d.routing.order.end());
  std::sort(land.begin(), land.end(), [&](uint32_t a, uint32_t b) {
    return noise[a] < noise[b] || (noise[a] == noise[b] && a < b);
  });
  std::vector<int> band(n, -1);
  for (size_t i = 0; i < land.size(); ++i)
    band[land[i]] = int(i * metrics::kElevationBands / land.size());
  const double threshold =
      metrics::kChannelAreaCells * metrics::meanCellAreaM2(mesh, config.planet.radius_m);
  auto ringDepth = [&](const std::vector<float>& h, uint32_t v) {
    double ring = 0;
    const uint32_t b = mesh.neighbour_offsets[v], e = mesh.neighbour_offsets[v + 1];
    for (uint32_t k = b; k < e; ++k) ring += std::max(double(h[mesh.neighbours[k]]), double(sea));
    return ring / double(e - b) - double(h[v]);
  };
  Sums s[5][2];  // band (4 = all), wet / dry
  const std::vector<float>& h = uniform.elevation_m;
  for (uint32_t v : d.routing.order) {
    if (d.routing.lake_of[v] != hydrology::kNoLake || d.plain_area_m2[v] < threshold) continue;
    const int q = masks.wettest[v] ? 0 : (masks.driest[v] ? 1 : -1);
    if (q < 0) continue;
    const uint32_t r = d.routing.receiver[v];
    const glm::vec3 dv = mesh.positions[v] - mesh.positions[r];
    const double dist = std::sqrt(double(glm::dot(dv, dv))) * config.planet.radius_m;
    const double slope = r == v ? 0.0 : (double(h[v]) - std::max(double(h[r]), double(sea))) / dist;
    double lo = noise[v], hi = noise[v], hill = 0;
    const uint32_t b = mesh.neighbour_offsets[v], e = mesh.neighbour_offsets[v + 1];
    for (uint32_t k = b; k < e; ++k) {
      const uint32_t m = mesh.neighbours[k];
      lo = std::min(lo, double(noise[m])), hi = std::max(hi, double(noise[m]));
      hill += d.plain_area_m2[m] < 6.0 * threshold / metrics::kChannelAreaCells;
    }
    const double u = std::max(double(low[v] - sea), 0.15 * top);
    for (int bb : {band[v], 4}) {
      Sums& x = s[bb][q];
      x.n += 1;
      x.depth += ringDepth(h, v);
      x.depth_noise += ringDepth(noise, v);
      x.depth_cloud += ringDepth(cloud.elevation_m, v);
      x.log_area += std::log10(d.plain_area_m2[v] / threshold);
      x.uplift += u;
      x.k += erod[v];
      x.u_over_k += u / erod[v];
      x.slope += slope * 1000.0;
      x.coast_hops += hops[v];
      x.noise_relief += hi - lo;
      x.detail += std::abs(double(noise[v]) - double(low[v]));
      x.h += h[v];
      x.h0 += noise[v];
      x.hill_share += hill / double(e - b);
    }
  }
  std::printf(
      "band q  n     depth  d_noise d_cloud log(A/50) U      K     U/K     S(m/km) hops  "
      "ringrelief |detail| h      h0     hill_nb\n");
  for (int bb = 0; bb < 5; ++bb)
    for (int q = 0; q < 2; ++q) {
      const Sums& x = s[bb][q];
      const double c = std::max(1.0, x.n);
      std::printf(
          "%-4s %s %5.0f %6.1f %7.1f %7.1f %9.2f %6.0f %5.3f %7.0f %7.2f %5.1f %10.0f %8.1f "
          "%6.0f %6.0f %6.2f\n",
          bb == 4 ? "all" : std::to_string(bb + 1).c_str(), q ? "dry" : "wet", x.n, x.depth / c,
          x.depth_noise / c, x.depth_cloud / c, x.log_area / c, x.uplift / c, x.k / c,
          x.u_over_k / c, x.slope / c, x.coast_hops / c, x.noise_relief / c, x.detail / c, x.h / c,
          x.h0 / c, x.hill_share / c);
    }
  // The slope-area fit of each run as summary.json makes it (steepest descent on the written
  // heights, plain drainage area, channels of >= 50 cells outside lakes), then with the slope
  // divided by the stage's U / K (the uplift pattern times rain^rain_uplift over erodibility),
  // then against the rain-weighted area as well: the law the stage builds, S = (U/K) Q^-m.
  for (const auto* run : {&cloud, &uniform}) {
    const std::vector<float>& hh = run->elevation_m;
    double rain_sum = 0, land_area = 0;
    for (size_t v = 0; v < n; ++v)
      if (noise[v] >= sea)
        rain_sum += run->rainfall[v] * mesh.vertex_areas[v], land_area += mesh.vertex_areas[v];
    const double mean_rain = rain_sum / land_area;
    auto rainOf = [&](uint32_t v) {
      return std::max(config.fluvial.min_rain, double(run->rainfall[v]) / mean_rain);
    };
    const metrics::SteepestDescent sd = metrics::steepestDescent(mesh, hh, sea);
    std::vector<double> area(n, 0.0), q(n, 0.0);
    for (uint32_t v : sd.order) area[v] = mesh.vertex_areas[v], q[v] = area[v] * rainOf(v);
    for (size_t i = sd.order.size(); i-- > 0;) {
      const uint32_t v = sd.order[i], r = sd.receiver[v];
      if (r != v) area[r] += area[v], q[r] += q[v];
    }
    const metrics::DrainageInput rin =
        planet::drainageInputOf(*run, run == &cloud ? cloud_config : uniform_config);
    const metrics::DrainageNetwork rd = metrics::drainageOf(rin);
    const double r2 = config.planet.radius_m * config.planet.radius_m;
    std::vector<double> la, ls, lsn, lq;
    for (uint32_t v : sd.order) {
      const uint32_t l = rd.routing.lake_of[v];
      if (area[v] * r2 < threshold) continue;
      if (l != hydrology::kNoLake && rd.routing.lakes[l].vertex_count >= metrics::kMinLakeVertices)
        continue;
      const uint32_t r = sd.receiver[v];
      if (r == v) continue;
      const glm::vec3 dv = mesh.positions[v] - mesh.positions[r];
      const double slope = (double(hh[v]) - std::max(double(hh[r]), double(sea))) /
                           (std::sqrt(double(glm::dot(dv, dv))) * config.planet.radius_m);
      if (slope <= 0) continue;
      const double u = std::max(double(low[v] - sea), 0.15 * top) *
                       std::pow(rainOf(v), config.fluvial.rain_uplift) / erod[v];
      la.push_back(std::log10(area[v] * r2));
      ls.push_back(std::log10(slope));
      lsn.push_back(std::log10(slope / u));
      lq.push_back(std::log10(q[v] * r2));
    }
    const metrics::SlopeAreaFit a = metrics::slopeAreaFit(la, ls),
                                b = metrics::slopeAreaFit(la, lsn),
                                c = metrics::slopeAreaFit(lq, lsn);
    std::printf(
        "%s: %zu channel steps; S~A: theta %.2f R2 %.2f (vertex R2 %.2f, %llu bins); "
        "S/(U/K)~A: %.2f R2 %.2f (vertex %.2f); S/(U/K)~Q: %.2f R2 %.2f (vertex %.2f)\n",
        run == &cloud ? "cloud" : "uniform", la.size(), a.theta, a.r2, a.vertex_r2,
        (unsigned long long)a.bins, b.theta, b.r2, b.vertex_r2, c.theta, c.r2, c.vertex_r2);
    // Per bin (0.1 decade of A): count, mean and standard deviation of log S and log S/(U/K).
    if (run != &cloud) continue;
    double lo = 1e300;
    for (double x : la) lo = std::min(lo, x);
    struct Bin {
      double n = 0, s = 0, ss = 0, t = 0, tt = 0;
    };
    std::vector<Bin> bins;
    for (size_t i = 0; i < la.size(); ++i) {
      const size_t k = size_t((la[i] - lo) / metrics::kSlopeAreaBinDecades);
      if (bins.size() <= k) bins.resize(k + 1);
      Bin& x = bins[k];
      x.n += 1, x.s += ls[i], x.ss += ls[i] * ls[i], x.t += lsn[i], x.tt += lsn[i] * lsn[i];
    }
    std::printf("  log10 A  n    mean logS  sd    mean log S/(U/K)  sd\n");
    for (size_t k = 0; k < bins.size(); ++k) {
      const Bin& x = bins[k];
      if (x.n == 0) continue;
      const double ms = x.s / x.n, mt = x.t / x.n;
      std::printf("  %6.2f %4.0f %8.2f %6.2f %12.2f %8.2f\n", lo + (k + 0.5) * 0.1, x.n, ms,
                  std::sqrt(std::max(0.0, x.ss / x.n - ms * ms)), mt,
                  std::sqrt(std::max(0.0, x.tt / x.n - mt * mt)));
    }
  }
  return 0;
}
