#pragma once
// The land's relief made by rivers (docs/fluvial.md): the noise terrain is the uplift pattern
// and the heights it asks for; the relief is the steady state of stream-power incision under
// that uplift, dh/dt = U - K Q^m S = 0 with n = 1, so along every flow path
//   S = (U / K) Q^-m                                  (Tzathas et al. 2024, eq. 4)
// integrated from the outlets (the sea, or the level of an endorheic lake) upstream over the
// routing of hydrology/flow_routing.h, re-routed on the new heights a few times. Q is the
// rain-weighted drainage area. U / K is one number per planet, chosen so that the highest
// point is the noise's highest. Between the channels, hillslopes are relaxed towards the
// steady state of linear diffusion, the noise's finest detail is added back on them, slopes
// steeper than the talus angle are cut back along the flow, and a priority-flood with an
// epsilon gradient (Barnes et al. 2014) leaves every vertex outside a kept lake a lower
// neighbour. The sea is the base level: the coast does not move and the sea floor is not
// touched. Deterministic: identical output for any thread count (parallel parts write only
// their own vertices; sums run serially in routing order).

#include <cstdint>
#include <span>

#include "geodesy/sphere_mesh.h"

namespace erosion {

// [fluvial] in the config (the keys and their effect: docs/config.md#fluvial).
struct FluvialParams {
  // m in S = (U / K) Q^-m (n = 1): the slope-area exponent the channels follow.
  double area_exponent = 0.35;
  // Routings of the relief after the first (on the noise); each re-routes on the heights the
  // previous one made, so valleys capture the flow of their sides.
  int reroutings = 2;
  // hydrology::RoutingParams::receiver_jitter of the re-routings (the first is randomised
  // harder, kNoiseJitter in fluvial.cpp).
  double receiver_jitter = 0.9;
  // The least rain counted at a land vertex, relative to the mean land rainfall: over the
  // stage's span climate belts move, so even today's deserts had floods.
  double min_rain = 0.05;
  // Rock uplift follows the rain as rain^rain_uplift (rain relative to the mean land rainfall,
  // floored at min_rain): where tectonics answers erosion, exhumation gathers on the wet flank
  // (Willett 1999; Reiners et al. 2003), so wet land stands higher and is cut deeper than dry
  // land at steady state (channel slope as rain^(rain_uplift - m)). 0 = uplift as the noise
  // asks everywhere; then more rain only makes gentler channels.
  double rain_uplift = 0.25;
  // A lake whose catchment's rain (relative to the mean land rainfall) is less than this
  // times its surface is endorheic: it keeps its floor and is the base level of its catchment.
  double lake_evaporation = 0.5;
  // Vertices draining fewer than this many mean cells (not rain-weighted) are hillslopes;
  // 0 = none (stream power everywhere).
  double channel_cells = 6.0;
  // Hillslope convexity: the diffusion steady state's rise per cell, relative to a channel's
  // rise per cell at one cell drained (U d / K).
  double hillslope_curvature = 1.0;
  // Share of the noise's finest detail (the noise minus its low-pass) added back on
  // hillslopes; none on channels.
  double texture = 1.0;
  double talus_angle_deg = 35.0;  // no flow path is steeper than this
};

struct FluvialInput {
  const geodesy::SphereMesh* mesh = nullptr;
  double radius_m = 6371000.0;
  double sea_level_m = 0.0;
  // The noise terrain, one per vertex: the first routing, the heights asked for, and (low-passed,
  // above the sea) the uplift pattern. Land is noise_m >= sea_level_m, and stays land.
  std::span<const float> noise_m;
  std::span<const float> rainfall;     // per vertex, any unit (relative); empty = uniform
  std::span<const float> erodibility;  // per vertex in (0, 1]; empty = 1
  // Per vertex uplift pattern (any unit, > 0 on land); empty = the noise as described above.
  std::span<const float> uplift;
  uint64_t seed = 0;  // receiver jitter and lake paths
};

struct FluvialStats {
  int routings = 0;
  // U / K of S = (U / K) A^-m with A in m^2 where the uplift pattern and erodibility are 1
  // (the pattern in metres of noise height): the planet's one scale.
  double uplift_over_erodibility = 0.0;
  uint64_t endorheic_lakes = 0;   // kept as lakes (base levels of their catchments)
  double hillslope_share = 0.0;   // of the land vertices
  double filled_m3 = 0.0;         // added by the epsilon fill
  double talus_lowered_m3 = 0.0;  // cut from slopes steeper than the talus angle
  // The written land minus the noise, summed (m^3): the stage builds a relief, it does not
  // move a volume, so this is what it added (< 0: removed).
  double relief_change_m3 = 0.0;
};

// Builds the relief of input's land into elevation_m (one value per vertex; sea vertices are
// left as they are) and returns its figures. Parallel parts use the caller's oneTBB arena.
FluvialStats erodeFluvial(const FluvialInput& input, const FluvialParams& params,
                          std::span<float> elevation_m);

}  // namespace erosion
