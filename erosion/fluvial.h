#pragma once
// Fluvial landscape evolution on the icosphere: the erosion that makes drainage networks at
// planet scale, where droplets only plane their paths (docs/fluvial.md).
// Per time step, on the routing of hydrology/flow_routing.h:
//  - uplift U (m/yr) towards a ceiling (the initial terrain), so ranges stand and no height
//    rises above the terrain the stage started from;
//  - stream-power incision dh/dt = -K Q^m S (n = 1), solved implicitly from the outlets
//    upstream (Braun & Willett 2013, eq. 9): unconditionally stable, O(n) per step;
//    Q is the rain-weighted drainage area (m^2 of land at the mean land rainfall), K the
//    erodibility field times stream_power_k;
//  - deposition of the sediment flux, a share G a/Q of it at each vertex (the transport
//    term of Yuan et al. 2019 in its discrete form), and all of it in lakes up to their level;
//    sediment that reaches the sea settles below the water line or leaves the planet's books
//    as offshore export;
//  - hillslope diffusion (D, m^2/yr; conservative fluxes, explicit sub-steps) and a talus rule
//    that moves material down any slope steeper than the critical angle (landslides).
// The sea is the base level: sea vertices are never eroded, and land stays at or above sea
// level. Deterministic: identical output for any thread count.

#include <cstdint>
#include <span>
#include <vector>

#include "geodesy/sphere_mesh.h"

namespace erosion {

// [fluvial] in the config. Defaults are for Earth-sized planets at f = 128..1024.
struct FluvialParams {
  bool enabled = true;
  double duration_yr = 1.0e7;  // > 0: time the stage covers
  int iterations = 24;         // time steps (implicit, so large steps are stable)
  // Coarse to fine: all but fine_iterations steps run on an icosphere of this frequency and
  // their change is interpolated onto the mesh, then fine_iterations steps sharpen the
  // valleys at full resolution. 0 (or a frequency not below the mesh's) = all steps on the mesh.
  int coarse_frequency = 128;
  int fine_iterations = 2;
  double stream_power_k = 4.0e-8;   // K in m^(1-2m)/yr, times the erodibility field
  double area_exponent = 0.6;       // m in K Q^m S (n = 1)
  double uplift_m_per_yr = 2.0e-4;  // U where the uplift pattern is 1
  // The pipeline's uplift pattern: this share of U everywhere on land, the rest in the
  // terrain's mountain belts (planet::upliftPattern). Not read by erodeFluvial.
  double uplift_floor = 0.3;
  double deposition = 0.5;            // G of Yuan et al. 2019, >= 0 (0: no deposition)
  double diffusion_m2_per_yr = 50.0;  // hillslope diffusivity D
  double talus_angle_deg = 35.0;      // no slope stays steeper than this
  double receiver_jitter = 0.3;       // hydrology::RoutingParams::receiver_jitter
  // The least rain the stage counts at a land vertex, relative to the mean land rainfall: over
  // the stage's millions of years climate belts move, so even today's deserts had floods.
  double min_rain = 0.05;
  // Lake evaporation relative to the mean land rainfall: a lake whose catchment's rain is
  // less than this times its surface is endorheic (for the metrics and rivers, not read here).
  double lake_evaporation = 0.5;
};

// The coarse icosphere of the coarse-to-fine scheme and where each of its vertices lies on
// the fine mesh: built once per mesh and frequency, shared by the calls of one run (the
// pipeline's weather epochs).
struct FluvialCoarseGrid {
  geodesy::SphereMesh mesh;
  std::vector<geodesy::SurfacePoint> on_fine;  // per coarse vertex
};
// Empty (mesh without vertices) when params would run every step on `fine`.
FluvialCoarseGrid fluvialCoarseGrid(const geodesy::SphereMesh& fine, const FluvialParams& params);

struct FluvialInput {
  const geodesy::SphereMesh* mesh = nullptr;
  double radius_m = 6371000.0;
  double sea_level_m = 0.0;
  std::span<const float> rainfall;     // per vertex, any unit (relative); empty = uniform
  std::span<const float> erodibility;  // per vertex in [0, 1]; empty = 1
  std::span<const float> uplift;       // per vertex pattern in [0, 1]; empty = 1 on land
  // Uplift and deposition stop here (the initial terrain); empty = none. Diffusion and the
  // talus rule may still lift a low vertex above it, never above the highest ceiling.
  std::span<const float> ceiling_m;
  uint64_t seed = 0;  // receiver jitter
  // fluvialCoarseGrid(*mesh, params), to reuse; null: erodeFluvial builds it when needed.
  const FluvialCoarseGrid* coarse = nullptr;
};

struct FluvialStats {
  int iterations = 0;
  double incised_m3 = 0.0;          // taken by stream power
  double deposited_m3 = 0.0;        // laid on land (plains, fans, lake floors)
  double deposited_sea_m3 = 0.0;    // laid on the sea floor below the water line
  double exported_m3 = 0.0;         // carried offshore beyond what the sea floor took
  double uplifted_m3 = 0.0;         // added by uplift
  double diffused_to_sea_m3 = 0.0;  // hillslope flux across the coast
  double talus_moved_m3 = 0.0;      // moved by the talus rule
  double hollows_filled_m3 = 0.0;   // coarse-to-fine interpolation hollows, filled
  // Sediment budget closure: |incised - deposited - deposited_sea - exported| / incised.
  double sediment_balance_error = 0.0;
};

// |incised - deposited - deposited_sea - exported| / incised (0 when nothing was incised).
double sedimentBalanceError(const FluvialStats& stats);

// Runs params.iterations steps of params.duration_yr / iterations on elevation_m in place and
// adds the change to change_m (may be empty). Spans have one entry per vertex (or are empty
// where allowed above). Parallel parts use the caller's oneTBB arena.
FluvialStats erodeFluvial(const FluvialInput& input, const FluvialParams& params,
                          std::span<float> elevation_m, std::span<float> change_m);

}  // namespace erosion
