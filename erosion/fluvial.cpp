#include "erosion/fluvial.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <glm/geometric.hpp>

#include "erosion/detail/negative_power.h"
#include "geodesy/hash.h"
#include "geodesy/large_array.h"
#include "geodesy/lattice_numbering.h"
#include "hydrology/flow_routing.h"

namespace erosion {
namespace {

using hydrology::kNoLake;

// The first routing runs on the noise, whose slopes are smooth at the mesh's scale: with the
// usual jitter its flow lines run straight down the lattice's directions and stay there. Almost
// random among the lower neighbours, they wander and merge (a Scheidegger network), and the
// re-routings follow the valleys cut along them.
constexpr double kNoiseJitter = 0.99;
// The noise's low-pass (Jacobi passes of x <- (x + ring mean) / 2): what stays is the uplift
// pattern, what it removes is the texture put back on hillslopes.
constexpr int kUpliftPasses = 2;
// Land lower than this share of the highest is uplifted as if it were this high: coastal
// plains slope to the sea instead of lying flat.
constexpr double kMinUpliftShare = 0.15;
// Coarse levels: down to this frequency, each re-routed this often.
constexpr int kCoarsestFrequency = 32;
constexpr int kCoarseReroutings = 6;
// The coarse relief is smoothed before it guides the finer level's first routing: these
// passes on the coarse mesh, then these on the land of the fine one.
constexpr int kCoarseSmoothPasses = 2;
constexpr int kGuideSmoothPasses = 4;
constexpr double kGuideShake = 1.5;
constexpr uint64_t kShakeStream = 0x7368616bull;  // "shak"
// The coarse relief is read at points moved by a random field of this many coarse edges
// (per coarse vertex, tangent, one smoothing pass, interpolated on the coarse faces): a coarse
// channel runs straight along the coarse lattice for several coarse steps, four fine steps each,
// and the warp bends it on the fine mesh. At most about half an edge, or the warped points fold.
constexpr double kGuideWarp = 0.6;
constexpr uint64_t kWarpStream = 0x77617270ull;  // "warp"
// Jacobi passes of the hillslope relaxation: hillslopes are a few cells wide.
constexpr int kHillslopePasses = 20;
// Lakes of fewer vertices are pits, not lakes (as planet/drainage_metrics.h counts them).
constexpr uint32_t kMinLakeVertices = 3;

// f(i) for every i in [0, count), in parallel: for loops each of whose iterations writes only
// what it owns.
template <typename F>
void forEach(size_t count, F f) {
  tbb::parallel_for(tbb::blocked_range<size_t>(0, count, 4096),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t i = r.begin(); i != r.end(); ++i) f(i);
                    });
}

// The sum of x over v's ring in double, added in the ring's order (one rounding sequence
// wherever it is taken); the six neighbours of all but twelve vertices written out.
inline double ringSum(const geodesy::SphereMesh& mesh, const float* x, size_t v) {
  const uint32_t b = mesh.neighbour_offsets[v], e = mesh.neighbour_offsets[v + 1];
  const uint32_t* nb = mesh.neighbours.data() + b;
  double sum = 0.0;
  if (e - b == 6) {
    sum += x[nb[0]];
    sum += x[nb[1]];
    sum += x[nb[2]];
    sum += x[nb[3]];
    sum += x[nb[4]];
    sum += x[nb[5]];
    return sum;
  }
  for (uint32_t k = 0; k < e - b; ++k) sum += x[nb[k]];
  return sum;
}

// One Jacobi pass of x <- (x + mean of ring) / 2 over every vertex, or over the vertices `at`
// lists (each once) when it is given: read from x, written to next, then the two swapped. With
// `at`, next must hold x's values at the other vertices (they stay as they are). Parallel, each
// vertex written by one task from values read before the pass.
void smoothPass(const geodesy::SphereMesh& mesh, std::vector<float>& x, std::vector<float>& next,
                const std::vector<uint32_t>* at = nullptr) {
  geodesy::resizeLarge(next, x.size());
  const auto& off = mesh.neighbour_offsets;
  const size_t count = at ? at->size() : x.size();
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, count, 4096), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i != r.end(); ++i) {
          const size_t v = at ? (*at)[i] : i;
          const double ring = double(off[v + 1] - off[v]);
          next[v] = float(0.5 * double(x[v]) + 0.5 * ringSum(mesh, x.data(), v) / ring);
        }
      });
  x.swap(next);
}

struct Stage {
  const geodesy::SphereMesh& mesh;
  const FluvialInput& in;
  const FluvialParams& p;
  float sea = 0.0f;
  double cell_m2 = 0.0;    // mean cell (dual) area
  double edge_m = 0.0;     // spacing of the hexagonal lattice with that cell area
  double target_m = 0.0;   // highest noise land above the sea
  double mean_rain = 0.0;  // over land; 0: uniform
  std::vector<uint8_t> land = {};
  std::vector<uint32_t> land_list = {};  // the land vertices in vertex order
  std::vector<float> low_pass = {};  // on land, the noise's low-pass (texture = noise - low_pass)
  std::vector<float> uplift = {};    // pattern, > 0 on land

  double rain(size_t v) const { return mean_rain > 0.0 ? double(in.rainfall[v]) / mean_rain : 1.0; }
  double erodibility(size_t v) const {
    return in.erodibility.empty() ? 1.0 : double(in.erodibility[v]);
  }
  double cells(size_t v) const {
    return double(mesh.vertex_areas[v]) * in.radius_m * in.radius_m / cell_m2;
  }
};

// One routing's drainage and steady state, per land vertex in routing order (outlets first):
// tables the size of the land, not the mesh, reused from one routing to the next.
struct Network {
  std::vector<uint32_t> place;  // per vertex: index in rt.order, or kOffLand
  std::vector<uint32_t> down;   // per index: the receiver's index, or kOffLand (sea, outlet)
  // Discharge in mean cells for the stream power (rain floored at min_rain), for the lakes'
  // water budget (the rain as it fell), and plain drainage area: one record per index, as the
  // downstream sums add all three at a receiver that may lie anywhere in the order.
  struct Drained {
    double discharge, water, cells;
  };
  std::vector<Drained> drained;
  // The steady state: base level (m) and rise above it in units of the uplift pattern's time
  // (metres once times the planet's U / K scale). Endorheic lake vertices are `kept` (their
  // floor stays) and are the base level, at the lake's level, of what drains into them.
  std::vector<float> base;
  std::vector<double> rise;
  std::vector<uint8_t> kept;
  std::vector<double> arc_m;  // per index: the arc to the receiver (0 where kept), for the talus
};
constexpr uint32_t kOffLand = std::numeric_limits<uint32_t>::max();

void drain(const Stage& s, const hydrology::FlowRouting& rt, Network& net) {
  const auto& order = rt.order;
  const size_t land = order.size();
  geodesy::assignLarge(net.place, s.mesh.vertexCount(), kOffLand);
  forEach(land, [&](size_t i) { net.place[order[i]] = uint32_t(i); });
  geodesy::resizeLarge(net.down, land);
  geodesy::resizeLarge(net.drained, land);
  forEach(land, [&](size_t i) {
    const uint32_t v = order[i], rv = rt.receiver[v];
    net.down[i] = rv == v ? kOffLand : net.place[rv];
    const double a = s.cells(v);
    net.drained[i] = {std::max(s.p.min_rain, s.rain(v)) * a, s.rain(v) * a, a};
  });
  // Downstream sums in reverse routing order (hydrology::accumulate, three at once).
  for (size_t i = land; i-- > 0;) {
    const uint32_t r = net.down[i];
    if (r == kOffLand) continue;
    Network::Drained& to = net.drained[r];
    const Network::Drained& from = net.drained[i];
    to.discharge += from.discharge;
    to.water += from.water;
    to.cells += from.cells;
  }
}

// Endorheic lakes of rt: the rain reaching the lake (the most any of its vertices drains) is
// less than lake_evaporation times its surface.
std::vector<uint8_t> endorheicLakes(const Stage& s, const hydrology::FlowRouting& rt,
                                    const Network& net) {
  if (rt.lakes.empty()) return {};
  std::vector<double> inflow(rt.lakes.size(), 0.0);
  for (size_t i = 0; i < rt.order.size(); ++i) {
    const uint32_t l = rt.lake_of[rt.order[i]];
    if (l != kNoLake) inflow[l] = std::max(inflow[l], net.drained[i].water);
  }
  std::vector<uint8_t> endorheic(rt.lakes.size(), 0);
  const double r2 = s.in.radius_m * s.in.radius_m;
  for (size_t l = 0; l < rt.lakes.size(); ++l) {
    const double surface = rt.lakes[l].area_sr * r2 / s.cell_m2;
    endorheic[l] =
        rt.lakes[l].vertex_count >= kMinLakeVertices && inflow[l] < s.p.lake_evaporation * surface;
  }
  return endorheic;
}

double arcM(const Stage& s, uint32_t a, uint32_t b) {
  const glm::dvec3 d = glm::dvec3(s.mesh.positions[a]) - glm::dvec3(s.mesh.positions[b]);
  const double chord = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
  return 2.0 * std::asin(std::min(1.0, 0.5 * chord)) * s.in.radius_m;
}

// The steady state on rt (Network's base, rise and kept).
void steadyState(const Stage& s, const hydrology::FlowRouting& rt,
                 const std::vector<uint8_t>& endorheic, std::span<const float> h, Network& net) {
  const auto& order = rt.order;
  const size_t land = order.size();
  geodesy::assignLarge(net.base, land, s.sea);
  geodesy::resizeLarge(net.rise, land);
  geodesy::resizeLarge(net.kept, land);
  geodesy::resizeLarge(net.arc_m, land);
  const detail::NegativePower power(s.p.area_exponent);
  // The rise over each vertex's own step (parallel), then summed from the outlets (serial).
  forEach(land, [&](size_t i) {
    const uint32_t v = order[i], l = rt.lake_of[v];
    net.kept[i] = l != kNoLake && endorheic[l];
    net.arc_m[i] = net.kept[i] ? 0.0 : arcM(s, v, rt.receiver[v]);
    // Tzathas et al. 2024, eq. 4 with n = 1: S = (U / K) Q^-m.
    net.rise[i] = net.kept[i] ? 0.0
                              : double(s.uplift[v]) * net.arc_m[i] *
                                    power(net.drained[i].discharge) / s.erodibility(v);
    if (net.kept[i]) net.base[i] = rt.lakes[l].level_m;
  });
  for (size_t i = 0; i < land; ++i) {
    const uint32_t r = net.down[i];
    if (net.kept[i]) continue;
    if (r == kOffLand) {
      // The sea is the base level; a planet without sea drains to its lowest vertex, which
      // stays where it is.
      const uint32_t v = order[i];
      if (rt.receiver[v] == v) net.base[i] = h[v], net.rise[i] = 0.0;
      continue;
    }
    net.base[i] = net.base[r];
    if (!net.kept[r]) net.rise[i] += net.rise[r];
  }
}

// The s for which the highest of base_i - sea + s x rise_i over the land not kept is `target`:
// that highest is convex, piecewise linear and rising in s (bases are at or above the sea),
// so Newton's steps from above converge in a few (each lands on the next line's root).
template <typename Base, typename Rise>
double fitScale(size_t count, const std::vector<uint8_t>& kept, double sea, double target,
                double start, Base base, Rise rise) {
  // The highest x and the rise of the first index that reaches it, as a serial pass finds them:
  // a parallel reduction whose join keeps the higher x, and at equal x the earlier index.
  struct Top {
    double x, slope;
    size_t i;
  };
  const Top none{-std::numeric_limits<double>::infinity(), 0.0, std::numeric_limits<size_t>::max()};
  double s = start;
  for (int k = 0; k < 16; ++k) {
    const Top top = tbb::parallel_reduce(
        tbb::blocked_range<size_t>(0, count, 8192), none,
        [&](const tbb::blocked_range<size_t>& r, Top t) {
          for (size_t i = r.begin(); i != r.end(); ++i) {
            if (kept[i]) continue;
            const double x = base(i) - sea + s * rise(i);
            if (x > t.x) t = {x, rise(i), i};
          }
          return t;
        },
        [](const Top& a, const Top& b) { return b.x > a.x || (b.x == a.x && b.i < a.i) ? b : a; });
    if (!(top.slope > 0.0) || std::abs(top.x - target) <= 1e-9 * target) break;
    s -= (top.x - target) / top.slope;
  }
  return s;
}

// The planet's scale: the highest land (base + scale x rise) at the noise's highest.
double scaleOf(const Stage& s, const Network& net) {
  const double top_rise = tbb::parallel_reduce(
      tbb::blocked_range<size_t>(0, net.rise.size(), 8192), 0.0,
      [&](const tbb::blocked_range<size_t>& r, double top) {
        for (size_t i = r.begin(); i != r.end(); ++i)
          if (!net.kept[i]) top = std::max(top, net.rise[i]);
        return top;
      },
      [](double a, double b) { return std::max(a, b); });
  if (top_rise <= 0.0 || s.target_m <= 0.0) return 0.0;
  return fitScale(
      net.rise.size(), net.kept, s.sea, s.target_m, s.target_m / top_rise,
      [&](size_t i) { return double(net.base[i]); }, [&](size_t i) { return net.rise[i]; });
}

// The stage's setup on input's mesh: land, scales, rain, the noise's low-pass and the uplift.
void setUp(Stage& s) {
  const geodesy::SphereMesh& mesh = s.mesh;
  const FluvialInput& input = s.in;
  const size_t n = mesh.vertexCount();
  s.sea = float(input.sea_level_m);
  s.cell_m2 = 4.0 * std::numbers::pi * input.radius_m * input.radius_m / double(n);
  s.edge_m = std::sqrt(2.0 * s.cell_m2 / std::numbers::sqrt3);
  geodesy::assignLarge(s.land, n, uint8_t(0));
  s.land_list.clear();
  geodesy::reserveLarge(s.land_list, n);
  double rain_sum = 0.0, land_area = 0.0;
  for (size_t v = 0; v < n; ++v) {
    s.land[v] = input.noise_m[v] >= s.sea;
    if (!s.land[v]) continue;
    s.land_list.push_back(uint32_t(v));
    s.target_m = std::max(s.target_m, double(input.noise_m[v]) - s.sea);
    if (!input.rainfall.empty()) {
      rain_sum += double(input.rainfall[v]) * mesh.vertex_areas[v];
      land_area += mesh.vertex_areas[v];
    }
  }
  if (land_area > 0.0 && rain_sum > 0.0) s.mean_rain = rain_sum / land_area;
  geodesy::copyLarge(s.low_pass, input.noise_m.begin(), input.noise_m.end());
  // Only the land reads the low-pass: its last pass runs on the land alone.
  std::vector<float> scratch;
  for (int k = 0; k + 1 < kUpliftPasses; ++k) smoothPass(mesh, s.low_pass, scratch);
  geodesy::copyLarge(scratch, s.low_pass.begin(), s.low_pass.end());
  smoothPass(mesh, s.low_pass, scratch, &s.land_list);
  geodesy::assignLarge(s.uplift, n, 0.0f);
  const float least = float(kMinUpliftShare * s.target_m);
  for (size_t v = 0; v < n; ++v) {
    if (!s.land[v]) continue;
    s.uplift[v] = input.uplift.empty() ? std::max(s.low_pass[v] - s.sea, least) : input.uplift[v];
    if (s.mean_rain > 0.0 && s.p.rain_uplift != 0.0)
      s.uplift[v] *= float(std::pow(std::max(s.p.min_rain, s.rain(v)), s.p.rain_uplift));
  }
}

// The steady-state relief of one level.
struct Solved {
  std::vector<float> h;       // per vertex: the relief on land, the noise elsewhere
  hydrology::FlowRouting rt;  // the last routing
  Network net;                // and its drainage and steady state
  double scale = 0.0;
  uint64_t endorheic_lakes = 0;
  int routings = 0;
};

// 1 + reroutings routings, the first on `guide` (heights per vertex; the noise when empty) with
// the flow almost random among the lower neighbours, each followed by the steady state on it.
Solved solve(const Stage& s, std::span<const float> guide, int reroutings) {
  Solved out;
  const FluvialInput& input = s.in;
  geodesy::copyLarge(out.h, input.noise_m.begin(), input.noise_m.end());
  if (!guide.empty()) {
    forEach(s.land_list.size(), [&](size_t i) {
      const uint32_t v = s.land_list[i];
      out.h[v] = std::max(guide[v], s.sea);
    });
  }
  hydrology::RoutingParams rp;
  rp.seed = input.seed;
  rp.random_lake_paths = true;
  rp.flood = hydrology::RoutingParams::Flood::kWhereNeeded;
  hydrology::RoutingScratch scratch;  // one routing's tables lent to the next
  for (int it = 0; it <= std::max(0, reroutings); ++it) {
    rp.receiver_jitter = it == 0 ? kNoiseJitter : s.p.receiver_jitter;
    hydrology::routeFlow(s.mesh, out.h, input.sea_level_m, rp, out.rt, scratch);
    drain(s, out.rt, out.net);
    const std::vector<uint8_t> endorheic = endorheicLakes(s, out.rt, out.net);
    steadyState(s, out.rt, endorheic, out.h, out.net);
    out.scale = scaleOf(s, out.net);
    // Kept lake floors stay as routed (the noise, or the coarse level's floor).
    forEach(out.rt.order.size(), [&](size_t i) {
      const uint32_t v = out.rt.order[i];
      if (!out.net.kept[i]) out.h[v] = float(double(out.net.base[i]) + out.scale * out.net.rise[i]);
    });
    out.routings += 1;
    out.endorheic_lakes = uint64_t(std::count(endorheic.begin(), endorheic.end(), 1));
  }
  return out;
}

// The relief of a coarser icosphere (a quarter of the frequency), as heights per vertex of s's
// mesh to route on first; empty when the mesh is too coarse for one. Coarse levels re-route
// often (they are cheap), so divides between catchments settle where the steady states of both
// sides meet (Tzathas et al. 2024 accelerate the same fixed point with a multigrid).
std::vector<float> coarseGuide(const Stage& s, int& routings) {
  const int coarse_frequency = s.mesh.frequency / 4;
  if (coarse_frequency < kCoarsestFrequency) return {};
  const geodesy::SphereMesh& fine = s.mesh;
  const geodesy::SphereMesh coarse = geodesy::buildIcosphere(coarse_frequency);
  // Coarse inputs: the fine values at the fine vertex nearest each coarse vertex. On a class I
  // icosphere of a quarter the frequency that is the fine vertex at the same point
  // (geodesy::sharedVertices, from the lattice); the point is located on the fine mesh only when
  // the two meshes' spacings differ (the same vertex when they agree: the largest weight of the
  // face holding it).
  const size_t nc = coarse.vertexCount();
  std::vector<uint32_t> nearest = geodesy::sharedVertices(coarse, fine);
  if (nearest.empty()) {
    nearest.resize(nc);
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, nc, 1024), [&](const tbb::blocked_range<size_t>& r) {
          uint32_t hint = 0;
          for (size_t c = r.begin(); c != r.end(); ++c) {
            const geodesy::SurfacePoint at = fine.locateFrom(hint, coarse.positions[c]);
            hint = at.face;
            const glm::vec3& b = at.bary;
            const int k = b.x >= b.y && b.x >= b.z ? 0 : (b.y >= b.z ? 1 : 2);
            nearest[c] = fine.indices[3 * size_t(at.face) + k];
          }
        });
  }
  std::vector<float> noise(nc), rain(s.in.rainfall.empty() ? 0 : nc),
      erodibility(s.in.erodibility.empty() ? 0 : nc), uplift(s.in.uplift.empty() ? 0 : nc);
  forEach(nc, [&](size_t c) {
    const uint32_t v = nearest[c];
    noise[c] = s.in.noise_m[v];
    if (!rain.empty()) rain[c] = s.in.rainfall[v];
    if (!erodibility.empty()) erodibility[c] = s.in.erodibility[v];
    if (!uplift.empty()) uplift[c] = s.in.uplift[v];
  });
  FluvialInput in = s.in;
  in.mesh = &coarse;
  in.noise_m = noise;
  in.rainfall = rain;
  in.erodibility = erodibility;
  in.uplift = uplift;
  Stage cs{coarse, in, s.p};
  setUp(cs);
  int coarse_routings = 0;
  const std::vector<float> guide = coarseGuide(cs, coarse_routings);
  Solved solved = solve(cs, guide, kCoarseReroutings);
  routings += coarse_routings + solved.routings;
  // Back onto the fine mesh: the coarse relief interpolated on its faces, the sea at its level.
  std::vector<float> ch = std::move(solved.h);
  for (float& x : ch) x = std::max(x, cs.sea);
  {
    std::vector<float> scratch;
    for (int k = 0; k < kCoarseSmoothPasses; ++k) smoothPass(coarse, ch, scratch);
  }
  // The warp: a random tangent vector per coarse vertex, smoothed once (component-wise).
  std::array<std::vector<float>, 3> warp;
  {
    const double amplitude = kGuideWarp * coarse.mean_edge_length;
    for (int c = 0; c < 3; ++c) warp[c].resize(nc);
    for (uint32_t c = 0; c < nc; ++c) {
      glm::dvec3 w;
      for (int k = 0; k < 3; ++k)
        w[k] = 2.0 * geodesy::unitFromHash(geodesy::hash3(s.in.seed ^ kWarpStream, c, k)) - 1.0;
      const glm::dvec3 normal(coarse.positions[c]);
      w = amplitude * (w - glm::dot(w, normal) * normal);
      for (int k = 0; k < 3; ++k) warp[k][c] = float(w[k]);
    }
    std::vector<float> scratch;
    for (int k = 0; k < 3; ++k) smoothPass(coarse, warp[k], scratch);
  }
  std::vector<float> out;
  geodesy::assignLarge(out, fine.vertexCount(), s.sea);
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, out.size(), 2048), [&](const tbb::blocked_range<size_t>& r) {
        uint32_t hint = 0;
        for (size_t v = r.begin(); v != r.end(); ++v) {
          if (!s.land[v]) continue;
          const geodesy::SurfacePoint at = coarse.locateFrom(hint, fine.positions[v]);
          const uint32_t* k = &coarse.indices[3 * size_t(at.face)];
          glm::vec3 moved = fine.positions[v];
          for (int c = 0; c < 3; ++c)
            moved[c] +=
                at.bary.x * warp[c][k[0]] + at.bary.y * warp[c][k[1]] + at.bary.z * warp[c][k[2]];
          const geodesy::SurfacePoint read = coarse.locateFrom(at.face, glm::normalize(moved));
          hint = read.face;
          const uint32_t* j = &coarse.indices[3 * size_t(read.face)];
          out[v] = read.bary.x * ch[j[0]] + read.bary.y * ch[j[1]] + read.bary.z * ch[j[2]];
        }
      });
  // The coarse facets are planes, and flow on a plane runs straight down the lattice: smoothed
  // into troughs, with the noise's detail on them, the first fine routing wanders within the
  // coarse valleys instead (straight runs on earthlike at f = 256: 34 % with the facets, 3 %).
  {
    std::vector<float> next;
    geodesy::copyLarge(next, out.begin(), out.end());
    for (int k = 0; k < kGuideSmoothPasses; ++k) smoothPass(fine, out, next, &s.land_list);
  }
  // Where the noise's detail is weak (lowlands), the smoothed coarse valleys still lead the
  // flow straight: a hash-drawn shake of up to kGuideShake / 2 times each vertex's steepest step
  // to a neighbour lets the first fine routing leave them (straight runs on earthlike: 6 %, 3 %).
  std::vector<float> shaken;
  geodesy::copyLarge(shaken, out.begin(), out.end());
  forEach(s.land_list.size(), [&](size_t i) {
    const uint32_t v = s.land_list[i];
    float relief = 0.0f;
    for (uint32_t j = fine.neighbour_offsets[v]; j < fine.neighbour_offsets[v + 1]; ++j)
      relief = std::max(relief, std::abs(out[fine.neighbours[j]] - out[v]));
    const double detail = double(s.in.noise_m[v]) - double(s.low_pass[v]);
    const double u = geodesy::unitFromHash(geodesy::hash3(s.in.seed ^ kShakeStream, v, 0));
    shaken[v] = float(double(out[v]) + detail + kGuideShake * (u - 0.5) * double(relief));
  });
  return shaken;
}

}  // namespace

FluvialStats erodeFluvial(const FluvialInput& input, const FluvialParams& params,
                          std::span<float> elevation_m) {
  const geodesy::SphereMesh& mesh = *input.mesh;
  const size_t n = mesh.vertexCount();
  Stage s{mesh, input, params};
  setUp(s);
  FluvialStats stats;
  // Nothing asks for relief (the land is at one height): it stays flat.
  const double fill_step_m =
      hydrology::fillStepM(mesh, input.radius_m, input.noise_m, input.sea_level_m);
  if (s.target_m <= 0.0 || fill_step_m <= 0.0) return stats;
  const std::vector<float> guide = coarseGuide(s, stats.routings);
  Solved solved = solve(s, guide, params.reroutings);
  stats.routings += solved.routings;
  stats.endorheic_lakes = solved.endorheic_lakes;
  std::vector<float>& h = solved.h;
  const hydrology::FlowRouting& rt = solved.rt;
  const Network& net = solved.net;
  const double scale = solved.scale;
  stats.uplift_over_erodibility = scale * std::pow(s.cell_m2, params.area_exponent);
  const double r2 = input.radius_m * input.radius_m;
  std::vector<uint8_t> kept;
  geodesy::assignLarge(kept, n, uint8_t(0));
  forEach(rt.order.size(), [&](size_t i) { kept[rt.order[i]] = net.kept[i]; });

  // Hillslopes: Jacobi passes of h <- ring mean + source, the discrete steady state of linear
  // diffusion d2h = -U / D between the channels (held), kept lakes and the sea (at its level).
  std::vector<uint32_t> hills;
  geodesy::reserveLarge(hills, rt.order.size());
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t i = net.place[v];
    if (i != kOffLand && !net.kept[i] && net.drained[i].cells < params.channel_cells)
      hills.push_back(v);
  }
  stats.hillslope_share = rt.order.empty() ? 0.0 : double(hills.size()) / rt.order.size();
  if (!hills.empty()) {
    std::vector<float> source;
    geodesy::resizeLarge(source, hills.size());
    forEach(hills.size(), [&](size_t i) {
      const uint32_t v = hills[i];
      source[i] = float(params.hillslope_curvature * scale * double(s.uplift[v]) * s.edge_m /
                        s.erodibility(v));
    });
    // The passes read the heights at or above the sea level: two copies of them, each pass
    // reading one and writing its hillslope vertices into the other; the last writes h.
    std::vector<float> read, write;
    geodesy::resizeLarge(read, n);
    geodesy::resizeLarge(write, n);
    forEach(n, [&](size_t v) { read[v] = write[v] = std::max(h[v], s.sea); });
    for (int pass = 0; pass < kHillslopePasses; ++pass) {
      const bool last = pass + 1 == kHillslopePasses;
      forEach(hills.size(), [&](size_t i) {
        const uint32_t v = hills[i];
        const double count = double(mesh.neighbour_offsets[v + 1] - mesh.neighbour_offsets[v]);
        const float x = float(ringSum(mesh, read.data(), v) / count) + source[i];
        if (last) {
          h[v] = x;
        } else {
          write[v] = std::max(x, s.sea);
        }
      });
      read.swap(write);
    }
  }
  // Talus: no flow path steeper than the talus angle (landslides), from the outlets upstream,
  // over the last routing's steps (their arcs as its steady state measured them).
  {
    const double limit = std::tan(params.talus_angle_deg * std::numbers::pi / 180.0);
    for (size_t i = 0; i < rt.order.size(); ++i) {
      const uint32_t v = rt.order[i], r = rt.receiver[v];
      if (r == v || net.kept[i]) continue;
      const double cap = double(std::max(h[r], s.sea)) + limit * net.arc_m[i];
      if (double(h[v]) > cap) {
        stats.talus_lowered_m3 += (double(h[v]) - cap) * mesh.vertex_areas[v] * r2;
        h[v] = float(cap);
      }
    }
  }
  // Texture: the noise's detail, in full on hillslopes that drain one cell, fading out at
  // channel_cells (log scale), none on channels and kept lakes. It does not take land to the sea.
  if (params.texture > 0.0 && params.channel_cells > 1.0) {
    const double fade = std::log(params.channel_cells);
    forEach(hills.size(), [&](size_t i) {
      const uint32_t v = hills[i];
      const double w = std::clamp(
          1.0 - std::log(std::max(1.0, net.drained[net.place[v]].cells)) / fade, 0.0, 1.0);
      const double detail = double(input.noise_m[v]) - double(s.low_pass[v]);
      h[v] = std::max(0.5f * (h[v] + s.sea), float(double(h[v]) + params.texture * w * detail));
    });
  }
  // Hillslopes and texture moved the highest point: the rise above each base level is scaled
  // once more so that it is the noise's highest again.
  {
    const double f = fitScale(
        rt.order.size(), net.kept, s.sea, s.target_m, 1.0,
        [&](size_t i) { return double(net.base[i]); },
        [&](size_t i) { return double(h[rt.order[i]]) - double(net.base[i]); });
    forEach(rt.order.size(), [&](size_t i) {
      if (net.kept[i]) return;
      const uint32_t v = rt.order[i];
      h[v] = float(double(net.base[i]) + f * (double(h[v]) - double(net.base[i])));
    });
  }
  forEach(s.land_list.size(), [&](size_t i) {
    const uint32_t v = s.land_list[i];
    h[v] = std::max(h[v], s.sea);
  });
  // The endorheic lakes stay; every other vertex the hillslopes, texture or talus left without
  // a falling path is raised above its receiver by an epsilon step. The last routing's receivers
  // still lead every vertex to the sea or a kept lake, so this needs no priority-flood (the
  // epsilon fill gives the same guarantee: tests/erosion/fluvial_test.cpp compares them).
  stats.filled_m3 =
      r2 * hydrology::drainAlongReceivers(mesh, rt, h, input.sea_level_m, kept, fill_step_m);
  for (size_t v = 0; v < n; ++v) {
    if (!s.land[v]) continue;
    stats.relief_change_m3 +=
        (double(h[v]) - double(input.noise_m[v])) * double(mesh.vertex_areas[v]) * r2;
    elevation_m[v] = h[v];
  }
  return stats;
}

}  // namespace erosion
