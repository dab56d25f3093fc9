#pragma once
// The publish of a batch's changes (droplet_erosion.cpp) four vertices at a time in AVX2
// registers: the threads' fixed-point sums added in integers, turned into metres and into the
// height the droplets read, with the same double-precision operations as the scalar loop, so
// the heights are bit-identical. Internal to erosion/.

#include <cstddef>
#include <cstdint>

#include "erosion/detail/node_table.h"
#include "erosion/detail/simd.h"

namespace erosion {

// For the vertices v of [begin, begin + count), count a multiple of four:
//   height(v) = float((double(start_m[v]) + double(sum over t of sums[t][v]) * quantum_m) *
//                     height_scale),
// published with NodeTable::setHeight. Returns false, publishing nothing, where a vertex's sum
// is 2^51 quanta or more (then the caller's scalar loop does the block). Only where
// avx2Available().
bool publishBlock4(const int64_t* const* sums, size_t slot_count, size_t begin, size_t count,
                   double quantum_m, double height_scale, NodeTable& nodes);

}  // namespace erosion
