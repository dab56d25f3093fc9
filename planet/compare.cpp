#include "planet/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/atomic_file.h"
#include "export/compare_report.h"
#include "export/globe.h"
#include "export/maps.h"
#include "export/mesh_export.h"
#include "export/png_io.h"
#include "geodesy/latlon.h"
#include "planet/drainage_metrics.h"
#include "planet/drainage_report.h"
#include "planet/latitude_bands.h"
#include "planet/signals.h"
#include "planet/terrain_metrics.h"

namespace planet {
namespace {

using Json = nlohmann::json;

// Drainage channels: vertices draining more than this many mean vertex areas.
constexpr double kChannelAreaInVertices = 50.0;
constexpr double kChangeThresholdM = 1.0;

struct ModeMetrics {
  Json json;
  std::vector<LatitudeBand> bands;
};

std::vector<uint8_t> landMask(const PlanetState& base) {
  std::vector<uint8_t> mask(base.initial_elevation_m.size());
  for (size_t v = 0; v < mask.size(); ++v)
    mask[v] = base.initial_elevation_m[v] >= base.sea_level_m;
  return mask;
}

Json roughnessJson(const Roughness& r) {
  return {{"rms_slope", r.rms_slope}, {"mean_abs_curvature_per_m", r.mean_abs_curvature}};
}

Json drainageJson(const Drainage& d) {
  return {{"channel_vertices", d.channel_vertices},
          {"longest_channel_m", d.longest_channel_m},
          {"threshold_area_m2", d.threshold_area_m2}};
}

double channelThreshold(const geodesy::SphereMesh& mesh, double radius_m) {
  return kChannelAreaInVertices * 4.0 * M_PI * radius_m * radius_m / double(mesh.vertexCount());
}

ModeMetrics metricsOf(const PlanetState& run, const Config& config, std::span<const uint8_t> land) {
  const geodesy::SphereMesh& mesh = *run.mesh;
  const double radius = config.planet.radius_m;
  ModeMetrics m;
  const erosion::ErosionStats& e = run.erosion_stats;
  m.json["droplets"] = e.droplets;
  m.json["eroded_volume_m3"] = e.eroded_volume_m3;
  m.json["deposited_volume_m3"] = e.deposited_volume_m3;
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
  m.json["rain_erosion_spearman"] = spearman(rain, depth);
  m.json["land_fraction_changed_over_1m"] =
      land_vertices ? double(changed) / double(land_vertices) : 0.0;
  m.json["roughness_after"] = roughnessJson(landRoughness(mesh, radius, run.elevation_m, land));
  m.json["drainage_after"] =
      drainageJson(drainage(mesh, radius, run.elevation_m, land, channelThreshold(mesh, radius)));

  m.bands = latitudeBands(mesh, radius, run.initial_elevation_m, run.sea_level_m, run.rainfall,
                          run.change_m);
  Json bands = Json::array();
  for (const LatitudeBand& b : m.bands) {
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
  const auto masses = landMasses(mesh, land);
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
  Json j = drainageSummary(run, config);
  const DrainageInput input = drainageInputOf(run, config);
  const DrainageNetwork drainage = drainageOf(input);
  water = waterStrength(input, drainage);
  auto quartersJson = [](const RainQuarters& q) {
    const double dry_depth = q.driest.mean_channel_depth_m;
    const double dry_length = q.driest.channel_length_km_per_1000km2;
    return Json{
        {"wettest", drainageJson(q.wettest)},
        {"driest", drainageJson(q.driest)},
        {"channel_depth_ratio", dry_depth > 0 ? q.wettest.mean_channel_depth_m / dry_depth : 0.0},
        {"channel_length_ratio",
         dry_length > 0 ? q.wettest.channel_length_km_per_1000km2 / dry_length : 0.0}};
  };
  j["cloud_rain_quarters"] = quartersJson(rainQuarters(input, drainage, split_rain));
  j["cloud_rain_quarters"]["elevation_matched"] =
      quartersJson(rainQuarters(input, drainage, split_rain, run.initial_elevation_m));
  j["cloud_rain_quarters"]["elevation_matched"]["elevation_bands"] = kElevationBands;
  return j;
}

// The pixel column and row of the initial terrain's highest point on a map of this width: the
// centre of the crops of the largest mountain range.
std::pair<int, int> highestPixel(const PlanetState& base, int width) {
  const auto top =
      std::max_element(base.initial_elevation_m.begin(), base.initial_elevation_m.end());
  const geodesy::LatLon ll = geodesy::unitToLatLon(
      glm::dvec3(base.mesh->positions[size_t(top - base.initial_elevation_m.begin())]));
  const int x = int((ll.lon_rad + M_PI) / (2.0 * M_PI) * width);
  const int y = int((0.5 * M_PI - ll.lat_rad) / M_PI * (width / 2));
  return {x, y};
}

std::string fmt(double x, const char* format = "%.3g") {
  char text[48];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

std::string summaryText(const Json& metrics) {
  const Json& w = metrics["weather"];
  const Json& u = metrics["uniform"];
  const double rw = w["rain_erosion_spearman"], ru = u["rain_erosion_spearman"];
  std::string text = "Same terrain, same " + std::to_string(w["droplets"].get<uint64_t>()) +
                     " droplets and erosion parameters; only where the rain falls differs. ";
  text += "Under cloud rain, erosion follows the rain (Spearman " + fmt(rw, "%.2f") +
          " between rainfall and erosion depth on land, against " + fmt(ru, "%.2f") +
          " for uniform rain). ";
  const double cw = w["land_fraction_changed_over_1m"], cu = u["land_fraction_changed_over_1m"];
  text += "Cloud rain changes " + fmt(100 * cw, "%.0f") + " % of the land by more than 1 m, " +
          "uniform rain " + fmt(100 * cu, "%.0f") + " %: ";
  text += cw < cu ? "weather concentrates erosion on wet coasts and windward mountains and "
                    "leaves dry interiors and lee sides nearly untouched."
                  : "weather spreads erosion at least as widely as uniform rain, with its "
                    "strongest carving on wet coasts and windward slopes.";
  return text;
}

planet_export::ReportChart latitudeChart(const std::string& title, const std::string& y_label,
                                         const ModeMetrics& weather, const ModeMetrics& uniform,
                                         bool rainfall) {
  planet_export::ReportChart chart;
  chart.title = title;
  chart.y_label = y_label;
  chart.x_label = "latitude (degrees, south to north)";
  planet_export::ReportSeries w{"weather", "#1f6fb4", {}}, u{"uniform", "#d9822b", {}};
  for (size_t i = 0; i < weather.bands.size(); ++i) {
    const LatitudeBand& bw = weather.bands[i];
    const LatitudeBand& bu = uniform.bands[i];
    chart.x.push_back(0.5 * (bw.lat_min_deg + bw.lat_max_deg));
    w.values.push_back(rainfall ? bw.mean_rainfall : bw.eroded_volume_m3 / 1e9);
    u.values.push_back(rainfall ? bu.mean_rainfall : bu.eroded_volume_m3 / 1e9);
  }
  chart.series = {w, u};
  return chart;
}

void stagePng(planet_export::OutputTransaction& out, const std::string& name,
              const planet_export::RgbImage& image) {
  out.stage(name, planet_export::encodePngRgb8(image));
}

}  // namespace

void runCompare(const Config& config, const std::filesystem::path& out_dir, int threads,
                const StageCallback& on_stage) {
  StageTimer timer;
  PlanetState base = buildPlanet(config, timer, on_stage);
  Config weather_config = config, uniform_config = config;
  weather_config.weather.mode = "clouds";
  uniform_config.weather.mode = "uniform";
  PlanetState weather = base, uniform = base;
  erodePlanet(weather, weather_config, timer, on_stage, /*with_droplet_density=*/true);
  erodePlanet(uniform, uniform_config, timer, on_stage, /*with_droplet_density=*/true);

  on_stage("metrics");
  timer.start("metrics");
  const std::vector<uint8_t> land = landMask(base);
  const geodesy::SphereMesh& mesh = *base.mesh;
  const double radius = config.planet.radius_m;
  const ModeMetrics mw = metricsOf(weather, weather_config, land);
  const ModeMetrics mu = metricsOf(uniform, uniform_config, land);
  Json metrics;
  metrics["seed"] = config.planet.seed;
  metrics["frequency"] = config.planet.frequency;
  metrics["vertices"] = mesh.vertexCount();
  metrics["initial_elevation_hash"] = hashFloats(base.initial_elevation_m);
  metrics["initial"] = {
      {"roughness", roughnessJson(landRoughness(mesh, radius, base.initial_elevation_m, land))},
      {"drainage", drainageJson(drainage(mesh, radius, base.initial_elevation_m, land,
                                         channelThreshold(mesh, radius)))}};
  metrics["weather"] = mw.json;
  metrics["uniform"] = mu.json;
  metrics["regions"] = regionsJson(weather, uniform, land, radius);
  std::vector<float> water_weather, water_uniform;
  metrics["weather"]["rivers"] =
      riversJson(weather, weather_config, weather.rainfall, water_weather);
  metrics["uniform"]["rivers"] =
      riversJson(uniform, uniform_config, weather.rainfall, water_uniform);

  on_stage("export");
  timer.start("export");
  planet_export::OutputTransaction out(out_dir);  // creates out_dir only when it commits
  // initial.glb carries the terrain before erosion; weather/uniform carry their own fields.
  PlanetState initial = base;
  const planet_export::PlanetSurface s0 = surfaceOf(initial, config);
  const planet_export::PlanetSurface sw = surfaceOf(weather, weather_config);
  const planet_export::PlanetSurface su = surfaceOf(uniform, uniform_config);
  planet_export::writeGlb(out.temporaryFor("initial.glb"), s0);
  planet_export::writeGlb(out.temporaryFor("weather.glb"), sw);
  planet_export::writeGlb(out.temporaryFor("uniform.glb"), su);

  const int width = config.output.map_width;
  const CompareParams& options = config.compare;
  planet_export::ReliefOptions relief;
  relief.width = width;
  stagePng(out, "relief_initial.png", planet_export::renderShadedRelief(s0, relief));
  stagePng(out, "relief_weather.png", planet_export::renderShadedRelief(sw, relief));
  stagePng(out, "relief_uniform.png", planet_export::renderShadedRelief(su, relief));

  // The largest mountain range before and after, at 100x vertical exaggeration, and the
  // river networks of both runs.
  {
    planet_export::ReliefOptions close = relief;
    close.vertical_exaggeration = 100.0;
    const auto [cx, cy] = highestPixel(base, close.width);
    const int w = close.width / 4, h = close.width / 8;
    for (const auto& [name, surface] :
         {std::pair{"initial", &s0}, std::pair{"weather", &sw}, std::pair{"uniform", &su}}) {
      stagePng(out, std::string("range_") + name + ".png",
               planet_export::cropWrapped(planet_export::renderShadedRelief(*surface, close),
                                          cx - w / 2, cy - h / 2, w, h));
    }
    planet_export::ReliefOptions rivers = relief;
    rivers.water = water_weather;
    stagePng(out, "rivers_weather.png", planet_export::renderShadedRelief(sw, rivers));
    rivers.water = water_uniform;
    stagePng(out, "rivers_uniform.png", planet_export::renderShadedRelief(su, rivers));
  }

  // One colour scale for both runs of each map, so they compare at a glance.
  planet_export::FieldMapOptions rain;
  rain.width = width;
  rain.units = "drops/sr";
  rain.limit = std::max(planet_export::magnitudeQuantile(weather.rainfall, 0.98),
                        planet_export::magnitudeQuantile(uniform.rainfall, 0.98));
  rain.title = "rainfall, weather";
  stagePng(out, "rainfall_weather.png",
           planet_export::renderSequentialMap(sw, weather.rainfall, rain));
  rain.title = "rainfall, uniform";
  stagePng(out, "rainfall_uniform.png",
           planet_export::renderSequentialMap(su, uniform.rainfall, rain));
  planet_export::FieldMapOptions change;
  change.width = width;
  change.units = "m";
  change.limit = std::max(planet_export::magnitudeQuantile(weather.change_m, 0.98),
                          planet_export::magnitudeQuantile(uniform.change_m, 0.98));
  change.title = "erosion (red) / deposition (blue), weather";
  stagePng(out, "erosion_weather.png",
           planet_export::renderDivergingMap(sw, weather.change_m, change));
  change.title = "erosion (red) / deposition (blue), uniform";
  stagePng(out, "erosion_uniform.png",
           planet_export::renderDivergingMap(su, uniform.change_m, change));
  std::vector<float> difference(mesh.vertexCount());
  for (size_t v = 0; v < difference.size(); ++v)
    difference[v] = weather.elevation_m[v] - uniform.elevation_m[v];
  planet_export::FieldMapOptions diff;
  diff.width = width;
  diff.units = "m";
  diff.title = "weather minus uniform: higher under weather (blue), lower (red)";
  stagePng(out, "difference.png", planet_export::renderDivergingMap(s0, difference, diff));

  planet_export::CompareReport report;
  report.title = "planetgen compare: weather-driven vs uniform erosion (seed " +
                 std::to_string(config.planet.seed) +
                 ", f = " + std::to_string(config.planet.frequency) + ")";
  report.summary = summaryText(metrics);
  const struct {
    const char* name;
    const planet_export::PlanetSurface* surface;
  } runs[] = {{"initial", &s0}, {"weather", &sw}, {"uniform", &su}};
  for (int view = 0; view < options.globe_views; ++view) {
    planet_export::GlobeOptions globe;
    globe.size_px = options.globe_size_px;
    globe.view_lat_deg = options.globe_lat_deg;
    globe.view_lon_deg = -180.0 + 360.0 * (view + 0.5) / options.globe_views;
    for (const auto& run : runs) {
      const std::string file =
          std::string("globe_") + run.name + "_" + std::to_string(view + 1) + ".png";
      stagePng(out, file, planet_export::renderGlobe(*run.surface, globe));
      report.globes.push_back({file, std::string(run.name) + ", view " + std::to_string(view + 1) +
                                         " (lon " + fmt(globe.view_lon_deg, "%.0f") + "°)"});
    }
  }
  report.maps = {{"range_initial.png", "largest mountain range before erosion (100x relief)"},
                 {"range_weather.png", "the same range after weather-driven erosion"},
                 {"range_uniform.png", "the same range after uniform erosion"},
                 {"rivers_weather.png", "rivers and lakes, weather-driven"},
                 {"rivers_uniform.png", "rivers and lakes, uniform"},
                 {"relief_initial.png", "shaded relief before erosion"},
                 {"difference.png", "final terrain, weather minus uniform"},
                 {"relief_weather.png", "after weather-driven erosion"},
                 {"relief_uniform.png", "after uniform erosion"},
                 {"rainfall_weather.png", "rainfall from clouds"},
                 {"rainfall_uniform.png", "rainfall, uniform"},
                 {"erosion_weather.png", "erosion and deposition, weather"},
                 {"erosion_uniform.png", "erosion and deposition, uniform"}};
  report.charts = {
      latitudeChart("Mean rainfall on land per 10° band", "droplets per steradian", mw, mu, true),
      latitudeChart("Eroded volume per 10° band", "km³", mw, mu, false)};
  report.columns = {"initial", "weather", "uniform"};
  const Json& ini = metrics["initial"];
  auto num = [](const Json& j, const char* format = "%.3g") {
    return fmt(j.get<double>(), format);
  };
  report.metrics = {
      {"droplets",
       "same budget for both runs",
       {"", num(mw.json["droplets"], "%.0f"), num(mu.json["droplets"], "%.0f")}},
      {"eroded volume (km³)",
       "material taken by droplets",
       {"", fmt(mw.json["eroded_volume_m3"].get<double>() / 1e9),
        fmt(mu.json["eroded_volume_m3"].get<double>() / 1e9)}},
      {"deposited volume (km³)",
       "material laid down again (equals eroded: volume is conserved)",
       {"", fmt(mw.json["deposited_volume_m3"].get<double>() / 1e9),
        fmt(mu.json["deposited_volume_m3"].get<double>() / 1e9)}},
      {"mass conservation error",
       "|Σ Δh·A| / Σ |Δh·A|; near 0 means nothing was lost",
       {"", num(mw.json["mass_conservation_error"]), num(mu.json["mass_conservation_error"])}},
      {"rain–erosion Spearman",
       "rank correlation of the rain that fell (droplets per area, at the cloud-grid scale) and "
       "erosion depth per land vertex: ~0 means erosion ignores where it rains",
       {"", num(mw.json["rain_erosion_spearman"], "%.2f"),
        num(mu.json["rain_erosion_spearman"], "%.2f")}},
      {"land changed > 1 m",
       "share of land vertices whose height moved by more than 1 m",
       {"", fmt(100 * mw.json["land_fraction_changed_over_1m"].get<double>(), "%.1f %%"),
        fmt(100 * mu.json["land_fraction_changed_over_1m"].get<double>(), "%.1f %%")}},
      {"RMS slope",
       "roughness: root-mean-square gradient over land faces (m/m)",
       {num(ini["roughness"]["rms_slope"], "%.4f"),
        num(mw.json["roughness_after"]["rms_slope"], "%.4f"),
        num(mu.json["roughness_after"]["rms_slope"], "%.4f")}},
      {"mean |curvature| (1/km)",
       "roughness: mean absolute Laplacian of the land surface",
       {fmt(ini["roughness"]["mean_abs_curvature_per_m"].get<double>() * 1e3, "%.4f"),
        fmt(mw.json["roughness_after"]["mean_abs_curvature_per_m"].get<double>() * 1e3, "%.4f"),
        fmt(mu.json["roughness_after"]["mean_abs_curvature_per_m"].get<double>() * 1e3, "%.4f")}},
      {"channel vertices",
       "drainage: land vertices draining more than 50 vertex areas (steepest descent)",
       {num(ini["drainage"]["channel_vertices"], "%.0f"),
        num(mw.json["drainage_after"]["channel_vertices"], "%.0f"),
        num(mu.json["drainage_after"]["channel_vertices"], "%.0f")}},
      {"longest channel (km)",
       "drainage: longest connected downstream path of channel vertices",
       {fmt(ini["drainage"]["longest_channel_m"].get<double>() / 1e3, "%.0f"),
        fmt(mw.json["drainage_after"]["longest_channel_m"].get<double>() / 1e3, "%.0f"),
        fmt(mu.json["drainage_after"]["longest_channel_m"].get<double>() / 1e3, "%.0f")}},
  };
  auto riverRow = [&](const char* label, const char* help, const char* key, const char* format,
                      double scale) {
    const Json& w = metrics["weather"]["rivers"];
    const Json& u = metrics["uniform"]["rivers"];
    report.metrics.push_back({label,
                              help,
                              {fmt(w["before"][key].get<double>() * scale, format),
                               fmt(w["after"][key].get<double>() * scale, format),
                               fmt(u["after"][key].get<double>() * scale, format)}});
  };
  riverRow("land pits > 1 m per 10k land vertices", "closed depressions of 1-2 vertices",
           "pits_per_10k_land_vertices", "%.1f", 1.0);
  riverRow("land draining to the sea", "share of land area whose flow reaches the sea",
           "land_draining_to_sea", "%.1f %%", 100.0);
  riverRow("lakes", "closed depressions of 3 or more vertices, filled to their spill level",
           "lakes", "%.0f", 1.0);
  riverRow("endorheic lakes", "lakes whose catchment's rain does not make up their evaporation",
           "endorheic_lakes", "%.0f", 1.0);
  riverRow("slope-area exponent θ",
           "S ~ A^-θ on channel vertices (log-log least squares of 0.1-decade bin means)",
           "slope_area_theta", "%.2f", 1.0);
  riverRow("slope-area R²", "of that fit", "slope_area_r2", "%.2f", 1.0);
  riverRow("slope-area R², per vertex", "the same fit over every channel vertex (scatter included)",
           "slope_area_vertex_r2", "%.2f", 1.0);
  riverRow("mean channel depth (m)", "channel vertices below the mean of their 1-ring",
           "mean_channel_depth_m", "%.1f", 1.0);
  for (const char* mode : {"weather", "uniform"}) {
    const Json& q = metrics[mode]["rivers"]["cloud_rain_quarters"];
    report.metrics.push_back(
        {std::string("wettest / driest quarter, ") + mode,
         "the land split by the cloud run's rainfall: channel depth ratio, channel length ratio",
         {"", fmt(q["channel_depth_ratio"].get<double>(), "%.2f"),
          fmt(q["channel_length_ratio"].get<double>(), "%.2f")}});
    const Json& e = q["elevation_matched"];
    report.metrics.push_back(
        {std::string("same, within elevation quartiles, ") + mode,
         "the quarters taken within each quarter of land by initial elevation, so both have the "
         "same elevations: channel depth ratio, channel length ratio",
         {"", fmt(e["channel_depth_ratio"].get<double>(), "%.2f"),
          fmt(e["channel_length_ratio"].get<double>(), "%.2f")}});
  }
  for (const Json& r : metrics["regions"]) {
    report.metrics.push_back(
        {"land mass " + std::to_string(r["rank"].get<int>()) + ": eroded (km³)",
         fmt(r["area_km2"].get<double>() / 1e6, "%.2f") + " M km² centred at " +
             fmt(r["centre_lat_deg"].get<double>(), "%.0f") + "°, " +
             fmt(r["centre_lon_deg"].get<double>(), "%.0f") + "°; weather/uniform ratio " +
             fmt(r["eroded_ratio_weather_to_uniform"].get<double>(), "%.2f"),
         {"", fmt(r["eroded_volume_weather_m3"].get<double>() / 1e9),
          fmt(r["eroded_volume_uniform_m3"].get<double>() / 1e9)}});
  }
  out.stage("report.html", planet_export::compareReportHtml(report));
  timer.stop();
  metrics["timings"] = timingsJson(timer);
  metrics["threads"] = threads;
  metrics["peak_rss_bytes"] = peakRssBytes();
  out.stage("metrics.json", metrics.dump(2) + "\n");
  const CommitGuard hold_signals;
  out.commit();
}

}  // namespace planet
