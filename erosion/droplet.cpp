#include "erosion/droplet.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>

#include <glm/geometric.hpp>

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "geodesy/hash.h"

namespace erosion {
namespace {

// Stream of the droplets' random directions in geodesy::HashStream(seed, stream, droplet id).
constexpr uint64_t kDirectionStream = 0x65726F73696F6E31ull;  // "erosion1"
// A direction shorter than this (squared, dimensionless) is no direction (Beyer §5.1).
constexpr float kNoDirection2 = 1e-30f;
// A droplet with less speed and less slope than these is stalled (normalised units).
constexpr float kStallSpeed = 1e-4f;
constexpr float kStallSlope2 = 1e-12f;
// The submarine fan of a droplet that reaches the sea (settleOffshore): at most this many steps,
// each dropping at least this fraction of the load (when deposition is 0).
constexpr int kFanSteps = 24;
constexpr float kMinFanDeposition = 0.1f;
constexpr float kFanInertia = 0.5f;  // a current keeps its heading across a flat shelf
// Of the depth under the sea level one deposit may fill: a droplet reads frozen heights all its
// life and may deposit on one corner several times (coast, fan), so each takes a quarter.
constexpr float kSeaFillShare = 0.25f;

using Writer = ChangeAccumulator::Writer;

glm::vec3 randomTangent(const glm::vec3& p, geodesy::HashStream& rng) {
  const glm::vec3 axis = std::abs(p.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
  const glm::vec3 t1 = glm::normalize(glm::cross(p, axis));
  const glm::vec3 t2 = glm::cross(p, t1);
  const float phi = float(2.0 * std::numbers::pi * rng.uniform());
  return std::cos(phi) * t1 + std::sin(phi) * t2;
}

// Beyer 2015, §5.2: the face's three corners by barycentric weight; the volume becomes height
// through each corner's dual area, so sum(dh * area) == volume.
inline void deposit(const DropletContext& c, Writer& changes, const SurfaceSample& s,
                    float volume) {
  for (int k = 0; k < 3; ++k) changes.add(s.v[k], volume * s.bary[k] * c.links[s.v[k]].inv_area);
}

// Beyer 2015, §5.2, on the coast: as above, but a corner under the sea takes at most
// kSeaFillShare of what would lift it to the sea level, so deposits never turn sea into land and
// erosion keeps the ocean fraction the terrain was made with; and no corner is lifted above
// `ceiling` (one already above it takes nothing). Returns the volume laid down; the droplet
// carries the rest on (to the sea, where settleOffshore spreads it over the sea floor).
inline float depositAshore(const DropletContext& c, Writer& changes, const SurfaceSample& s,
                           float volume, float ceiling = std::numeric_limits<float>::infinity()) {
  float laid = 0.0f;
  for (int k = 0; k < 3; ++k) {
    const VertexLinks& l = c.links[s.v[k]];
    const float h = c.points[s.v[k]].h;
    float share = volume * s.bary[k];
    if (h < c.sea_level) share = std::min(share, kSeaFillShare * (c.sea_level - h) / l.inv_area);
    share = std::min(share, std::max(0.0f, (ceiling - h) / l.inv_area));
    changes.add(s.v[k], share * l.inv_area);
    laid += share;
  }
  return laid;
}

// A droplet's last load, all of it (volume is conserved): ashore as depositAshore, and what the
// sea corners cannot take goes to the land corners by weight. With no land corner (the end of
// a submarine fan) the face takes it as it is.
inline void depositLast(const DropletContext& c, Writer& changes, const SurfaceSample& s,
                        float volume) {
  const float excess = volume - depositAshore(c, changes, s, volume);
  if (!(excess > 0.0f)) return;
  float land_weight = 0.0f;
  for (int k = 0; k < 3; ++k) land_weight += c.points[s.v[k]].h >= c.sea_level ? s.bary[k] : 0.0f;
  if (!(land_weight > 0.0f)) {
    deposit(c, changes, s, excess);
    return;
  }
  for (int k = 0; k < 3; ++k) {
    if (c.points[s.v[k]].h < c.sea_level) continue;
    changes.add(s.v[k], excess * (s.bary[k] / land_weight) * c.links[s.v[k]].inv_area);
  }
}

// Beyer 2015, eqs. 5.6 and 5.9: the height brush vertex `id` of weight w gives up,
// amount * w * its erodibility, but never below the sea level (the base level: water cannot
// cut deeper than where it ends, and the sea floor is not eroded). A vertex stays in the
// brushes of about 2 radius + 1 steps of one droplet, which all read the same frozen height:
// each may take only its share of the height above the sea.
inline float takeAt(const DropletContext& c, uint32_t id, float w, float amount) {
  const float above = (c.height[id] - c.sea_level) * c.base_level_share;
  return std::min(amount * (w * c.erodibility[id]), std::max(above, 0.0f));
}

// Takes from every brush vertex ids[k] (takeAt) and returns the volume taken, which the droplet
// carries as sediment.
inline float takeBrush(const DropletContext& c, const Writer& changes, const uint32_t* ids,
                       const float* weights, size_t count, float amount) {
  Writer out = changes;  // a local copy keeps its pointers in registers
  float volume = 0.0f;
  for (size_t k = 0; k < count; ++k) {
    const float take = takeAt(c, ids[k], weights[k], amount);
    out.add(ids[k], -take);
    volume += take * c.area[ids[k]];
  }
  return volume;
}

// takeBrush for a row brush: every row is a run of consecutive ids, taken kBrushLanes at a
// time (the padding lanes have weight 0 and take nothing).
inline float takeRowBrush(const DropletContext& c, const Writer& changes, uint32_t centre,
                          float amount) {
  Writer out = changes;
  const LatticeBrush& brush = *c.lattice;
  const RowBrushFrame frame(c.links, centre);
#if defined(__SSE2__) && defined(__x86_64__)
  const __m128 sea = _mm_set1_ps(c.sea_level), share = _mm_set1_ps(c.base_level_share);
  const __m128 amount4 = _mm_set1_ps(amount), zero = _mm_setzero_ps();
  __m128 volume = zero;
  for (const LatticeBrush::Row& row : brush.rows) {
    const uint32_t first = frame.first(row);
    const float* w = brush.padded_weights.data() + row.first_padded;
    for (uint32_t k = 0; k < row.count; k += kBrushLanes) {
      const uint32_t id = first + k;
      const __m128 above = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(c.height + id), sea), share);
      const __m128 wanted =
          _mm_mul_ps(amount4, _mm_mul_ps(_mm_loadu_ps(w + k), _mm_loadu_ps(c.erodibility + id)));
      const __m128 take = _mm_min_ps(wanted, _mm_max_ps(above, zero));
      volume = _mm_add_ps(volume, _mm_mul_ps(take, _mm_loadu_ps(c.area + id)));
      out.addUnmarked4(id, _mm_sub_ps(zero, take));
    }
    out.markRun(first, first + row.count - 1);
  }
  alignas(16) float sums[4];
  _mm_store_ps(sums, volume);
  return (sums[0] + sums[1]) + (sums[2] + sums[3]);
#else
  // The volume summed in the SSE2 path's order: lane k mod 4 of each row, then the lanes in
  // pairs (its padding lanes add +0), so both builds give the same droplets.
  float lanes[kBrushLanes] = {};
  for (const LatticeBrush::Row& row : brush.rows) {
    const uint32_t first = frame.first(row);
    const float* w = brush.row_weights.data() + row.first;
    for (uint32_t k = 0; k < row.count; ++k) {
      const float take = takeAt(c, first + k, w[k], amount);
      out.addUnmarked(first + k, -take);
      lanes[k % kBrushLanes] += take * c.area[first + k];
    }
    out.markRun(first, first + row.count - 1);
  }
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
#endif
}

// Calls fn(ids, weights, count) with the brush around the droplet's nearest vertex, by the
// workspace's BrushMode, and returns what fn returns.
template <typename Fn>
inline float withBrush(const DropletContext& c, DropletScratch scratch, const glm::vec3& p,
                       uint32_t centre, Fn&& fn) {
  switch (c.brush_mode) {
    case BrushMode::kLattice: {
      const VertexLinks& l = c.links[centre];
      if (l.irregularBrush()) break;
      uint32_t ids[kMaxLatticeBrush];
      if (l.rowBrush()) {
        rowBrushIds(c.links, *c.lattice, centre, ids);
        return fn(ids, c.lattice->row_weights.data(), c.lattice->row_weights.size());
      }
      latticeBrushIds(c.links, *c.lattice, centre, ids);
      return fn(ids, c.lattice->weights.data(), c.lattice->weights.size());
    }
    case BrushMode::kPrecomputed: {
      const uint32_t begin = c.brushes->offsets[centre];
      return fn(c.brushes->ids.data() + begin, c.brushes->weights.data() + begin,
                size_t(c.brushes->offsets[centre + 1] - begin));
    }
    case BrushMode::kGathered:
      break;
  }
  // Near a five-valent vertex, or by choice: metric distances from the droplet itself.
  if (!*scratch.gatherer) *scratch.gatherer = std::make_unique<BrushGatherer>(*c.mesh);
  BrushGatherer& gatherer = **scratch.gatherer;
  const size_t count = gatherer.gather(p, centre, c.lattice->radius_edges);
  return fn(gatherer.ids().data(), gatherer.weights().data(), count);
}

inline float erode(const DropletContext& c, Writer& changes, DropletScratch scratch,
                   const glm::vec3& p, uint32_t centre, float amount) {
  if (c.brush_mode == BrushMode::kLattice && c.links[centre].rowBrush())
    return takeRowBrush(c, changes, centre, amount);
  return withBrush(c, scratch, p, centre, [&](const uint32_t* ids, const float* w, size_t n) {
    return takeBrush(c, changes, ids, w, n, amount);
  });
}

// A load laid down at once, spread over the land vertices of the brush around p by brush weight
// instead of on one face: what a submarine fan could not lay down (the shelf in front of the
// shore is full) builds a low delta plain, and the load of a droplet that ends on land (dried,
// trapped, out of time) a low fan rather than a spike. Returns the volume laid (0 with no land
// in the brush).
inline float spreadOnLand(const DropletContext& c, Writer& changes, DropletScratch scratch,
                          const glm::vec3& p, uint32_t centre, float volume, bool capped) {
  return withBrush(c, scratch, p, centre, [&](const uint32_t* ids, const float* w, size_t n) {
    float land = 0.0f, ceiling = c.sea_level;
    for (size_t k = 0; k < n; ++k) {
      const float h = c.points[ids[k]].h;
      if (h >= c.sea_level) land += w[k];
      ceiling = std::max(ceiling, h);
    }
    if (!(land > 0.0f)) return 0.0f;
    // capped: no vertex rises above the highest vertex of the brush, so a load dumped into a
    // pit fills it and does not build a tower over the rim; what does not fit stays with the
    // droplet (the caller lays it on the droplet's face: volume is conserved).
    const float scale = volume / land;
    float laid = 0.0f;
    for (size_t k = 0; k < n; ++k) {
      const float h = c.points[ids[k]].h;
      if (h < c.sea_level) continue;
      const float inv_area = c.links[ids[k]].inv_area;
      const float share = capped ? std::min(scale * w[k], (ceiling - h) / inv_area) : scale * w[k];
      if (share > 0.0f) {
        changes.add(ids[k], share * inv_area);
        laid += share;
      }
    }
    return laid;
  });
}

// Volume that may settle on the face of s without lifting any corner above `ceiling`
// (normalised): corner k rises by volume * bary_k * inv_area_k.
inline float roomBelow(const DropletContext& c, const SurfaceSample& s, float ceiling) {
  float room = std::numeric_limits<float>::max();
  for (int k = 0; k < 3; ++k) {
    const float rise = s.bary[k] * c.links[s.v[k]].inv_area;
    if (rise > 0.0f) room = std::min(room, (ceiling - c.points[s.v[k]].h) / rise);
  }
  return std::max(0.0f, room);
}

// The droplet has reached the sea at s (position p, heading dir) carrying `sediment`. Instead of
// dumping it all on the first wet face, which on a coarse mesh builds a coastal wall hundreds
// of metres high and pushes the coast out by whole edges, it runs on as a turbidity current:
// down the sea floor (same steering as on land, eq. 5.1), for at most kFanSteps steps, dropping
// `deposition` of its load at each step (eq. 5.5 with zero capacity), and never more than
// kSeaFillShare of what would lift a corner to the sea level. Returns the volume settled (the
// caller leaves the rest where the droplet ends, as on land).
float settleOffshore(const DropletContext& c, Writer& changes, SurfaceSample& s, glm::vec3& p,
                     glm::vec3 dir, float sediment, DropletTrace* trace) {
  const float fraction = std::max(c.deposition, kMinFanDeposition);
  float settled = 0.0f;
  for (int step = 0; step < kFanSteps && sediment - settled > 0.0f; ++step) {
    glm::vec3 d = dir * kFanInertia - s.gradient * (c.edge_length * (1.0f - kFanInertia));
    d -= glm::dot(d, p) * p;
    const float length2 = glm::dot(d, d);
    if (!(length2 > kNoDirection2)) break;  // a flat sea floor: the rest stays here
    d *= 1.0f / std::sqrt(length2);
    glm::vec3 p_new = p * c.step_cos + d * c.step_sin;
    dir = d * c.step_cos - p * c.step_sin;
    p_new *= 1.0f / std::sqrt(glm::dot(p_new, p_new));
    const SurfaceSample s_new =
        sampleSurface(c.points, c.links, s.cornerToward(c.points, p_new), p_new);
    if (!(s_new.h < c.sea_level)) break;  // back on land: the rest stays at the shore
    p = p_new;
    s = s_new;
    const float drop =
        std::min((sediment - settled) * fraction, kSeaFillShare * roomBelow(c, s, c.sea_level));
    if (drop > 0.0f) {
      deposit(c, changes, s, drop);
      settled += drop;
    }
    if (trace) {
      DropletStep t;
      t.position = p;
      std::copy(s.v, s.v + 3, t.corners);
      t.height_m = float(double(s.h) * c.metres_per_height);
      t.sediment = sediment - settled;
      t.deposited = drop;
      trace->steps.push_back(t);
    }
  }
  return settled;
}

}  // namespace

double heightScale(const ErosionInput& input) {
  return 1.0 / (input.mesh->mean_edge_length * input.radius_m);
}

DropletContext makeDropletContext(const ErosionInput& input, const ErosionParams& params,
                                  const ErosionWorkspace::Impl& w) {
  const geodesy::SphereMesh& mesh = *input.mesh;
  DropletContext c;
  c.mesh = &mesh;
  c.points = w.nodes.points.data();
  c.links = w.nodes.links.data();
  c.height = w.nodes.height.data();
  c.erodibility = w.nodes.erodibility.data();
  c.area = w.nodes.area.data();
  c.brush_mode = w.mode;
  c.lattice = &w.lattice;
  c.brushes = &w.brushes;
  const double edge = mesh.mean_edge_length;
  c.sea_level = float(input.sea_level_m * heightScale(input));
  c.metres_per_height = 1.0 / heightScale(input);
  c.edge_length = float(edge);
  c.step_cos = float(std::cos(edge));
  c.step_sin = float(std::sin(edge));
  c.inertia = float(params.inertia);
  c.capacity = float(params.capacity);
  c.min_slope = float(params.min_slope);
  c.deposition = float(params.deposition);
  c.erosion = float(params.erosion);
  c.evaporation = float(params.evaporation);
  c.gravity = float(params.gravity);
  c.initial_water = float(params.initial_water);
  c.initial_speed = float(params.initial_speed);
  c.min_water = float(params.initial_water) * kMinWaterFraction;
  c.max_lifetime = params.max_lifetime;
  c.base_level_share = float(1.0 / (2.0 * std::ceil(params.radius) + 1.0));
  c.seed = input.seed;
  return c;
}

DropletOutcome runDroplet(const DropletContext& c, DropletScratch scratch,
                          const geodesy::DropletSpawn& spawn, uint64_t id, DropletTrace* trace) {
  DropletOutcome out;
  Writer changes(*scratch.changes);

  const uint32_t* corners = &c.mesh->indices[3 * size_t(spawn.point.face)];
  const glm::vec3 b = spawn.point.bary;
  glm::vec3 p = glm::normalize(c.points[corners[0]].x * b.x + c.points[corners[1]].x * b.y +
                               c.points[corners[2]].x * b.z);
  const int heaviest = b.x >= b.y && b.x >= b.z ? 0 : (b.y >= b.z ? 1 : 2);
  SurfaceSample s = sampleSurface(c.points, c.links, corners[heaviest], p);
  SurfaceSample shore = s;
  glm::vec3 p_shore = p;
  float water = spawn.water * c.initial_water;
  float speed = c.initial_speed;
  float sediment = 0.0f;
  glm::vec3 dir(0.0f);
  auto record = [&](float eroded, float deposited, float dh) {
    DropletStep step;
    step.position = p;
    std::copy(s.v, s.v + 3, step.corners);
    step.height_m = float(double(s.h) * c.metres_per_height);
    step.speed = speed;
    step.water = water;
    step.sediment = sediment;
    step.eroded = eroded;
    step.deposited = deposited;
    step.height_change = dh;
    trace->steps.push_back(step);
  };
  if (trace) record(0.0f, 0.0f, 0.0f);
  if (s.h < c.sea_level) {
    out.end = DropletEnd::kSea;
    if (trace) trace->end = out.end;
    return out;
  }

  geodesy::HashStream rng(c.seed, kDirectionStream, id);
  int stalled = 0;
  // The vertex nearest to the droplet one step ago; scratch.visited holds those of all the
  // steps before (see the end of the loop).
  uint32_t previous = s.heaviestCorner();
  VisitedSet& visited = *scratch.visited;
  visited.begin();
  out.end = DropletEnd::kLifetime;
  for (int step = 0; step < c.max_lifetime; ++step) {
    // Kelley 2020 §4.4: the slope under the droplet in its tangent plane; times L, rise per
    // step.
    const glm::vec3 g = s.gradient * c.edge_length;

    // Beyer 2015, eq. 5.1, kept tangent.
    glm::vec3 d = dir * c.inertia - g * (1.0f - c.inertia);
    d -= glm::dot(d, p) * p;
    const float length2 = glm::dot(d, d);
    const bool no_direction = !(length2 > kNoDirection2);
    const bool stalled_now = no_direction || (speed < kStallSpeed && glm::dot(g, g) < kStallSlope2);
    stalled = stalled_now ? stalled + 1 : 0;
    if (stalled >= 2) {
      out.end = DropletEnd::kFlat;
      break;
    }
    d = no_direction ? randomTangent(p, rng) : d * (1.0f / std::sqrt(length2));

    // Beyer 2015, eq. 5.2 on the sphere: one edge length along the great circle through p in
    // direction d; d is carried along it (parallel transport) into the new tangent plane.
    glm::vec3 p_new = p * c.step_cos + d * c.step_sin;
    dir = d * c.step_cos - p * c.step_sin;
    p_new *= 1.0f / std::sqrt(glm::dot(p_new, p_new));
    const SurfaceSample s_new =
        sampleSurface(c.points, c.links, s.cornerToward(c.points, p_new), p_new);

    const float dh = s_new.h - s.h;  // Beyer 2015, eq. 5.3
    // Beyer 2015, eq. 5.4.
    const float capacity = std::max(-dh, c.min_slope) * speed * water * c.capacity;
    float eroded = 0.0f, deposited = 0.0f;
    if (dh > 0.0f || sediment > capacity) {
      // Uphill: fill the pit behind, at most dh and no corner above the point ahead (a corner
      // already higher is a ridge beside the droplet's path, not the pit); else Beyer 2015,
      // eq. 5.5.
      deposited = dh > 0.0f ? std::min(dh, sediment) : (sediment - capacity) * c.deposition;
      if (deposited > 0.0f) {
        const float ceiling = dh > 0.0f ? s_new.h : std::numeric_limits<float>::infinity();
        deposited = depositAshore(c, changes, s, deposited, ceiling);
        sediment -= deposited;
        out.deposited += deposited;
      }
    } else {
      // Beyer 2015, eq. 5.6: never more than -dh, so one step digs no pit. The brush is centred
      // on the face corner nearest the droplet.
      eroded = std::min((capacity - sediment) * c.erosion, -dh);
      if (eroded > 0.0f) {
        const float taken = erode(c, changes, scratch, p, s.heaviestCorner(), eroded);
        sediment += taken;
        out.eroded += taken;
      }
    }
    // Beyer 2015, eq. 5.7 with the sign fixed: downhill (dh < 0) speeds the droplet up.
    speed = std::sqrt(std::max(0.0f, speed * speed - dh * c.gravity));
    water *= 1.0f - c.evaporation;  // Beyer 2015, eq. 5.8

    shore = s;  // the last sample on land
    p_shore = p;
    p = p_new;
    s = s_new;
    ++out.steps;
    if (trace) record(eroded, deposited, dh);
    if (s.h < c.sea_level) {
      out.end = DropletEnd::kSea;
      break;
    }
    if (water < c.min_water) {
      out.end = DropletEnd::kDried;
      break;
    }
    // Trapped: back near a vertex it was nearest to two or more steps ago (a one-edge step may
    // stay nearest to the same vertex, so the last step does not count; two straight steps
    // cannot come back). A droplet reads the heights frozen at its start, so rocking in a pit or
    // circling a basin it would fill the same place again at every pass, far above the rim; it
    // stops instead and leaves its sediment there.
    const uint32_t nearest = s.heaviestCorner();
    if (visited.contains(nearest)) {
      out.end = DropletEnd::kFlat;
      break;
    }
    visited.insert(previous);
    previous = nearest;
  }
  // At the sea the sediment settles as a submarine fan (see settleOffshore); whatever is left,
  // and whatever ended the droplet on land, it leaves where it stands: volume is conserved.
  // What the fan could not lay down goes back to the shore it came from, not onto the sea
  // floor where the fan stopped (which would build an island there).
  if (out.end == DropletEnd::kSea && sediment > 0.0f) {
    SurfaceSample fan = s;
    const float settled = settleOffshore(c, changes, fan, p, dir, sediment, trace);
    sediment -= settled;
    out.deposited += settled;
    s = shore;
    if (sediment > 0.0f) {
      const float spread =
          spreadOnLand(c, changes, scratch, p_shore, shore.heaviestCorner(), sediment, false);
      sediment -= spread;
      out.deposited += spread;
    }
  }
  if (sediment > 0.0f && out.end != DropletEnd::kSea) {
    const float laid = spreadOnLand(c, changes, scratch, p, s.heaviestCorner(), sediment, true);
    sediment -= laid;
    out.deposited += laid;
  }
  if (sediment > 0.0f) {
    depositLast(c, changes, s, sediment);
    out.deposited += sediment;
  }
  if (trace) trace->end = out.end;
  return out;
}

}  // namespace erosion
