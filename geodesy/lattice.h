#pragma once
// Integer numbering of the triangular lattice on one base face. Internal to geodesy: the mesh
// builder and point location must agree on it, so it lives in one place.
//
// Lattice point (i, j), with i, j >= 0 and i + j <= f, has barycentric coordinates
// ((f - i - j) / f, i / f, j / f) on the base face's corners (c0, c1, c2): i runs toward c1,
// j toward c2. Row j of faces holds the "up" triangles (i, j), (i + 1, j), (i, j + 1) for
// i < f - j and the "down" triangles (i + 1, j), (i + 1, j + 1), (i, j + 1) for i < f - j - 1,
// interleaved (up i at 2i, down i at 2i + 1); both are counter-clockwise like the base face.
//
// Base edge k runs from corner k to corner k + 1. Its lattice points, s = 0 .. f - 1 steps from
// corner k, make up the face's boundary ring: ring position k * f + s.
//
// All values fit uint32 for f <= kMaxFrequency.

#include <cassert>
#include <cstdint>

namespace geodesy {

struct Lattice {
  uint32_t f;

  uint32_t facesPerBase() const { return f * f; }
  uint32_t rowStart(uint32_t j) const { return 2 * f * j - j * j; }
  uint32_t upFace(uint32_t i, uint32_t j) const { return rowStart(j) + 2 * i; }
  uint32_t downFace(uint32_t i, uint32_t j) const { return rowStart(j) + 2 * i + 1; }

  // The up triangle whose edge k lies on base edge k, from step s to step s + 1. Its corner k
  // is the boundary point at step s.
  uint32_t boundaryFace(int k, uint32_t s) const {
    switch (k) {
      case 0:
        return upFace(s, 0);
      case 1:
        return upFace(f - 1 - s, s);
      default:
        return upFace(0, f - 1 - s);
    }
  }

  bool onBoundary(uint32_t i, uint32_t j) const { return i == 0 || j == 0 || i + j == f; }

  // Ring position of a boundary lattice point.
  uint32_t ringIndex(uint32_t i, uint32_t j) const {
    assert(onBoundary(i, j));
    if (j == 0) return i;  // also right for (f, 0), step 0 of edge 1
    if (i + j == f) return f + j;
    return 3 * f - j;  // i == 0, 0 < j < f
  }

  // Vertices on base edges and corners (numbered first), and inside each base face.
  uint32_t boundaryVertexCount() const { return 30 * f - 18; }
  uint32_t interiorPerBase() const { return f < 2 ? 0 : (f - 1) * (f - 2) / 2; }
  // Interior row j (1 <= j <= f - 2) holds i = 1 .. f - 1 - j.
  uint32_t interiorRowStart(uint32_t j) const { return (j - 1) * (f - 1) - (j - 1) * j / 2; }
  uint32_t interiorVertex(uint32_t base, uint32_t i, uint32_t j) const {
    assert(i >= 1 && j >= 1 && i + j < f);
    return boundaryVertexCount() + base * interiorPerBase() + interiorRowStart(j) + (i - 1);
  }
};

}  // namespace geodesy
