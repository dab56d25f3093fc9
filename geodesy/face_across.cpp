// A face's place in the lattice of its base face (latticeFace), and from it the faces on the
// other side of its edges (SphereMesh::faceAcross, facesAcross) instead of a stored table (12
// bytes per face, 24 per vertex).

#include <algorithm>
#include <cassert>
#include <cmath>

#include "geodesy/icosahedron.h"
#include "geodesy/lattice.h"
#include "geodesy/sphere_mesh.h"

namespace geodesy {
namespace {

// The face across edge k of the face at `at`.
uint32_t across(const Lattice& lattice, const LatticeFace& at, int k) {
  const uint32_t f = lattice.f;
  const uint32_t per_base = lattice.facesPerBase();
  const uint32_t first = at.base * per_base;
  const uint32_t i = at.i, j = at.j;
  if (at.down) {
    // Down triangle (i + 1, j), (i + 1, j + 1), (i, j + 1): its three neighbours are up
    // triangles of the same base face.
    switch (k) {
      case 0:
        return first + lattice.upFace(i + 1, j);
      case 1:
        return first + lattice.upFace(i, j + 1);
      default:
        return first + lattice.upFace(i, j);
    }
  }
  // Up triangle (i, j), (i + 1, j), (i, j + 1). Across a base edge, step s of edge e meets
  // step f - 1 - s of the same edge in the adjacent base face.
  auto other = [&](int e, uint32_t s) {
    const Icosahedron& ico = icosahedron();
    return uint32_t(ico.adjacent_face[at.base][e]) * per_base +
           lattice.boundaryFace(ico.adjacent_edge[at.base][e], f - 1 - s);
  };
  switch (k) {
    case 0:
      return j == 0 ? other(0, i) : first + lattice.downFace(i, j - 1);
    case 1:
      return i + j + 1 == f ? other(1, j) : first + lattice.downFace(i, j);
    default:
      return i == 0 ? other(2, f - 1 - j) : first + lattice.downFace(i - 1, j);
  }
}

}  // namespace

LatticeFace latticeFace(int frequency, uint32_t face) {
  const Lattice lattice{uint32_t(frequency)};
  const uint32_t f = lattice.f;
  const uint32_t per_base = lattice.facesPerBase();
  const uint32_t base = face / per_base;
  const uint32_t in_base = face - base * per_base;
  // Row j holds faces rowStart(j) .. rowStart(j + 1) - 1, rowStart(j) = 2fj - j^2: j is the
  // largest with rowStart(j) <= in_base, near f - sqrt(f^2 - in_base); the loops fix rounding.
  const double ff = double(f);
  uint32_t j = uint32_t(std::max(0.0, ff - std::sqrt(ff * ff - double(in_base))));
  while (j > 0 && lattice.rowStart(j) > in_base) --j;
  while (j + 1 < f && lattice.rowStart(j + 1) <= in_base) ++j;
  const uint32_t column = in_base - lattice.rowStart(j);
  return {base, column / 2, j, column % 2 == 1};
}

uint32_t SphereMesh::faceAcross(uint32_t face, int k) const {
  assert(face < faceCount() && k >= 0 && k < 3);
  return across(Lattice{uint32_t(frequency)}, latticeFace(frequency, face), k);
}

std::array<uint32_t, 3> SphereMesh::facesAcross(uint32_t face) const {
  assert(face < faceCount());
  const Lattice lattice{uint32_t(frequency)};
  const LatticeFace at = latticeFace(frequency, face);
  return {across(lattice, at, 0), across(lattice, at, 1), across(lattice, at, 2)};
}

}  // namespace geodesy
