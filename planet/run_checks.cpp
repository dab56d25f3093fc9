#include "planet/run_checks.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <sstream>

#include "export/heightmap_files.h"
#include "io/file_writer.h"
#include "planet/detail/number_text.h"
#include "terrain/heightmap_import.h"

namespace planet {
namespace {

constexpr uint64_t kMaxHeightmapBytes = uint64_t(1) << 30;

using detail::numberText;

}  // namespace

double reliefBoundM(const Config& config, double heightmap_min_m, double heightmap_max_m) {
  if (!config.heightmap_file.empty())
    return std::max(std::abs(heightmap_min_m), std::abs(heightmap_max_m));
  const terrain::TerrainParams& t = config.terrain;
  return kReliefMargin * (std::max(t.ocean_depth_m, t.continent_amplitude_m) + t.amplitude_m +
                          t.ridged_amplitude_m);
}

void checkRun(const Config& config, const std::string& origin) {
  double hm_min = config.terrain.heightmap_min_m, hm_max = config.terrain.heightmap_max_m;
  std::string relief_source = "[terrain] amplitudes";
  if (!config.heightmap_file.empty()) {
    relief_source = "[terrain] heightmap_min_m/heightmap_max_m";
    std::string problem;
    const int fd = io::openInputFile(config.heightmap_file, kMaxHeightmapBytes, problem);
    if (fd < 0) throw ConfigError("--heightmap " + config.heightmap_file + " " + problem + ".");
    ::close(fd);
    std::filesystem::path sidecar = config.heightmap_file;
    sidecar.replace_extension(".json");
    try {
      if (const auto range = terrain::readHeightmapSidecar(sidecar)) {
        hm_min = range->min_m;
        hm_max = range->max_m;
        relief_source = "the heightmap sidecar " + sidecar.string() + " (min_m/max_m)";
      }
    } catch (const std::runtime_error& e) {
      throw ConfigError(std::string("--heightmap: ") + e.what() + ".");
    }
    // The sidecar's range is checked so when it is read; the config's the same way (a
    // tester's swapped pair made an upside-down terrain).
    if (!(hm_min <= hm_max)) {
      throw ConfigError(origin + ": [terrain] heightmap_min_m = " + numberText(hm_min) +
                        " with heightmap_max_m = " + numberText(hm_max) +
                        " is not allowed; allowed: heightmap_min_m <= heightmap_max_m.");
    }
  }
  const double relief = reliefBoundM(config, hm_min, hm_max);
  const double radius = config.planet.radius_m;
  if (!(radius >= kMinRadiusM) || !(radius >= kRadiusPerRelief * relief)) {
    throw ConfigError(origin + ": [planet] radius_m = " + numberText(radius) +
                      " is not allowed with a relief of up to " + numberText(relief) + " m (from " +
                      relief_source + "); allowed: at least " +
                      numberText(std::max(kMinRadiusM, kRadiusPerRelief * relief)) +
                      " m (4 x the relief), or lower the relief.");
  }
  if (config.weather.mode == RainMode::kClouds) {
    const weather::WeatherParams& w = config.weather.clouds;
    const double clouds =
        w.spawn_rate * 4.0 * std::numbers::pi * (double(w.ticks) + double(w.spinup_ticks));
    if (clouds > kMaxClouds) {
      throw ConfigError(origin + ": [weather] spawn_rate = " + numberText(w.spawn_rate) +
                        " with ticks = " + std::to_string(w.ticks) +
                        " and spinup_ticks = " + std::to_string(w.spinup_ticks) +
                        " would spawn up to " + numberText(clouds) +
                        " clouds (spawn_rate * 4 pi * (ticks + spinup_ticks)); allowed: at most " +
                        numberText(kMaxClouds) + ".");
    }
  }
}

}  // namespace planet
