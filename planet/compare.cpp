#include "planet/compare.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <glm/geometric.hpp>

#include "export/globe.h"
#include "export/maps.h"
#include "export/mesh_export.h"
#include "export/png_io.h"
#include "geodesy/latlon.h"
#include "io/atomic_file.h"
#include "io/signals.h"
#include "planet/detail/compare_metrics.h"
#include "planet/detail/compare_report_content.h"
#include "planet/run_stats.h"

namespace planet {
namespace {

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

void stagePng(io::OutputTransaction& out, const std::string& name,
              const planet_export::RgbImage& image) {
  out.stage(name, planet_export::encodePngRgb8(image));
}

// Both runs of one terrain, eroded (the "build" and "erosion" stages).
void erodeBoth(CompareRuns& runs, const Config& config, StageTimer& timer,
               const StageCallback& on_stage) {
  runs.base = buildPlanet(config, timer, on_stage);
  if (runs.base.land_vertices == 0) {
    // Nothing to erode, so nothing to compare (the maps of the rain on land would be empty).
    std::ostringstream ocean;
    if (config.ocean.mode == terrain::OceanMode::kFraction)
      ocean << "mode = \"fraction\", fraction = " << config.ocean.fraction;
    else
      ocean << "mode = \"level\", level_m = " << config.ocean.level_m;
    throw ConfigError("compare: [ocean] " + ocean.str() +
                      " leaves no land above the sea; allowed: settings that leave land (a "
                      "smaller fraction or a lower level).");
  }
  runs.weather_config = config;
  runs.uniform_config = config;
  runs.weather_config.weather.mode = RainMode::kClouds;
  runs.uniform_config.weather.mode = RainMode::kUniform;
  runs.weather = runs.base;
  runs.uniform = runs.base;
  erodePlanet(runs.weather, runs.weather_config, timer, on_stage, /*with_droplet_density=*/true);
  erodePlanet(runs.uniform, runs.uniform_config, timer, on_stage, /*with_droplet_density=*/true);
}

struct CompareSurfaces {
  planet_export::PlanetSurface initial, weather, uniform;
};

// initial.glb carries the terrain before erosion; weather/uniform carry their own fields.
CompareSurfaces stageModels(io::OutputTransaction& out, const CompareRuns& runs,
                            const Config& config) {
  CompareSurfaces s{surfaceOf(runs.base, config), surfaceOf(runs.weather, runs.weather_config),
                    surfaceOf(runs.uniform, runs.uniform_config)};
  planet_export::writeGlb(out.temporaryFor("initial.glb"), s.initial);
  planet_export::writeGlb(out.temporaryFor("weather.glb"), s.weather);
  planet_export::writeGlb(out.temporaryFor("uniform.glb"), s.uniform);
  return s;
}

// Shaded relief of the three terrains; the largest mountain range before and after, at 100x
// vertical exaggeration; the river networks of both runs.
void stageReliefs(io::OutputTransaction& out, const Config& config, const PlanetState& base,
                  const CompareSurfaces& s, const CompareMetrics& m) {
  planet_export::ReliefOptions relief;
  relief.width = config.output.map_width;
  stagePng(out, "relief_initial.png", planet_export::renderShadedRelief(s.initial, relief));
  stagePng(out, "relief_weather.png", planet_export::renderShadedRelief(s.weather, relief));
  stagePng(out, "relief_uniform.png", planet_export::renderShadedRelief(s.uniform, relief));

  planet_export::ReliefOptions close = relief;
  close.vertical_exaggeration = 100.0;
  const auto [cx, cy] = highestPixel(base, close.width);
  const int w = close.width / 4, h = close.width / 8;
  for (const auto& [name, surface] :
       {std::pair{"initial", &s.initial}, std::pair{"weather", &s.weather},
        std::pair{"uniform", &s.uniform}}) {
    stagePng(out, std::string("range_") + name + ".png",
             planet_export::cropWrapped(planet_export::renderShadedRelief(*surface, close),
                                        cx - w / 2, cy - h / 2, w, h));
  }
  planet_export::ReliefOptions rivers = relief;
  rivers.water = m.water_weather;
  stagePng(out, "rivers_weather.png", planet_export::renderShadedRelief(s.weather, rivers));
  rivers.water = m.water_uniform;
  stagePng(out, "rivers_uniform.png", planet_export::renderShadedRelief(s.uniform, rivers));
}

// Rainfall and erosion of both runs, one colour scale for both runs of each map so they
// compare at a glance, and the final terrains' difference.
void stageFieldMaps(io::OutputTransaction& out, const Config& config, const CompareRuns& runs,
                    const CompareSurfaces& s) {
  const PlanetState &weather = runs.weather, &uniform = runs.uniform;
  planet_export::FieldMapOptions rain;
  rain.width = config.output.map_width;
  rain.units = "drops/sr";
  rain.limit = std::max(planet_export::magnitudeQuantile(weather.rainfall, 0.98),
                        planet_export::magnitudeQuantile(uniform.rainfall, 0.98));
  rain.title = "rainfall, weather";
  stagePng(out, "rainfall_weather.png",
           planet_export::renderSequentialMap(s.weather, weather.rainfall, rain));
  rain.title = "rainfall, uniform";
  stagePng(out, "rainfall_uniform.png",
           planet_export::renderSequentialMap(s.uniform, uniform.rainfall, rain));
  planet_export::FieldMapOptions change;
  change.width = config.output.map_width;
  change.units = "m";
  change.limit = std::max(planet_export::magnitudeQuantile(weather.change_m, 0.98),
                          planet_export::magnitudeQuantile(uniform.change_m, 0.98));
  change.title = "erosion (red) / deposition (blue), weather";
  stagePng(out, "erosion_weather.png",
           planet_export::renderDivergingMap(s.weather, weather.change_m, change));
  change.title = "erosion (red) / deposition (blue), uniform";
  stagePng(out, "erosion_uniform.png",
           planet_export::renderDivergingMap(s.uniform, uniform.change_m, change));
  std::vector<float> difference(weather.elevation_m.size());
  for (size_t v = 0; v < difference.size(); ++v)
    difference[v] = weather.elevation_m[v] - uniform.elevation_m[v];
  planet_export::FieldMapOptions diff;
  diff.width = config.output.map_width;
  diff.units = "m";
  diff.title = "weather minus uniform: higher under weather (blue), lower (red)";
  stagePng(out, "difference.png", planet_export::renderDivergingMap(s.initial, difference, diff));
}

// The three terrains as globes from globe_views longitudes; returns them as the report shows
// them.
std::vector<planet_export::ReportImage> stageGlobes(io::OutputTransaction& out,
                                                    const CompareParams& options,
                                                    const CompareSurfaces& s) {
  const struct {
    const char* name;
    const planet_export::PlanetSurface* surface;
  } runs[] = {{"initial", &s.initial}, {"weather", &s.weather}, {"uniform", &s.uniform}};
  std::vector<planet_export::ReportImage> globes;
  for (int view = 0; view < options.globe_views; ++view) {
    planet_export::GlobeOptions globe;
    globe.size_px = options.globe_size_px;
    globe.view_lat_deg = options.globe_lat_deg;
    globe.view_lon_deg = -180.0 + 360.0 * (view + 0.5) / options.globe_views;
    for (const auto& run : runs) {
      const std::string file =
          std::string("globe_") + run.name + "_" + std::to_string(view + 1) + ".png";
      stagePng(out, file, planet_export::renderGlobe(*run.surface, globe));
      globes.push_back({file, std::string(run.name) + ", view " + std::to_string(view + 1) +
                                  " (lon " + reportNumber(globe.view_lon_deg, "%.0f") + "°)"});
    }
  }
  return globes;
}

}  // namespace

std::vector<std::string> runCompare(const Config& config, const std::filesystem::path& out_dir,
                                    int threads, const StageCallback& on_stage) {
  StageTimer timer;
  CompareRuns runs;
  erodeBoth(runs, config, timer, on_stage);

  on_stage("metrics");
  timer.start("metrics");
  CompareMetrics metrics = compareMetrics(runs, config);

  on_stage("export");
  timer.start("export");
  io::OutputTransaction out(out_dir);  // creates out_dir only when it commits
  const CompareSurfaces surfaces = stageModels(out, runs, config);
  stageReliefs(out, config, runs.base, surfaces, metrics);
  stageFieldMaps(out, config, runs, surfaces);
  std::vector<planet_export::ReportImage> globes = stageGlobes(out, config.compare, surfaces);
  out.stage("report.html",
            planet_export::compareReportHtml(compareReport(config, metrics, std::move(globes))));
  timer.stop();
  metrics.json["timings"] = timingsJson(timer);
  metrics.json["threads"] = threads;
  metrics.json["peak_rss_bytes"] = peakRssBytes();
  out.stage("metrics.json", metrics.json.dump(2) + "\n");
  io::CommitGuard hold_signals;
  out.commit();
  hold_signals.committed();
  return out.warnings();
}

}  // namespace planet
