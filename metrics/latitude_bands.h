#pragma once
// Per-latitude-band statistics of per-vertex fields: the 10-degree table in summary.json
// and the compare report.

#include <span>
#include <vector>

#include "geodesy/sphere_mesh.h"

namespace metrics {

struct LatitudeBand {
  double lat_min_deg = 0.0, lat_max_deg = 0.0;
  double area_fraction = 0.0;     // share of the sphere's area in the band
  double land_fraction = 0.0;     // share of the band's area above sea level (initial terrain)
  double mean_rainfall = 0.0;     // area-weighted mean over the band's land (rainfall unit)
  double eroded_volume_m3 = 0.0;  // sum of max(0, -change) * area over the band
  double deposited_volume_m3 = 0.0;
};

// Bands of band_deg degrees from -90 to 90 (band_deg divides 180). rainfall may be empty.
// Deterministic (serial sums in vertex order).
std::vector<LatitudeBand> latitudeBands(const geodesy::SphereMesh& mesh, double radius_m,
                                        std::span<const float> initial_elevation_m,
                                        double sea_level_m, std::span<const float> rainfall,
                                        std::span<const float> change_m, double band_deg = 10.0);

}  // namespace metrics
