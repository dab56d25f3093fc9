// Patch utilities (erosion/lattice_patch.h): subtractLowPass leaves 0 where the values are a
// constant or a plane (inside the patch, where the boxes are whole), keeps most of a pattern
// finer than its radius, leaves the cells without a point alone and reads a copy as its owner.

#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "erosion/lattice_patch.h"

namespace {

// A size x size patch: its outer ring kNone, every other cell a point.
struct SquarePatch {
  std::vector<erosion::PatchCell> cells;
  erosion::LatticePatch patch;

  explicit SquarePatch(uint32_t size) {
    cells.assign(size_t(size) * size, erosion::PatchCell::kNone);
    for (uint32_t y = 1; y + 1 < size; ++y)
      for (uint32_t x = 1; x + 1 < size; ++x)
        cells[size_t(y) * size + x] = erosion::PatchCell::kInterior;
    patch.width = patch.rows = size;
    patch.cells = cells;
  }
  template <typename Fn>
  std::vector<float> field(Fn fn) const {
    std::vector<float> v(cells.size(), -7.0f);
    for (uint32_t y = 0; y < patch.rows; ++y)
      for (uint32_t x = 0; x < patch.width; ++x)
        if (patch.holds(y * patch.width + x)) v[size_t(y) * patch.width + x] = float(fn(x, y));
    return v;
  }
};

}  // namespace

TEST_CASE("lattice patch: subtractLowPass takes away constants and planes, keeps fine detail",
          "[erosion]") {
  const uint32_t size = 81, radius = 5;
  const SquarePatch square(size);
  // A constant: 0 everywhere (every box's mean is the constant).
  std::vector<float> constant = square.field([](uint32_t, uint32_t) { return 250.0; });
  erosion::subtractLowPass(square.patch, radius, constant);
  for (size_t c = 0; c < constant.size(); ++c) {
    if (square.patch.holds(uint32_t(c))) REQUIRE(std::abs(constant[c]) < 1e-3);
    if (!square.patch.holds(uint32_t(c))) REQUIRE(constant[c] == -7.0f);
  }
  // A plane: 0 where every box of both passes is whole (6 radii from the edge: three
  // directions, each moving the point's reach by up to 2 radii in x or y over the two passes).
  std::vector<float> plane = square.field([](uint32_t x, uint32_t y) { return 3.0 * x - 2.0 * y; });
  erosion::subtractLowPass(square.patch, radius, plane);
  const uint32_t margin = 1 + 6 * radius;
  size_t inside = 0;
  for (uint32_t y = margin; y + margin < size; ++y) {
    for (uint32_t x = margin; x + margin < size; ++x) {
      REQUIRE(std::abs(plane[size_t(y) * size + x]) < 1e-3);
      ++inside;
    }
  }
  CHECK(inside > 100);
  // A pattern of period 3 along x (+1, +1, -2): a box of 11 points averages it to at most 2/11,
  // so at least 80 % of its amplitude stays.
  std::vector<float> fine =
      square.field([](uint32_t x, uint32_t) { return x % 3 == 2 ? -2.0 : 1.0; });
  const std::vector<float> before = fine;
  erosion::subtractLowPass(square.patch, radius, fine);
  double kept = 0.0, total = 0.0;
  for (uint32_t y = margin; y + margin < size; ++y) {
    for (uint32_t x = margin; x + margin < size; ++x) {
      const size_t c = size_t(y) * size + x;
      kept += double(fine[c]) * before[c], total += double(before[c]) * before[c];
    }
  }
  CHECK(kept / total > 0.8);
  CHECK(kept / total < 1.2);
}

TEST_CASE("lattice patch: subtractLowPass reads a copy as its owner", "[erosion]") {
  // A column of copies (a corner's gap held twice), each of the point to its left, holding a
  // stale value: a constant still becomes 0 everywhere, the copies included.
  const uint32_t size = 41, column = 20, radius = 5;
  SquarePatch square(size);
  std::vector<erosion::CellCopy> copies;
  for (uint32_t y = 1; y + 1 < size; ++y) {
    const uint32_t c = y * size + column;
    square.cells[c] = erosion::PatchCell::kCopy;
    copies.push_back({c, c - 1});
  }
  square.patch.cells = square.cells;
  square.patch.copies = copies;
  std::vector<float> constant = square.field([](uint32_t, uint32_t) { return 250.0; });
  for (const erosion::CellCopy& copy : square.patch.copies) REQUIRE(constant[copy.cell] == -7.0f);
  erosion::subtractLowPass(square.patch, radius, constant);
  for (size_t c = 0; c < constant.size(); ++c) {
    if (square.cells[c] != erosion::PatchCell::kNone) REQUIRE(std::abs(constant[c]) < 1e-3);
  }
}
