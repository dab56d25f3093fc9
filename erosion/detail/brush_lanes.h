#pragma once
// The row brush's erosion and last deposit (droplet.cpp's takeRowBrush and spreadOnLand) eight
// vertices at a time in AVX2 registers: a brush row of up to eight vertices (radius 3 has rows
// of 4 to 7) is one block instead of two four-lane blocks. Bit-identical to the four-lane code:
// every lane does its single-precision operations in the same order, the fixed-point adds round the
// same way, and the volume is summed in four lanes in the same order (a block's low half, then its
// high half, whose padding lanes add +0). Internal to erosion/.

#include <cstdint>

#include "erosion/detail/brush.h"
#include "erosion/detail/simd.h"

namespace erosion {

// What the row brush reads and where it adds.
struct RowBrushTarget {
  const float* height = nullptr;  // padded by kBrushPadding, as NodeTable's arrays
  const float* erodibility = nullptr;
  const float* area = nullptr;
  const float* inv_area = nullptr;  // for spreadRowBrush8
  float sea_level = 0.0f;
  float base_level_share = 1.0f;
  int64_t* sums = nullptr;  // ChangeAccumulator's, padded by kBrushPadding
  uint8_t* dirty = nullptr;
};

// Takes amount * weight * erodibility from every vertex of the row brush around frame.centre,
// never below the sea level's share (see droplet.cpp's takeAt), adds the changes to `sums`,
// marks their blocks dirty and returns the volume taken. Only where avx2Available().
float takeRowBrush8(const RowBrushTarget& target, const LatticeBrush& brush,
                    const RowBrushFrame& frame, float amount);

// Lays `volume` on the land vertices of the row brush around frame.centre by brush weight, as
// droplet.cpp's spreadOnLand, with the same sums in the same order (the land weight and the
// volume laid are added up vertex by vertex in the brush's order; the shares, their divisions
// and the fixed-point adds eight at a time): capped, no vertex rises above the brush's highest.
// Returns the volume laid (0 with no land in the brush). Only where avx2Available().
float spreadRowBrush8(const RowBrushTarget& target, const LatticeBrush& brush,
                      const RowBrushFrame& frame, float volume, bool capped);

}  // namespace erosion
