#include "erosion/fluvial.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

#include <tbb/parallel_for.h>

#include "hydrology/flow_routing.h"

namespace erosion {
namespace {

using hydrology::kNoLake;

// Sediment settles on the sea floor up to this depth below the water line, so deltas build
// shelves without moving the coast.
constexpr double kSeaDepositMarginM = 1.0;
constexpr int kMaxDiffusionSubsteps = 16;

struct Stage {
  const geodesy::SphereMesh& mesh;
  const FluvialInput& in;
  const FluvialParams& p;
  double sea;
  double dt;
  // Dual areas in m^2 and rain relative to the mean over land are computed where they are
  // needed: tables of them would cost 16 bytes per vertex for the whole stage.
  double mean_rain = 0.0;  // rainfall per unit area over land; 0: uniform
  double min_rain = 0.0;
  FluvialStats stats;
  // Land vertices of the last routing in index order: diffusion and the talus rule read each
  // vertex's ring, and in index order neighbours are near in memory (the routing order is not).
  std::vector<uint32_t> land;
  double shortest_edge_m = 0.0;
  double min_area_m2 = 0.0;  // smallest dual area (the diffusion's stability bound)

  bool isSea(std::span<const float> h, uint32_t v) const { return double(h[v]) < sea; }
  double area(size_t v) const { return double(mesh.vertex_areas[v]) * in.radius_m * in.radius_m; }
  double rain(size_t v) const {
    return mean_rain > 0.0 ? std::max(min_rain, double(in.rainfall[v]) / mean_rain) : 1.0;
  }
  double erodibility(uint32_t v) const {
    return in.erodibility.empty() ? 1.0 : double(in.erodibility[v]);
  }
  double upliftStep(std::span<const float> h, uint32_t v) const {
    const double rate = p.uplift_m_per_yr * (in.uplift.empty() ? 1.0 : double(in.uplift[v]));
    double u = rate * dt;
    if (!in.ceiling_m.empty()) u = std::min(u, std::max(0.0, double(in.ceiling_m[v]) - h[v]));
    return u;
  }
};

// The mean rainfall over land (Stage::rain divides by it); 0 without rainfall.
double meanLandRain(const geodesy::SphereMesh& mesh, std::span<const float> rainfall,
                    std::span<const float> h, double sea) {
  if (rainfall.empty()) return 0.0;
  double sum = 0.0, area = 0.0;
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    if (double(h[v]) < sea) continue;
    sum += double(rainfall[v]) * mesh.vertex_areas[v];
    area += mesh.vertex_areas[v];
  }
  return area > 0.0 ? sum / area : 0.0;
}

// One step of uplift, implicit stream-power incision and deposition (serial: each vertex
// needs its receiver's new height, and the sediment of everything upstream).
void incise(Stage& s, std::vector<float>& h) {
  const auto& mesh = s.mesh;
  hydrology::RoutingParams rp;
  rp.receiver_jitter = s.p.receiver_jitter;
  rp.seed = s.in.seed;
  const hydrology::FlowRouting routing = hydrology::routeFlow(mesh, h, s.sea, rp);
  // The land's discharge, incision and sediment are kept per place in routing.order (every
  // land vertex, receivers after their donors), not per vertex: three tables of doubles the
  // size of the mesh were the fluvial stage's peak memory, and the land is a fraction of it.
  // The same sums in the same order as per-vertex tables (hydrology::accumulate).
  const std::vector<uint32_t>& order = routing.order;
  constexpr uint32_t kOffLand = UINT32_MAX;  // a receiver in the sea, or none
  std::vector<uint32_t> receiver_at(order.size());
  {
    std::vector<uint32_t> place(mesh.vertexCount(), kOffLand);
    for (size_t i = 0; i < order.size(); ++i) place[order[i]] = uint32_t(i);
    for (size_t i = 0; i < order.size(); ++i) {
      const uint32_t v = order[i], r = routing.receiver[v];
      receiver_at[i] = r == v ? kOffLand : place[r];
    }
  }
  std::vector<double> discharge(order.size());
  for (size_t i = 0; i < order.size(); ++i) discharge[i] = s.rain(order[i]) * s.area(order[i]);
  for (size_t i = order.size(); i-- > 0;) {
    if (receiver_at[i] != kOffLand) discharge[receiver_at[i]] += discharge[i];
  }
  std::vector<float> distance = hydrology::receiverDistance(mesh, routing);

  std::vector<float> hn(h);
  std::vector<double> eroded(order.size(), 0.0);
  const double m = s.p.area_exponent;
  for (size_t i = 0; i < order.size(); ++i) {
    const uint32_t v = order[i];
    const double up = s.upliftStep(h, v);
    const double base = double(h[v]) + up;
    s.stats.uplifted_m3 += up * s.area(v);
    const uint32_t r = routing.receiver[v];
    double next = base;
    if (r != v && routing.lake_of[v] == kNoLake) {
      const double hr = s.isSea(h, r) ? s.sea : double(hn[r]);
      if (hr < base) {
        const double f = s.p.stream_power_k * s.erodibility(v) * s.dt * std::pow(discharge[i], m) /
                         (double(distance[v]) * s.in.radius_m);
        next = (base + f * hr) / (1.0 + f);
      }
    }
    hn[v] = float(next);
    eroded[i] = (base - double(hn[v])) * s.area(v);
    s.stats.incised_m3 += eroded[i];
  }
  std::vector<float>().swap(distance);  // read only above

  // Sediment from the sources downstream: a share G a / Q settles at each vertex, all of it
  // in a lake up to the lake's level; never above the initial terrain.
  std::vector<double> sediment(order.size(), 0.0);
  for (size_t i = order.size(); i-- > 0;) {
    const uint32_t v = order[i];
    // eroded[i] may be a rounding below zero (heights are float); it still travels, so the
    // budget closes exactly.
    double load = sediment[i] + eroded[i];
    if (load > 0.0) {
      double room = std::numeric_limits<double>::infinity();
      double share;
      if (routing.lake_of[v] != kNoLake) {
        room = std::max(0.0, double(routing.water_level_m[v]) - hn[v]);
        share = 1.0;
      } else {
        share = std::min(1.0, s.p.deposition * s.area(v) / std::max(discharge[i], 1e-30));
      }
      if (!s.in.ceiling_m.empty())
        room = std::min(room, std::max(0.0, double(s.in.ceiling_m[v]) - hn[v]));
      const double laid = std::min(load * share, room * s.area(v));
      if (laid > 0.0) {
        const float raised = float(double(hn[v]) + laid / s.area(v));
        const double actual = (double(raised) - double(hn[v])) * s.area(v);
        hn[v] = raised;
        load -= actual;
        s.stats.deposited_m3 += actual;
      }
    }
    const uint32_t r = routing.receiver[v];
    if (r == v) {
      s.stats.exported_m3 += load;
    } else if (s.isSea(h, r)) {
      const double sea_room =
          std::max(0.0, (s.sea - kSeaDepositMarginM - double(hn[r])) * s.area(r));
      const double settle = std::max(0.0, std::min(load, sea_room));
      if (settle > 0.0) {
        const float raised = float(double(hn[r]) + settle / s.area(r));
        const double actual = (double(raised) - double(hn[r])) * s.area(r);
        hn[r] = raised;
        s.stats.deposited_sea_m3 += actual;
        load -= actual;
      }
      s.stats.exported_m3 += load;
    } else {
      // Not sea by isSea, so on the land the routing ordered: routeFlow's sea is h < float(sea)
      // and isSea's double(h) < sea, the same set for float heights.
      assert(receiver_at[i] != kOffLand);
      sediment[receiver_at[i]] += load;
    }
  }
  h.swap(hn);
  std::vector<float>().swap(hn);
  std::vector<uint8_t> routed(mesh.vertexCount(), 0);
  for (uint32_t v : routing.order) routed[v] = 1;
  s.land.clear();
  for (uint32_t v = 0; v < mesh.vertexCount(); ++v)
    if (routed[v]) s.land.push_back(v);
}

// Hillslope diffusion: conservative fluxes D (h_j - h_i) / sqrt(3) across each dual edge of
// the (nearly regular) hexagonal lattice; sea neighbours hold the sea level.
void diffuse(Stage& s, std::vector<float>& h) {
  if (s.p.diffusion_m2_per_yr <= 0.0) return;
  const auto& mesh = s.mesh;
  const double min_area = s.min_area_m2;
  const double conductance = s.p.diffusion_m2_per_yr / std::numbers::sqrt3;
  // Stable while the six outflows of the smallest cell take at most half its excess. Past
  // kMaxDiffusionSubsteps the land is as smooth as diffusion makes it within a step anyway, so
  // the step is cut there rather than costing without bound.
  const double needed = std::ceil(s.dt * conductance * 6.0 / (0.5 * min_area));
  const int substeps = int(std::clamp(needed, 1.0, double(kMaxDiffusionSubsteps)));
  const double step = std::min(s.dt / substeps, 0.5 * min_area / (6.0 * conductance));
  std::vector<float> next(h);
  const std::vector<uint32_t>& land = s.land;
  std::vector<double> to_sea(land.size(), 0.0);
  for (int k = 0; k < substeps; ++k) {
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, land.size(), 4096), [&](const tbb::blocked_range<size_t>& r) {
          for (size_t i = r.begin(); i != r.end(); ++i) {
            const uint32_t v = land[i];
            if (double(h[v]) < s.sea) continue;
            double flux = 0.0, sea_flux = 0.0;
            for (uint32_t e = mesh.neighbour_offsets[v]; e < mesh.neighbour_offsets[v + 1]; ++e) {
              const uint32_t j = mesh.neighbours[e];
              if (double(h[j]) < s.sea) {
                sea_flux += s.sea - double(h[v]);
              } else {
                flux += double(h[j]) - double(h[v]);
              }
            }
            const double volume = step * conductance * (flux + sea_flux);
            next[v] = float(double(h[v]) + volume / s.area(v));
            to_sea[i] -= step * conductance * sea_flux;
          }
        });
    h.swap(next);
  }
  for (double t : to_sea) s.stats.diffused_to_sea_m3 += t;
}

// Landslides: material moves down every land-to-land edge steeper than the talus angle, an
// eighth of the excess per pass (Jacobi, so the result does not depend on the order). Passes
// stop when nothing moved; on gentle land (Earth radius) the first pass finds nothing.
void slide(Stage& s, std::vector<float>& h) {
  const double limit = std::tan(s.p.talus_angle_deg * std::numbers::pi / 180.0);
  const auto& mesh = s.mesh;
  const std::vector<uint32_t>& land = s.land;
  const double r_m = s.in.radius_m;
  auto excess = [&](const std::vector<float>& hh, uint32_t i, uint32_t j) {
    const glm::vec3 d = mesh.positions[i] - mesh.positions[j];
    const double length =
        std::sqrt(double(d.x) * d.x + double(d.y) * d.y + double(d.z) * d.z) * r_m;
    return std::max(0.0, double(hh[i]) - double(hh[j]) - limit * length);
  };
  // No edge is shorter than this: a drop below limit * shortest cannot be too steep, which
  // spares the square roots on gentle land.
  const double gentle = limit * s.shortest_edge_m;
  std::vector<float> next(h);
  std::vector<double> moved(land.size(), 0.0);
  std::vector<uint8_t> changed(land.size(), 0);
  for (int pass = 0; pass < 32; ++pass) {
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, land.size(), 4096), [&](const tbb::blocked_range<size_t>& r) {
          for (size_t i = r.begin(); i != r.end(); ++i) {
            const uint32_t v = land[i];
            next[v] = h[v];
            changed[i] = 0;
            if (double(h[v]) < s.sea) continue;
            double volume = 0.0, out = 0.0;
            for (uint32_t e = mesh.neighbour_offsets[v]; e < mesh.neighbour_offsets[v + 1]; ++e) {
              const uint32_t j = mesh.neighbours[e];
              if (double(h[j]) < s.sea || std::abs(double(h[v]) - double(h[j])) <= gentle) continue;
              const double a = std::min(s.area(v), s.area(j)) / 8.0;
              const double give = excess(h, v, j) * a;
              volume += excess(h, j, v) * a - give;
              out += give;
            }
            if (volume != 0.0) next[v] = float(double(h[v]) + volume / s.area(v));
            moved[i] += out;
            changed[i] = next[v] != h[v];
          }
        });
    const bool any = std::find(changed.begin(), changed.end(), 1) != changed.end();
    h.swap(next);
    if (!any) break;
  }
  for (double m : moved) s.stats.talus_moved_m3 += m;
}

// params.iterations - skip steps of dt on input's mesh, in place on h.
void runSteps(const FluvialInput& input, const FluvialParams& params, double dt, int steps,
              std::vector<float>& h, FluvialStats& stats) {
  if (steps <= 0) return;
  const geodesy::SphereMesh& mesh = *input.mesh;
  Stage s{mesh, input, params, input.sea_level_m, dt, 0.0, params.min_rain, stats, {}, 0.0, 0.0};
  s.min_area_m2 = s.area(0);  // the first smallest, as std::min_element
  for (size_t v = 1; v < mesh.vertexCount(); ++v)
    if (s.area(v) < s.min_area_m2) s.min_area_m2 = s.area(v);
  s.mean_rain = meanLandRain(mesh, input.rainfall, h, s.sea);
  const double shortest_rad =
      mesh.min_edge_length > 0.0 ? mesh.min_edge_length : geodesy::edgeLengthStats(mesh).min_rad;
  s.shortest_edge_m = 2.0 * std::sin(0.5 * shortest_rad) * input.radius_m;
  for (int it = 0; it < steps; ++it) {
    incise(s, h);
    diffuse(s, h);
    slide(s, h);
    s.stats.iterations += 1;
  }
  stats = s.stats;
}

// A per-vertex field of `from` at points located on it; empty stays empty. Parallel,
// identical for any thread count.
std::vector<float> interpolate(const geodesy::SphereMesh& from, std::span<const float> values,
                               std::span<const geodesy::SurfacePoint> at) {
  if (values.empty()) return {};
  std::vector<float> out(at.size());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, out.size(), 4096),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t v = r.begin(); v != r.end(); ++v) {
                        const uint32_t* c = &from.indices[3 * size_t(at[v].face)];
                        const glm::vec3& b = at[v].bary;
                        out[v] = b.x * values[c[0]] + b.y * values[c[1]] + b.z * values[c[2]];
                      }
                    });
  return out;
}

// Where every vertex of `to` lies on `from` (walks from the previous vertex's face).
std::vector<geodesy::SurfacePoint> locateAll(const geodesy::SphereMesh& from,
                                             const geodesy::SphereMesh& to) {
  std::vector<geodesy::SurfacePoint> at(to.vertexCount());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, at.size(), 2048),
                    [&](const tbb::blocked_range<size_t>& r) {
                      uint32_t hint = 0;
                      for (size_t v = r.begin(); v != r.end(); ++v) {
                        at[v] = from.locateFrom(hint, to.positions[v]);
                        hint = at[v].face;
                      }
                    });
  return at;
}

// The coarse pass: the fields sampled onto the coarse icosphere, most of the steps run there,
// and the change it made interpolated back onto the land of input's mesh (land stays land,
// nothing rises above the ceiling).
void coarsePass(const FluvialInput& input, const FluvialCoarseGrid& grid,
                const FluvialParams& params, double dt, int steps, std::vector<float>& h,
                FluvialStats& stats) {
  const geodesy::SphereMesh& fine = *input.mesh;
  const geodesy::SphereMesh& coarse = grid.mesh;
  const std::vector<float> h0 = interpolate(fine, h, grid.on_fine);
  const std::vector<float> rain = interpolate(fine, input.rainfall, grid.on_fine);
  const std::vector<float> erodibility = interpolate(fine, input.erodibility, grid.on_fine);
  const std::vector<float> uplift = interpolate(fine, input.uplift, grid.on_fine);
  const std::vector<float> ceiling = interpolate(fine, input.ceiling_m, grid.on_fine);
  FluvialInput c = input;
  c.mesh = &coarse;
  c.rainfall = rain;
  c.erodibility = erodibility;
  c.uplift = uplift;
  c.ceiling_m = ceiling;
  c.coarse = nullptr;
  std::vector<float> hc = h0;
  runSteps(c, params, dt, steps, hc, stats);
  std::vector<float> delta(hc.size());
  for (size_t v = 0; v < hc.size(); ++v) delta[v] = hc[v] - h0[v];
  // Back onto the fine mesh, located on the fly: a table of it would cost 16 bytes per fine
  // vertex for the whole run.
  const float sea = float(input.sea_level_m);
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, h.size(), 2048), [&](const tbb::blocked_range<size_t>& r) {
        uint32_t hint = 0;
        for (size_t v = r.begin(); v != r.end(); ++v) {
          if (h[v] < sea) continue;
          const geodesy::SurfacePoint at = coarse.locateFrom(hint, fine.positions[v]);
          hint = at.face;
          const uint32_t* k = &coarse.indices[3 * size_t(at.face)];
          const float change =
              at.bary.x * delta[k[0]] + at.bary.y * delta[k[1]] + at.bary.z * delta[k[2]];
          float next = std::max(h[v] + change, sea);
          if (!input.ceiling_m.empty()) next = std::min(next, std::max(h[v], input.ceiling_m[v]));
          h[v] = next;
        }
      });
  // Interpolating a coarse valley onto the finer lattice leaves closed hollows smaller than a
  // coarse cell; they are not lakes of the landscape, so they are filled to their spill level.
  const double ratio = double(fine.frequency) / double(coarse.frequency);
  const auto hollow = uint32_t(std::ceil(ratio * ratio));
  const double filled = hydrology::fillSmallDepressions(fine, h, input.sea_level_m, hollow + 1);
  stats.hollows_filled_m3 += filled * input.radius_m * input.radius_m;
}

bool runsCoarse(const geodesy::SphereMesh& mesh, const FluvialParams& params) {
  return params.coarse_frequency > 0 && params.coarse_frequency < mesh.frequency &&
         params.fine_iterations < params.iterations;
}

}  // namespace

double sedimentBalanceError(const FluvialStats& s) {
  const double settled = s.deposited_m3 + s.deposited_sea_m3 + s.exported_m3;
  return s.incised_m3 > 0.0 ? std::abs(s.incised_m3 - settled) / s.incised_m3 : 0.0;
}

FluvialCoarseGrid fluvialCoarseGrid(const geodesy::SphereMesh& fine, const FluvialParams& params) {
  FluvialCoarseGrid grid;
  if (!runsCoarse(fine, params)) return grid;
  grid.mesh = geodesy::buildIcosphere(params.coarse_frequency);
  grid.on_fine = locateAll(fine, grid.mesh);
  return grid;
}

FluvialStats erodeFluvial(const FluvialInput& input, const FluvialParams& params,
                          std::span<float> elevation_m, std::span<float> change_m) {
  const geodesy::SphereMesh& mesh = *input.mesh;
  const int steps = std::max(0, params.iterations);
  const double dt = params.duration_yr / std::max(1, steps);
  FluvialStats stats;
  std::vector<float> h(elevation_m.begin(), elevation_m.end());
  int fine_steps = steps;
  if (runsCoarse(mesh, params)) {
    fine_steps = std::max(0, params.fine_iterations);
    FluvialCoarseGrid own;
    const bool reuse = input.coarse && input.coarse->mesh.frequency == params.coarse_frequency;
    if (!reuse) own = fluvialCoarseGrid(mesh, params);
    coarsePass(input, reuse ? *input.coarse : own, params, dt, steps - fine_steps, h, stats);
  }
  runSteps(input, params, dt, fine_steps, h, stats);
  for (size_t v = 0; v < h.size(); ++v) {
    if (!change_m.empty()) change_m[v] += h[v] - elevation_m[v];
    elevation_m[v] = h[v];
  }
  stats.sediment_balance_error = sedimentBalanceError(stats);
  return stats;
}

}  // namespace erosion
