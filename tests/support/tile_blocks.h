#pragma once
// Blocks of tiles for the seam tests of tiles (the generator's and its erosion's).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tiles/tile_id.h"
#include "tiles/tile_layout.h"

namespace test_support {

// A tile, its neighbours and theirs: the tiles around one in a block of about 3 x 3, sorted by
// packed id.
inline std::vector<tiles::TileId> blockAround(const tiles::TileLayout& layout,
                                              const tiles::TileId& centre) {
  std::vector<tiles::TileId> out{centre};
  for (const auto& a : layout.neighbours(centre)) {
    out.push_back(a.id);
    for (const auto& b : layout.neighbours(a.id)) out.push_back(b.id);
  }
  std::sort(out.begin(), out.end(), [](const tiles::TileId& x, const tiles::TileId& y) {
    return tiles::packTileId(x) < tiles::packTileId(y);
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// A tile of `level` in the middle of base face `base`.
inline tiles::TileId middleTile(uint32_t base, uint32_t level) {
  const uint64_t n = uint64_t(1) << level;
  return {base, level, level == 0 ? 0 : tiles::slotIndex(n, {n / 4, n / 4, true})};
}

}  // namespace test_support
