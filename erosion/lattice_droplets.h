#pragma once
// Droplet erosion on a lattice patch (lattice_patch.h): Beyer 2015's droplet (eqs. 5.1-5.8,
// the brush of eq. 5.9), stepped in lattice coordinates on the patch's regular triangular
// lattice like a 2D grid eroder, the height and gradient linear over the triangle under the
// droplet (where a grid eroder takes them bilinear over a square). The tiles' droplet erosion
// at each level's own scale.
//
// Frame: heights in metres, one step one lattice spacing (spacing_m) in the tangent plane, and a
// law in metric units, so that a droplet does at every spacing what the same water does on the
// ground: the capacity is the metric slope (rise over run) times the flow speed times the water,
// and erosion, deposition and evaporation are rates per metre travelled (a step of s metres
// takes 1 - exp(-rate s) of the difference). Water and sediment are depths over one lattice
// cell (volume over the cell's area), so the depth the droplets wear away does not grow with the
// spacing. Lague's unit-grid parameters (capacity 4, rates 0.3 per step, free fall with gravity
// 4) assume heights normalised so that slopes per step are about 0.01; at tens of metres per
// step slopes are 0.1 to 1, the free-fall speed runs away and the droplets fill the ground's
// pits instead of cutting gullies (docs/tile_erosion.md).
// Droplets run one after another in spawn order (each sees those before it): serial and
// deterministic; tiles runs windows in parallel instead.
//
// Spawns: each point of the patch rains droplets[cell] droplets on average (the integer part,
// plus one more with the probability of the fraction), each from its own seed, a pure function
// of the point's seed and its number there, started uniformly over the point's lattice cell.
// A droplet ends when it dries, stalls, has run max_length_m (or max_steps), reaches base level
// (sea, lake: what it carries is laid there) or leaves the patch (what it carries leaves with it).

#include <cstdint>
#include <span>

#include "erosion/lattice_patch.h"

namespace erosion {

// Defaults: tuned on a 30 m tile of an earthlike mountain slope (docs/tile_erosion.md); the
// tiles run droplets of 1 km limited by detachment (erosion_per_m 1e-4: tiles/tile_planet.h);
// tests/erosion/lattice_droplets_test.cpp checks its known answers with these defaults.
struct LatticeDropletParams {
  double inertia = 0.1;  // [0,1) share of the old heading kept, Beyer 2015 eq. 5.1
  // Capacity, depth over a cell: capacity_s_per_m * max(slope, min_slope) * speed * water
  // (Beyer 2015 eq. 5.4 with metric slope and speed).
  double capacity_s_per_m = 0.05;
  double min_slope = 0.01;
  // Flow speed at a slope: flow_speed_m_s * sqrt(max(slope, min_slope)) (the speed of sheet
  // and rill flow, which friction holds near its equilibrium; Lague's free fall runs away at
  // metric slopes).
  double flow_speed_m_s = 1.0;
  // A droplet stands for the flow of the ground it runs on: its water counts
  // min(flow cells, max_flow_cells)^flow_exponent times (LatticeDropletInput::flow_cells), so
  // the capacity grows down the drainage lines as discharge does, as stream power's
  // A^m does (m = 0.5), and droplets cut gullies where flow gathers rather than smoothing the
  // ground's bumps.
  double flow_exponent = 0.5;
  double max_flow_cells = 1e4;
  // Channels: where the flow under a droplet is at least channel_cells lattice cells (> 0),
  // it lays nothing down for being over capacity and what it still carries when it ends
  // there leaves with the channel's water (a channel carries its load on; droplets that
  // slow on a channel's gentle floor would otherwise fill it). 0: channels like any ground.
  double channel_cells = 0.0;
  double erosion_per_m = 0.01;      // share of the capacity's deficit taken per metre run
  double deposition_per_m = 0.01;   // share of the excess laid down per metre run
  double evaporation_per_m = 5e-4;  // share of the water lost per metre run
  double radius = 1.5;              // brush radius in spacings, eq. 5.9
  double max_length_m = 2000.0;     // a droplet's longest run
  int max_steps = 64;               // and its most steps
};

struct LatticeDropletInput {
  const LatticePatch* patch = nullptr;
  // Per cell: the droplets a point rains on average (>= 0; 0 off the points).
  std::span<const float> droplets;
  // Per cell: the point's seed (the same point has the same seed in every patch).
  std::span<const uint64_t> seed;
  // Per cell: 1 where water ends (sea, lake); empty = nowhere. Not eroded; deposits may land.
  std::span<const uint8_t> base_level;
  // Per cell: the drainage area there in lattice cells (>= 1), the ground's routed flow before
  // the droplets; empty = 1 everywhere.
  std::span<const float> flow_cells;
  // The water one droplet carries, as a depth over one lattice cell (m): the rain a point's
  // droplets stand for over the time eroded, divided among them.
  double water_m = 1.0;
  // Where the heights are read after the run (optional, keep_radius > 0): within keep_radius
  // lattice steps of cell (keep_x, keep_y) (column, row). A droplet stops (what it carries
  // leaves with it, as off the patch) once the steps it has left cannot bring its brush back
  // within that disk, and one that cannot from where it starts is not run: droplets that would
  // only wear ground nobody reads cost nothing.
  double keep_radius = 0.0;
  double keep_x = 0.0, keep_y = 0.0;
};

struct LatticeDropletStats {
  uint64_t droplets = 0;
  uint64_t steps = 0;
  double eroded_m3 = 0.0;     // taken by the brushes
  double deposited_m3 = 0.0;  // laid down (inside the patch)
};

// Erodes height_m (per cell, metres) in place and adds each point's loss and gain (metres,
// >= 0) to eroded_m and deposited_m (per cell; either may be empty). Copies follow their
// owners.
LatticeDropletStats erodeLatticeDroplets(const LatticeDropletInput& input,
                                         const LatticeDropletParams& params,
                                         std::span<float> height_m, std::span<float> eroded_m,
                                         std::span<float> deposited_m);

}  // namespace erosion
