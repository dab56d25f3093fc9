#include <cassert>

#include "erosion/detail/workspace_impl.h"
#include "erosion/droplet_erosion.h"

namespace erosion {

ErosionWorkspace::ErosionWorkspace(const geodesy::SphereMesh& mesh, double radius, BrushMode mode)
    : impl_(std::make_unique<Impl>()) {
  assert(radius > 0.0 && radius <= 8.0);  // kMaxLatticeBrush holds radius 8
  impl_->mesh = &mesh;
  impl_->radius = radius;
  impl_->mode = mode;
  impl_->lattice = makeLatticeBrush(radius);
  // A lattice walk reaches `rings` steps out; one ring more keeps its vertices six-valent.
  impl_->nodes = buildNodeTable(mesh, impl_->lattice.rings + 1);
  markRowBrushes(impl_->nodes, impl_->lattice);
  if (mode == BrushMode::kPrecomputed) impl_->brushes = buildVertexBrushes(mesh, radius);
}

ErosionWorkspace::~ErosionWorkspace() = default;

const geodesy::SphereMesh& ErosionWorkspace::mesh() const {
  return *impl_->mesh;
}
double ErosionWorkspace::radius() const {
  return impl_->radius;
}

void ErosionWorkspace::releaseCallMemory() {
  impl_->release();
}

size_t ErosionWorkspace::brushMemoryBytes() const {
  return impl_->brushes.memoryBytes() +
         impl_->lattice.entries.capacity() * sizeof(LatticeBrush::Entry);
}

size_t ErosionWorkspace::memoryBytes() const {
  size_t bytes = brushMemoryBytes() + impl_->nodes.memoryBytes();
  for (const auto& slot : impl_->slots) {
    if (!slot) continue;
    bytes += slot->changes.memoryBytes() + sizeof(slot->visited);
    if (slot->gatherer) bytes += impl_->mesh->vertexCount() * sizeof(uint32_t);
  }
  return bytes;
}

}  // namespace erosion
