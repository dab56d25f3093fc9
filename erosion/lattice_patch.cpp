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

void subtractLowPass(const LatticePatch& patch, uint32_t radius, std::span<float> values) {
  const size_t n = patch.size();
  assert(values.size() == n);
  // A copy is its owner's point: the boxes read the owner's value there.
  std::vector<double> smooth(values.begin(), values.end());
  for (const CellCopy& copy : patch.copies) smooth[copy.cell] = values[copy.owner];
  const int64_t w = int64_t(patch.width), rows = int64_t(patch.rows);
  // The lines along each direction, as (first column, first row); steps (1, 0), (0, 1) and
  // (1, -1) in (column, row): lattice steps 0, 1 and 5.
  std::vector<std::pair<int64_t, int64_t>> starts[3];
  for (int64_t r = 0; r < rows; ++r) starts[0].push_back({0, r}), starts[2].push_back({0, r});
  for (int64_t col = 0; col < w; ++col) starts[1].push_back({col, 0});
  for (int64_t col = 1; col < w; ++col) starts[2].push_back({col, rows - 1});
  constexpr int64_t kStep[3][2] = {{1, 0}, {0, 1}, {1, -1}};
  std::vector<uint32_t> line;
  std::vector<double> sum;
  for (int pass = 0; pass < 2; ++pass) {
    for (int dir = 0; dir < 3; ++dir) {
      for (const auto& [c0, r0] : starts[dir]) {
        line.clear();
        for (int64_t col = c0, r = r0; col >= 0 && col < w && r >= 0 && r < rows;
             col += kStep[dir][0], r += kStep[dir][1]) {
          const size_t c = size_t(r * w + col);
          if (patch.cells[c] != PatchCell::kNone) line.push_back(uint32_t(c));
        }
        sum.assign(line.size() + 1, 0.0);
        for (size_t k = 0; k < line.size(); ++k) sum[k + 1] = sum[k] + smooth[line[k]];
        for (size_t k = 0; k < line.size(); ++k) {
          const size_t lo = k > radius ? k - radius : 0;
          const size_t hi = std::min(line.size(), k + radius + 1);
          smooth[line[k]] = (sum[hi] - sum[lo]) / double(hi - lo);
        }
      }
    }
  }
  for (size_t c = 0; c < n; ++c) {
    if (patch.cells[c] != PatchCell::kNone) values[c] = float(double(values[c]) - smooth[c]);
  }
  for (const CellCopy& copy : patch.copies) values[copy.cell] = values[copy.owner];
}

}  // namespace erosion
