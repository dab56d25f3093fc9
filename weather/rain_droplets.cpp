#include "weather/rain_droplets.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "weather/cloud_step.h"

namespace weather {
namespace {

constexpr int kLandDraws = 8;
constexpr size_t kEventsPerBlock = 512;

// Runs body(o, hint) for o in [0, n) in fixed blocks: the first call of a block gets an invalid
// hint (locateFrom then starts from scratch), later ones the hint the previous call left. The
// blocks do not depend on the thread count, so neither do the walks' start faces.
template <typename Body>
void forEachInBlocks(size_t n, const Body& body) {
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, n, kEventsPerBlock),
      [&](const tbb::blocked_range<size_t>& r) {
        uint32_t hint = ~0u;
        for (size_t o = r.begin(); o != r.end(); ++o) body(o, hint);
      },
      tbb::simple_partitioner());
}

}  // namespace

EpochDroplets dropletsFromRain(const Terrain& terrain, std::span<const RainEvent> events,
                               uint64_t count, double radius_rad, uint64_t seed,
                               uint64_t shuffle_index) {
  const geodesy::SphereMesh& mesh = *terrain.mesh;
  const size_t n = events.size();
  // Locating a point on a big mesh is bound by cache misses. Working cell by cell keeps the
  // faces around a cell in cache, and each walk starts from a face close by.
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = uint32_t(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return events[a].cell < events[b].cell; });

  std::vector<geodesy::SurfacePoint> centre(n);
  std::vector<uint8_t> on_land(n);
  forEachInBlocks(n, [&](size_t o, uint32_t& hint) {
    const uint32_t i = order[o];
    centre[i] = mesh.locateFrom(hint, glm::vec3(events[i].position));
    hint = centre[i].face;
    on_land[i] = elevationAt(terrain, centre[i]) >= terrain.sea_level_m;
  });

  EpochDroplets out;
  for (size_t i = 0; i < n; ++i) out.land_rain += on_land[i] ? events[i].rain : 0.0;
  if (!(out.land_rain > 0.0)) return out;
  std::vector<uint64_t> first(n + 1, 0);
  const double k = double(count) / out.land_rain;
  double running = 0.0;
  size_t last_land = 0;
  for (size_t i = 0; i < n; ++i) last_land = on_land[i] ? i : last_land;
  for (size_t i = 0; i < n; ++i) {
    running += on_land[i] ? events[i].rain : 0.0;
    // Monotone in running and pinned to count at the last land event, so the counts are >= 0
    // and add up to count.
    const uint64_t upto =
        i >= last_land ? count : std::min(count, uint64_t(std::floor(running * k)));
    first[i + 1] = on_land[i] ? std::max(first[i], upto) : first[i];
  }

  out.spawns.resize(count);
  forEachInBlocks(n, [&](size_t o, uint32_t& hint) {
    const uint32_t i = order[o];
    if (first[i] == first[i + 1]) return;
    const RainEvent& e = events[i];
    geodesy::HashStream rng = cloudStream(seed, kStreamDroplet, e.cloud_id, e.tick);
    const DiscSampler disc(e.position, radius_rad);  // its basis serves the whole path
    for (uint64_t d = first[i]; d < first[i + 1]; ++d) {
      geodesy::SurfacePoint at = centre[i];
      for (int draw = 0; draw < kLandDraws; ++draw) {
        // A point of the path (for one tick's step the chord is within 1e-5 rad of the arc),
        // then an offset in the disc.
        const glm::dvec3 along = e.from + rng.uniform() * (e.position - e.from);
        const geodesy::SurfacePoint q =
            mesh.locateFrom(centre[i].face, glm::vec3(disc.sample(along, rng)));
        if (elevationAt(terrain, q) >= terrain.sea_level_m) {
          at = q;
          break;
        }
      }
      out.spawns[d] = {at, 1.0f};
      hint = at.face;
    }
  });

  // Fisher-Yates from a counter-based stream.
  geodesy::HashStream rng(seed, kStreamShuffle, shuffle_index);
  for (size_t i = out.spawns.size(); i > 1; --i) {
    std::swap(out.spawns[i - 1], out.spawns[size_t(rng.next() % i)]);
  }
  return out;
}

std::vector<geodesy::DropletSpawn> dropletsAtRandomLand(const Terrain& terrain, uint64_t count,
                                                        uint64_t seed, uint64_t first_id) {
  std::vector<uint32_t> land;
  for (uint32_t v = 0; v < terrain.elevation_m.size(); ++v) {
    if (terrain.elevation_m[v] >= terrain.sea_level_m) land.push_back(v);
  }
  std::vector<geodesy::DropletSpawn> spawns;
  if (land.empty()) return spawns;
  spawns.resize(count);
  for (uint64_t d = 0; d < count; ++d) {
    const uint64_t h = geodesy::hash3(seed, kStreamFallback, first_id + d);
    const uint32_t v = land[h % land.size()];
    spawns[d] = {terrain.mesh->locate(terrain.mesh->positions[v]), 1.0f};
  }
  return spawns;
}

}  // namespace weather
