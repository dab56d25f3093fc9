#include "planet/detail/compare_metrics.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "geodesy/latlon.h"
#include "metrics/drainage_metrics.h"
#include "metrics/terrain_metrics.h"
#include "planet/detail/drainage_report.h"
#include "planet/run_stats.h"

namespace planet {
namespace {

using Json = nlohmann::json;

constexpr double kChangeThresholdM = 1.0;

std::vector<uint8_t> landMask(const PlanetState& base) {
  std::vector<uint8_t> mask(base.initial_elevation_m.size());
  for (size_t v = 0; v < mask.size(); ++v)
    mask[v] = base.initial_elevation_m[v] >= base.sea_level_m;
  return mask;
}

Json roughnessJson(const metrics::Roughness& r) {
  return {{"rms_slope", r.rms_slope}, {"mean_abs_curvature_per_m", r.mean_abs_curvature}};
}

Json drainageJson(const metrics::Drainage& d) {
  return {{"channel_vertices", d.channel_vertices},
          {"longest_channel_m", d.longest_channel_m},
          {"threshold_area_m2", d.threshold_area_m2}};
}

// Drainage channels: vertices draining more than kChannelAreaCells mean vertex areas.
double channelThreshold(const geodesy::SphereMesh& mesh, double radius_m) {
  return metrics::kChannelAreaCells * metrics::meanCellAreaM2(mesh, radius_m);
}

ModeMetrics metricsOf(const PlanetState& run, const Config& config, std::span<const uint8_t> land) {
  const geodesy::SphereMesh& mesh = *run.mesh;
  const double radius = config.planet.radius_m;
  ModeMetrics m;
  const erosion::ErosionStats& e = run.erosion_stats;
  m.json["droplets"] = e.droplets;
  m.json["eroded_volume_m3"] = e.eroded_volume_m3;
  m.json["deposited_volume_m3"] = e.deposited_volume_m3;
  m.json["carried_out_volume_m3"] = e.carried_out_volume_m3;
  m.json["mass_conservation_error"] = e.mass_error;
  m.json["mean_steps_per_droplet"] = e.mean_steps;
  m.json["elevation_hash"] = hashFloats(run.elevation_m);

  // The rain that fell (droplets spawned, at the cloud-grid scale) against erosion depth, over
  // the land of the initial terrain. Uniform rain's expected map is a constant, whose
  // correlation with anything is undefined; its droplets are a random draw around it.
  std::vector<double> rain, depth;
  uint64_t land_vertices = 0, changed = 0;
  for (size_t v = 0; v < land.size(); ++v) {
    if (!land[v]) continue;
    ++land_vertices;
    rain.push_back(run.droplet_density.empty() ? 0.0 : run.droplet_density[v]);
    depth.push_back(std::max(0.0, -double(run.change_m[v])));
    changed += std::abs(run.change_m[v]) > kChangeThresholdM;
  }
  m.json["rain_erosion_spearman"] = metrics::spearman(rain, depth);
  m.json["land_fraction_changed_over_1m"] =
      land_vertices ? double(changed) / double(land_vertices) : 0.0;
  m.json["roughness_after"] =
      roughnessJson(metrics::landRoughness(mesh, radius, run.elevation_m, land));
  m.json["drainage_after"] = drainageJson(
      metrics::drainage(mesh, radius, run.elevation_m, land, channelThreshold(mesh, radius)));

  m.bands = metrics::latitudeBands(mesh, radius, run.initial_elevation_m, run.sea_level_m,
                                   run.rainfall, run.change_m);
  Json bands = Json::array();
  for (const metrics::LatitudeBand& b : m.bands) {
    bands.push_back({{"lat_min_deg", b.lat_min_deg},
                     {"lat_max_deg", b.lat_max_deg},
                     {"mean_land_rainfall", b.mean_rainfall},
                     {"eroded_volume_m3", b.eroded_volume_m3},
                     {"deposited_volume_m3", b.deposited_volume_m3}});
  }
  m.json["latitude_bands"] = bands;
  return m;
}

// The five largest land masses: where they are and how each run changed them.
Json regionsJson(const PlanetState& weather, const PlanetState& uniform,
                 std::span<const uint8_t> land, double radius_m) {
  const geodesy::SphereMesh& mesh = *weather.mesh;
  const auto masses = metrics::landMasses(mesh, land);
  const double r2 = radius_m * radius_m;
  Json regions = Json::array();
  for (size_t i = 0; i < masses.size() && i < 5; ++i) {
    double area = 0, rain_w = 0, rain_u = 0, eroded_w = 0, eroded_u = 0;
    glm::dvec3 centre(0.0);
    for (uint32_t v : masses[i]) {
      const double a = mesh.vertex_areas[v];
      area += a;
      centre += a * glm::dvec3(mesh.positions[v]);
      rain_w += a * (weather.rainfall.empty() ? 0.0 : weather.rainfall[v]);
      rain_u += a * (uniform.rainfall.empty() ? 0.0 : uniform.rainfall[v]);
      eroded_w += a * r2 * std::max(0.0, -double(weather.change_m[v]));
      eroded_u += a * r2 * std::max(0.0, -double(uniform.change_m[v]));
    }
    const geodesy::LatLon ll = geodesy::unitToLatLon(glm::normalize(centre));
    regions.push_back(
        {{"rank", i + 1},
         {"vertices", masses[i].size()},
         {"area_km2", area * r2 / 1e6},
         {"centre_lat_deg", ll.lat_rad * 180.0 / M_PI},
         {"centre_lon_deg", ll.lon_rad * 180.0 / M_PI},
         {"mean_rainfall_weather", rain_w / area},
         {"mean_rainfall_uniform", rain_u / area},
         {"eroded_volume_weather_m3", eroded_w},
         {"eroded_volume_uniform_m3", eroded_u},
         {"eroded_ratio_weather_to_uniform", eroded_u > 0 ? eroded_w / eroded_u : 0.0}});
  }
  return regions;
}

// Drainage of one run (summary.json's section), plus its wettest and driest quarter of land by
// the cloud run's rainfall, so both runs are split over the same ground. water receives the
// run's rivers and lakes for the pictures.
Json riversJson(const PlanetState& run, const Config& config, std::span<const float> split_rain,
                std::vector<float>& water) {
  const metrics::DrainageInput input = drainageInputOf(run, config);
  const metrics::DrainageNetwork drainage = metrics::drainageOf(input);
  Json j = drainageSummary(run, config, drainage);
  water = metrics::waterStrength(input, drainage);
  auto quartersJson = [](const metrics::RainQuarters& q) {
    const double dry_depth = q.driest.mean_channel_depth_m;
    const double dry_length = q.driest.channel_length_km_per_1000km2;
    return Json{
        {"wettest", planet::drainageJson(q.wettest)},
        {"driest", planet::drainageJson(q.driest)},
        {"channel_depth_ratio", dry_depth > 0 ? q.wettest.mean_channel_depth_m / dry_depth : 0.0},
        {"channel_length_ratio",
         dry_length > 0 ? q.wettest.channel_length_km_per_1000km2 / dry_length : 0.0}};
  };
  j["cloud_rain_quarters"] = quartersJson(metrics::rainQuarters(input, drainage, split_rain));
  j["cloud_rain_quarters"]["elevation_matched"] =
      quartersJson(metrics::rainQuarters(input, drainage, split_rain, run.initial_elevation_m));
  j["cloud_rain_quarters"]["elevation_matched"]["elevation_bands"] = metrics::kElevationBands;
  return j;
}

}  // namespace

CompareMetrics compareMetrics(const CompareRuns& runs, const Config& config) {
  const std::vector<uint8_t> land = landMask(runs.base);
  const geodesy::SphereMesh& mesh = *runs.base.mesh;
  const double radius = config.planet.radius_m;
  const std::vector<float>& initial = runs.base.initial_elevation_m;
  CompareMetrics m;
  m.weather = metricsOf(runs.weather, runs.weather_config, land);
  m.uniform = metricsOf(runs.uniform, runs.uniform_config, land);
  Json& j = m.json;
  j["seed"] = config.planet.seed;
  j["frequency"] = config.planet.frequency;
  j["vertices"] = mesh.vertexCount();
  j["initial_elevation_hash"] = hashFloats(initial);
  j["initial"] = {{"roughness", roughnessJson(metrics::landRoughness(mesh, radius, initial, land))},
                  {"drainage", drainageJson(metrics::drainage(mesh, radius, initial, land,
                                                              channelThreshold(mesh, radius)))}};
  j["weather"] = m.weather.json;
  j["uniform"] = m.uniform.json;
  j["regions"] = regionsJson(runs.weather, runs.uniform, land, radius);
  j["weather"]["rivers"] =
      riversJson(runs.weather, runs.weather_config, runs.weather.rainfall, m.water_weather);
  j["uniform"]["rivers"] =
      riversJson(runs.uniform, runs.uniform_config, runs.weather.rainfall, m.water_uniform);
  return m;
}

}  // namespace planet
