#pragma once
// A patch of a regular triangular lattice as a plain 2D array: the form the tiles' erosion
// windows take (one level of the icosphere's lattice around a point, unfolded flat into the
// chart of one base face), and the form any regular triangular grid takes. Erosion on a patch
// (window_stream_power.h, lattice_droplets.h) reads and writes per-cell arrays indexed like it.
//
// Cell (x, y) is at index y * width + x. Its six neighbours are the lattice steps (1, 0),
// (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), counter-clockwise, all spacing_m away (the
// tangent-plane lattice: equilateral triangles). In Cartesian terms a lattice vector (a, b) is
// (a + b / 2, b sqrt(3) / 2) steps.
//
// Where the patch holds an icosahedron corner, five faces meet instead of six: unfolded flat
// they leave a gap of 60 degrees, whose two bounding rays are the same points of the sphere.
// The cells along one ray are then copies of those along the other (PatchCell::kCopy): they
// carry the owner's values for the chart's sake, and every algorithm treats the owner's
// neighbours across the gap as its neighbours.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace erosion {

// Squared length of lattice vector (a, b) in steps: a^2 + a b + b^2 (the axes are 60 degrees
// apart). In the arguments' own type, so that float and integer callers keep their arithmetic.
template <typename T>
constexpr T latticeSquaredLength(T a, T b) {
  return a * a + a * b + b * b;
}

enum class PatchCell : uint8_t {
  kNone = 0,  // no point of the patch here
  kInterior,  // a point of the patch
  kEdge,      // a point on the patch's outer edge: a fixed outlet (its height does not change)
  kCopy,      // the same point as another cell, its owner (LatticePatch::copies)
};

struct CellCopy {
  uint32_t cell = 0;
  uint32_t owner = 0;
};

struct LatticePatch {
  uint32_t width = 0;
  uint32_t rows = 0;
  double spacing_m = 1.0;  // distance between neighbouring points
  // One per cell. The first and last row and column are kNone, so a neighbour offset never
  // leaves the array; every kInterior cell has six cells around it that are not kNone (or five
  // plus a gap at an icosahedron corner).
  std::span<const PatchCell> cells;
  std::span<const CellCopy> copies;  // sorted by cell; empty for a patch without a corner

  size_t size() const { return size_t(width) * rows; }
  // The index offset of lattice step d (0..5, the order above).
  int64_t step(int d) const {
    const int64_t w = int64_t(width);
    const int64_t steps[6] = {1, w, w - 1, -1, -w, 1 - w};
    return steps[d];
  }
  bool holds(uint32_t cell) const {
    return cells[cell] == PatchCell::kInterior || cells[cell] == PatchCell::kEdge;
  }
};

// Area of one lattice point's cell (a hexagon), m^2.
inline double cellAreaM2(const LatticePatch& patch) {
  return 0.8660254037844386 * patch.spacing_m * patch.spacing_m;
}

// values (per cell) minus their low-pass: the mean of a box of 2 radius + 1 points along each of
// the lattice's three directions in turn, twice (a box cut by the patch's edge is the mean of
// the points it holds). What is left varies at scales below about `radius` steps; a constant
// or a plane far from the edge becomes 0. Cells that hold no point keep their values; a copy
// is read as its owner and ends with its owner's value.
void subtractLowPass(const LatticePatch& patch, uint32_t radius, std::span<float> values);

// The owner of every cell: itself for kInterior and kEdge, the owner for kCopy, and
// uint32_t(-1) for kNone. Built once per patch; the per-cell table costs 4 bytes a cell.
std::vector<uint32_t> cellOwners(const LatticePatch& patch);

// The distinct neighbours of every point of a patch, copies resolved to their owners. Cells
// away from a gap take the six offsets; the few next to one keep a list of their own.
class PatchNeighbours {
 public:
  explicit PatchNeighbours(const LatticePatch& patch);

  // Calls fn(neighbour) for each point next to `cell` (a kInterior or kEdge cell), each once.
  template <typename Fn>
  void forEach(uint32_t cell, Fn&& fn) const {
    if (!special_.empty() && special_[cell]) {
      const List& list = listOf(cell);
      for (uint8_t k = 0; k < list.count; ++k) fn(list.cells[k]);
      return;
    }
    // Away from a gap no neighbour is a copy: every cell that is not kNone is a point.
    for (int d = 0; d < 6; ++d) {
      const uint32_t n = uint32_t(int64_t(cell) + offsets_[d]);
      if (cells_[n] != PatchCell::kNone) fn(n);
    }
  }

 private:
  struct List {
    uint8_t count = 0;
    std::array<uint32_t, 6> cells{};
  };
  const List& listOf(uint32_t cell) const;

  std::array<int64_t, 6> offsets_{};
  const PatchCell* cells_ = nullptr;
  std::vector<uint8_t> special_;         // empty without copies; else 1 where a list is kept
  std::vector<uint32_t> special_cells_;  // sorted
  std::vector<List> lists_;              // one per special cell
};

}  // namespace erosion
