#pragma once
// Droplet (particle) hydraulic erosion on the icosphere, after Beyer 2015 eqs. 5.1-5.10
// (docs/erosion.md), stepped in the tangent plane (Kelley 2020 §4.4). One droplet's step, and the
// lines where it changes heights: erosion/detail/droplet.cpp, DropletRun::stepLand.
// Deterministic: the result is bit-identical for any thread count.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "geodesy/droplet_spawn.h"
#include "geodesy/sphere_mesh.h"

namespace erosion {

// Defaults follow Lague's implementation of Beyer's algorithm; see docs/config.md for each meaning.
// Lengths and heights are in the dimensionless frame of erosion/detail/droplet.h: one step = one
// mean edge length, heights in edge lengths. The droplet reads them as floats in DropletContext
// (erosion/detail/droplet.h), copied once per call by makeDropletContext (droplet.cpp).
struct ErosionParams {
  double inertia = 0.05;        // [0,1] eq. 5.1
  double capacity = 4.0;        // > 0, eq. 5.4
  double min_slope = 0.01;      // >= 0, eq. 5.4
  double deposition = 0.3;      // [0,1] eq. 5.5
  double erosion = 0.3;         // [0,1] eq. 5.6
  double evaporation = 0.01;    // [0,1) eq. 5.8
  double gravity = 4.0;         // > 0, eq. 5.7
  double radius = 3.0;          // brush radius in edge lengths, eq. 5.9
  int max_lifetime = 30;        // steps
  double initial_water = 0.03;  // Beyer: 1; see docs/erosion.md "Strength at planet scale"
  double initial_speed = 1.0;
  double blur = 0.0;  // [0,1] change-map blur blend factor b, eq. 5.10
  // Droplets per deterministic batch (docs/erosion.md, "Parallel and deterministic"); 0 = auto:
  // vertex count / 256 (2560 at f = 256), eroded volume within about 2 % of batch size 1.
  int batch_size = 0;
};

struct ErosionStats {
  double eroded_volume_m3 = 0.0;     // taken by droplets (before the blur)
  double deposited_volume_m3 = 0.0;  // given back by droplets
  // Taken by droplets that reached a channel (ErosionInput::channel) and handed their load to
  // its water, which carries it out of the call's reach, as the sea takes what reaches it:
  // eroded = deposited + carried out, up to rounding.
  double carried_out_volume_m3 = 0.0;
  // |sum dh*A + carried out| / (sum |dh*A| + carried out) over this call's change
  double mass_error = 0.0;
  uint64_t droplets = 0;
  uint64_t droplet_steps = 0;
  double mean_steps = 0.0;
  uint64_t ended_dried = 0, ended_lifetime = 0, ended_sea = 0, ended_flat = 0;
  uint64_t ended_channel = 0;
};

// How the brush of eq. 5.9 is found at each erosion step (docs/erosion.md, "The brush", compares
// them).
enum class BrushMode {
  kLattice,      // lattice offsets: runs of ids inside base faces, else walked (default)
  kPrecomputed,  // per-vertex CSR of ids and metric weights (8 bytes per entry)
  kGathered,     // breadth-first walk with distances from the droplet's exact position
};

// What erodeDroplets builds once per mesh and brush radius and can reuse across calls (weather
// epochs): per-vertex point and neighbour records (48 bytes per vertex) and, for kPrecomputed
// only, the per-vertex brushes. A call adds what it needs (releaseCallMemory frees it, the next
// call makes it again): the brush's per-vertex heights, erodibility and areas and the start
// heights (20 bytes per vertex), and for each worker thread that runs droplets a fixed-point
// change buffer (8 bytes per vertex, + 4 for a brush gatherer near the five-valent vertices,
// + a 33 KB trap-test set per droplet in flight, of which a droplet of up to 64 steps touches
// 256 bytes). Construction is parallel
// in the caller's oneTBB arena. Not thread-safe: one erodeDroplets call at a time per workspace.
// The mesh must outlive it.
class ErosionWorkspace {
 public:
  ErosionWorkspace(const geodesy::SphereMesh& mesh, double radius,
                   BrushMode mode = BrushMode::kLattice);
  ~ErosionWorkspace();
  ErosionWorkspace(const ErosionWorkspace&) = delete;
  ErosionWorkspace& operator=(const ErosionWorkspace&) = delete;

  const geodesy::SphereMesh& mesh() const;
  double radius() const;
  size_t brushMemoryBytes() const;  // the brush tables (per vertex only for kPrecomputed)
  size_t memoryBytes() const;       // everything held now, brushes included

  // Frees what a call added (20 bytes per vertex + 12 per thread that ran droplets), for a
  // caller that runs something memory-hungry between calls; the next call makes it again.
  // The results do not change.
  void releaseCallMemory();

  struct Impl;  // erosion/detail/workspace_impl.h

 private:
  // The droplet eroder's own files reach the inside through WorkspaceAccess (detail/).
  friend struct WorkspaceAccess;
  std::unique_ptr<Impl> impl_;
};

struct ErosionInput {
  const geodesy::SphereMesh* mesh = nullptr;
  double radius_m = 6371000.0;
  double sea_level_m = 0.0;
  std::span<const float> erodibility;  // per vertex in [0,1]; empty = 1 everywhere
  // Per vertex, nonzero = a channel of the river network (e.g. the fluvial stage's); empty = none.
  // Droplets neither take from a channel vertex nor lay anything down on it: a droplet ends
  // when it steps onto a face with a channel corner (or spawns on one), and its load goes with
  // the channel's water (ErosionStats::carried_out_volume_m3). The rivers' long profiles are
  // then the channels' own (docs/erosion.md, "Channels").
  std::span<const uint8_t> channel;
  uint64_t seed = 0;
  // Reused across calls if set (same mesh and radius as the params); null = a temporary one
  // is built for the call (see docs/erosion.md for its cost).
  ErosionWorkspace* workspace = nullptr;
};

// The batch size erodeDroplets uses on a mesh of vertex_count vertices.
size_t batchSize(const ErosionParams& params, size_t vertex_count);

// Runs the droplets (droplet id = first_droplet_id + index) in batches of batchSize in spawn
// order, in place on elevation_m, and adds this call's change to change_m (may be empty).
// Droplets of one batch see the heights of the batch start. elevation_m, change_m and
// input.erodibility have one entry per vertex. Weather calls it once per epoch. Parallelism:
// the caller's oneTBB arena. Output does not depend on the thread count or the scheduling.
ErosionStats erodeDroplets(const ErosionInput& input, std::span<const geodesy::DropletSpawn> spawns,
                           const ErosionParams& params, std::span<float> elevation_m,
                           std::span<float> change_m, uint64_t first_droplet_id = 0);

}  // namespace erosion
