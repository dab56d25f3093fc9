#include "erosion/detail/droplet.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

#include <glm/geometric.hpp>

#include "erosion/detail/simd.h"
#if PLANETGEN_SSE2
#include <emmintrin.h>
#endif

#include "erosion/detail/brush_lanes.h"
#include "erosion/detail/surface_lanes.h"
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
// The submarine fan of a droplet that reaches the sea (DropletRun::planFan): at most this many
// steps, each dropping at least this fraction of the load (when deposition is 0).
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
  for (int k = 0; k < 3; ++k) changes.add(s.v[k], volume * s.bary[k] * c.inv_area[s.v[k]]);
}

// Beyer 2015, §5.2, on the coast: as above, but a corner under the sea takes at most
// kSeaFillShare of what would lift it to the sea level, so deposits never turn sea into land and
// erosion keeps the ocean fraction the terrain was made with; and no corner is lifted above
// `ceiling` (one already above it takes nothing). Returns the volume laid down; the droplet
// carries the rest on (to the sea, where the submarine fan spreads it over the sea floor).
inline float depositAshore(const DropletContext& c, Writer& changes, const SurfaceSample& s,
                           float volume, float ceiling = std::numeric_limits<float>::infinity()) {
  float laid = 0.0f;
  for (int k = 0; k < 3; ++k) {
    const float inv_area = c.inv_area[s.v[k]];
    const float h = c.points[s.v[k]].h;
    float share = volume * s.bary[k];
    if (h < c.sea_level) share = std::min(share, kSeaFillShare * (c.sea_level - h) / inv_area);
    share = std::min(share, std::max(0.0f, (ceiling - h) / inv_area));
    changes.add(s.v[k], share * inv_area);
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
    changes.add(s.v[k], excess * (s.bary[k] / land_weight) * c.inv_area[s.v[k]]);
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

// What brush_lanes' kernels read and where they add.
inline RowBrushTarget rowBrushTarget(const DropletContext& c, const Writer& changes) {
  RowBrushTarget target;
  target.height = c.height, target.erodibility = c.erodibility;
  target.area = c.area, target.inv_area = c.inv_area;
  target.sea_level = c.sea_level, target.base_level_share = c.base_level_share;
  target.sums = changes.sumData(), target.dirty = changes.dirtyData();
  return target;
}

// takeBrush for a row brush: every row is a run of consecutive ids, taken kBrushLanes at a
// time (the padding lanes have weight 0 and take nothing).
inline float takeRowBrush(const DropletContext& c, const Writer& changes, uint32_t centre,
                          float amount) {
  Writer out = changes;
  const LatticeBrush& brush = *c.lattice;
  const RowBrushFrame frame(c.links, centre);
  if (c.brush_lanes) return takeRowBrush8(rowBrushTarget(c, out), brush, frame, amount);
#if PLANETGEN_SSE2
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
inline float withBrush(const DropletContext& c, DropletScratch scratch, Lanes p, uint32_t centre,
                       Fn&& fn) {
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
  const size_t count = gatherer.gather(p.vec3(), centre, c.lattice->radius_edges);
  return fn(gatherer.ids().data(), gatherer.weights().data(), count);
}

inline float erode(const DropletContext& c, Writer& changes, DropletScratch scratch, Lanes p,
                   uint32_t centre, float amount) {
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
inline float spreadOnLand(const DropletContext& c, Writer& changes, DropletScratch scratch, Lanes p,
                          uint32_t centre, float volume, bool capped) {
  // The row brush in AVX2 knows no channels; with them, the loop below.
  if (c.brush_lanes && !c.channel && c.brush_mode == BrushMode::kLattice &&
      c.links[centre].rowBrush())
    return spreadRowBrush8(rowBrushTarget(c, changes), *c.lattice, RowBrushFrame(c.links, centre),
                           volume, capped);
  // Land that takes a share: above the sea and not a channel (ErosionInput::channel).
  auto takes = [&](uint32_t v, float h) {
    return h >= c.sea_level && !(c.channel && c.channel[v]);
  };
  return withBrush(c, scratch, p, centre, [&](const uint32_t* ids, const float* w, size_t n) {
    float land = 0.0f, ceiling = c.sea_level;
    for (size_t k = 0; k < n; ++k) {
      const float h = c.height[ids[k]];
      if (takes(ids[k], h)) land += w[k];
      ceiling = std::max(ceiling, h);
    }
    if (!(land > 0.0f)) return 0.0f;
    // capped: no vertex rises above the highest vertex of the brush, so a load dumped into a
    // pit fills it and does not build a tower over the rim; what does not fit stays with the
    // droplet (the caller lays it on the droplet's face: volume is conserved).
    const float scale = volume / land;
    float laid = 0.0f;
    for (size_t k = 0; k < n; ++k) {
      const float h = c.height[ids[k]];
      if (!takes(ids[k], h)) continue;
      const float inv_area = c.inv_area[ids[k]];
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
    const float rise = s.bary[k] * c.inv_area[s.v[k]];
    if (rise > 0.0f) room = std::min(room, (ceiling - c.points[s.v[k]].h) / rise);
  }
  return std::max(0.0f, room);
}

// The three corners of a spawn's face, in mesh.indices.
inline const uint32_t* spawnCorners(const DropletContext& c, const geodesy::DropletSpawn& spawn) {
  return &c.mesh->indices[3 * size_t(spawn.point.face)];
}

// Prefetches what a droplet starting at `spawn` reads first (its face's corners); the face's
// entry in mesh.indices should be in cache already.
void prefetchSpawn(const DropletContext& c, const geodesy::DropletSpawn& spawn) {
  const uint32_t* corners = spawnCorners(c, spawn);
  for (int k = 0; k < 3; ++k) {
    __builtin_prefetch(&c.points[corners[k]]);
    __builtin_prefetch(&c.links[corners[k]]);
  }
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
  c.vertex_count = uint32_t(mesh.vertexCount());
  c.points = w.nodes.points.data();
  c.links = w.nodes.links.data();
  c.height = w.nodes.height.data();
  c.erodibility = w.nodes.erodibility.data();
  c.channel = input.channel.empty() ? nullptr : input.channel.data();
  c.area = w.nodes.area.data();
  c.inv_area = w.nodes.inv_area.data();
  c.brush_mode = w.mode;
  c.brush_lanes = avx2Available();
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

DropletRun::DropletRun(const DropletContext& context, DropletScratch scratch,
                       const geodesy::DropletSpawn& spawn, uint64_t id, DropletTrace* trace)
    : c_(context),
      scratch_(scratch),
      changes_(*scratch.changes),
      rng_(context.seed, kDirectionStream, id),
      trace_(trace) {
  const uint32_t* corners = spawnCorners(c_, spawn);
  const glm::vec3 b = spawn.point.bary;
  p_ = Lanes::of(glm::normalize(c_.points[corners[0]].x * b.x + c_.points[corners[1]].x * b.y +
                                c_.points[corners[2]].x * b.z));
  s_ = sampleSurface(c_.points, c_.links, atLargest(corners, b.x, b.y, b.z), p_);
  shore_ = s_;
  p_shore_ = p_;
  water_ = spawn.water * c_.initial_water;
  speed_ = c_.initial_speed;
  if (trace_) record(0.0f, 0.0f, 0.0f);
  if (s_.h < c_.sea_level) {
    endLand(DropletEnd::kSea);
    return;
  }
  if (onChannel()) {
    endInChannel();
    return;
  }
  previous_ = s_.heaviestCorner();
  scratch_.visited->begin();
  if (c_.max_lifetime > 0)
    plan();
  else
    endLand(DropletEnd::kLifetime);
}

DropletStep DropletRun::traceStep() const {
  DropletStep step;
  step.position = p_.vec3();
  std::copy(s_.v, s_.v + 3, step.corners);
  step.height_m = float(double(s_.h) * c_.metres_per_height);
  return step;
}

void DropletRun::record(float eroded, float deposited, float dh) {
  DropletStep step = traceStep();
  step.speed = speed_;
  step.water = water_;
  step.sediment = sediment_;
  step.eroded = eroded;
  step.deposited = deposited;
  step.height_change = dh;
  trace_->steps.push_back(step);
}

void DropletRun::prefetchNext(uint32_t anchor) const {
  const DropletContext& c = c_;
  if (phase_ == Phase::kLand || phase_ == Phase::kFan) {
    const VertexLinks& l = c.links[anchor];
    __builtin_prefetch(&c.points[anchor]);
    for (uint32_t v : l.nbr) __builtin_prefetch(&c.points[v]);
    // A fan step also reads its corners' areas (roomBelow) and adds to their changes.
    if (phase_ == Phase::kFan)
      for (uint32_t v : l.nbr) {
        __builtin_prefetch(&c.inv_area[v]);
        changes_.prefetch(v);
      }
  }
}

void DropletRun::step() {
  switch (phase_) {
    case Phase::kLand:
    case Phase::kFan:
      return step(sampleSurface(c_.points, c_.links, anchor_, p_next_));
    case Phase::kSettle:
      return settle();
    case Phase::kDone:
      break;
  }
  assert(false && "step() after the droplet's end");
}

void DropletRun::step(const SurfaceSample& sample) {
  assert(needsSample());
  if (phase_ == Phase::kLand) return stepLand(sample);
  stepFan(sample);
}

void DropletRun::plan() {
  const DropletContext& c = c_;
  // Kelley 2020 §4.4: the slope under the droplet in its tangent plane; times L, rise per step.
  const Lanes g = c.edge_length * s_.gradient;

  // Beyer 2015, eq. 5.1, kept tangent.
  Lanes d = c.inertia * dir_ - (1.0f - c.inertia) * g;
  d = d - dot(d, p_) * p_;
  const float length2 = dot(d, d);
  const bool no_direction = !(length2 > kNoDirection2);
  const bool stalled_now = no_direction || (speed_ < kStallSpeed && dot(g, g) < kStallSlope2);
  stalled_ = stalled_now ? stalled_ + 1 : 0;
  if (stalled_ >= 2) return endLand(DropletEnd::kFlat);
  d = no_direction ? Lanes::of(randomTangent(p_.vec3(), rng_)) : (1.0f / std::sqrt(length2)) * d;
  aim(d);
}

[[gnu::always_inline]] inline void DropletRun::aim(Lanes d) {
  const DropletContext& c = c_;
  // Beyer 2015, eq. 5.2 on the sphere: one edge length along the great circle through p in
  // direction d; d is carried along it (parallel transport) into the new tangent plane.
  p_next_ = c.step_cos * p_ + c.step_sin * d;
  dir_ = c.step_cos * d - c.step_sin * p_;
  p_next_ = (1.0f / std::sqrt(dot(p_next_, p_next_))) * p_next_;
  anchor_ = s_.cornerToward(c.points, p_next_);
  __builtin_prefetch(&c.links[anchor_]);
  // Its six neighbours, without waiting for its record: inside a base face they are the ids
  // next to it in its row and in the rows either side (see LatticeBrush), in the frame of the
  // face's anchor, whose record the locate has just read (one id off at most). prefetchNext
  // asks for the exact ring once the record has arrived. (With a brush of radius 1 vertices on
  // and beside the base edges have the row-brush bit too, with any stride: there the guess is
  // wrong but, checked, on vertex ids.)
  const VertexLinks& near = c.links[s_.v[0]];
  const int32_t stride = int32_t(near.nbr[1]) - int32_t(s_.v[0]);
  if (near.rowBrush() && stride > 1 && int64_t(anchor_) > int64_t(stride) &&
      int64_t(anchor_) + stride < int64_t(c.vertex_count)) {
    for (int32_t offset : {-1, 1, stride - 1, stride, -stride - 1, -stride}) {
      const uint32_t v = uint32_t(int32_t(anchor_) + offset);
      __builtin_prefetch(&c.points[v]);
      // A fan step also reads its face's dual-area factors (roomBelow) and adds to their
      // changes.
      if (phase_ == Phase::kFan) {
        __builtin_prefetch(&c.inv_area[v]);
        changes_.prefetch(v);
      }
    }
  }
}

void DropletRun::stepLand(const SurfaceSample& s_new) {
  const DropletContext& c = c_;

  const float dh = s_new.h - s_.h;  // Beyer 2015, eq. 5.3
  // Beyer 2015, eq. 5.4.
  const float capacity = std::max(-dh, c.min_slope) * speed_ * water_ * c.capacity;
  float eroded = 0.0f, deposited = 0.0f;
  if (dh > 0.0f || sediment_ > capacity) {
    // Uphill: fill the pit behind, at most dh and no corner above the point ahead (a corner
    // already higher is a ridge beside the droplet's path, not the pit); else Beyer 2015,
    // eq. 5.5.
    deposited = dh > 0.0f ? std::min(dh, sediment_) : (sediment_ - capacity) * c.deposition;
    if (deposited > 0.0f) {
      const float ceiling = dh > 0.0f ? s_new.h : std::numeric_limits<float>::infinity();
      deposited = depositAshore(c, changes_, s_, deposited, ceiling);
      sediment_ -= deposited;
      out_.deposited += deposited;
    }
  } else {
    // Beyer 2015, eq. 5.6: never more than -dh, so one step digs no pit. The brush is centred
    // on the face corner nearest the droplet.
    eroded = std::min((capacity - sediment_) * c.erosion, -dh);
    if (eroded > 0.0f) {
      const float taken = erode(c, changes_, scratch_, p_, s_.heaviestCorner(), eroded);
      sediment_ += taken;
      out_.eroded += taken;
    }
  }
  // Beyer 2015, eq. 5.7 with the sign fixed: downhill (dh < 0) speeds the droplet up.
  speed_ = std::sqrt(std::max(0.0f, speed_ * speed_ - dh * c.gravity));
  water_ *= 1.0f - c.evaporation;  // Beyer 2015, eq. 5.8

  shore_ = s_;  // the last sample on land
  p_shore_ = p_;
  p_ = p_next_;
  s_ = s_new;
  // The next step may deposit on this face (uphill, or over its capacity); nothing else reads
  // its corners' dual-area factors.
  for (uint32_t v : s_.v) __builtin_prefetch(&c.inv_area[v]);
  ++out_.steps;
  if (trace_) record(eroded, deposited, dh);
  if (onChannel()) return endInChannel();
  if (s_.h < c.sea_level) return endLand(DropletEnd::kSea);
  if (water_ < c.min_water) return endLand(DropletEnd::kDried);
  // Trapped: back near a vertex it was nearest to two or more steps ago (a one-edge step may
  // stay nearest to the same vertex, so the last step does not count; two straight steps
  // cannot come back). A droplet reads the heights frozen at its start, so rocking in a pit or
  // circling a basin it would fill the same place again at every pass, far above the rim; it
  // stops instead and leaves its sediment there.
  const uint32_t nearest = s_.heaviestCorner();
  VisitedSet& visited = *scratch_.visited;
  if (visited.contains(nearest)) return endLand(DropletEnd::kFlat);
  visited.insert(previous_);
  previous_ = nearest;
  if (int(out_.steps) >= c.max_lifetime) return endLand(DropletEnd::kLifetime);
  plan();
}

bool DropletRun::onChannel() const {
  const uint8_t* channel = c_.channel;
  return channel && (channel[s_.v[0]] | channel[s_.v[1]] | channel[s_.v[2]]);
}

// Overland flow has reached a river: the droplet's water joins it and its load goes with the
// river's (which the fluvial stage's channels carry through to the sea), so nothing settles on
// the channel and its long profile stays the rivers' own. The face before this one had no
// channel corner, so no deposit of this droplet touched a channel either.
void DropletRun::endInChannel() {
  out_.end = DropletEnd::kChannel;
  out_.carried_out = sediment_;
  sediment_ = 0.0f;
  finish();
}

// At the sea the sediment settles as a submarine fan (planFan, stepFan); whatever is left, and
// whatever ended the droplet on land, it leaves where it stands (settle): volume is conserved.
void DropletRun::endLand(DropletEnd how) {
  out_.end = how;
  if (how == DropletEnd::kSea && sediment_ > 0.0f) {
    phase_ = Phase::kFan;
    return planFan();
  }
  beginSettle();
}

// The droplet has reached the sea carrying its sediment. Instead of dumping it all on the
// first wet face, which on a coarse mesh builds a coastal wall hundreds of metres high and
// pushes the coast out by whole edges, it runs on as a turbidity current: down the sea floor
// (same steering as on land, eq. 5.1), for at most kFanSteps steps, dropping `deposition` of
// its load at each step (eq. 5.5 with zero capacity), and never more than kSeaFillShare of what
// would lift a corner to the sea level.
void DropletRun::planFan() {
  const DropletContext& c = c_;
  if (fan_steps_ >= kFanSteps || !(sediment_ - fan_settled_ > 0.0f)) return endFan();
  Lanes d = kFanInertia * dir_ - (c.edge_length * (1.0f - kFanInertia)) * s_.gradient;
  d = d - dot(d, p_) * p_;
  const float length2 = dot(d, d);
  if (!(length2 > kNoDirection2)) return endFan();  // a flat sea floor: the rest stays here
  aim((1.0f / std::sqrt(length2)) * d);
}

void DropletRun::stepFan(const SurfaceSample& s_new) {
  const DropletContext& c = c_;
  if (!(s_new.h < c.sea_level)) return endFan();  // back on land: the rest stays at the shore
  p_ = p_next_;
  s_ = s_new;
  const float fraction = std::max(c.deposition, kMinFanDeposition);
  const float drop = std::min((sediment_ - fan_settled_) * fraction,
                              kSeaFillShare * roomBelow(c, s_, c.sea_level));
  if (drop > 0.0f) {
    deposit(c, changes_, s_, drop);
    fan_settled_ += drop;
  }
  if (trace_) {
    DropletStep t = traceStep();  // a fan step: no speed or water
    t.sediment = sediment_ - fan_settled_;
    t.deposited = drop;
    trace_->steps.push_back(t);
  }
  ++fan_steps_;
  planFan();
}

// What the fan could not lay down goes back to the shore it came from, not onto the sea floor
// where the fan stopped (which would build an island there).
void DropletRun::endFan() {
  sediment_ -= fan_settled_;
  out_.deposited += fan_settled_;
  s_ = shore_;
  p_ = p_shore_;
  beginSettle();
}

void DropletRun::beginSettle() {
  if (!(sediment_ > 0.0f)) return finish();
  phase_ = Phase::kSettle;
  __builtin_prefetch(&c_.links[s_.heaviestCorner()]);
}

void DropletRun::settle() {
  const DropletContext& c = c_;
  // On land a pit is filled no higher than its rim; behind a coast (the load the fan could not
  // lay down) the delta plain may rise.
  const bool capped = out_.end != DropletEnd::kSea;
  const float laid =
      spreadOnLand(c, changes_, scratch_, p_, s_.heaviestCorner(), sediment_, capped);
  sediment_ -= laid;
  out_.deposited += laid;
  if (sediment_ > 0.0f) {
    depositLast(c, changes_, s_, sediment_);
    out_.deposited += sediment_;
  }
  finish();
}

void DropletRun::finish() {
  phase_ = Phase::kDone;
  if (trace_) trace_->end = out_.end;
}

DropletOutcome runDroplet(const DropletContext& context, DropletScratch scratch,
                          const geodesy::DropletSpawn& spawn, uint64_t id, DropletTrace* trace) {
  DropletRun run(context, scratch, spawn, id, trace);
  while (!run.done()) run.step();
  return run.outcome();
}

void runDroplets(const DropletContext& c, DropletScratch scratch, std::span<VisitedSet> visited,
                 std::span<const geodesy::DropletSpawn> spawns, std::span<const uint32_t> order,
                 uint64_t first_id, std::span<DropletOutcome> outcomes) {
  const size_t in_flight = std::min(visited.size(), kMaxDropletsInFlight);
  assert(in_flight > 0);
  std::optional<DropletRun> runs[kMaxDropletsInFlight];
  uint32_t index[kMaxDropletsInFlight] = {};
  size_t next = 0;
  // Starts the next droplet of `order` in place j; false when there is none left.
  auto launch = [&](size_t j) {
    while (next < order.size()) {
      // The spawn faces of the droplets after this one: the corners of the next (whose face
      // was prefetched at the last launch), the face of the one after.
      if (next + 1 < order.size()) prefetchSpawn(c, spawns[order[next + 1]]);
      if (next + 2 < order.size()) __builtin_prefetch(spawnCorners(c, spawns[order[next + 2]]));
      index[j] = order[next++];
      scratch.visited = &visited[j];
      runs[j].emplace(c, scratch, spawns[index[j]], first_id + index[j], nullptr);
      if (!runs[j]->done()) return true;
      outcomes[index[j]] = runs[j]->outcome();  // spawned in the sea
    }
    runs[j].reset();
    return false;
  };
  size_t active = 0;
  for (size_t j = 0; j < in_flight; ++j) active += launch(j);
  // Droplet j has ended: its outcome is kept and the next droplet takes its place.
  auto replace = [&](size_t j) {
    outcomes[index[j]] = runs[j]->outcome();
    if (!launch(j)) --active;
  };
  if (in_flight % kSurfaceLanes == 0 && avx2Available()) {
    // Groups of eight in flight, each in lockstep, taking turns: the land and fan steps of a
    // group's eight start with one locateStep8; a droplet's other steps (its last deposit) run
    // at once, and an ended droplet makes room for the next. While one group steps, what the
    // other's locates read arrives. A droplet whose next point lies past the rim of its anchor's
    // fan (one locate in nine) does not hold up the others: its search moves on at its group's
    // next turn, once the new anchor's record and ring have been fetched. An empty lane repeats
    // a live lane's query.
    const size_t groups = in_flight / kSurfaceLanes;
    uint32_t near[kMaxDropletsInFlight];
    uint8_t moves[kMaxDropletsInFlight] = {};
    Lanes p[kMaxDropletsInFlight];
    SurfaceSample samples[kSurfaceLanes];
    // Per group, its lanes whose search has moved on and continues at the group's next turn.
    uint32_t searching[kMaxDropletsInFlight / kSurfaceLanes] = {};
    while (active > 0) {
      for (size_t g = 0; g < groups && active > 0; ++g) {
        const size_t first = g * kSurfaceLanes;
        std::optional<DropletRun>* lane = runs + first;
        uint32_t* n = near + first;
        uint8_t* m = moves + first;
        Lanes* q = p + first;
        size_t live = kSurfaceLanes;
        for (size_t j = 0; j < kSurfaceLanes; ++j) {
          while (!(searching[g] >> j & 1u) && lane[j] && !lane[j]->needsSample()) {
            if (!lane[j]->done()) {
              lane[j]->step();
              continue;
            }
            replace(first + j);
          }
          if (lane[j]) live = j;
        }
        if (live == kSurfaceLanes) continue;  // the group has no droplets left
        uint32_t occupied = 0;
        for (size_t j = 0; j < kSurfaceLanes; ++j) {
          if (!lane[j]) continue;
          occupied |= 1u << j;
          if (searching[g] >> j & 1u) continue;  // n, m and q hold the search so far
          n[j] = lane[j]->anchor();
          m[j] = 0;
          q[j] = lane[j]->nextPosition();
        }
        for (size_t j = 0; j < kSurfaceLanes; ++j)
          if (!lane[j]) n[j] = n[live], m[j] = m[live], q[j] = q[live];
        const uint32_t found = locateStep8(c.points, c.links, n, m, q, samples);
        searching[g] = ~found & occupied;
        // A step ends by prefetching its next anchor's neighbour record, as does a search that
        // moves on; three lanes later the record has arrived and the neighbours' points are
        // asked for (prefetchNext).
        constexpr size_t kLag = 3;
        for (size_t j = 0; j < kSurfaceLanes + kLag; ++j) {
          if (j < kSurfaceLanes && lane[j]) {
            if (found >> j & 1u)
              lane[j]->step(samples[j]);
            else
              __builtin_prefetch(&c.links[n[j]]);
          }
          if (j < kLag || !lane[j - kLag]) continue;
          const size_t k = j - kLag;
          lane[k]->prefetchNext(found >> k & 1u ? lane[k]->anchor() : n[k]);
        }
      }
    }
    return;
  }
  while (active > 0) {
    for (size_t j = 0; j < in_flight; ++j) {
      if (!runs[j]) continue;
      // The next droplet's ring was asked for at the end of its last step; ask for its
      // neighbours now, one step of this droplet before they are needed.
      const size_t ahead = j + 1 == in_flight ? 0 : j + 1;
      if (runs[ahead]) runs[ahead]->prefetchNext();
      runs[j]->step();
      if (runs[j]->done()) replace(j);
    }
  }
}

}  // namespace erosion
