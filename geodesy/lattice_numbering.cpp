#include "geodesy/lattice_numbering.h"

#include <cassert>
#include <cmath>
#include <unordered_map>

namespace geodesy {

double spacingWeight(Spacing spacing, uint64_t k, uint64_t frequency) {
  const double b = double(k) / double(frequency);
  return spacing == Spacing::kFlat ? b : std::sin(icosahedron().edge_arc * b);
}

glm::dvec3 latticePosition(Spacing spacing, uint64_t frequency, uint32_t base, uint64_t i,
                           uint64_t j) {
  return latticePosition([&](uint64_t k) { return spacingWeight(spacing, k, frequency); },
                         frequency, base, i, j);
}

// Deduplication goes through a hash map keyed by exact integers: a corner by its id, an edge
// point by its edge's corner pair (lower id first) and its step from the lower corner. Serial
// and in a fixed order (about 30 f entries), so ids never depend on threads.
LatticeNumbering::LatticeNumbering(int frequency) : lattice_{uint32_t(frequency)} {
  assert(frequency >= 1 && frequency <= kMaxFrequency);
  const Icosahedron& ico = icosahedron();
  const uint32_t f = lattice_.f;
  auto key = [](uint64_t lo, uint64_t hi, uint64_t step) { return lo << 40 | hi << 32 | step; };

  ring_.resize(size_t(Icosahedron::kFaces) * 3 * f);
  std::unordered_map<uint64_t, uint32_t> ids;
  ids.reserve(lattice_.boundaryVertexCount());
  for (uint32_t c = 0; c < Icosahedron::kCorners; ++c) ids.emplace(key(c, c, 0), c);
  uint32_t next_id = Icosahedron::kCorners;
  for (uint32_t base = 0; base < Icosahedron::kFaces; ++base) {
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = ico.faces[base][k], b = ico.faces[base][(k + 1) % 3];
      const uint32_t lo = std::min(a, b), hi = std::max(a, b);
      for (uint32_t s = 0; s < f; ++s) {
        const uint32_t step = a == lo ? s : f - s;
        const auto [it, inserted] =
            ids.try_emplace(s == 0 ? key(a, a, 0) : key(lo, hi, step), next_id);
        if (inserted) ++next_id;
        ring_[(size_t(base) * 3 + size_t(k)) * f + s] = it->second;
      }
    }
  }
  assert(next_id == lattice_.boundaryVertexCount());
}

std::vector<uint32_t> sharedVertices(const SphereMesh& coarse, const SphereMesh& fine) {
  if (coarse.frequency < 1 || fine.frequency < coarse.frequency ||
      fine.frequency % coarse.frequency != 0 || coarse.spacing != fine.spacing)
    return {};
  const uint32_t m = uint32_t(fine.frequency / coarse.frequency);
  const LatticeNumbering from(coarse.frequency), to(fine.frequency);
  const uint32_t f = from.frequency();
  std::vector<uint32_t> out(coarse.vertexCount());
  // Points on base edges belong to two base faces and corners to five: each is written once per
  // face, with the same value.
  for (uint32_t base = 0; base < Icosahedron::kFaces; ++base)
    for (uint32_t j = 0; j <= f; ++j)
      for (uint32_t i = 0; i + j <= f; ++i)
        out[from.vertex(base, i, j)] = to.vertex(base, m * i, m * j);
  return out;
}

}  // namespace geodesy
