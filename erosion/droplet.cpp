#include "erosion/droplet.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

#include <glm/geometric.hpp>

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

// Beyer 2015, eqs. 5.6 and 5.9: takes amount * w_k * erodibility of height from every brush
// vertex ids[k]. Returns the volume taken, which the droplet carries as sediment:
// amount * sum(w_k * erodibility * area).
inline float takeBrush(const VertexSoil* soil, const Writer& changes, const uint32_t* ids,
                       const float* weights, size_t count, float amount) {
  Writer out = changes;  // a local copy keeps its pointers in registers
  float weight_area = 0.0f;
  for (size_t k = 0; k < count; ++k) {
    const VertexSoil s = soil[ids[k]];
    out.add(ids[k], -amount * (weights[k] * s.erodibility));
    weight_area += weights[k] * s.erodible_area;
  }
  return amount * weight_area;
}

// The brush around the droplet's nearest vertex, by the workspace's BrushMode.
inline float erode(const DropletContext& c, Writer& changes, DropletScratch scratch,
                   const glm::vec3& p, uint32_t centre, float amount) {
  switch (c.brush_mode) {
    case BrushMode::kLattice: {
      if (c.links[centre].irregularBrush()) break;
      uint32_t ids[kMaxLatticeBrush];
      latticeBrushIds(c.links, *c.lattice, centre, ids);
      return takeBrush(c.soil, changes, ids, c.lattice->weights.data(), c.lattice->weights.size(),
                       amount);
    }
    case BrushMode::kPrecomputed: {
      const uint32_t begin = c.brushes->offsets[centre];
      return takeBrush(c.soil, changes, c.brushes->ids.data() + begin,
                       c.brushes->weights.data() + begin, c.brushes->offsets[centre + 1] - begin,
                       amount);
    }
    case BrushMode::kGathered:
      break;
  }
  // Near a five-valent vertex, or by choice: metric distances from the droplet itself.
  if (!*scratch.gatherer) *scratch.gatherer = std::make_unique<BrushGatherer>(*c.mesh);
  BrushGatherer& gatherer = **scratch.gatherer;
  const size_t count = gatherer.gather(p, centre, c.lattice->radius_edges);
  return takeBrush(c.soil, changes, gatherer.ids().data(), gatherer.weights().data(), count,
                   amount);
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
  c.soil = w.nodes.soil.data();
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
    const SurfaceSample s_new = sampleSurface(c.points, c.links, s.heaviestCorner(), p_new);

    const float dh = s_new.h - s.h;  // Beyer 2015, eq. 5.3
    // Beyer 2015, eq. 5.4.
    const float capacity = std::max(-dh, c.min_slope) * speed * water * c.capacity;
    float eroded = 0.0f, deposited = 0.0f;
    if (dh > 0.0f || sediment > capacity) {
      // Uphill: fill the pit behind, at most dh; else Beyer 2015, eq. 5.5.
      deposited = dh > 0.0f ? std::min(dh, sediment) : (sediment - capacity) * c.deposition;
      if (deposited > 0.0f) {
        deposit(c, changes, s, deposited);
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
  }
  // Whatever ended it, the droplet leaves its sediment where it stands: volume is conserved,
  // and at the sea this builds deltas and shelves.
  if (sediment > 0.0f) {
    deposit(c, changes, s, sediment);
    out.deposited += sediment;
  }
  if (trace) trace->end = out.end;
  return out;
}

}  // namespace erosion
