#include "app/grid_droplets.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "geodesy/hash.h"

namespace app {
namespace {

constexpr uint64_t kStartStream = 0x67726964'73746172ull;  // "gridstar"

// The brush around a grid node: the nodes closer than the radius, weighted by radius - distance
// and normalised to a sum of 1 (Beyer 2015, eq. 5.9).
struct GridBrush {
  std::vector<int32_t> dx, dy;
  std::vector<int64_t> offsets;  // dy * size + dx
  std::vector<float> weights;
  int reach = 0;

  GridBrush(uint32_t size, float radius) {
    reach = int(std::ceil(radius));
    double total = 0.0;
    std::vector<double> w;
    for (int y = -reach; y <= reach; ++y) {
      for (int x = -reach; x <= reach; ++x) {
        const double d = std::sqrt(double(x * x + y * y));
        if (!(d < radius)) continue;
        dx.push_back(x), dy.push_back(y);
        offsets.push_back(int64_t(y) * int64_t(size) + x);
        w.push_back(radius - d);
        total += radius - d;
      }
    }
    for (double v : w) weights.push_back(float(v / total));
  }
};

// Height and gradient at (x, y), bilinear over the cell whose lower corner is (cx, cy).
struct GridSample {
  float h = 0.0f, gx = 0.0f, gy = 0.0f;
};

GridSample sampleGrid(std::span<const float> height, uint32_t size, float x, float y) {
  const uint32_t cx = uint32_t(x), cy = uint32_t(y);
  const float u = x - float(cx), v = y - float(cy);
  const size_t c = size_t(cy) * size + cx;
  const float h00 = height[c], h10 = height[c + 1], h01 = height[c + size];
  const float h11 = height[c + size + 1];
  GridSample s;
  s.gx = (h10 - h00) * (1.0f - v) + (h11 - h01) * v;
  s.gy = (h01 - h00) * (1.0f - u) + (h11 - h10) * u;
  s.h = h00 * (1.0f - u) * (1.0f - v) + h10 * u * (1.0f - v) + h01 * (1.0f - u) * v + h11 * u * v;
  return s;
}

}  // namespace

GridDropletStats erodeGridDroplets(std::span<float> height, uint32_t size, uint64_t droplets,
                                   uint64_t seed, const GridDropletParams& p) {
  assert(size >= 2 && height.size() == size_t(size) * size);
  const GridBrush brush(size, p.radius);
  const float last = float(size - 1);  // a droplet stays where a whole cell is under it
  GridDropletStats stats;
  for (uint64_t k = 0; k < droplets; ++k) {
    geodesy::HashStream rng(seed, kStartStream, k);
    float x = float(rng.uniform()) * last, y = float(rng.uniform()) * last;
    float dx = 0.0f, dy = 0.0f, speed = 1.0f, water = 1.0f, sediment = 0.0f;
    ++stats.droplets;
    for (int life = 0; life < p.max_steps; ++life) {
      const uint32_t cx = uint32_t(x), cy = uint32_t(y);
      const float u = x - float(cx), v = y - float(cy);
      const GridSample s = sampleGrid(height, size, x, y);
      // Beyer 2015, eq. 5.1: the new heading, then one cell's length (eq. 5.2).
      dx = dx * p.inertia - s.gx * (1.0f - p.inertia);
      dy = dy * p.inertia - s.gy * (1.0f - p.inertia);
      const float length = std::sqrt(dx * dx + dy * dy);
      if (!(length > 0.0f)) break;
      dx /= length, dy /= length;
      const float nx = x + dx, ny = y + dy;
      if (!(nx >= 0.0f && ny >= 0.0f && nx < last && ny < last)) break;
      ++stats.steps;
      const float dh = sampleGrid(height, size, nx, ny).h - s.h;                          // eq. 5.3
      const float capacity = std::max(-dh * speed * water * p.capacity, p.min_capacity);  // 5.4
      const size_t c = size_t(cy) * size + cx;
      if (dh > 0.0f || sediment > capacity) {
        // Uphill: fill the pit behind, at most dh; else eq. 5.5. Bilinear onto the cell.
        const float laid = dh > 0.0f ? std::min(dh, sediment) : (sediment - capacity) * p.deposit;
        sediment -= laid;
        height[c] += laid * (1.0f - u) * (1.0f - v);
        height[c + 1] += laid * u * (1.0f - v);
        height[c + size] += laid * (1.0f - u) * v;
        height[c + size + 1] += laid * u * v;
      } else {
        // Eq. 5.6 through the brush (5.9), never more than -dh: one step digs no pit.
        const float amount = std::min((capacity - sediment) * p.erode, -dh);
        const bool inside = int(cx) >= brush.reach && int(cy) >= brush.reach &&
                            cx + uint32_t(brush.reach) < size && cy + uint32_t(brush.reach) < size;
        for (size_t b = 0; b < brush.weights.size(); ++b) {
          size_t n;
          if (inside) {
            n = size_t(int64_t(c) + brush.offsets[b]);
          } else {
            const int64_t bx = int64_t(cx) + brush.dx[b], by = int64_t(cy) + brush.dy[b];
            if (bx < 0 || by < 0 || bx >= int64_t(size) || by >= int64_t(size)) continue;
            n = size_t(by) * size + size_t(bx);
          }
          const float taken = amount * brush.weights[b];
          height[n] -= taken;
          sediment += taken;
        }
      }
      // Eq. 5.7 (speed gained going down) and 5.8 (evaporation).
      speed = std::sqrt(std::max(0.0f, speed * speed - dh * p.gravity));
      water *= 1.0f - p.evaporate;
      x = nx, y = ny;
    }
  }
  return stats;
}

}  // namespace app
