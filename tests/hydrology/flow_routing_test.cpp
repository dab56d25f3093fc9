// Flow routing (hydrology/flow_routing.h): receivers, order, lakes, the epsilon fill.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include <tbb/global_control.h>
#include <catch2/catch.hpp>
#include <glm/geometric.hpp>

#include "geodesy/sphere_mesh.h"
#include "hydrology/flow_routing.h"
#include "support/relief_planets.h"

using relief_fixtures::roughPlanet;

namespace {

// The land neighbour (h >= 0) of v that is lowest (sign 1) or highest (sign -1), the first of
// equals; v when it has none.
uint32_t extremeLandNeighbour(const geodesy::SphereMesh& mesh, const std::vector<float>& h,
                              uint32_t v, float sign) {
  uint32_t best = v;
  for (uint32_t k = mesh.neighbour_offsets[v]; k < mesh.neighbour_offsets[v + 1]; ++k) {
    const uint32_t m = mesh.neighbours[k];
    if (h[m] >= 0.0f && (best == v || sign * h[m] < sign * h[best])) best = m;
  }
  return best;
}

}  // namespace

TEST_CASE("routing: every land vertex drains to the sea through a topological order",
          "[hydrology]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32);
  const std::vector<float> h = roughPlanet(mesh);
  hydrology::RoutingParams rp;
  rp.seed = 3;
  const hydrology::FlowRouting routing = hydrology::routeFlow(mesh, h, 0.0, rp);
  std::vector<size_t> position(mesh.vertexCount(), SIZE_MAX);
  for (size_t i = 0; i < routing.order.size(); ++i) position[routing.order[i]] = i;
  size_t land = 0;
  for (size_t v = 0; v < h.size(); ++v) land += h[v] >= 0.0f;
  CHECK(routing.order.size() == land);
  bool topological = true, drains = true, levels = true, downhill = true;
  for (uint32_t v : routing.order) {
    const uint32_t r = routing.receiver[v];
    // Receivers never go uphill: outside lakes on the heights, and everywhere on the water
    // surface (a lake's vertices lead to its spill point).
    const float water_r = h[r] < 0.0f ? 0.0f : routing.water_level_m[r];
    downhill &= water_r <= routing.water_level_m[v];
    if (routing.lake_of[v] == hydrology::kNoLake) downhill &= h[r] <= h[v];
    topological &= r != v && (h[r] < 0.0f || position[r] < position[v]);
    uint32_t w = v;
    for (size_t steps = 0; steps <= land && h[w] >= 0.0f; ++steps) w = routing.receiver[w];
    drains &= h[w] < 0.0f;
    levels &= routing.water_level_m[v] >= h[v];
    if (routing.lake_of[v] != hydrology::kNoLake)
      levels &= routing.water_level_m[v] == routing.lakes[routing.lake_of[v]].level_m;
  }
  CHECK(topological);
  CHECK(drains);
  CHECK(levels);
  CHECK(downhill);
  CHECK(!routing.lakes.empty());  // the rough planet has closed depressions
  // Drainage area: what reaches the sea is all the land.
  std::vector<double> area(mesh.vertexCount(), 0.0);
  double land_area = 0.0;
  for (uint32_t v : routing.order) area[v] = mesh.vertex_areas[v], land_area += area[v];
  const std::vector<double> total = hydrology::accumulate(routing, area);
  double at_sea = 0.0;
  for (size_t v = 0; v < h.size(); ++v)
    if (h[v] < 0.0f) at_sea += total[v];
  CHECK(at_sea == Approx(land_area).epsilon(1e-9));
}

TEST_CASE("routing: without sea the lowest vertex is the outlet and comes first, in every mode",
          "[hydrology]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32);
  std::vector<float> h = roughPlanet(mesh);
  const double sea = -1e6;  // all land
  // The lowest vertex the last one, so that the vertices draining to it have lower indices.
  const uint32_t lowest = uint32_t(mesh.vertexCount() - 1);
  h[lowest] = *std::min_element(h.begin(), h.end()) - 100.0f;
  using Flood = hydrology::RoutingParams::Flood;
  for (const Flood mode : {Flood::kWhole, Flood::kCanonical, Flood::kWhereNeeded}) {
    INFO("mode " << int(mode));
    hydrology::RoutingParams rp;
    rp.seed = 3;
    rp.flood = mode;
    const hydrology::FlowRouting routing = hydrology::routeFlow(mesh, h, sea, rp);
    REQUIRE(routing.order.size() == mesh.vertexCount());
    CHECK(routing.order[0] == lowest);
    CHECK(routing.receiver[lowest] == lowest);
    // Every vertex after its receiver (the order the stages sum heights and areas in).
    std::vector<size_t> position(mesh.vertexCount(), SIZE_MAX);
    for (size_t i = 0; i < routing.order.size(); ++i) position[routing.order[i]] = i;
    size_t before_receiver = 0;
    for (uint32_t v : routing.order) {
      const uint32_t r = routing.receiver[v];
      before_receiver += r != v && position[r] > position[v];
    }
    CHECK(before_receiver == 0);
  }
}

TEST_CASE("routing: a hand-made pit is a lake that spills at its rim", "[hydrology]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(16);
  // A cone rising from the south pole sea to the north pole, with one vertex dug 50 m below
  // all its neighbours.
  std::vector<float> h = relief_fixtures::conePlanet(mesh);
  uint32_t pit = 0;
  for (uint32_t v = 0; v < h.size(); ++v)
    if (std::abs(mesh.positions[v].y - 0.5f) < std::abs(mesh.positions[pit].y - 0.5f)) pit = v;
  float rim = std::numeric_limits<float>::max();
  for (uint32_t k = mesh.neighbour_offsets[pit]; k < mesh.neighbour_offsets[pit + 1]; ++k)
    rim = std::min(rim, h[mesh.neighbours[k]]);
  h[pit] = rim - 50.0f;
  const hydrology::FlowRouting routing = hydrology::routeFlow(mesh, h, 0.0);
  REQUIRE(routing.lake_of[pit] != hydrology::kNoLake);
  const hydrology::Lake& lake = routing.lakes[routing.lake_of[pit]];
  CHECK(lake.level_m == rim);
  CHECK(lake.vertex_count == 1);
  CHECK(lake.max_depth_m == Approx(50.0));
  CHECK(h[lake.outlet] == rim);
  CHECK(routing.receiver[pit] == lake.outlet);
  // Filling small depressions raises the pit to its spill level and nothing else.
  std::vector<float> filled = h;
  const double added = hydrology::fillSmallDepressions(mesh, filled, 0.0, 3);
  CHECK(filled[pit] == rim);
  CHECK(added == Approx(50.0 * mesh.vertex_areas[pit]).epsilon(1e-5));
  for (size_t v = 0; v < h.size(); ++v)
    if (v != pit) CHECK(filled[v] == h[v]);
}

namespace {

// Whether v has a strictly lower neighbour in h.
bool hasLowerNeighbour(const geodesy::SphereMesh& mesh, const std::vector<float>& h, uint32_t v) {
  for (uint32_t k = mesh.neighbour_offsets[v]; k < mesh.neighbour_offsets[v + 1]; ++k)
    if (h[mesh.neighbours[k]] < h[v]) return true;
  return false;
}

// Every land vertex outside the lakes of `routing` (of at least min_lake vertices) has a
// strictly lower neighbour.
bool everyVertexFalls(const geodesy::SphereMesh& mesh, const std::vector<float>& h,
                      const hydrology::FlowRouting& routing, uint32_t min_lake) {
  for (uint32_t v : routing.order) {
    const uint32_t l = routing.lake_of[v];
    if (l != hydrology::kNoLake && routing.lakes[l].vertex_count >= min_lake) continue;
    if (!hasLowerNeighbour(mesh, h, v)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("routing: the epsilon fill leaves every vertex a lower neighbour but in kept lakes",
          "[hydrology]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32);
  const std::vector<float> before = roughPlanet(mesh);
  const hydrology::FlowRouting lakes_before = hydrology::routeFlow(mesh, before, 0.0);
  REQUIRE(!everyVertexFalls(mesh, before, lakes_before, 1));  // it has pits
  size_t big = 0;
  for (const hydrology::Lake& l : lakes_before.lakes) big += l.vertex_count >= 3;
  REQUIRE(big > 0);
  // Everything filled (no lake kept): every land vertex falls, nothing was lowered, and a
  // raised vertex stands at least the step above its lowest neighbour (1 to 2 steps).
  std::vector<float> all = before;
  const double step = 0.5;
  const double added = hydrology::fillDepressionsEpsilon(mesh, all, 0.0, 0, {}, step);
  CHECK(added > 0.0);
  const hydrology::FlowRouting after_all = hydrology::routeFlow(mesh, all, 0.0);
  CHECK(after_all.lakes.empty());
  CHECK(everyVertexFalls(mesh, all, after_all, 1));
  bool never_lower = true, steps_kept = true;
  for (size_t v = 0; v < all.size(); ++v) {
    never_lower &= all[v] >= before[v];
    if (all[v] == before[v]) continue;
    float lowest = std::numeric_limits<float>::max();
    for (uint32_t k = mesh.neighbour_offsets[v]; k < mesh.neighbour_offsets[v + 1]; ++k)
      lowest = std::min(lowest, std::max(all[mesh.neighbours[k]], 0.0f));
    steps_kept &= double(all[v]) - double(lowest) >= step * (1.0 - 1e-6);
  }
  CHECK(never_lower);
  CHECK(steps_kept);
  // Lakes of 3 or more vertices kept: they are still there, with the same vertices, and every
  // other land vertex falls.
  std::vector<float> kept = before;
  hydrology::fillDepressionsEpsilon(mesh, kept, 0.0, 3);
  const hydrology::FlowRouting after_kept = hydrology::routeFlow(mesh, kept, 0.0);
  CHECK(everyVertexFalls(mesh, kept, after_kept, 3));
  size_t kept_big = 0;
  for (const hydrology::Lake& l : after_kept.lakes) kept_big += l.vertex_count >= 3;
  CHECK(kept_big == big);
  for (uint32_t v : lakes_before.order) {
    const uint32_t l = lakes_before.lake_of[v];
    if (l != hydrology::kNoLake && lakes_before.lakes[l].vertex_count >= 3)
      CHECK(kept[v] == before[v]);
  }
}

TEST_CASE("routing: raising along the receivers drains every vertex but the kept ones",
          "[hydrology]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32);
  const std::vector<float> before = roughPlanet(mesh);
  const hydrology::FlowRouting routing = hydrology::routeFlow(mesh, before, 0.0);
  REQUIRE(!everyVertexFalls(mesh, before, routing, 1));  // it has pits
  // Nothing kept: every land vertex falls, nothing was lowered, a raised vertex stands 1 to 2
  // steps above its receiver.
  std::vector<float> all = before;
  const double step = 0.5;
  CHECK(hydrology::drainAlongReceivers(mesh, routing, all, 0.0, {}, step) > 0.0);
  const hydrology::FlowRouting after_all = hydrology::routeFlow(mesh, all, 0.0);
  CHECK(after_all.lakes.empty());
  CHECK(everyVertexFalls(mesh, all, after_all, 1));
  bool never_lower = true, steps_kept = true;
  for (size_t v = 0; v < all.size(); ++v) {
    never_lower &= all[v] >= before[v];
    if (all[v] == before[v]) continue;
    const double above = double(all[v]) - double(all[routing.receiver[v]]);
    steps_kept &= above >= step * (1.0 - 1e-6) && above <= 2.0 * step * (1.0 + 1e-6);
  }
  CHECK(never_lower);
  CHECK(steps_kept);
  // The lakes of 3 or more vertices kept: their vertices stay, every other land vertex has a
  // strictly lower neighbour.
  std::vector<uint8_t> keep(mesh.vertexCount(), 0);
  size_t kept_vertices = 0;
  for (uint32_t v : routing.order) {
    const uint32_t l = routing.lake_of[v];
    keep[v] = l != hydrology::kNoLake && routing.lakes[l].vertex_count >= 3;
    kept_vertices += keep[v];
  }
  REQUIRE(kept_vertices > 0);
  std::vector<float> kept = before;
  hydrology::drainAlongReceivers(mesh, routing, kept, 0.0, keep, step);
  bool stay = true, falls = true;
  for (uint32_t v : routing.order) {
    if (keep[v]) {
      stay &= kept[v] == before[v];
      continue;
    }
    falls &= hasLowerNeighbour(mesh, kept, v);
  }
  CHECK(stay);
  CHECK(falls);
}

TEST_CASE("routing: a lake whose spill point touches it twice is one lake", "[hydrology]") {
  // On a cone, c drains downhill; two of its uphill neighbours a and b (not neighbours of each
  // other) are dug below it and walled in, so both spill through c: one lake of two vertices.
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(16);
  std::vector<float> h = relief_fixtures::conePlanet(mesh);
  uint32_t c = 0;
  for (uint32_t v = 0; v < h.size(); ++v)
    if (std::abs(mesh.positions[v].y - 0.3f) < std::abs(mesh.positions[c].y - 0.3f) &&
        mesh.neighbour_offsets[v + 1] - mesh.neighbour_offsets[v] == 6)
      c = v;
  const uint32_t* ring = &mesh.neighbours[mesh.neighbour_offsets[c]];
  int top = 0;
  for (int k = 1; k < 6; ++k)
    if (h[ring[k]] > h[ring[top]]) top = k;
  const uint32_t a = ring[top], b = ring[(top + 2) % 6];
  const float level = h[c];
  std::set<uint32_t> wall;
  for (uint32_t p : {a, b})
    for (uint32_t k = mesh.neighbour_offsets[p]; k < mesh.neighbour_offsets[p + 1]; ++k)
      if (mesh.neighbours[k] != c && mesh.neighbours[k] != a && mesh.neighbours[k] != b)
        wall.insert(mesh.neighbours[k]);
  for (uint32_t w : wall) h[w] = std::max(h[w], level + 20.0f);
  h[a] = level - 10.0f;
  h[b] = level - 15.0f;
  const hydrology::FlowRouting routing = hydrology::routeFlow(mesh, h, 0.0);
  REQUIRE(routing.lake_of[a] != hydrology::kNoLake);
  CHECK(routing.lake_of[a] == routing.lake_of[b]);
  const hydrology::Lake& lake = routing.lakes[routing.lake_of[a]];
  CHECK(lake.vertex_count == 2);
  CHECK(lake.level_m == level);
  CHECK(lake.outlet == c);
  CHECK(lake.max_depth_m == Approx(15.0));
}

TEST_CASE("routing: random paths across lakes route as well, and by the seed only", "[hydrology]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32);
  const std::vector<float> h = roughPlanet(mesh);
  hydrology::RoutingParams plain, random;
  random.random_lake_paths = true;
  random.seed = 5;
  const hydrology::FlowRouting a = hydrology::routeFlow(mesh, h, 0.0, plain);
  const hydrology::FlowRouting b = hydrology::routeFlow(mesh, h, 0.0, random);
  const hydrology::FlowRouting again = hydrology::routeFlow(mesh, h, 0.0, random);
  // The same lakes and water levels: only the paths inside the lakes differ.
  CHECK(a.water_level_m == b.water_level_m);
  REQUIRE(a.lakes.size() == b.lakes.size());
  bool same_lake_vertices = true;
  for (size_t v = 0; v < h.size(); ++v)
    same_lake_vertices &=
        (a.lake_of[v] == hydrology::kNoLake) == (b.lake_of[v] == hydrology::kNoLake);
  CHECK(same_lake_vertices);
  CHECK(b.receiver == again.receiver);
  size_t differ = 0;
  std::vector<size_t> position(mesh.vertexCount(), SIZE_MAX);
  for (size_t i = 0; i < b.order.size(); ++i) position[b.order[i]] = i;
  bool topological = true;
  for (uint32_t v : b.order) {
    const uint32_t r = b.receiver[v];
    topological &= r != v && (h[r] < 0.0f || position[r] < position[v]);
    differ += b.receiver[v] != a.receiver[v];
  }
  CHECK(topological);
  CHECK(differ > 0);
}

namespace {

// Every table and every lake figure of a and b, equal bit for bit.
void checkSameRouting(const hydrology::FlowRouting& a, const hydrology::FlowRouting& b) {
  CHECK(a.receiver == b.receiver);
  CHECK(a.order == b.order);
  CHECK(a.water_level_m == b.water_level_m);
  CHECK(a.lake_of == b.lake_of);
  CHECK(a.land_vertices == b.land_vertices);
  REQUIRE(a.lakes.size() == b.lakes.size());
  bool same_lakes = true;
  for (size_t l = 0; l < a.lakes.size(); ++l) {
    const hydrology::Lake &x = a.lakes[l], &y = b.lakes[l];
    same_lakes &= x.level_m == y.level_m && x.outlet == y.outlet && x.lowest == y.lowest &&
                  x.vertex_count == y.vertex_count && x.area_sr == y.area_sr &&
                  x.volume_m_sr == y.volume_m_sr && x.max_depth_m == y.max_depth_m;
  }
  CHECK(same_lakes);
}

}  // namespace

TEST_CASE("routing: without the whole flood where the land drains as it lies, bit for bit",
          "[hydrology]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32);
  // A little of each vertex's own (no two neighbours equally high, unlike the mirror-symmetric
  // dome and the rough planet's shore clamped at 1 m).
  const auto untied = [&](std::vector<float> h) {
    for (uint32_t v = 0; v < h.size(); ++v)
      if (h[v] >= 0.0f) h[v] += 0.001f * float((v * 2654435761u >> 16) % 1000);
    return h;
  };
  // The rough planet has pits and lakes: the flood over its depressions only. Raised along its
  // receivers it drains as it lies (the steady state's case): no flood. With lakes kept it has
  // both. The rough planet as it is has ties: the whole flood.
  std::vector<float> rough = untied(roughPlanet(mesh));
  const hydrology::FlowRouting first = hydrology::routeFlow(mesh, rough, 0.0);
  std::vector<uint8_t> keep(mesh.vertexCount(), 0);
  for (uint32_t v : first.order)
    keep[v] =
        first.lake_of[v] != hydrology::kNoLake && first.lakes[first.lake_of[v]].vertex_count >= 3;
  std::vector<float> drained = rough, kept = rough;
  hydrology::drainAlongReceivers(mesh, first, drained, 0.0, {}, 0.5);
  hydrology::drainAlongReceivers(mesh, first, kept, 0.0, keep, 0.5);
  std::vector<float> tied = roughPlanet(mesh);
  // Ties put into the drained heights: every 23rd land vertex raised to its highest land
  // neighbour (ledges: the vertices that drained through it become pits, with lakes) or lowered
  // to its lowest (every 23rd, alternately; every 61st all lowered: flats of two, pits with one
  // way in). The region's flood takes both (under half the land in its region, ties at it whose
  // routing the order does not show); the rough planet's own ties take the whole flood.
  const auto withTies = [&](std::vector<float> h, uint32_t every, bool raise) {
    for (uint32_t v = 0; v < h.size(); v += every) {
      if (h[v] < 0.0f) continue;
      const uint32_t lowest = extremeLandNeighbour(mesh, h, v, 1.0f);
      const uint32_t highest = extremeLandNeighbour(mesh, h, v, -1.0f);
      if (lowest != v) h[v] = raise && (v / every) % 2 ? h[highest] : h[lowest];
    }
    return h;
  };
  std::vector<float> ledges = withTies(drained, 23, true), flats = withTies(drained, 61, false);
  for (const std::vector<float>* h : {&rough, &drained, &kept, &tied, &ledges, &flats}) {
    for (bool random_lakes : {false, true}) {
      hydrology::RoutingParams fast, flood;
      fast.seed = flood.seed = 7;
      fast.receiver_jitter = flood.receiver_jitter = 0.9;
      fast.random_lake_paths = flood.random_lake_paths = random_lakes;
      fast.flood = hydrology::RoutingParams::Flood::kWhereNeeded;
      flood.flood = hydrology::RoutingParams::Flood::kCanonical;
      const hydrology::FlowRouting a = hydrology::routeFlow(mesh, *h, 0.0, fast);
      const hydrology::FlowRouting b = hydrology::routeFlow(mesh, *h, 0.0, flood);
      checkSameRouting(a, b);
      // Flats of two are no lakes: nothing stands under the water.
      CHECK(b.lakes.empty() == (h == &drained || h == &flats));
    }
  }
}

TEST_CASE("routing: where needed, with ties, the same routing at 1, 2 and 4 threads",
          "[hydrology]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32);
  // Heights with pits and with ties: every 11th land vertex lowered to its lowest land neighbour
  // (the ties' checks run in parallel, and so do the descent and the receivers).
  std::vector<float> h = roughPlanet(mesh);
  for (uint32_t v = 0; v < h.size(); ++v)
    if (h[v] >= 0.0f) h[v] += 0.001f * float((v * 2654435761u >> 16) % 1000);
  for (uint32_t v = 0; v < h.size(); v += 11) {
    if (h[v] < 0.0f) continue;
    h[v] = std::min(h[v], h[extremeLandNeighbour(mesh, h, v, 1.0f)]);
  }
  hydrology::RoutingParams p;
  p.seed = 7;
  p.receiver_jitter = 0.9;
  p.random_lake_paths = true;
  p.flood = hydrology::RoutingParams::Flood::kWhereNeeded;
  std::vector<hydrology::FlowRouting> runs;
  for (int threads : {1, 2, 4}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    runs.push_back(hydrology::routeFlow(mesh, h, 0.0, p));
  }
  checkSameRouting(runs[0], runs[1]);
  checkSameRouting(runs[0], runs[2]);
  p.flood = hydrology::RoutingParams::Flood::kCanonical;
  checkSameRouting(runs[0], hydrology::routeFlow(mesh, h, 0.0, p));
}

TEST_CASE("routing: tables reused from one routing to the next give a fresh routing's bits",
          "[hydrology]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32), small = geodesy::buildIcosphere(8);
  // Heights with pits and lakes (the region flood), without (no flood), with ties (the whole
  // flood), in turn, so every table is left behind by a routing of another kind.
  std::vector<float> tied = roughPlanet(mesh), rough = tied;
  for (uint32_t v = 0; v < rough.size(); ++v)
    if (rough[v] >= 0.0f) rough[v] += 0.001f * float((v * 2654435761u >> 16) % 1000);
  std::vector<float> drained = rough;
  hydrology::drainAlongReceivers(mesh, hydrology::routeFlow(mesh, rough, 0.0), drained, 0.0, {},
                                 0.5);
  const std::vector<float> small_rough = roughPlanet(small);
  struct Case {
    const geodesy::SphereMesh* mesh;
    const std::vector<float>* h;
    hydrology::RoutingParams::Flood flood;
    bool random_lakes;
  };
  using F = hydrology::RoutingParams::Flood;
  const Case cases[] = {
      {&mesh, &rough, F::kWhereNeeded, true},   {&mesh, &drained, F::kWhereNeeded, true},
      {&mesh, &tied, F::kWhereNeeded, false},   {&mesh, &rough, F::kWhereNeeded, false},
      {&mesh, &rough, F::kWhole, true},         {&mesh, &drained, F::kCanonical, false},
      {&small, &small_rough, F::kWhole, false}, {&mesh, &rough, F::kWhereNeeded, true}};
  hydrology::FlowRouting reused;
  hydrology::RoutingScratch scratch;
  for (const Case& c : cases) {
    hydrology::RoutingParams p;
    p.seed = 7;
    p.receiver_jitter = 0.9;
    p.random_lake_paths = c.random_lakes;
    p.flood = c.flood;
    hydrology::routeFlow(*c.mesh, *c.h, 0.0, p, reused, scratch);
    checkSameRouting(reused, hydrology::routeFlow(*c.mesh, *c.h, 0.0, p));
  }
  CHECK_FALSE(reused.lakes.empty());  // the last case has lakes: the comparison saw some
}
