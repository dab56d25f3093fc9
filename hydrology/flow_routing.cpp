#include "hydrology/flow_routing.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>

#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

#include "geodesy/hash.h"
#include "geodesy/large_array.h"
#include "hydrology/detail/flood_queue.h"

namespace hydrology {
namespace {

constexpr uint64_t kJitterStream = 0x72637672ull;  // "rcvr"
constexpr uint64_t kLakeStream = 0x6c616b65ull;    // "lake"
constexpr uint64_t kFillStream = 0x66696c6cull;    // "fill"

// Great-circle angle between two unit vectors from their chord c: 2 asin(c / 2), by its series
// c + c^3/24 + 3c^5/640 for mesh neighbours (relative error < 1e-13 below 0.05 rad).
double arc(const glm::vec3& a, const glm::vec3& b) {
  const double c = glm::length(glm::dvec3(a) - glm::dvec3(b));
  if (c > 0.05) return 2.0 * std::asin(std::min(1.0, 0.5 * c));
  const double c2 = c * c;
  return c * (1.0 + c2 * (1.0 / 24.0 + c2 * (3.0 / 640.0)));
}

struct Flood {
  // The vertex the flood reached v from (v itself for every sea vertex and for the outlet of a
  // planet with no sea).
  std::vector<uint32_t> parent;
  std::vector<uint32_t> rank;  // 0 for sea, 1 + visiting index for land
};

// Priority-flood with a FIFO for the vertices inside depressions (they take the level of the
// vertex they were reached from and need no priority queue). Fills routing.order,
// water_level_m, lakes, and when given, record (routeFlow's receivers need it; filling
// depressions does not). With `region` (one flag per vertex), only the flagged vertices are
// flooded, from the unflagged ones around them at their heights (the sea at its level): the
// unflagged land must drain as it lies (water level = height), and record's entries of
// unflagged vertices are left for the caller.
void flood(const geodesy::SphereMesh& mesh, std::span<const float> h, float sea,
           FlowRouting& routing, Flood* record, const uint64_t* lake_seed, RoutingScratch& scratch,
           const std::vector<uint8_t>* region = nullptr) {
  const size_t n = mesh.vertexCount();
  if (record) {
    geodesy::assignLarge(record->parent, n, 0u);
    geodesy::assignLarge(record->rank, n, 0u);
  }
  // The flood reaches m from `from`: m comes next in the order.
  const auto reach = [&](uint32_t m, uint32_t from) {
    if (record) {
      record->parent[m] = from;
      record->rank[m] = uint32_t(routing.order.size()) + 1;
    }
    routing.order.push_back(m);
  };
  std::vector<uint8_t>& seen = scratch.seen;
  geodesy::assignLarge(seen, n, uint8_t(0));
  detail::FloodQueue queue;  // lowest level first, then first pushed
  std::deque<uint32_t> pits;
  // With lake_seed, the vertices under a lake are taken in the order of a hash of them instead:
  // each is reached from the first of its neighbours so taken, which grows a random tree from
  // the outlet (Prim's algorithm on random weights) rather than the rays of breadth-first order.
  using Keyed = std::pair<uint64_t, uint32_t>;
  std::priority_queue<Keyed, std::vector<Keyed>, std::greater<Keyed>> random_pits;
  auto pushPit = [&](uint32_t m) {
    if (lake_seed) {
      random_pits.push({geodesy::hash3(*lake_seed, kLakeStream, m), m});
    } else {
      pits.push_back(m);
    }
  };
  geodesy::copyLarge(routing.water_level_m, h.begin(), h.end());
  geodesy::assignLarge(routing.lake_of, n, kNoLake);
  std::vector<uint32_t>& surface = scratch.surface;
  geodesy::assignLarge(surface, n, kNoLake);  // see below: the lake a vertex at its level touches

  const auto& off = mesh.neighbour_offsets;
  const auto& nb = mesh.neighbours;
  if (region) {
    // Seeds: the vertices around the region, which drain as they lie.
    for (uint32_t v = 0; v < n; ++v) {
      if ((*region)[v]) continue;
      seen[v] = 1;
      for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
        if ((*region)[nb[k]]) {
          queue.push(h[v] < sea ? sea : h[v], v);
          break;
        }
      }
    }
  }
  // Seeds: the sea vertices that touch land, at the sea level.
  for (uint32_t v = 0; v < n && !region; ++v) {
    if (h[v] >= sea) continue;
    seen[v] = 1;
    if (record) record->parent[v] = v;
    for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
      if (h[nb[k]] >= sea) {
        queue.push(sea, v);
        break;
      }
    }
  }
  if (queue.empty() && !region) {  // no sea: the lowest vertex is the one outlet
    uint32_t lowest = 0;
    for (uint32_t v = 1; v < n; ++v)
      if (h[v] < h[lowest]) lowest = v;
    if (!seen[lowest]) {
      seen[lowest] = 1;
      reach(lowest, lowest);
      queue.push(h[lowest], lowest);
    }
  }
  // Land rising away from the flood front needs no priority queue (Zhou, Sun & Fu 2016): a
  // vertex higher than the one it is reached from spills at its own height, so the rising slope
  // is visited breadth-first from it. A vertex of that slope with a lower unvisited neighbour
  // goes on the queue at its height, and that neighbour is reached from it in priority order.
  std::vector<uint32_t> slope;
  auto climb = [&](uint32_t start) {
    slope.assign(1, start);
    for (size_t i = 0; i < slope.size(); ++i) {
      const uint32_t t = slope[i];
      bool lower_unseen = false;
      for (uint32_t k = off[t]; k < off[t + 1]; ++k) {
        const uint32_t m = nb[k];
        if (seen[m]) continue;
        if (h[m] <= h[t]) {
          lower_unseen = true;
          continue;
        }
        seen[m] = 1;
        reach(m, t);
        slope.push_back(m);
      }
      if (lower_unseen) queue.push(h[t], t);
    }
  };
  while (!pits.empty() || !random_pits.empty() || !queue.empty()) {
    uint32_t c;
    if (!pits.empty()) {
      c = pits.front();
      pits.pop_front();
    } else if (!random_pits.empty()) {
      c = random_pits.top().second;
      random_pits.pop();
    } else {
      c = queue.pop();
    }
    const float wc = routing.water_level_m[c];
    for (uint32_t k = off[c]; k < off[c + 1]; ++k) {
      const uint32_t m = nb[k];
      if (seen[m]) continue;
      seen[m] = 1;
      reach(m, c);
      if (h[m] <= wc && h[c] >= sea) {
        routing.water_level_m[m] = wc;
        // c's water body: its lake, or the lake whose surface it stands at (one water body
        // reached through a vertex exactly at its level is one lake, not several).
        uint32_t lake = routing.lake_of[c] != kNoLake ? routing.lake_of[c] : surface[c];
        if (lake != kNoLake && routing.lakes[lake].level_m != wc) lake = kNoLake;
        if (h[m] < wc) {  // under water: the lake of c, or a new one spilling to c
          if (lake == kNoLake) {
            lake = uint32_t(routing.lakes.size());
            Lake l;
            l.level_m = wc;
            l.outlet = c;
            l.lowest = m;
            routing.lakes.push_back(l);
            // c is at the level (the spill point): its other neighbours under water join.
            if (routing.lake_of[c] == kNoLake) surface[c] = lake;
          }
          routing.lake_of[m] = lake;
        } else {
          surface[m] = lake;
        }
        pushPit(m);
      } else {
        climb(m);
      }
    }
  }
}

// Lake areas, volumes and depths, summed in the flood's order, or canonical: in vertex order
// (the same sums whichever way the lakes were found).
void summariseLakes(const geodesy::SphereMesh& mesh, std::span<const float> h, FlowRouting& routing,
                    bool canonical = false) {
  const size_t count = canonical ? routing.lake_of.size() : routing.order.size();
  for (size_t i = 0; i < count; ++i) {
    const uint32_t v = canonical ? uint32_t(i) : routing.order[i];
    const uint32_t id = routing.lake_of[v];
    if (id == kNoLake) continue;
    Lake& l = routing.lakes[id];
    const double depth = double(l.level_m) - h[v];
    l.vertex_count += 1;
    l.area_sr += mesh.vertex_areas[v];
    l.volume_m_sr += depth * mesh.vertex_areas[v];
    if (depth > l.max_depth_m) {
      l.max_depth_m = depth;
      l.lowest = v;
    }
  }
}

}  // namespace

namespace {

// The flood's part of routeFlow into routing: order, water levels and lakes, no receivers; f,
// when given, gets the flood's parents and ranks, which the receivers are chosen with.
void floodLakes(const geodesy::SphereMesh& mesh, std::span<const float> elevation_m,
                double sea_level_m, Flood* f, const uint64_t* lake_seed, bool canonical,
                FlowRouting& routing, RoutingScratch& scratch) {
  routing.order.clear();
  routing.lakes.clear();
  geodesy::reserveLarge(routing.order, mesh.vertexCount());
  flood(mesh, elevation_m, float(sea_level_m), routing, f, lake_seed, scratch);
  routing.land_vertices = routing.order.size();
  summariseLakes(mesh, elevation_m, routing, canonical);
}

FlowRouting floodLakes(const geodesy::SphereMesh& mesh, std::span<const float> elevation_m,
                       double sea_level_m) {
  FlowRouting routing;
  RoutingScratch scratch;
  floodLakes(mesh, elevation_m, sea_level_m, nullptr, nullptr, false, routing, scratch);
  return routing;
}

// Rebuilds routing.order breadth-first from the outlets over the receiver tree (each vertex
// after its receiver), as the receivers need not drain to vertices the flood visited first. The
// outlets, and each vertex's donors, come in vertex order, so the order depends on the receivers
// alone (the flood's order does not show through, and routing without the flood gives the same).
// `land` flags the vertices of routing.order. Serial, O(n): one pass over the vertices threads
// each vertex's donors into a list (first, next), one over the land lists them.
void orderFromOutlets(FlowRouting& routing, const std::vector<uint8_t>& land, bool canonical,
                      RoutingScratch& scratch) {
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  const std::vector<uint32_t>& rcv = routing.receiver;
  const size_t n = rcv.size();
  std::vector<uint32_t>&first = scratch.first, &next = scratch.next, &listed = scratch.listed;
  geodesy::assignLarge(first, n, kNone);
  geodesy::resizeLarge(next, n);
  // Not canonical: the outlets and donors in the order routing.order lists them (the flood's).
  if (!canonical) geodesy::copyLarge(listed, routing.order.begin(), routing.order.end());
  std::vector<uint32_t>& order = routing.order;
  const size_t count = order.size();
  order.clear();
  // From the last vertex listed to the first, each donor goes to the head of its receiver's
  // list, so every list runs in listing order; the outlets come out reversed.
  const auto take = [&](uint32_t v) {
    if (!land[v]) return;
    const uint32_t r = rcv[v];
    // The outlet of a planet without sea drains to itself, and is land: its donors come after it.
    if (r == v || (rcv[r] == r && !land[r])) {
      order.push_back(v);  // drains to the sea (or is the outlet of a planet without one)
    } else {
      next[v] = first[r];
      first[r] = v;
    }
  };
  if (canonical) {
    for (size_t v = n; v-- > 0;) take(uint32_t(v));
  } else {
    for (size_t i = listed.size(); i-- > 0;) take(listed[i]);
  }
  std::reverse(order.begin(), order.end());
  for (size_t i = 0; i < order.size(); ++i)
    for (uint32_t m = first[order[i]]; m != kNone; m = next[m]) order.push_back(m);
  assert(order.size() == count);
  (void)count;
}

// The jitter's hash of (seed, v, m), geodesy::hash3(seed ^ kJitterStream, v, m), in its parts
// (geodesy::hashStart, hashThen): the seed's once per routing, v's once per vertex, and for
// each neighbour the last. at(m) is that hash's unit value.
struct JitterSeed {
  uint64_t mixed;
  explicit JitterSeed(uint64_t seed) : mixed(geodesy::hashStart(seed ^ kJitterStream)) {}
};
struct JitterHash {
  uint64_t key;
  JitterHash(const JitterSeed& seed, uint32_t v) : key(geodesy::hashThen(seed.mixed, v)) {}
  double at(uint32_t m) const { return geodesy::unitFromHash(geodesy::hashThen(key, m)); }
};

// Lower neighbour m (height hm < hv) as v's receiver: its slope times 1 - jitter u (u a hash of
// seed, v, m) against the best score so far. Inlined: it runs for every lower neighbour of
// every land vertex in every routing.
[[gnu::always_inline]] inline void offerReceiver(const geodesy::SphereMesh& mesh, uint32_t v,
                                                 uint32_t m, double hv, double hm, double jitter,
                                                 const JitterHash& hash, uint32_t& best,
                                                 double& best_score) {
  const glm::vec3 d = mesh.positions[v] - mesh.positions[m];
  const double slope = (hv - hm) / double(glm::length(d));
  // The jitter only lowers a score: a slope no steeper than the best score cannot win (same
  // receivers, without the hash).
  if (slope <= best_score) return;
  const double score = slope * (1.0 - jitter * hash.at(m));
  if (score > best_score) best_score = score, best = m;
}

// Steepest descent without the flood: per land vertex, the jittered steepest among its strictly
// lower neighbours (the sea counted at its level), or itself when it has none (a pit). What the
// flood's receiver rule gives wherever every lower neighbour's water level is its height.
struct Descent {
  bool tie = false;  // two land neighbours equally high (the flood's order could show)
  bool sea = false;  // some vertex under the sea
  bool pit = false;  // some land vertex without a strictly lower neighbour
  size_t land = 0;   // land vertices
};

Descent steepestDescent(const geodesy::SphereMesh& mesh, std::span<const float> h, float sea,
                        double jitter, uint64_t seed, std::vector<uint32_t>& receiver,
                        std::vector<uint8_t>& land) {
  const size_t n = mesh.vertexCount();
  const auto& off = mesh.neighbour_offsets;
  const auto& nb = mesh.neighbours;
  geodesy::resizeLarge(receiver, n);
  geodesy::resizeLarge(land, n);
  const JitterSeed jitter_seed(seed);
  std::atomic<bool> tie{false}, any_sea{false}, pit{false};
  std::atomic<size_t> land_count{0};
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 4096),
                    [&](const tbb::blocked_range<size_t>& r) {
                      // The flags of this range, published once at its end.
                      bool range_tie = false, range_sea = false, range_pit = false;
                      size_t range_land = 0;
                      for (size_t i = r.begin(); i != r.end(); ++i) {
                        const uint32_t v = uint32_t(i);
                        const float hv_float = h[v];
                        land[v] = hv_float >= sea;
                        if (!land[v]) {
                          receiver[v] = v;
                          range_sea = true;
                          continue;
                        }
                        range_land += 1;
                        const double hv = hv_float;
                        const JitterHash hash(jitter_seed, v);
                        uint32_t best = v;
                        double best_score = 0.0;
                        for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
                          const uint32_t m = nb[k];
                          // Compared as floats (exact; double(hm) is the max in doubles). A
                          // neighbour as high as v is not lower.
                          const float hm = std::max(h[m], sea);
                          if (hm >= hv_float) {
                            if (h[m] == hv_float) range_tie = true;
                            continue;
                          }
                          offerReceiver(mesh, v, m, hv, double(hm), jitter, hash, best, best_score);
                        }
                        range_pit |= best == v;
                        receiver[v] = best;
                      }
                      if (range_tie) tie.store(true, std::memory_order_relaxed);
                      if (range_sea) any_sea.store(true, std::memory_order_relaxed);
                      if (range_pit) pit.store(true, std::memory_order_relaxed);
                      land_count.fetch_add(range_land, std::memory_order_relaxed);
                    });
  return {tie.load(), any_sea.load(), pit.load(), land_count.load()};
}

// The flood's receiver rule for land vertex v: the jittered steepest descent among the lower
// neighbours whose water level is lower than v's height (or equal and reached earlier by the
// flood), else the flood's parent (lakes, flats).
uint32_t floodReceiver(const geodesy::SphereMesh& mesh, std::span<const float> h, float sea,
                       double jitter, const JitterSeed& seed, const FlowRouting& routing,
                       const Flood& f, uint32_t v) {
  const auto& off = mesh.neighbour_offsets;
  const auto& nb = mesh.neighbours;
  uint32_t best = f.parent[v];
  double best_score = 0.0;
  if (routing.lake_of[v] == kNoLake) {
    const float hv = h[v];  // compared as floats, as in steepestDescent
    const JitterHash hash(seed, v);
    for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
      const uint32_t m = nb[k];
      const float hm = std::max(h[m], sea);
      if (hm >= hv) continue;
      // Receivers strictly lower by (water level, visiting rank): no cycles, even next to a
      // lake whose surface is at v's height.
      const float wm = routing.water_level_m[m];
      if (wm > hv || (wm == hv && f.rank[m] >= f.rank[v])) continue;
      offerReceiver(mesh, v, m, hv, double(hm), jitter, hash, best, best_score);
    }
  }
  return best;
}

// Whether the flood's order could show in the routing of v, a land vertex, after the flood: v
// is under a lake (its receiver is its parent in the flood); or a lower neighbour's water is at
// v's height (a lake at that level: the flood's ranks decide); or v has no lower neighbour whose
// water is lower (a flat: its parent) and more than one neighbour it can be reached from (water
// at or below v's height: the flood reaches every vertex from one of those). Otherwise v's
// receiver does not depend on the order, and v's own parent and rank are read by no one (its
// water level is its height, and a vertex reads a neighbour's rank only where that neighbour's
// water is at its own, higher, height).
bool orderShows(const geodesy::SphereMesh& mesh, std::span<const float> h, float sea,
                const FlowRouting& routing, uint32_t v) {
  if (routing.lake_of[v] != kNoLake) return true;
  const auto& off = mesh.neighbour_offsets;
  const auto& nb = mesh.neighbours;
  bool lower = false;
  int reached_from = 0;
  for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
    const uint32_t m = nb[k];
    const float wm = routing.water_level_m[m];
    if (std::max(h[m], sea) < h[v]) {
      if (wm == h[v]) return true;
      lower |= wm < h[v];
    } else {
      reached_from += wm <= h[v];
    }
  }
  return !lower && reached_from != 1;
}

// Whether two land neighbours equally high, at the region (in it or next to it), are not both
// under a lake and have a vertex whose routing the flood's order could show (orderShows): there
// the region's flood, seeded otherwise than the whole one, could take them in another order.
// Elsewhere a tie changes the order in which the whole flood reaches the two vertices, and
// nothing else: land that drains as it lies, or under a lake (the flood takes lake vertices by
// the lake's level, not their heights). Parallel.
bool tiedAtRegion(const geodesy::SphereMesh& mesh, std::span<const float> h, float sea,
                  const std::vector<uint8_t>& land, const std::vector<uint8_t>& region,
                  const FlowRouting& routing) {
  const auto& off = mesh.neighbour_offsets;
  const auto& nb = mesh.neighbours;
  std::atomic<bool> found{false};
  tbb::parallel_for(tbb::blocked_range<size_t>(0, land.size(), 8192),
                    [&](const tbb::blocked_range<size_t>& r) {
                      if (found.load(std::memory_order_relaxed)) return;
                      for (size_t i = r.begin(); i != r.end(); ++i) {
                        const uint32_t v = uint32_t(i);
                        if (!land[v]) continue;
                        bool tied = false, at_region = region[v] != 0;
                        for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
                          const uint32_t m = nb[k];
                          tied |= land[m] && h[m] == h[v] &&
                                  (routing.lake_of[v] == kNoLake || routing.lake_of[m] == kNoLake);
                          at_region |= region[m] != 0;
                        }
                        // Each vertex of a tie checks itself: both are looked at.
                        if (tied && at_region && orderShows(mesh, h, sea, routing, v)) {
                          found.store(true, std::memory_order_relaxed);
                          return;
                        }
                      }
                    });
  return found.load();
}

// routeFlow when the land drains as it lies outside a few depressions (a steady-state relief,
// endorheic lakes on it): steepest descent everywhere (parallel), then the flood over only the
// vertices whose descent ends in a pit, from the land around them. This gives the whole flood's
// routing: a vertex with a strictly falling path to the sea is never under a lake and its water
// level is its height; a depression is reached first at its spill level, from its spill point,
// whichever way the flood came; and nothing but lake vertices, their rims and flats reads the
// flood's parents and ranks. Two land neighbours equally high change the order the flood takes
// them in, which shows only at the region (tiedAtRegion). Returns false when such a tie could
// show or there is no sea (then the whole flood decides).
bool routeWithoutFullFlood(const geodesy::SphereMesh& mesh, std::span<const float> h, float sea,
                           double jitter, const RoutingParams& params, FlowRouting& routing,
                           RoutingScratch& scratch) {
  const size_t n = mesh.vertexCount();
  std::vector<uint8_t>& land = scratch.land;
  const Descent descent =
      steepestDescent(mesh, h, sea, jitter, params.seed, routing.receiver, land);
  if (!descent.sea) return false;
  geodesy::copyLarge(routing.water_level_m, h.begin(), h.end());
  geodesy::assignLarge(routing.lake_of, n, kNoLake);
  routing.lakes.clear();
  routing.land_vertices = descent.land;
  geodesy::resizeLarge(routing.order, routing.land_vertices);
  if (!descent.pit) {
    orderFromOutlets(routing, land, true, scratch);
    return true;
  }
  // The region: land whose descent ends in a pit. Each path is walked down to a vertex already
  // known (or a pit, or the sea) and marked with its end on the way back, so every vertex is
  // passed once; the order is built once, after the flood has changed the receivers.
  const std::vector<uint32_t>& rcv = routing.receiver;
  std::vector<uint8_t>& region = scratch.region;
  geodesy::assignLarge(region, n, uint8_t(0));
  size_t region_size = 0;
  {
    constexpr uint8_t kUnknown = 0, kPit = 1, kSea = 2;
    std::vector<uint32_t>& path = scratch.redo;
    for (uint32_t v = 0; v < n; ++v) {
      if (!land[v] || region[v] != kUnknown) continue;
      path.clear();
      uint32_t u = v;
      uint8_t end = kSea;
      while (land[u] && region[u] == kUnknown) {
        path.push_back(u);
        if (rcv[u] == u) break;
        u = rcv[u];
      }
      if (land[u]) end = region[u] != kUnknown ? region[u] : kPit;
      for (const uint32_t w : path) region[w] = end;
      if (end == kPit) region_size += path.size();
    }
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 8192),
                      [&](const tbb::blocked_range<size_t>& r) {
                        for (size_t v = r.begin(); v != r.end(); ++v) region[v] = region[v] == kPit;
                      });
  }
  // With ties, a region of most of the land (a first routing on rough heights) is flooded whole
  // at once: its flood would cost as much as the whole one, and a tie in it would mostly send the
  // routing to the whole flood afterwards (the first routing at f = 1024 did, 3.4 M of 3.8 M land
  // vertices in its region).
  if (descent.tie && 2 * region_size > routing.land_vertices) return false;
  // The flood fills its own order (the region's vertices) in a table lent by the scratch.
  FlowRouting flooded;
  flooded.water_level_m = std::move(routing.water_level_m);
  flooded.lake_of = std::move(routing.lake_of);
  flooded.order = std::move(scratch.listed);
  flooded.order.clear();
  Flood f{std::move(scratch.parent), std::move(scratch.rank)};
  const uint64_t* lake_seed = params.random_lake_paths ? &params.seed : nullptr;
  flood(mesh, h, sea, flooded, &f, lake_seed, scratch, &region);
  summariseLakes(mesh, h, flooded, true);
  routing.water_level_m = std::move(flooded.water_level_m);
  routing.lake_of = std::move(flooded.lake_of);
  routing.lakes = std::move(flooded.lakes);
  scratch.listed = std::move(flooded.order);
  if (descent.tie && tiedAtRegion(mesh, h, sea, land, region, routing)) {
    scratch.parent = std::move(f.parent);
    scratch.rank = std::move(f.rank);
    return false;
  }
  // The flood's rule where it can differ from steepest descent: in the region (lake vertices
  // follow the flood's parents) and next to a lake (its vertices may stand below their water).
  // Outside the region the flood ranks come first (rank 0): they were reached before it.
  const auto& off = mesh.neighbour_offsets;
  const auto& nb = mesh.neighbours;
  // Which land vertices are near (parallel, each flag written by its own vertex's task), then
  // listed in vertex order.
  std::vector<uint8_t>& near = scratch.land_near;
  geodesy::resizeLarge(near, n);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 8192),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t v = r.begin(); v != r.end(); ++v) {
                        bool is_near = land[v] && region[v];
                        for (uint32_t k = off[v]; k < off[v + 1] && land[v] && !is_near; ++k)
                          is_near = routing.lake_of[nb[k]] != kNoLake;
                        near[v] = is_near;
                      }
                    });
  std::vector<uint32_t>& redo = scratch.redo;
  redo.clear();
  for (uint32_t v = 0; v < n; ++v) {
    if (!near[v]) continue;
    redo.push_back(v);
    if (!region[v]) f.parent[v] = rcv[v], f.rank[v] = 0;
  }
  std::vector<uint32_t>& chosen = scratch.chosen;
  chosen.resize(redo.size());
  const JitterSeed jitter_seed(params.seed);
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, redo.size(), 1024), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i != r.end(); ++i)
          chosen[i] = floodReceiver(mesh, h, sea, jitter, jitter_seed, routing, f, redo[i]);
      });
  for (size_t i = 0; i < redo.size(); ++i) routing.receiver[redo[i]] = chosen[i];
  scratch.parent = std::move(f.parent);
  scratch.rank = std::move(f.rank);
  orderFromOutlets(routing, land, true, scratch);
  return true;
}

}  // namespace

FlowRouting routeFlow(const geodesy::SphereMesh& mesh, std::span<const float> elevation_m,
                      double sea_level_m, const RoutingParams& params) {
  FlowRouting routing;
  RoutingScratch scratch;
  routeFlow(mesh, elevation_m, sea_level_m, params, routing, scratch);
  return routing;
}

void routeFlow(const geodesy::SphereMesh& mesh, std::span<const float> elevation_m,
               double sea_level_m, const RoutingParams& params, FlowRouting& routing,
               RoutingScratch& scratch) {
  const size_t n = mesh.vertexCount();
  const float sea = float(sea_level_m);
  const double jitter = std::clamp(params.receiver_jitter, 0.0, 0.999);
  const bool canonical = params.flood != RoutingParams::Flood::kWhole;
  if (params.flood == RoutingParams::Flood::kWhereNeeded &&
      routeWithoutFullFlood(mesh, elevation_m, sea, jitter, params, routing, scratch))
    return;
  Flood f{std::move(scratch.parent), std::move(scratch.rank)};
  floodLakes(mesh, elevation_m, sea_level_m, &f, params.random_lake_paths ? &params.seed : nullptr,
             canonical, routing, scratch);
  // Each receiver depends on its vertex alone: chosen in vertex order (neighbours in nearby
  // memory), not the flood's order, which jumps across the planet from level to level.
  geodesy::resizeLarge(routing.receiver, n);
  std::vector<uint8_t>& land = scratch.land;
  geodesy::resizeLarge(land, n);
  const JitterSeed jitter_seed(params.seed);
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, n, 4096), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i != r.end(); ++i) {
          const uint32_t v = uint32_t(i);
          land[v] = f.rank[v] != 0;  // the flood ranks every land vertex from 1
          // Sea vertices, and the outlet of a planet with no sea, drain to themselves.
          routing.receiver[v] =
              !land[v] || f.parent[v] == v
                  ? v
                  : floodReceiver(mesh, elevation_m, sea, jitter, jitter_seed, routing, f, v);
        }
      });
  scratch.parent = std::move(f.parent);
  scratch.rank = std::move(f.rank);
  orderFromOutlets(routing, land, canonical, scratch);
}

std::vector<double> accumulate(const FlowRouting& routing, std::span<const double> local) {
  std::vector<double> total(local.begin(), local.end());
  for (size_t i = routing.order.size(); i-- > 0;) {
    const uint32_t v = routing.order[i];
    const uint32_t r = routing.receiver[v];
    if (r != v) total[r] += total[v];
  }
  return total;
}

double fillSmallDepressions(const geodesy::SphereMesh& mesh, std::span<float> elevation_m,
                            double sea_level_m, uint32_t max_vertices) {
  const FlowRouting routing = floodLakes(mesh, elevation_m, sea_level_m);
  double added = 0.0;
  for (uint32_t v : routing.order) {
    const uint32_t l = routing.lake_of[v];
    if (l == kNoLake || routing.lakes[l].vertex_count >= max_vertices) continue;
    added += (double(routing.lakes[l].level_m) - elevation_m[v]) * mesh.vertex_areas[v];
    elevation_m[v] = routing.lakes[l].level_m;
  }
  return added;
}

double fillDepressionsEpsilon(const geodesy::SphereMesh& mesh, std::span<float> h,
                              double sea_level_m, uint32_t keep_vertices,
                              std::span<const uint8_t> keep, double step_m) {
  const size_t n = mesh.vertexCount();
  const float sea = float(sea_level_m);
  std::vector<uint8_t> outlet(n, 0);
  {
    const FlowRouting lakes = floodLakes(mesh, h, sea_level_m);
    std::vector<uint8_t> kept(lakes.lakes.size(), 0);
    for (size_t l = 0; l < lakes.lakes.size(); ++l)
      kept[l] = keep_vertices > 0 && lakes.lakes[l].vertex_count >= keep_vertices && keep.empty();
    if (keep_vertices > 0 && !keep.empty()) {
      for (uint32_t v : lakes.order) {
        const uint32_t l = lakes.lake_of[v];
        if (l != kNoLake && keep[v] && lakes.lakes[l].vertex_count >= keep_vertices) kept[l] = 1;
      }
    }
    for (uint32_t v : lakes.order) {
      const uint32_t l = lakes.lake_of[v];
      outlet[v] = l != kNoLake && kept[l];
    }
  }
  const auto& off = mesh.neighbour_offsets;
  const auto& nb = mesh.neighbours;
  std::vector<uint8_t> seen(n, 0);
  detail::FloodQueue queue;
  for (uint32_t v = 0; v < n; ++v) {
    if (h[v] >= sea && !outlet[v]) continue;
    seen[v] = 1;
    if (outlet[v]) {
      queue.push(h[v], v);
      continue;
    }
    for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
      if (h[nb[k]] >= sea) {  // sea touching land: the flood starts there, at the sea level
        queue.push(sea, v);
        break;
      }
    }
  }
  if (queue.empty() && n > 0) {  // no sea and nothing kept: the lowest vertex is the outlet
    const uint32_t lowest = uint32_t(std::min_element(h.begin(), h.end()) - h.begin());
    seen[lowest] = 1;
    queue.push(h[lowest], lowest);
  }
  double added = 0.0;
  while (!queue.empty()) {
    const uint32_t c = queue.pop();
    const float level = std::max(h[c], sea);
    for (uint32_t k = off[c]; k < off[c + 1]; ++k) {
      const uint32_t m = nb[k];
      if (seen[m]) continue;
      seen[m] = 1;
      if (h[m] <= level) {
        // A step of 1 to 2 times step_m, by a hash of the vertex: equal steps would grow the
        // filled surface breadth-first, and steepest descent on it would run straight down the
        // lattice; uneven ones make it wander as a random tree does.
        const double u = geodesy::unitFromHash(geodesy::hash3(kFillStream, m, 0));
        const float raised = std::max(std::nextafter(level, std::numeric_limits<float>::infinity()),
                                      float(double(level) + step_m * (1.0 + u)));
        added += (double(raised) - double(h[m])) * mesh.vertex_areas[m];
        h[m] = raised;
      }
      queue.push(h[m], m);
    }
  }
  return added;
}

double drainAlongReceivers(const geodesy::SphereMesh& mesh, const FlowRouting& routing,
                           std::span<float> h, double sea_level_m, std::span<const uint8_t> keep,
                           double step_m) {
  const size_t n = mesh.vertexCount();
  const float sea = float(sea_level_m);
  const auto& off = mesh.neighbour_offsets;
  const auto& nb = mesh.neighbours;
  // passed[v]: v drains (the sea, a kept vertex, or a land vertex already made to drain).
  std::vector<uint8_t> passed(n, 0);
  for (size_t v = 0; v < n; ++v) passed[v] = h[v] < sea || (!keep.empty() && keep[v]);
  double added = 0.0;
  for (const uint32_t v : routing.order) {
    if (passed[v]) continue;
    passed[v] = 1;
    const uint32_t r = routing.receiver[v];
    if (r == v || h[v] < sea) continue;  // the outlet of a planet with no sea
    bool drains = false;
    for (uint32_t k = off[v]; k < off[v + 1] && !drains; ++k)
      drains = passed[nb[k]] && h[nb[k]] < h[v];
    if (drains) continue;
    // The receiver comes earlier in the order, so it has passed: v drains through it.
    const float below = h[r];
    const double u = geodesy::unitFromHash(geodesy::hash3(kFillStream, v, 0));
    const float raised = std::max(std::nextafter(below, std::numeric_limits<float>::infinity()),
                                  float(double(below) + step_m * (1.0 + u)));
    added += (double(raised) - double(h[v])) * mesh.vertex_areas[v];
    h[v] = raised;
  }
  return added;
}

double fillStepM(const geodesy::SphereMesh& mesh, double radius_m,
                 std::span<const float> elevation_m, double sea_level_m) {
  if (mesh.vertexCount() == 0) return 0.0;
  // The spacing of a hexagonal lattice whose cells have the mean vertex area.
  const double cell = 4.0 * M_PI * radius_m * radius_m / double(mesh.vertexCount());
  // The land's relief: from its lowest vertex (the sea, where there is sea) to its highest.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (float h : elevation_m) {
    if (double(h) < sea_level_m) continue;
    lo = std::min(lo, double(h));
    hi = std::max(hi, double(h));
  }
  const double relief = hi > lo ? hi - lo : 0.0;
  return std::min(kFillSlope * std::sqrt(2.0 * cell / std::sqrt(3.0)), kFillReliefShare * relief);
}

std::vector<float> receiverDistance(const geodesy::SphereMesh& mesh, const FlowRouting& routing) {
  std::vector<float> d(mesh.vertexCount(), 0.0f);
  const auto& order = routing.order;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, order.size(), 8192),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t i = r.begin(); i != r.end(); ++i) {
                        const uint32_t v = order[i];
                        const uint32_t rv = routing.receiver[v];
                        if (rv != v) d[v] = float(arc(mesh.positions[v], mesh.positions[rv]));
                      }
                    });
  return d;
}

}  // namespace hydrology
