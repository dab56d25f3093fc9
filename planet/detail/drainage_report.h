#pragma once
// JSON of the drainage metrics for summary.json and compare's metrics.json.

#include <nlohmann/json.hpp>

#include "metrics/drainage_metrics.h"

namespace planet {

inline nlohmann::json drainageJson(const metrics::DrainageMetrics& m) {
  return {{"land_vertices", m.land_vertices},
          {"pits_per_10k_land_vertices", m.pits_per_10k},
          {"land_draining_to_sea", m.drains_to_sea},
          {"lakes", m.lakes},
          {"endorheic_lakes", m.endorheic_lakes},
          {"lake_area_km2", m.lake_area_km2},
          {"channel_vertices", m.channel_vertices},
          {"slope_area_theta", m.slope_area_theta},
          {"slope_area_r2", m.slope_area_r2},
          {"slope_area_vertex_theta", m.slope_area_vertex_theta},
          {"slope_area_vertex_r2", m.slope_area_vertex_r2},
          {"mean_channel_depth_m", m.mean_channel_depth_m},
          {"channel_length_km_per_1000km2", m.channel_length_km_per_1000km2}};
}

inline nlohmann::json steepestJson(const metrics::SteepestMetrics& m) {
  return {{"reaches_sea_or_lake", m.reaches_sea_or_lake},
          {"sinks_per_10k_land_vertices", m.sinks_per_10k},
          {"channel_vertices", m.channel_vertices},
          {"slope_area_theta", m.slope_area_theta},
          {"slope_area_r2", m.slope_area_r2},
          {"straight_run_share", m.straight.share},
          {"longest_straight_run", m.straight.longest}};
}

}  // namespace planet
