#pragma once
// Stream power, hillslope diffusion and talus on a lattice patch (lattice_patch.h): the fluvial
// erosion of one tiles window at its level's own scale. Plain per-cell arrays in, heights
// changed in place; serial and deterministic (a window is one task; windows run in parallel).
//
// Routing: a priority-flood (Barnes, Lehman & Mulla 2014) from the patch's outlets (its edge
// cells and the base-level cells: sea and lakes) gives every cell the level its depression
// fills to; a cell drains by steepest descent to a neighbour with a lower water level, the
// slopes perturbed by a hash of the cell's point so channels do not follow the lattice's six
// directions, and across a depression along the flood's path. Ties are broken by the points'
// ids, not by the cells', so two windows that hold the same points route them alike.
//
// Incision: the implicit stream-power step of Braun & Willett 2013 (n = 1) in dimensionless
// form: each cell moves towards its receiver's new height by the factor
// F = incision * (A / cell area)^m (at most max_factor), h' = (h + F h'_r) / (1 + F), from the
// outlets upstream. A is the rain-weighted drainage area, with what enters the patch across
// its edge (the planet's rivers) added where it enters.

#include <cstdint>
#include <span>
#include <vector>

#include "erosion/lattice_patch.h"

namespace erosion {

struct PatchFlowInput {
  const LatticePatch* patch = nullptr;
  std::span<const float> height_m;  // per cell (copies hold their owner's value)
  // Per cell: the ids of the points (the same point has the same id in every patch that holds
  // it). They seed the receivers' perturbation and order ties.
  std::span<const uint64_t> point_id;
  // Per cell: rain relative to a reference (weights each cell's area); empty = 1 everywhere.
  std::span<const float> rain;
  // Per cell: 1 where water ends (sea, lake surface); empty = nowhere. Edge cells are outlets
  // as well.
  std::span<const uint8_t> base_level;
  double receiver_jitter = 0.3;  // [0, 1): as hydrology::RoutingParams
  uint64_t seed = 0;
};

struct PatchFlow {
  // Per cell: where it drains; itself for outlets and for cells that are not points.
  std::vector<uint32_t> receiver;
  // The points from the outlets upstream: each after its receiver.
  std::vector<uint32_t> order;
  // Per cell: the rain-weighted drainage area (m^2); 0 off the points.
  std::vector<float> area_m2;
  // Per cell: 1 for an outlet (edge or base level).
  std::vector<uint8_t> outlet;
};

PatchFlow routePatch(const PatchFlowInput& input);

struct StreamPowerParams {
  double incision = 0.05;      // F at one cell's area
  double area_exponent = 0.5;  // m
  double max_factor = 20.0;    // F's ceiling: bounds how far up a channel an outlet reaches
  // Restore the patch's mean height by one constant after the step (the valleys' lowering
  // lifts the whole patch a little), so the coarse surface's mean stays.
  bool keep_mean = false;
};

// The implicit incision step on heights (per cell, metres; copies follow their owners).
// Outlets and cells whose receiver is not lower do not change.
void incise(const LatticePatch& patch, const PatchFlow& flow, const StreamPowerParams& params,
            std::span<float> height_m);

// The steady state of stream power at a window's scale: where uplift and incision balance
// (Whipple & Tucker 1999), a channel's slope is S = k_s A^-theta (theta = m / n), so the height
// of a cell over its outlet is k_s times chi, the integral of A^-theta along its flow path
// (Perron & Royden 2013). steadyState() lays that surface on a routing, from the outlets
// upstream: h = h_receiver + min(k (A / cell)^-theta, max_slope) * spacing, with the steepness
// k chosen so the surface's mean height over the patch's points equals the reference's mean
// (the coarser surface's low frequencies stay). Every point ends above its receiver: closed
// hollows of the ground are cut through (breached) along the routing instead of filled.
// `passes` re-routes on the new surface and lays it again, so divides move toward where the
// two sides meet at the same height (a surface laid on one routing has steps where paths of
// different chi meet).
// kCarve keeps the ground where it is gentler than the steady state and only lowers: every
// closed hollow is first cut through along the routing (breached: each point ends at least
// min_slope over its receiver, the cut made downstream of the hollow, Lindsay 2016), then,
// from the outlets upstream, h = min(h, h_receiver + min(k_s A^-theta, max_slope) * spacing)
// with a fixed steepness k_s in metres (A in m^2): channels are cut down to the steady-state
// profile, their sides to the threshold slope, the hillslopes above keep the detail; the
// patch's mean height is then restored by a constant (so the coarse surface's mean stays).
// kHang keeps the ground along channels (drainage area at least channel_cells) and hangs every
// other point from the first channel point down its path: h = h_q + the steady state's falls
// from the point to q, min(k_s A^-theta, max_slope) * spacing each step, plus the ground's own
// finest relief there (its height over the mean of its ring). Hillslopes and small valleys then
// fall at k_s A^-theta to the channels, which keep the coarser surface's slope; the height of a
// point is a pure function of its path to its channel (with reach_steps > 0 at most that many
// steps: from the ground there when no channel is nearer), not of the window's edge. The
// patch's mean height is then restored by a constant.
enum class SteadyStateMode : uint8_t { kLay, kCarve, kHang };

struct SteadyStateParams {
  bool enabled = true;
  SteadyStateMode mode = SteadyStateMode::kCarve;
  double steepness_m = 100.0;  // k_s of kCarve: S = k_s / sqrt(A / 1 m^2) for theta = 0.5
  double min_slope = 1e-3;     // kCarve's breaching: the least fall to the receiver
  double concavity = 0.5;      // theta, the slope-area exponent of channels
  double max_slope = 0.8;  // the steepest a flow path gets (threshold hillslopes), rise over run
  int passes = 3;
  // kCarve's reach: 0 carves from the outlets (a point's height hangs on its whole path to
  // the patch's edge, so two windows that hold it carve it apart); N > 0 carves each point
  // to the lowest steady-state profile hung from its own ground N steps or fewer downstream,
  // h = min(h, min_k (h_k + sum of the slopes' falls to k)), on the ground's heights before
  // the carve and without breaching: a pure function of the point's downstream path, the
  // same in every window whose routing agrees along it, and no deeper than N steps of fall.
  int reach_steps = 0;
  // kHang: the drainage area (in lattice cells) from which a point is a channel and keeps the
  // ground.
  double channel_cells = 1000.0;
  // kHang: the hillslopes' drainage area for their fall. 0: the routing's (one receiver each);
  // p > 0: spread over every lower neighbour (on the routing's water levels) in proportion to
  // slope^p (multiple flow directions, Quinn et al. 1991), so parallel paths down a plane carry
  // about the same area and hang alike. Channels keep the routing's area.
  double spread_exponent = 0.0;
};

// The drainage area of hillslopes spread over their lower neighbours (SteadyStateParams::
// spread_exponent), per cell (m^2): each point's own rain-weighted area (its routed area less
// what its donors route to it) is passed from the highest water level (the routing's
// priority flood) down, to every neighbour lower on the water levels (or as high and nearer
// the outlet in the routing's order) in proportion to (drop / spacing)^exponent, or to its
// receiver when none is lower. Points with anchor[c] (channels, outlets) take what reaches
// them and pass nothing on, so the areas of the anchors sum to the points' own areas.
std::vector<double> spreadDrainage(const LatticePatch& patch, const PatchFlow& flow,
                                   std::span<const float> height_m, std::span<const uint8_t> anchor,
                                   double exponent);

// Lays the steady state of `flow` on height_m (per cell, metres; outlets keep their heights),
// keeping the mean of reference_m (per cell) over the points. Returns the steepness k (m per
// spacing at one cell's area; 0 when nothing drains).
double steadyState(const LatticePatch& patch, const PatchFlow& flow,
                   const SteadyStateParams& params, std::span<const float> reference_m,
                   std::span<float> height_m);

struct HillslopeParams {
  // Linear diffusion: each explicit step moves a cell by diffusion times the sum of its
  // neighbours' differences (stable for diffusion <= 1/6).
  double diffusion = 0.05;
  int diffusion_steps = 2;
  // Talus: where the slope to a neighbour exceeds talus_slope (rise over run), talus_rate of
  // the excess moves down (half of it from each side), talus_steps times.
  double talus_slope = 0.8;
  double talus_rate = 0.5;
  int talus_steps = 3;
};

// Diffusion then talus on the points that are not outlets (fixed: per cell, 1 = does not
// change, e.g. flow.outlet). Mass moves between points; it is conserved up to rounding except
// what reaches a fixed cell.
void relaxHillslopes(const LatticePatch& patch, std::span<const uint8_t> fixed,
                     const HillslopeParams& params, std::span<float> height_m);

}  // namespace erosion
