#include "planet/detail/compare_report_content.h"

#include <cstdio>
#include <utility>

namespace planet {

using Json = nlohmann::json;

std::string reportNumber(double x, const char* format) {
  char text[48];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

namespace {

std::string summaryText(const Json& metrics) {
  const Json& w = metrics["weather"];
  const Json& u = metrics["uniform"];
  const double rw = w["rain_erosion_spearman"], ru = u["rain_erosion_spearman"];
  std::string text = "Same terrain, same " + std::to_string(w["droplets"].get<uint64_t>()) +
                     " droplets and erosion parameters; only where the rain falls differs. ";
  text += "Under cloud rain, erosion follows the rain (Spearman " + reportNumber(rw, "%.2f") +
          " between rainfall and erosion depth on land, against " + reportNumber(ru, "%.2f") +
          " for uniform rain). ";
  const double cw = w["land_fraction_changed_over_1m"], cu = u["land_fraction_changed_over_1m"];
  text += "Cloud rain changes " + reportNumber(100 * cw, "%.0f") +
          " % of the land by more than 1 m, " + "uniform rain " + reportNumber(100 * cu, "%.0f") +
          " %: ";
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
    const metrics::LatitudeBand& bw = weather.bands[i];
    const metrics::LatitudeBand& bu = uniform.bands[i];
    chart.x.push_back(0.5 * (bw.lat_min_deg + bw.lat_max_deg));
    w.values.push_back(rainfall ? bw.mean_rainfall : bw.eroded_volume_m3 / 1e9);
    u.values.push_back(rainfall ? bu.mean_rainfall : bu.eroded_volume_m3 / 1e9);
  }
  chart.series = {w, u};
  return chart;
}

// The rows of both runs' own figures, then roughness and drainage before and after.
std::vector<planet_export::ReportMetric> runRows(const Json& metrics) {
  const Json& ini = metrics["initial"];
  const Json& w = metrics["weather"];
  const Json& u = metrics["uniform"];
  // A figure in other units (x * times / over: km³, %, 1/km, km).
  auto show = [](const Json& j, double times, double over, const char* format) {
    return reportNumber(j.get<double>() * times / over, format);
  };
  // A figure of both runs: "" under "initial".
  auto runs = [&](const char* key, double times, double over, const char* format = "%.3g") {
    return std::vector<std::string>{"", show(w[key], times, over, format),
                                    show(u[key], times, over, format)};
  };
  // A figure of the terrain before and after each run.
  auto all = [&](const char* section, const char* key, double times, double over,
                 const char* format) {
    const std::string after = std::string(section) + "_after";
    return std::vector<std::string>{show(ini[section][key], times, over, format),
                                    show(w[after][key], times, over, format),
                                    show(u[after][key], times, over, format)};
  };
  return {
      {"droplets", "same budget for both runs", runs("droplets", 1, 1, "%.0f")},
      {"eroded volume (km³)", "material taken by droplets", runs("eroded_volume_m3", 1, 1e9)},
      {"deposited volume (km³)", "material laid down again (equals eroded: volume is conserved)",
       runs("deposited_volume_m3", 1, 1e9)},
      {"mass conservation error", "|Σ Δh·A| / Σ |Δh·A|; near 0 means nothing was lost",
       runs("mass_conservation_error", 1, 1)},
      {"rain–erosion Spearman",
       "rank correlation of the rain that fell (droplets per area, at the cloud-grid scale) and "
       "erosion depth per land vertex: ~0 means erosion ignores where it rains",
       runs("rain_erosion_spearman", 1, 1, "%.2f")},
      {"land changed > 1 m", "share of land vertices whose height moved by more than 1 m",
       runs("land_fraction_changed_over_1m", 100, 1, "%.1f %%")},
      {"RMS slope", "roughness: root-mean-square gradient over land faces (m/m)",
       all("roughness", "rms_slope", 1, 1, "%.4f")},
      {"mean |curvature| (1/km)", "roughness: mean absolute Laplacian of the land surface",
       all("roughness", "mean_abs_curvature_per_m", 1e3, 1, "%.4f")},
      {"channel vertices",
       "drainage: land vertices draining more than 50 vertex areas (steepest descent)",
       all("drainage", "channel_vertices", 1, 1, "%.0f")},
      {"longest channel (km)", "drainage: longest connected downstream path of channel vertices",
       all("drainage", "longest_channel_m", 1, 1e3, "%.0f")},
  };
}

// The drainage of the weather run before and after, and of the uniform run after.
void addRiverRows(const Json& metrics, std::vector<planet_export::ReportMetric>& rows) {
  const Json& w = metrics["weather"]["rivers"];
  const Json& u = metrics["uniform"]["rivers"];
  auto row = [&](const char* label, const char* help, const char* key, const char* format,
                 double scale) {
    rows.push_back({label,
                    help,
                    {reportNumber(w["before"][key].get<double>() * scale, format),
                     reportNumber(w["after"][key].get<double>() * scale, format),
                     reportNumber(u["after"][key].get<double>() * scale, format)}});
  };
  row("land pits > 1 m per 10k land vertices", "closed depressions of 1-2 vertices",
      "pits_per_10k_land_vertices", "%.1f", 1.0);
  row("land draining to the sea", "share of land area whose flow reaches the sea",
      "land_draining_to_sea", "%.1f %%", 100.0);
  row("lakes", "closed depressions of 3 or more vertices, filled to their spill level", "lakes",
      "%.0f", 1.0);
  row("endorheic lakes", "lakes whose catchment's rain does not make up their evaporation",
      "endorheic_lakes", "%.0f", 1.0);
  row("slope-area exponent θ",
      "S ~ A^-θ on channel vertices (log-log least squares of 0.1-decade bin means)",
      "slope_area_theta", "%.2f", 1.0);
  row("slope-area R²", "of that fit", "slope_area_r2", "%.2f", 1.0);
  row("slope-area R², per vertex", "the same fit over every channel vertex (scatter included)",
      "slope_area_vertex_r2", "%.2f", 1.0);
  row("mean channel depth (m)", "channel vertices below the mean of their 1-ring",
      "mean_channel_depth_m", "%.1f", 1.0);
  for (const char* mode : {"weather", "uniform"}) {
    const Json& q = metrics[mode]["rivers"]["cloud_rain_quarters"];
    rows.push_back(
        {std::string("wettest / driest quarter, ") + mode,
         "the land split by the cloud run's rainfall: channel depth ratio, channel length ratio",
         {"", reportNumber(q["channel_depth_ratio"].get<double>(), "%.2f"),
          reportNumber(q["channel_length_ratio"].get<double>(), "%.2f")}});
    const Json& e = q["elevation_matched"];
    rows.push_back(
        {std::string("same, within elevation quartiles, ") + mode,
         "the quarters taken within each quarter of land by initial elevation, so both have the "
         "same elevations: channel depth ratio, channel length ratio",
         {"", reportNumber(e["channel_depth_ratio"].get<double>(), "%.2f"),
          reportNumber(e["channel_length_ratio"].get<double>(), "%.2f")}});
  }
}

// The five largest land masses' eroded volumes.
void addRegionRows(const Json& metrics, std::vector<planet_export::ReportMetric>& rows) {
  for (const Json& r : metrics["regions"]) {
    rows.push_back({"land mass " + std::to_string(r["rank"].get<int>()) + ": eroded (km³)",
                    reportNumber(r["area_km2"].get<double>() / 1e6, "%.2f") + " M km² centred at " +
                        reportNumber(r["centre_lat_deg"].get<double>(), "%.0f") + "°, " +
                        reportNumber(r["centre_lon_deg"].get<double>(), "%.0f") +
                        "°; weather/uniform ratio " +
                        reportNumber(r["eroded_ratio_weather_to_uniform"].get<double>(), "%.2f"),
                    {"", reportNumber(r["eroded_volume_weather_m3"].get<double>() / 1e9),
                     reportNumber(r["eroded_volume_uniform_m3"].get<double>() / 1e9)}});
  }
}

}  // namespace

planet_export::CompareReport compareReport(const Config& config, const CompareMetrics& metrics,
                                           std::vector<planet_export::ReportImage> globes) {
  planet_export::CompareReport report;
  report.title = "planetgen compare: weather-driven vs uniform erosion (seed " +
                 std::to_string(config.planet.seed) +
                 ", f = " + std::to_string(config.planet.frequency) + ")";
  report.summary = summaryText(metrics.json);
  report.globes = std::move(globes);
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
      latitudeChart("Mean rainfall on land per 10° band", "droplets per steradian", metrics.weather,
                    metrics.uniform, true),
      latitudeChart("Eroded volume per 10° band", "km³", metrics.weather, metrics.uniform, false)};
  report.columns = {"initial", "weather", "uniform"};
  report.metrics = runRows(metrics.json);
  addRiverRows(metrics.json, report.metrics);
  addRegionRows(metrics.json, report.metrics);
  return report;
}

}  // namespace planet
