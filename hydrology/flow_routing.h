#pragma once
// Where water goes on the mesh: one receiver per land vertex, an order from the outlets
// upstream, and the lakes of the closed depressions. Stands on geodesy alone and takes plain
// per-vertex arrays, so erosion, export (rivers) and the metrics share one routing.
//
// Method: a priority-flood (Barnes, Lehman & Mulla 2014; rising slopes visited breadth-first
// off the heap as in Zhou, Sun & Fu 2016) from the coast over the land gives every land vertex
// its water-surface level (the level a closed depression fills to before it spills). A vertex
// drains by steepest descent (metric slopes, a small per-vertex hash perturbation so channels
// do not follow the lattice's six directions) to a lower neighbour whose water level is lower
// (or equal and reached first by the flood), so no cycle can form; a vertex inside a lake or
// on a flat drains along the flood's path towards the spill point. Every depression is
// therefore crossed, as in the lake routing of Cordonnier, Bovy & Braun 2019, and the filled
// part of each is reported as a lake. The order is then rebuilt breadth-first from the outlets
// over the receivers (the stack order of Braun & Willett 2013).

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "geodesy/sphere_mesh.h"

namespace hydrology {

constexpr uint32_t kNoLake = std::numeric_limits<uint32_t>::max();

struct RoutingParams {
  // Relative perturbation of the slopes compared when choosing a receiver, in [0, 1): the
  // steepest lower neighbour wins unless another is within this fraction of its slope.
  double receiver_jitter = 0.3;
  uint64_t seed = 0;  // for the jitter (geodesy::hash3 of seed, vertex, neighbour)
  // Paths across lakes: false = the flood's breadth-first order (straight rays from the outlet
  // along the lattice), true = a random tree grown from the outlet (seeded by seed).
  bool random_lake_paths = false;
  // How the flood runs. kWhole: over all the land, the order from the outlets in the flood's
  // order. kCanonical: the same flood, the outlets and each vertex's donors in vertex order and
  // the lakes summed in vertex order (the routing depends on the receivers alone).
  // kWhereNeeded: as kCanonical bit for bit, but steepest descent wherever a strictly lower
  // neighbour leads on and the flood over only the land whose descent ends in a pit (the whole
  // flood when there is no sea, when two land neighbours equally high touch that land where the
  // flood's order among equal levels could show (at a lake's level, on a flat), or when heights
  // with ties have more than half the land in that region).
  enum class Flood { kWhole, kCanonical, kWhereNeeded };
  Flood flood = Flood::kWhole;
};

// A closed depression of the land, filled to its spill level.
struct Lake {
  float level_m = 0.0f;       // water surface: the spill level of the depression
  uint32_t outlet = 0;        // vertex the lake spills to (land or sea)
  uint32_t lowest = 0;        // deepest vertex
  uint32_t vertex_count = 0;  // vertices under the water surface
  double area_sr = 0.0;       // dual area of those vertices on the unit sphere
  double volume_m_sr = 0.0;   // sum of depth * dual area (m * sr; times radius^2 for m^3)
  double max_depth_m = 0.0;
};

struct FlowRouting {
  // receiver[v]: where v drains. Sea vertices (elevation < sea level) are outlets and drain to
  // themselves; so does the lowest land vertex of a planet with no sea.
  std::vector<uint32_t> receiver;
  // Land vertices from the outlets upstream: every vertex comes after its receiver. Sea
  // vertices are not listed.
  std::vector<uint32_t> order;
  // Water surface: elevation_m, raised to the lake level inside lakes (sea vertices: their
  // elevation).
  std::vector<float> water_level_m;
  std::vector<uint32_t> lake_of;  // per vertex: index into lakes, or kNoLake
  std::vector<Lake> lakes;        // in order of discovery (lowest spill level first)
  size_t land_vertices = 0;
};

// Routes the land (elevation_m >= sea_level_m) of mesh. elevation_m has one value per vertex.
// Serial priority-flood (O(L log L) for L land vertices, fewer heap operations on rising land),
// a parallel receiver choice in the caller's oneTBB arena, then a serial O(n) ordering (the
// outlets and each vertex's donors in vertex order); on heights that mostly drain as they lie
// (params.flood = kWhereNeeded) the flood covers only the basins of their pits. The
// result is identical for any thread count.
FlowRouting routeFlow(const geodesy::SphereMesh& mesh, std::span<const float> elevation_m,
                      double sea_level_m, const RoutingParams& params = {});

// Per-vertex tables routeFlow works in (its flood's and its ordering's), kept by a caller that
// routes the same mesh again and again, so that each routing neither maps nor zeroes fresh
// memory (at f = 512 a fresh table's page faults and zeroing cost more than filling it). What
// they hold between calls means nothing.
struct RoutingScratch {
  std::vector<uint32_t> parent, rank, surface, first, next, listed, redo, chosen;
  std::vector<uint8_t> seen, land, region, land_near;
};

// routing = routeFlow(mesh, elevation_m, sea_level_m, params), bit for bit, into routing's
// tables and scratch's (their old contents are replaced; their memory is reused).
void routeFlow(const geodesy::SphereMesh& mesh, std::span<const float> elevation_m,
               double sea_level_m, const RoutingParams& params, FlowRouting& routing,
               RoutingScratch& scratch);

// Sums a per-vertex quantity downstream: total[v] = local[v] + the totals of every vertex that
// drains to v, over land (sea vertices keep local[v] plus what reaches them). With local =
// dual area this is the drainage area; with rain x area, the discharge. Serial, in reverse
// routing order (deterministic).
std::vector<double> accumulate(const FlowRouting& routing, std::span<const double> local);

// Raises every closed depression of fewer than max_vertices vertices to its spill level (the
// sediment that fills the small pits droplets leave). Larger depressions stay: they are lakes.
// Returns the volume added in m * sr (times radius^2 for m^3).
double fillSmallDepressions(const geodesy::SphereMesh& mesh, std::span<float> elevation_m,
                            double sea_level_m, uint32_t max_vertices);

// Priority-flood with an epsilon gradient (Barnes, Lehman & Mulla 2014, "Priority-flood:
// an optimal depression-filling and watershed-labeling algorithm", algorithm 3): raises every
// land vertex that has no path of strictly falling heights to the sea or to a kept lake by the
// least that gives it one, so steepest descent leaves every other depression and flat. Kept:
// the closed depressions of at least keep_vertices vertices (0: none) that hold a vertex
// flagged in `keep` (one flag per vertex), or any such depression when `keep` is empty; their
// vertices stay below their spill level (lakes). Each raised vertex ends at least step_m above the
// one it drains to (0: one float step). Returns the volume added in m * sr. Serial, O(L) over the
// L land vertices.
double fillDepressionsEpsilon(const geodesy::SphereMesh& mesh, std::span<float> elevation_m,
                              double sea_level_m, uint32_t keep_vertices,
                              std::span<const uint8_t> keep = {}, double step_m = 0.0);

// The same guarantee as fillDepressionsEpsilon for heights that routing (made on earlier
// heights of the same land) still describes: in routing order, from the outlets upstream, a land
// vertex that is not kept (`keep`, one flag per vertex; empty: none) and has no strictly lower
// neighbour among the vertices already passed (the sea, kept vertices, earlier ones in the order)
// is raised to 1-2 times step_m above its receiver (by a hash of the vertex, as the fill's steps).
// Afterwards every land vertex outside the kept ones has a strictly falling path to the sea or a
// kept vertex. Unlike the fill it does not follow depressions to their spill level: a vertex is
// raised only as far as its own receiver needs, and heights that already drain are untouched.
// Returns the volume added in m * sr. Serial, O(L) over the L land vertices of routing.
double drainAlongReceivers(const geodesy::SphereMesh& mesh, const FlowRouting& routing,
                           std::span<float> elevation_m, double sea_level_m,
                           std::span<const uint8_t> keep = {}, double step_m = 0.0);

// The step fillDepressionsEpsilon's callers in this project give filled flats: the mean vertex
// spacing on mesh at radius_m times kFillSlope (a filled flat slopes like a large lowland river,
// not the 1e-9 of one float step, which a slope-area fit reads as a gorge), but at most
// kFillReliefShare of the land's relief in elevation_m (its highest minus its lowest vertex,
// land: >= sea_level_m), so that on a huge planet of little relief the steps stay small beside it.
constexpr double kFillSlope = 1e-6;
constexpr double kFillReliefShare = 1e-5;
double fillStepM(const geodesy::SphereMesh& mesh, double radius_m,
                 std::span<const float> elevation_m, double sea_level_m = 0.0);

// Arc length (radians on the unit sphere) from every vertex to its receiver; 0 for outlets.
std::vector<float> receiverDistance(const geodesy::SphereMesh& mesh, const FlowRouting& routing);

}  // namespace hydrology
