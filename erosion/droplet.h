#pragma once
// One droplet's life on the icosphere (Beyer 2015 §5.1, eqs. 5.1-5.8, stepped in the tangent
// plane as in Kelley 2020 §4.4). Shared by the parallel driver and by traceDroplet. Internal to
// erosion/.
//
// Dimensionless frame. The step is one mean edge length L (radians on the unit sphere) and
// heights are measured in edge lengths of the planet: h = h_m / (L * radius_m). Slopes dh are
// then rise over run per step, as on Beyer's and Lague's unit grid, so their default
// parameters (capacity 4, min_slope 0.01, gravity 4, ...) mean the same at every frequency.
// Sediment is a volume: normalised height times dual area / mean dual area.

#include <cstdint>
#include <span>

#include <glm/vec3.hpp>

#include "erosion/brush.h"
#include "erosion/change_accumulator.h"
#include "erosion/droplet_erosion.h"
#include "erosion/droplet_trace.h"
#include "erosion/node_table.h"
#include "erosion/visited_set.h"
#include "erosion/workspace_impl.h"
#include "geodesy/droplet_spawn.h"
#include "geodesy/sphere_mesh.h"

namespace erosion {

// The constants of one erodeDroplets call, in the dimensionless frame, float for the hot loop.
struct DropletContext {
  const geodesy::SphereMesh* mesh = nullptr;
  const VertexPoint* points = nullptr;  // heights frozen during a batch
  const VertexLinks* links = nullptr;
  const float* height = nullptr;  // the brush's copies, see NodeTable
  const float* erodibility = nullptr;
  const float* area = nullptr;
  BrushMode brush_mode = BrushMode::kLattice;
  const LatticeBrush* lattice = nullptr;
  const VertexBrushes* brushes = nullptr;  // for kPrecomputed
  float sea_level = 0.0f;                  // normalised
  double metres_per_height = 1.0;          // L R
  float edge_length = 0.0f;                // L, radians
  float step_cos = 1.0f, step_sin = 0.0f;  // great-circle step of one L
  float inertia = 0.0f, capacity = 0.0f, min_slope = 0.0f, deposition = 0.0f, erosion = 0.0f;
  float evaporation = 0.0f, gravity = 0.0f, initial_water = 0.0f, initial_speed = 0.0f;
  float min_water = 0.0f;
  int max_lifetime = 0;
  float base_level_share = 1.0f;  // of the height above the sea one brush take may remove
  uint64_t seed = 0;
};

DropletContext makeDropletContext(const ErosionInput& input, const ErosionParams& params,
                                  const ErosionWorkspace::Impl& workspace);

// Normalised height per metre, 1 / (L R).
double heightScale(const ErosionInput& input);

struct DropletOutcome {
  float eroded = 0.0f;     // normalised volume taken from the terrain
  float deposited = 0.0f;  // normalised volume given back (all of it by the end)
  uint32_t steps = 0;
  DropletEnd end = DropletEnd::kLifetime;
};

// What a worker thread lends a droplet: its change buffer and, made on first need, a brush
// gatherer for centres near the five-valent vertices (or for BrushMode::kGathered).
struct DropletScratch {
  ChangeAccumulator* changes = nullptr;
  std::unique_ptr<BrushGatherer>* gatherer = nullptr;
  VisitedSet* visited = nullptr;  // the trap test's memory of where the droplet has been
};

// Runs droplet `id` from `spawn` and adds its height changes to scratch.changes. `trace` may
// be null.
DropletOutcome runDroplet(const DropletContext& context, DropletScratch scratch,
                          const geodesy::DropletSpawn& spawn, uint64_t id, DropletTrace* trace);

}  // namespace erosion
