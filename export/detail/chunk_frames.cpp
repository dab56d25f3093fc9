#include "export/detail/chunk_frames.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace planet_export {
namespace {

constexpr double kFloatIntegers =
    16777216.0;  // 2^24: float32 holds n * 2^e exactly for |n| <= 2^24

// Smallest power of two >= x (x > 0).
double powerOfTwoAtLeast(double x) {
  int exponent = 0;
  const double mantissa = std::frexp(x, &exponent);  // x = mantissa * 2^exponent, [0.5, 1)
  return mantissa == 0.5 ? x : std::ldexp(1.0, exponent);
}

double snap(double x, double grid) {
  return std::nearbyint(x / grid) * grid;  // x / grid and the product are exact (powers of two)
}

}  // namespace

ChunkFrames chooseChunkFrames(std::span<const Box> chunk_bounds) {
  assert(!chunk_bounds.empty());
  double half_extent = 0.0;  // largest |W - centre| component over all chunks
  double magnitude = 0.0;    // largest |W| component
  for (const Box& box : chunk_bounds) {
    for (int c = 0; c < 3; ++c) {
      half_extent = std::max(half_extent, 0.5 * (box.hi[c] - box.lo[c]));
      magnitude = std::max({magnitude, std::abs(box.lo[c]), std::abs(box.hi[c])});
    }
  }
  // Translations are multiples of this: coarse enough that |T| <= magnitude + quantum stays
  // below 2^24 quanta, i.e. T is a float32.
  const double translation_quantum =
      powerOfTwoAtLeast(std::max(2.0 * (magnitude + half_extent), 1.0) / kFloatIntegers);
  double grid = std::ldexp(1.0, -40);
  // |L| <= half_extent + grid / 2 (snapping W) + quantum / 2 (snapping T); keep a margin.
  while (half_extent + grid + std::max(grid, translation_quantum) > kFloatIntegers * grid) {
    grid *= 2.0;
  }
  const double quantum = std::max(grid, translation_quantum);
  ChunkFrames frames;
  frames.grid_m = grid;
  frames.translations.reserve(chunk_bounds.size());
  for (const Box& box : chunk_bounds) {
    const glm::dvec3 centre = 0.5 * (box.lo + box.hi);
    frames.translations.emplace_back(snap(centre.x, quantum), snap(centre.y, quantum),
                                     snap(centre.z, quantum));
  }
  return frames;
}

glm::dvec3 snapToGrid(const glm::dvec3& world_m, double grid_m) {
  return {snap(world_m.x, grid_m), snap(world_m.y, grid_m), snap(world_m.z, grid_m)};
}

glm::vec3 localPosition(const glm::dvec3& world_m, const glm::dvec3& translation, double grid_m) {
  const glm::dvec3 local = snapToGrid(world_m, grid_m) - translation;  // exact: multiples of g
  const glm::vec3 result(local);
  assert(glm::dvec3(result) == local);
  return result;
}

}  // namespace planet_export
