#pragma once
// How well a planet drains, measured on the mesh over land: pits, share of land reaching the
// sea, lakes, the slope-area relation of the channels, channel depth, and what moved at the
// coast. summary.json and compare's metrics.json report these (docs/fluvial.md).
// Deterministic: serial sums in routing order.

#include <cstdint>
#include <numbers>
#include <span>
#include <vector>

#include "geodesy/sphere_mesh.h"
#include "hydrology/flow_routing.h"

namespace metrics {

// Depressions smaller than this many vertices are pits, not lakes.
constexpr uint32_t kMinLakeVertices = 3;
// A pit counts when its depth below its spill level exceeds this.
constexpr double kPitDepthM = 1.0;
// Channel vertices drain at least this many mean vertex areas (rain-weighted).
constexpr double kChannelAreaCells = 50.0;

// The mean vertex (dual cell) area of `mesh` on a sphere of radius_m, m^2: 4 pi r^2 / vertices.
inline double meanCellAreaM2(const geodesy::SphereMesh& mesh, double radius_m) {
  return 4.0 * std::numbers::pi * radius_m * radius_m / double(mesh.vertexCount());
}

struct DrainageMetrics {
  uint64_t land_vertices = 0;
  double pits_per_10k = 0.0;     // land pits deeper than kPitDepthM outside lakes
  double drains_to_sea = 0.0;    // share of land area whose flow reaches the sea
  uint64_t lakes = 0;            // depressions of >= kMinLakeVertices vertices
  uint64_t endorheic_lakes = 0;  // lakes whose catchment's rain does not fill them
  double lake_area_km2 = 0.0;
  uint64_t channel_vertices = 0;  // rain-weighted drainage area >= kChannelAreaCells
  // S ~ A^-theta on the channel vertices (slopeAreaFit): log-binned, and vertex by vertex.
  double slope_area_theta = 0.0;
  double slope_area_r2 = 0.0;
  double slope_area_vertex_theta = 0.0;
  double slope_area_vertex_r2 = 0.0;
  // Below the mean of its 1-ring, over the vertices draining kChannelAreaCells of ground
  // (drainage area, not rain-weighted: the same valleys whatever the rain).
  double mean_channel_depth_m = 0.0;
  double channel_length_km_per_1000km2 = 0.0;
};

struct DrainageInput {
  const geodesy::SphereMesh* mesh = nullptr;
  double radius_m = 6371000.0;
  double sea_level_m = 0.0;
  std::span<const float> elevation_m;
  std::span<const float> rainfall;  // weights the drainage area; empty = uniform
  // Evaporation from a lake surface relative to the mean land rainfall: a lake whose
  // catchment collects less rain than its surface evaporates has no outflow (endorheic).
  double lake_evaporation = 0.5;
  uint64_t seed = 0;  // routing jitter
};

// The slope-area relation S ~ A^-theta of channel vertices, fitted by least squares in
// log10-log10 two ways:
//  - binned (the usual slope-area plot of fluvial geomorphology, e.g. Wobus et al. 2006): the
//    vertices grouped in bins of kSlopeAreaBinDecades of area, the mean log S of each bin of at
//    least kSlopeAreaMinBin vertices against its mean log A. It measures the trend, which is what
//    the exponent describes;
//  - per vertex: every (A, S) pair. Its R^2 also counts the scatter around the trend from
//    uplift, hardness and rain varying over the planet (S = (U/K)^(1/n) A^(-m/n) with U/K
//    differing from one river to the next).
// log_area and log_slope are log10 values, one pair per channel vertex (S > 0).
constexpr double kSlopeAreaBinDecades = 0.1;
constexpr uint64_t kSlopeAreaMinBin = 10;
struct SlopeAreaFit {
  double theta = 0.0, r2 = 0.0;                // binned
  double vertex_theta = 0.0, vertex_r2 = 0.0;  // per vertex
  uint64_t bins = 0;
};
SlopeAreaFit slopeAreaFit(std::span<const double> log_area, std::span<const double> log_slope);

// The routing the metrics use (also for rivers): hydrology::routeFlow with the pipeline's
// jitter, plus per-vertex rain-weighted drainage area (m^2) and endorheic flags per lake.
struct DrainageNetwork {
  hydrology::FlowRouting routing;
  std::vector<double> area_m2;        // rain-weighted drainage area
  std::vector<double> plain_area_m2;  // drainage area
  std::vector<uint8_t> endorheic;     // per lake
  std::vector<uint8_t> reaches_sea;   // per vertex
};
DrainageNetwork drainageOf(const DrainageInput& input);

// Metrics of `input`; `mask` (optional, per vertex) restricts the land counted.
DrainageMetrics drainageMetrics(const DrainageInput& input, const DrainageNetwork& drainage,
                                std::span<const uint8_t> mask = {});

// Coast and sea floor: land vertices whose land/sea state changed, per land vertex of before;
// former sea vertices ending more than 100 m above the sea.
struct CoastChange {
  double coastline_moved = 0.0;
  uint64_t former_sea_raised_100m = 0;
};
CoastChange coastChange(std::span<const float> before_m, std::span<const float> after_m,
                        double sea_level_m);

}  // namespace metrics

namespace metrics {

// The drainage metrics of a wet and a dry part of the land: the wettest and the driest quarter
// of the land vertices by `split_rain` (e.g. the cloud run's rainfall), measured on `input`.
// With band_elevation (per vertex, e.g. the initial terrain) the land is first cut into
// kElevationBands bands of equal vertex count by it, and the quarters are taken within each
// band: both parts then have the same spread of elevations, so a difference between them is
// the rain's, not the terrain's (on earthlike the driest quarter overall is the highlands).
// Their mean channel depths are then means over the bands, each band weighted alike for both
// by the channel vertices of both in it (the quarters share each band's land, not its channels:
// pooled, a quarter with more of its channels in the high bands reads deeper).
constexpr int kElevationBands = 4;
struct RainQuarters {
  DrainageMetrics wettest, driest;
};
RainQuarters rainQuarters(const DrainageInput& input, const DrainageNetwork& drainage,
                          std::span<const float> split_rain,
                          std::span<const float> band_elevation = {});

// The vertex masks behind rainQuarters: of `land`, the driest and wettest quarter by rain, within
// each of `bands` bands of equal count by band_elevation (one band when it is empty). Ties break
// by vertex index. Masks have `vertices` entries: 0 outside the quarter, else 1 + its band.
struct QuarterMasks {
  std::vector<uint8_t> wettest, driest;
};
QuarterMasks rainQuarterMasks(std::span<const uint32_t> land, size_t vertices,
                              std::span<const float> split_rain,
                              std::span<const float> band_elevation, int bands);

}  // namespace metrics

namespace metrics {

// Steepest descent on the written heights, as a game engine or a user's own router walks them:
// each land vertex drains to the neighbour with the steepest strictly downhill metric slope (no
// jitter, no filling); a land vertex with no lower neighbour is a sink and drains to itself.
// Sea vertices drain to themselves. `order` holds the land vertices by rising height (ties by
// index), so every receiver comes before its donors.
struct SteepestDescent {
  std::vector<uint32_t> receiver;
  std::vector<uint32_t> order;
};
SteepestDescent steepestDescent(const geodesy::SphereMesh& mesh, std::span<const float> elevation_m,
                                double sea_level_m);
// Drainage area along `descent`: a land vertex's area (mesh.vertex_areas times `scale`, r^2 for
// m^2) plus its donors', summed from the highest land down; sea vertices hold what flows into
// them.
std::vector<double> steepestArea(const geodesy::SphereMesh& mesh, const SteepestDescent& descent,
                                 double scale);

// A channel runs straight when each step continues the previous one within this angle: the
// lattice's neighbours are 60 deg apart, so a straight continuation is the one opposite.
constexpr double kStraightTurnDeg = 30.0;
// Runs of more than this many successive straight steps count as lattice trenches.
constexpr uint64_t kStraightRunSteps = 8;

// Straight runs along the receivers of the vertices marked in `channel` (one flag per vertex):
// a run is a chain of successive steps v -> receiver[v] of channel vertices, each turning less
// than kStraightTurnDeg from the one before. `share` is the share of channel vertices with a
// step whose run has more than kStraightRunSteps steps; `longest` the most steps in one run.
struct StraightRuns {
  uint64_t steps = 0;  // channel vertices with a receiver other than themselves
  double share = 0.0;
  uint64_t longest = 0;
};
StraightRuns straightRuns(const geodesy::SphereMesh& mesh, std::span<const uint32_t> receiver,
                          std::span<const uint32_t> order, std::span<const uint8_t> channel);

// The drainage of the written heights by steepest descent, land only.
struct SteepestMetrics {
  // Share of land area whose steepest-descent walk ends in the sea or in a lake of
  // `drainage` (a depression of at least kMinLakeVertices vertices).
  double reaches_sea_or_lake = 0.0;
  // Land vertices outside those lakes with no lower neighbour, per 10,000 land vertices.
  double sinks_per_10k = 0.0;
  // Channels: drainage area (not rain-weighted) along steepest descent of at least
  // kChannelAreaCells mean vertex areas, outside lakes.
  uint64_t channel_vertices = 0;
  double slope_area_theta = 0.0, slope_area_r2 = 0.0;  // binned (slopeAreaFit)
  StraightRuns straight;
};
SteepestMetrics steepestMetrics(const DrainageInput& input, const DrainageNetwork& drainage);

// The land's highest share by initial elevation: the `share` of the land vertices of
// `initial_m` (>= sea level) with the highest initial elevation, ties by index, as a mask.
std::vector<uint8_t> highestLand(std::span<const float> initial_m, double sea_level_m,
                                 double share);

// Share of the vertices of `mask` whose final elevation is within tolerance_m of the initial.
constexpr double kUntouchedM = 20.0;
double shareWithin(std::span<const float> initial_m, std::span<const float> final_m,
                   std::span<const uint8_t> mask, double tolerance_m = kUntouchedM);

}  // namespace metrics

namespace metrics {

// How strongly to paint water at each vertex for pictures, in [0, 1]: lakes 1, channel
// vertices (kChannelAreaCells) from 0.35 rising with log discharge, 0 elsewhere.
std::vector<float> waterStrength(const DrainageInput& input, const DrainageNetwork& drainage);

}  // namespace metrics
