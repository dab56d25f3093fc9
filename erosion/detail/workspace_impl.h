#pragma once
// Inside of ErosionWorkspace, shared by the driver (droplet_erosion.cpp), the workspace and the
// tests (through tests/support/erosion_internals.h).

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "erosion/detail/brush.h"
#include "erosion/detail/change_accumulator.h"
#include "erosion/detail/node_table.h"
#include "erosion/detail/visited_set.h"
#include "erosion/droplet_erosion.h"

namespace erosion {

// Droplets a worker keeps in flight (see runDroplets), and the most runDroplets takes. Sixteen:
// where the CPU has AVX2 they run as two groups of eight in lockstep, one locateStep8 for a
// group's eight, the groups taking turns, so that what a group's next locates read arrives while
// the other group steps (docs/erosion.md, "Droplets in flight", has the measurements); without AVX2
// they step in turn.
inline constexpr size_t kDropletsInFlight = 16;
inline constexpr size_t kMaxDropletsInFlight = 16;

// What one worker thread owns during a batch.
struct ThreadSlot {
  explicit ThreadSlot(size_t vertex_count) : changes(vertex_count, kBrushPadding) {}
  ChangeAccumulator changes;
  std::unique_ptr<BrushGatherer> gatherer;            // made on first need
  std::array<VisitedSet, kDropletsInFlight> visited;  // one per droplet in flight (runDroplets)
};

struct ErosionWorkspace::Impl {
  const geodesy::SphereMesh* mesh = nullptr;
  double radius = 0.0;
  BrushMode mode = BrushMode::kLattice;
  LatticeBrush lattice;
  VertexBrushes brushes;  // kPrecomputed only
  NodeTable nodes;
  // Indexed by tbb::this_task_arena::current_thread_index(); each is created by its own
  // thread on first use, so only threads that ran droplets pay for one.
  std::vector<std::unique_ptr<ThreadSlot>> slots;

  // Per call: node heights, erodibility and areas (made again after release()).
  void prepare(std::span<const float> elevation_m, double height_scale,
               std::span<const float> erodibility, std::span<const uint8_t> channel = {}) {
    refreshNodeTable(nodes, *mesh, elevation_m, height_scale, erodibility, channel);
  }
  // ErosionWorkspace::releaseCallMemory.
  void release() {
    releaseCallArrays(nodes);
    for (auto& slot : slots) slot.reset();
  }

  // Made on a thread's first droplet, inside the droplet loop's body: making it must not run
  // other tasks of that loop on this thread (its big arrays' prefault is isolated), or a second
  // slot would be made here and one of the two lost.
  ThreadSlot& slot(size_t index) {
    if (!slots[index]) slots[index] = std::make_unique<ThreadSlot>(nodes.points.size());
    return *slots[index];
  }
};

// The one way into a workspace's Impl (a friend of ErosionWorkspace): only code that includes
// this detail header can use it, so the public header exposes no internals.
struct WorkspaceAccess {
  static ErosionWorkspace::Impl& impl(ErosionWorkspace& workspace) { return *workspace.impl_; }
};

}  // namespace erosion
