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

// Drainage that enters a patch from outside: area_m2 (rain-weighted, m^2) added at `cell`.
struct PatchInflow {
  uint32_t cell = 0;
  double area_m2 = 0.0;
};

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
  std::span<const PatchInflow> inflows;
  double receiver_jitter = 0.3;  // [0, 1): as hydrology::RoutingParams
  uint64_t seed = 0;
};

struct PatchFlow {
  // Per cell: where it drains; itself for outlets and for cells that are not points.
  std::vector<uint32_t> receiver;
  // The points from the outlets upstream: each after its receiver.
  std::vector<uint32_t> order;
  // Per cell: the rain-weighted drainage area (m^2), inflows included; 0 off the points.
  std::vector<float> area_m2;
  // Per cell: 1 for an outlet (edge or base level).
  std::vector<uint8_t> outlet;
};

PatchFlow routePatch(const PatchFlowInput& input);

struct StreamPowerParams {
  double incision = 0.05;      // F at one cell's area
  double area_exponent = 0.5;  // m
  double max_factor = 20.0;    // F's ceiling: bounds how far up a channel an outlet reaches
};

// The implicit incision step on heights (per cell, metres; copies follow their owners).
// Outlets and cells whose receiver is not lower do not change.
void incise(const LatticePatch& patch, const PatchFlow& flow, const StreamPowerParams& params,
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
