#include "hydrology/detail/lake_shapes.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <glm/geometric.hpp>

namespace hydrology {
namespace {

// A shoreline point is on the edge (a, b) of a lake vertex a and an outside vertex b; a lake
// vertex inside the water surface is (v, v).
uint64_t key(uint32_t a, uint32_t b) {
  return (uint64_t(std::min(a, b)) << 32) | uint64_t(std::max(a, b));
}

// Signed area (steradians, approximately, for small rings) of a ring of unit directions:
// positive when counter-clockwise seen from outside.
double signedArea(const std::vector<glm::dvec3>& ring) {
  glm::dvec3 c(0.0);
  for (const glm::dvec3& p : ring) c += p;
  c = glm::normalize(c);
  double area = 0.0;
  for (size_t i = 0; i < ring.size(); ++i) {
    const glm::dvec3& a = ring[i];
    const glm::dvec3& b = ring[(i + 1) % ring.size()];
    area += 0.5 * glm::dot(c, glm::cross(a - c, b - c));
  }
  return area;
}

}  // namespace

void buildLakeShapes(const RiverInput& in, const FlowRouting& rt, std::vector<LakeShape>& shapes) {
  const geodesy::SphereMesh& mesh = *in.mesh;
  const double r2 = in.radius_m * in.radius_m;
  std::vector<uint32_t> shape_of(rt.lakes.size(), kNoLake);
  for (size_t s = 0; s < shapes.size(); ++s) {
    LakeShape& shape = shapes[s];
    const Lake& lake = rt.lakes[shape.routing_lake];
    shape_of[shape.routing_lake] = uint32_t(s);
    shape.level_m = lake.level_m;
    shape.area_m2 = lake.area_sr * r2;
    shape.volume_m3 = lake.volume_m_sr * r2;
    shape.max_depth_m = lake.max_depth_m;
    shape.outlet_vertex = lake.outlet;
  }
  // Faces touching each lake, in face order.
  std::vector<std::vector<uint32_t>> faces(shapes.size());
  for (uint32_t f = 0; f < mesh.faceCount(); ++f) {
    uint32_t last = kNoLake;
    for (int k = 0; k < 3; ++k) {
      const uint32_t l = rt.lake_of[mesh.indices[3 * size_t(f) + k]];
      if (l == kNoLake || shape_of[l] == kNoLake || shape_of[l] == last) continue;
      faces[shape_of[l]].push_back(f);
      last = shape_of[l];
    }
  }
  for (size_t s = 0; s < shapes.size(); ++s) {
    LakeShape& shape = shapes[s];
    const uint32_t lake = shape.routing_lake;
    const double level = shape.level_m;
    const double lift = in.radius_m + level;
    // Depth of water at v: > 0 on the lake's vertices, <= 0 elsewhere.
    auto depth = [&](uint32_t v) {
      const double d = level - double(in.elevation_m[v]);
      return rt.lake_of[v] == lake ? std::max(d, 1e-6) : std::min(d, 0.0);
    };
    std::unordered_map<uint64_t, uint32_t> index;  // shoreline/lake point -> surface vertex
    std::vector<glm::dvec3> dirs;
    auto point = [&](uint32_t a, uint32_t b) {
      const uint64_t k = key(a, b);
      auto [it, added] = index.try_emplace(k, uint32_t(dirs.size()));
      if (added) {
        const glm::dvec3 pa = glm::normalize(glm::dvec3(mesh.positions[a]));
        if (a == b) {
          dirs.push_back(pa);
        } else {
          const glm::dvec3 pb = glm::normalize(glm::dvec3(mesh.positions[b]));
          const double da = depth(a), db = depth(b);
          const double t = da / (da - db);
          dirs.push_back(glm::normalize((1.0 - t) * pa + t * pb));
        }
      }
      return it->second;
    };
    std::unordered_map<uint32_t, uint32_t> next;  // shoreline: point -> following point
    for (uint32_t f : faces[s]) {
      const uint32_t* c = &mesh.indices[3 * size_t(f)];
      uint32_t poly[4];
      int count = 0;
      uint32_t leave = kNoLake, enter = kNoLake;
      for (int k = 0; k < 3; ++k) {
        const uint32_t a = c[k], b = c[(k + 1) % 3];
        const bool in_a = depth(a) > 0.0, in_b = depth(b) > 0.0;
        if (in_a) poly[count++] = point(a, a);
        if (in_a != in_b) {
          const uint32_t p = in_a ? point(a, b) : point(b, a);
          poly[count++] = p;
          (in_a ? leave : enter) = p;
        }
      }
      for (int k = 1; k + 1 < count; ++k) {
        // A shoreline point on an outside vertex at the lake's level (the outlet, at least) is
        // the same point for each of its edges: a triangle between two of them has no area,
        // which engines read as a line or drop. It covers nothing: leave it out.
        const glm::dvec3 &a = dirs[poly[0]], &b = dirs[poly[k]], &c = dirs[poly[k + 1]];
        if (!(glm::dot(glm::cross(b - a, c - a), a) > 0.0)) continue;
        shape.surface_indices.insert(shape.surface_indices.end(), {poly[0], poly[k], poly[k + 1]});
      }
      // Water on the left: from where the walk leaves the lake to where it enters again.
      if (leave != kNoLake && enter != kNoLake) next[leave] = enter;
    }
    shape.surface_m.reserve(dirs.size());
    for (const glm::dvec3& d : dirs) shape.surface_m.push_back(lift * d);
    // Chain the shoreline segments into rings, in the order of their smallest point.
    std::vector<std::pair<uint32_t, uint32_t>> links(next.begin(), next.end());
    std::sort(links.begin(), links.end());
    std::vector<uint8_t> used(dirs.size(), 0);
    for (const auto& [start, unused] : links) {
      if (used[start]) continue;
      std::vector<glm::dvec3> ring;
      uint32_t p = start;
      while (!used[p]) {
        used[p] = 1;
        if (ring.empty() || glm::length(dirs[p] - ring.back()) > 1e-12) ring.push_back(dirs[p]);
        auto it = next.find(p);
        if (it == next.end()) break;
        p = it->second;
      }
      if (ring.size() > 1 && glm::length(ring.front() - ring.back()) <= 1e-12) ring.pop_back();
      if (ring.size() >= 3) shape.rings.push_back(std::move(ring));
    }
    // Outer ring (counter-clockwise, largest) first.
    std::stable_sort(shape.rings.begin(), shape.rings.end(),
                     [](const auto& a, const auto& b) { return signedArea(a) > signedArea(b); });
  }
}

}  // namespace hydrology
