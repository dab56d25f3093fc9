#include "erosion/lattice_patch.h"

#include <algorithm>
#include <cassert>

namespace erosion {

std::vector<uint32_t> cellOwners(const LatticePatch& patch) {
  std::vector<uint32_t> owner(patch.size(), UINT32_MAX);
  for (uint32_t c = 0; c < owner.size(); ++c) {
    if (patch.holds(c)) owner[c] = c;
  }
  for (const CellCopy& copy : patch.copies) owner[copy.cell] = copy.owner;
  return owner;
}

PatchNeighbours::PatchNeighbours(const LatticePatch& patch) : cells_(patch.cells.data()) {
  for (int d = 0; d < 6; ++d) offsets_[d] = patch.step(d);
  if (patch.copies.empty()) return;

  const std::vector<uint32_t> owner = cellOwners(patch);
  special_.assign(patch.size(), 0);
  // Points next to a copy, and the owners of copies: their neighbours lie on both sides of
  // the gap.
  for (const CellCopy& copy : patch.copies) {
    special_[copy.owner] = 1;
    for (int d = 0; d < 6; ++d) {
      const uint32_t n = uint32_t(int64_t(copy.cell) + offsets_[d]);
      if (patch.holds(n)) special_[n] = 1;
    }
  }
  for (uint32_t c = 0; c < special_.size(); ++c) {
    if (special_[c]) special_cells_.push_back(c);
  }
  lists_.resize(special_cells_.size());
  for (size_t k = 0; k < special_cells_.size(); ++k) {
    const uint32_t c = special_cells_[k];
    List& list = lists_[k];
    auto add_around = [&](uint32_t at) {
      for (int d = 0; d < 6; ++d) {
        const uint32_t n = uint32_t(int64_t(at) + offsets_[d]);
        const uint32_t o = owner[n];
        if (o == UINT32_MAX || o == c) continue;
        if (std::find(list.cells.begin(), list.cells.begin() + list.count, o) !=
            list.cells.begin() + list.count)
          continue;
        assert(list.count < 6);
        list.cells[list.count++] = o;
      }
    };
    add_around(c);
    for (const CellCopy& copy : patch.copies) {
      if (copy.owner == c) add_around(copy.cell);
    }
  }
}

const PatchNeighbours::List& PatchNeighbours::listOf(uint32_t cell) const {
  const auto it = std::lower_bound(special_cells_.begin(), special_cells_.end(), cell);
  assert(it != special_cells_.end() && *it == cell);
  return lists_[size_t(it - special_cells_.begin())];
}

}  // namespace erosion
