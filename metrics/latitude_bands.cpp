#include "metrics/latitude_bands.h"

#include <algorithm>
#include <cmath>

namespace metrics {

std::vector<LatitudeBand> latitudeBands(const geodesy::SphereMesh& mesh, double radius_m,
                                        std::span<const float> initial_elevation_m,
                                        double sea_level_m, std::span<const float> rainfall,
                                        std::span<const float> change_m, double band_deg) {
  const int count = std::max(1, int(std::lround(180.0 / band_deg)));
  std::vector<LatitudeBand> bands(count);
  std::vector<double> area(count, 0.0), land_area(count, 0.0), rain(count, 0.0);
  const double r2 = radius_m * radius_m;
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const double lat = std::asin(std::clamp(double(mesh.positions[v].y), -1.0, 1.0)) * 180.0 / M_PI;
    const int b = std::clamp(int((lat + 90.0) / band_deg), 0, count - 1);
    const double a = mesh.vertex_areas[v];
    area[b] += a;
    if (initial_elevation_m[v] >= sea_level_m) {
      land_area[b] += a;
      if (!rainfall.empty()) rain[b] += double(rainfall[v]) * a;
    }
    if (!change_m.empty()) {
      const double dv = double(change_m[v]) * a * r2;
      (dv < 0 ? bands[b].eroded_volume_m3 : bands[b].deposited_volume_m3) += std::abs(dv);
    }
  }
  double total = 0.0;
  for (double a : area) total += a;
  for (int b = 0; b < count; ++b) {
    bands[b].lat_min_deg = -90.0 + b * band_deg;
    bands[b].lat_max_deg = std::min(90.0, -90.0 + (b + 1) * band_deg);
    bands[b].area_fraction = area[b] / total;
    bands[b].land_fraction = area[b] > 0 ? land_area[b] / area[b] : 0.0;
    bands[b].mean_rainfall = land_area[b] > 0 ? rain[b] / land_area[b] : 0.0;
  }
  return bands;
}

}  // namespace metrics
