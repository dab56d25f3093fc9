#include "hydrology/rivers.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

#include <glm/geometric.hpp>

#include "geodesy/latlon.h"
#include "hydrology/detail/lake_shapes.h"

namespace hydrology {
namespace {

constexpr uint32_t kNone = kNoLake;
// Smoothing accepts a bend when the surface along it rises by at most this between points.
constexpr double kRiseToleranceM = 0.01;

glm::dvec3 unit(const geodesy::SphereMesh& mesh, uint32_t v) {
  return glm::normalize(glm::dvec3(mesh.positions[v]));
}

// A point before smoothing: unit direction, surface elevation, discharge.
struct BasePoint {
  glm::dvec3 dir;
  double elevation_m;
  double discharge_m3_s;
};

// Centripetal Catmull-Rom (alpha = 0.5) between p1 and p2 at u in [0, 1], Barry-Goldman form.
glm::dvec3 catmullRom(const glm::dvec3& p0, const glm::dvec3& p1, const glm::dvec3& p2,
                      const glm::dvec3& p3, double u) {
  auto knot = [](const glm::dvec3& a, const glm::dvec3& b) {
    return std::max(std::sqrt(glm::length(b - a)), 1e-12);
  };
  const double t0 = 0.0, t1 = t0 + knot(p0, p1), t2 = t1 + knot(p1, p2), t3 = t2 + knot(p2, p3);
  const double t = t1 + u * (t2 - t1);
  const glm::dvec3 a1 = (t1 - t) / (t1 - t0) * p0 + (t - t0) / (t1 - t0) * p1;
  const glm::dvec3 a2 = (t2 - t) / (t2 - t1) * p1 + (t - t1) / (t2 - t1) * p2;
  const glm::dvec3 a3 = (t3 - t) / (t3 - t2) * p2 + (t - t2) / (t3 - t2) * p3;
  const glm::dvec3 b1 = (t2 - t) / (t2 - t0) * a1 + (t - t0) / (t2 - t0) * a2;
  const glm::dvec3 b2 = (t3 - t) / (t3 - t1) * a2 + (t - t1) / (t3 - t1) * a3;
  return (t2 - t) / (t2 - t1) * b1 + (t - t1) / (t2 - t1) * b2;
}

// Inserts subdivisions - 1 points on every segment, bent toward the spline as far as the
// surface stays downhill (within kRiseToleranceM) from the segment's start to its end.
std::vector<BasePoint> smooth(const geodesy::SphereMesh& mesh, std::span<const float> surface,
                              const std::vector<BasePoint>& base, int subdivisions) {
  if (subdivisions <= 1 || base.size() < 2) return base;
  std::vector<BasePoint> out;
  out.reserve(base.size() * size_t(subdivisions));
  std::vector<BasePoint> trial(size_t(subdivisions - 1));
  const size_t n = base.size();
  for (size_t i = 0; i + 1 < n; ++i) {
    const BasePoint& a = base[i];
    const BasePoint& b = base[i + 1];
    out.push_back(a);
    const glm::dvec3 p0 = i > 0 ? base[i - 1].dir : 2.0 * a.dir - b.dir;
    const glm::dvec3 p3 = i + 2 < n ? base[i + 2].dir : 2.0 * b.dir - a.dir;
    for (double bend = 1.0; bend > 0.0; bend = bend > 0.1 ? bend * 0.5 : 0.0) {
      double previous = a.elevation_m;
      bool downhill = true;
      for (int k = 1; k < subdivisions; ++k) {
        const double u = double(k) / subdivisions;
        const glm::dvec3 chord = (1.0 - u) * a.dir + u * b.dir;
        const glm::dvec3 curve = catmullRom(p0, a.dir, b.dir, p3, u);
        const glm::dvec3 dir = glm::normalize(chord + bend * (curve - chord));
        const double e = surfaceAt(mesh, surface, dir);
        if (e > previous + kRiseToleranceM || e < b.elevation_m - kRiseToleranceM) {
          downhill = false;
          break;
        }
        previous = std::min(previous, e);
        trial[size_t(k - 1)] = {dir, e, (1.0 - u) * a.discharge_m3_s + u * b.discharge_m3_s};
      }
      if (downhill) {
        out.insert(out.end(), trial.begin(), trial.end());
        break;
      }
    }
  }
  out.push_back(base.back());
  return out;
}

}  // namespace

std::vector<float> surfaceOf(const FlowRouting& routing, std::span<const float> elevation_m,
                             uint32_t min_lake_vertices) {
  std::vector<float> s(elevation_m.begin(), elevation_m.end());
  for (size_t v = 0; v < s.size(); ++v) {
    const uint32_t l = routing.lake_of[v];
    if (l != kNoLake && routing.lakes[l].vertex_count < min_lake_vertices)
      s[v] = routing.water_level_m[v];
  }
  return s;
}

double surfaceAt(const geodesy::SphereMesh& mesh, std::span<const float> surface_m,
                 const glm::dvec3& p) {
  const geodesy::SurfacePoint sp = mesh.locate(glm::vec3(p));
  const uint32_t* f = &mesh.indices[3 * size_t(sp.face)];
  return double(sp.bary.x) * surface_m[f[0]] + double(sp.bary.y) * surface_m[f[1]] +
         double(sp.bary.z) * surface_m[f[2]];
}

RiverNetwork extractRivers(const RiverInput& in, const RiverParams& params) {
  assert(in.mesh && in.routing && params.min_discharge_m3_s > 0.0);
  const geodesy::SphereMesh& mesh = *in.mesh;
  const FlowRouting& rt = *in.routing;
  const size_t n = mesh.vertexCount();
  const double sea = in.sea_level_m;
  RiverNetwork net;
  net.surface_m = surfaceOf(rt, in.elevation_m, params.min_lake_vertices);
  const std::vector<float>& surface = net.surface_m;

  // Reported lakes: index in net.lakes per routing lake.
  std::vector<uint32_t> shape_of(rt.lakes.size(), kNone);
  for (size_t l = 0; l < rt.lakes.size(); ++l) {
    if (rt.lakes[l].vertex_count < params.min_lake_vertices) continue;
    shape_of[l] = uint32_t(net.lakes.size());
    LakeShape s;
    s.routing_lake = uint32_t(l);
    s.endorheic = !in.endorheic.empty() && in.endorheic[l];
    net.lakes.push_back(s);
  }
  auto lakeOf = [&](uint32_t v) {
    const uint32_t l = rt.lake_of[v];
    return l == kNoLake ? kNone : shape_of[l];
  };
  net.lake_of.resize(n);
  for (uint32_t v = 0; v < n; ++v) net.lake_of[v] = lakeOf(v);
  auto isSea = [&](uint32_t v) { return double(in.elevation_m[v]) < sea; };

  // Discharge: runoff accumulated downstream; an endorheic lake passes nothing on.
  std::vector<double>& q = net.discharge_m3_s;
  q.assign(n, 0.0);
  for (uint32_t v : rt.order) q[v] = in.runoff_m3_s[v];
  auto leavesLake = [&](uint32_t v) {
    const uint32_t l = lakeOf(v);
    return l != kNone && lakeOf(rt.receiver[v]) != l;
  };
  for (size_t i = rt.order.size(); i-- > 0;) {
    const uint32_t v = rt.order[i];
    const uint32_t r = rt.receiver[v];
    if (r == v) continue;
    if (leavesLake(v) && net.lakes[lakeOf(v)].endorheic) continue;
    q[r] += q[v];
  }

  // River vertices: channels (land outside lakes with enough discharge) and lake exits.
  const double min_q = params.min_discharge_m3_s;
  std::vector<uint8_t> channel(n, 0), on_river(n, 0);
  for (uint32_t v : rt.order) {
    if (lakeOf(v) == kNone) {
      channel[v] = q[v] >= min_q;
    } else if (leavesLake(v) && !net.lakes[lakeOf(v)].endorheic && q[v] >= min_q) {
      on_river[v] = 1;
    }
    on_river[v] |= channel[v];
  }
  // The donor a river continues through at each channel vertex: the largest discharge
  // (lowest index on ties), so tributaries end where they meet a larger river.
  std::vector<uint32_t> main(n, kNone);
  for (uint32_t v : rt.order) {
    if (!on_river[v]) continue;
    const uint32_t r = rt.receiver[v];
    if (r == v || !channel[r]) continue;
    const uint32_t m = main[r];
    if (m == kNone || q[v] > q[m] || (q[v] == q[m] && v < m)) main[r] = v;
  }
  // Strahler order, upstream first; a lake exit starts at the highest order entering its lake.
  std::vector<int> strahler(n, 0);
  std::vector<int> lake_order(net.lakes.size(), 1);
  // The highest order entering each vertex and how many times: freed before the tracing.
  std::vector<int> top(n, 0), top_count(n, 0);
  for (size_t i = rt.order.size(); i-- > 0;) {
    const uint32_t v = rt.order[i];
    if (!on_river[v]) continue;
    if (!channel[v]) {
      strahler[v] = lake_order[lakeOf(v)];
    } else {
      strahler[v] = top_count[v] == 0 ? 1 : top[v] + (top_count[v] >= 2 ? 1 : 0);
    }
    const uint32_t r = rt.receiver[v];
    if (r == v) continue;
    if (channel[r]) {
      if (strahler[v] > top[r]) top[r] = strahler[v], top_count[r] = 0;
      if (strahler[v] == top[r]) top_count[r] += 1;
    } else if (lakeOf(r) != kNone) {
      lake_order[lakeOf(r)] = std::max(lake_order[lakeOf(r)], strahler[v]);
    }
  }
  std::vector<int>().swap(top);
  std::vector<int>().swap(top_count);

  auto vertexPoint = [&](uint32_t v) { return BasePoint{unit(mesh, v), double(surface[v]), q[v]}; };
  // The point on edge a-b (a at or above level, b below it) where the surface reaches level.
  auto descent = [&](uint32_t a, uint32_t b, double level, double discharge) {
    const double ea = surface[a], eb = surface[b];
    const double t = ea > eb ? std::clamp((ea - level) / (ea - eb), 0.0, 1.0) : 0.0;
    const glm::dvec3 da = unit(mesh, a), db = unit(mesh, b);
    return BasePoint{glm::normalize((1.0 - t) * da + t * db), (1.0 - t) * ea + t * eb, discharge};
  };

  // Trace every river from its head (a river vertex no river continues through).
  std::vector<uint32_t> river_of(n, kNone);
  std::vector<uint32_t> heads;
  for (uint32_t v : rt.order)
    if (on_river[v] && main[v] == kNone) heads.push_back(v);
  std::sort(heads.begin(), heads.end());
  std::vector<std::vector<BasePoint>> bases;
  std::vector<uint32_t> last_vertex;  // join vertex for kRiver
  for (uint32_t h : heads) {
    River river;
    std::vector<BasePoint> base;
    uint32_t cur = h;
    // A lake exit: the river starts at the lake's outlet, a shore vertex at the lake level.
    if (!channel[h]) {
      const uint32_t l = lakeOf(h);
      river.source_lake = l;
    } else {
      base.push_back(vertexPoint(h));
      river.vertices.push_back(h);
    }
    uint32_t join = kNone;
    while (true) {
      const uint32_t r = rt.receiver[cur];
      if (r == cur) {
        river.end = isSea(cur) ? RiverEnd::kSea : RiverEnd::kSink;
        break;
      }
      if (isSea(r)) {
        river.end = RiverEnd::kSea;
        if (channel[cur]) base.push_back(descent(cur, r, sea, q[cur]));
        break;
      }
      if (lakeOf(r) != kNone) {
        river.end = RiverEnd::kLake;
        river.into = lakeOf(r);
        if (channel[cur]) {
          const double level = rt.lakes[rt.lake_of[r]].level_m;
          base.push_back(descent(cur, r, level, q[cur]));
        }
        break;
      }
      assert(channel[r]);
      base.push_back(vertexPoint(r));
      river.vertices.push_back(r);
      if (main[r] != cur) {
        river.end = RiverEnd::kRiver;
        join = r;
        break;
      }
      cur = r;
    }
    // Drop repeated points (a shore crossing at a vertex).
    std::vector<BasePoint> unique;
    for (const BasePoint& p : base)
      if (unique.empty() || glm::length(p.dir - unique.back().dir) > 1e-12) unique.push_back(p);
    // A lake whose outlet is already on a larger river has no river of its own.
    if (unique.size() < 2) continue;
    river.strahler = strahler[cur];
    for (size_t k = 0; k + 1 < river.vertices.size(); ++k)
      river_of[river.vertices[k]] = uint32_t(bases.size());
    if (river.end != RiverEnd::kRiver) river_of[river.vertices.back()] = uint32_t(bases.size());
    net.rivers.push_back(std::move(river));
    bases.push_back(std::move(unique));
    last_vertex.push_back(join);
  }

  // Points: smoothed, placed on the surface, with latitude, longitude and width.
  for (size_t i = 0; i < net.rivers.size(); ++i) {
    River& river = net.rivers[i];
    const std::vector<BasePoint> pts = smooth(mesh, surface, bases[i], params.subdivisions);
    river.points.reserve(pts.size());
    for (const BasePoint& p : pts) {
      RiverPoint rp;
      rp.position_m = (in.radius_m + p.elevation_m) * p.dir;
      const geodesy::LatLon ll = geodesy::unitToLatLon(p.dir);
      rp.lat_deg = ll.lat_rad * 180.0 / std::numbers::pi;
      rp.lon_deg = ll.lon_rad * 180.0 / std::numbers::pi;
      rp.elevation_m = p.elevation_m;
      rp.discharge_m3_s = p.discharge_m3_s;
      rp.width_m = params.width_coefficient * std::sqrt(std::max(p.discharge_m3_s, 0.0));
      if (!river.points.empty())
        river.length_m += glm::length(rp.position_m - river.points.back().position_m);
      river.points.push_back(rp);
    }
    if (river.end == RiverEnd::kRiver) river.into = river_of[last_vertex[i]];
  }

  // Largest first; remap the river references.
  std::vector<uint32_t> by_size(net.rivers.size());
  for (uint32_t i = 0; i < by_size.size(); ++i) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(), [&](uint32_t a, uint32_t b) {
    return net.rivers[a].points.back().discharge_m3_s > net.rivers[b].points.back().discharge_m3_s;
  });
  std::vector<uint32_t> new_index(by_size.size());
  for (uint32_t i = 0; i < by_size.size(); ++i) new_index[by_size[i]] = i;
  std::vector<River> sorted;
  sorted.reserve(by_size.size());
  for (uint32_t i : by_size) sorted.push_back(std::move(net.rivers[i]));
  for (River& r : sorted) {
    if (r.end == RiverEnd::kRiver) r.into = new_index[r.into];
    if (r.source_lake != kNoLake)
      net.lakes[r.source_lake].outflow_river = uint32_t(&r - sorted.data());
  }
  net.rivers = std::move(sorted);

  buildLakeShapes(in, rt, net.lakes);
  return net;
}

}  // namespace hydrology
