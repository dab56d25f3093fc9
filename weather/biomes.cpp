#include "weather/biomes.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include <tbb/parallel_for.h>

#include "geodesy/latlon.h"

namespace weather {
double seaLevelTemperatureC(double lat_rad, const BiomeParams& p) {
  const double t = std::min(1.0, std::abs(lat_rad) / (0.5 * std::numbers::pi));
  return p.equator_c - (p.equator_c - p.pole_c) * std::pow(t, p.latitude_exponent);
}

double temperatureC(double lat_rad, double height_above_sea_m, const BiomeParams& p) {
  return seaLevelTemperatureC(lat_rad, p) -
         p.lapse_rate_c_per_km * std::max(0.0, height_above_sea_m) / 1000.0;
}

Biome classifyBiome(double lat_rad, double height_above_sea_m, bool is_sea, double moisture01,
                    const BiomeParams& p) {
  if (is_sea) {
    return seaLevelTemperatureC(lat_rad, p) < p.sea_ice_below_c ? Biome::kSeaIce : Biome::kOcean;
  }
  const double t = temperatureC(lat_rad, height_above_sea_m, p);
  const double m = std::clamp(std::isfinite(moisture01) ? moisture01 : 0.0, 0.0, 1.0);
  if (t < p.ice_below_c) return Biome::kIceSheet;
  if (t < p.tundra_below_c) return Biome::kTundra;
  if (t < p.boreal_below_c)
    return m < p.boreal_dry_below ? Biome::kColdDesert : Biome::kBorealForest;
  if (t < p.tropical_from_c) {
    if (m < p.temperate_dry_below) return Biome::kColdDesert;
    if (m < p.temperate_shrub_below) return Biome::kShrubland;
    if (m < p.temperate_forest_below) return Biome::kTemperateSeasonalForest;
    return Biome::kTemperateRainforest;
  }
  if (m < p.tropical_desert_below) return Biome::kSubtropicalDesert;
  if (m < p.tropical_rainforest_from) return Biome::kSavanna;
  return Biome::kTropicalRainforest;
}

std::vector<uint8_t> classifyBiomes(const geodesy::SphereMesh& mesh,
                                    std::span<const float> elevation_m, double sea_level_m,
                                    std::span<const float> moisture01, const BiomeParams& params) {
  const size_t n = mesh.vertexCount();
  if (elevation_m.size() != n || moisture01.size() != n) {
    throw std::invalid_argument("classifyBiomes: elevation_m has " +
                                std::to_string(elevation_m.size()) + " and moisture01 " +
                                std::to_string(moisture01.size()) + " values for " +
                                std::to_string(n) + " vertices");
  }
  std::vector<uint8_t> biome(n);
  tbb::parallel_for(size_t(0), n, [&](size_t v) {
    const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(mesh.positions[v]));
    const double height = double(elevation_m[v]) - sea_level_m;
    biome[v] = uint8_t(classifyBiome(ll.lat_rad, height, height < 0.0, moisture01[v], params));
  });
  return biome;
}

std::vector<float> zonalMoistureProxy(const geodesy::SphereMesh& mesh) {
  std::vector<float> moisture(mesh.vertexCount());
  tbb::parallel_for(size_t(0), moisture.size(), [&](size_t v) {
    const double lat_deg = std::abs(geodesy::unitToLatLon(glm::dvec3(mesh.positions[v])).lat_rad) *
                           180.0 / std::numbers::pi;
    const auto bump = [lat_deg](double centre, double width) {
      const double d = (lat_deg - centre) / width;
      return std::exp(-d * d);
    };
    const double wet = 0.95 * bump(0.0, 14.0) + 0.65 * bump(55.0, 14.0) + 0.2;
    const double dry = 0.25 * bump(28.0, 8.0) + 0.2 * bump(90.0, 15.0);
    moisture[v] = float(std::clamp(wet - dry, 0.0, 1.0));
  });
  return moisture;
}

}  // namespace weather
