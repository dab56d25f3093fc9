#include "tiles/tile_id.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace tiles {
namespace {

// First triangle of row j: rows 0..j-1 hold 2n - 1, 2n - 3, ... triangles.
uint64_t rowStart(uint64_t n, uint64_t j) {
  return 2 * n * j - j * j;
}

}  // namespace

uint64_t slotIndex(uint64_t n, const TileSlot& slot) {
  assert(slot.i + slot.j + (slot.down ? 1 : 0) < n);
  return rowStart(n, slot.j) + 2 * slot.i + (slot.down ? 1 : 0);
}

TileSlot slotOf(uint64_t n, uint64_t index) {
  assert(index < n * n);
  // Row j is the largest with rowStart(j) <= index, near n - sqrt(n^2 - index); the loops fix
  // rounding (n^2 < 2^54 is exact in double).
  const double nd = double(n);
  uint64_t j = uint64_t(std::max(0.0, nd - std::sqrt(nd * nd - double(index))));
  while (j > 0 && rowStart(n, j) > index) --j;
  while (j + 1 < n && rowStart(n, j + 1) <= index) ++j;
  const uint64_t column = index - rowStart(n, j);
  return {column / 2, j, column % 2 == 1};
}

uint64_t packTileId(const TileId& id) {
  assert(id.level < 32 && id.base < 32 && id.index < (uint64_t(1) << 54));
  return uint64_t(id.level) << 59 | uint64_t(id.base) << 54 | id.index;
}

TileId unpackTileId(uint64_t key) {
  return {uint32_t((key >> 54) & 31), uint32_t(key >> 59), key & ((uint64_t(1) << 54) - 1)};
}

}  // namespace tiles
