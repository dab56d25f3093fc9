#pragma once
// Rivers and lakes as data: polylines from each river's source to where it ends (the sea, a
// lake or the river it joins) and lake outlines and water-surface meshes, extracted from a
// flow routing (flow_routing.h). Stands on geodesy and flow_routing alone and takes plain
// per-vertex arrays. Design notes: docs/rivers.md.
//
// The surface every point lies on ("surface elevation") is the mesh's elevations interpolated
// over its flat triangles (barycentric, SphereMesh::locate), with the small depressions the
// routing crosses but does not report as lakes filled to their spill level (surfaceOf below).
// Along a receiver edge this surface never rises, so a river that follows its channel vertices
// flows downhill exactly; smoothing keeps that (see RiverParams::subdivisions).

#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "geodesy/sphere_mesh.h"
#include "hydrology/flow_routing.h"

namespace hydrology {

struct RiverParams {
  // A vertex is on a river when its discharge is at least this (m^3/s). 0 is not allowed.
  double min_discharge_m3_s = 1.0;
  // Hydraulic geometry: width_m = width_coefficient * discharge_m3_s ^ 0.5. The exponent 0.5 is
  // Leopold & Maddock's (1953) downstream relation; the coefficient (s^0.5 m^-0.5) varies
  // between rivers, 2.5-7 in published fits to mean annual discharge; 4 is a middle value.
  double width_coefficient = 4.0;
  // Points per mesh edge after smoothing (1 = the channel vertices only). Each edge is bent
  // toward a centripetal Catmull-Rom spline through the vertices (Yuksel et al. 2011) as far
  // as the surface stays downhill along it (halving the bend down to the straight edge).
  int subdivisions = 4;
  // Depressions of fewer vertices are crossed as filled pits, not reported as lakes.
  uint32_t min_lake_vertices = 3;
};

// Where a river ends.
enum class RiverEnd : uint8_t {
  kSea,    // at the coast: the last point is where the mesh crosses sea level
  kLake,   // at a lake's shore (into = lake index in RiverNetwork::lakes)
  kRiver,  // at a point of another river (into = river index)
  kSink,   // at the lowest vertex of a planet without sea
};

struct RiverPoint {
  glm::dvec3 position_m{0.0};  // planet-centred, metres, the frame of sphere_mesh.h (+Y north)
  double lat_deg = 0.0;
  double lon_deg = 0.0;      // (-180, 180]
  double elevation_m = 0.0;  // surface elevation (see above)
  double discharge_m3_s = 0.0;
  double width_m = 0.0;
};

struct River {
  std::vector<RiverPoint> points;  // source to mouth, at least 2
  std::vector<uint32_t> vertices;  // the channel vertices it follows, source to mouth
  int strahler = 1;                // Strahler order at its mouth
  double length_m = 0.0;           // along the points (straight segments)
  RiverEnd end = RiverEnd::kSea;
  uint32_t into = 0;               // lake or river index (kLake, kRiver)
  uint32_t source_lake = kNoLake;  // the lake it drains, if it starts at a lake outlet
};

struct LakeShape {
  uint32_t routing_lake = 0;  // index into FlowRouting::lakes
  double level_m = 0.0;
  double area_m2 = 0.0;
  double volume_m3 = 0.0;
  double max_depth_m = 0.0;
  bool endorheic = false;            // no outflow: evaporation takes what its catchment brings
  uint32_t outlet_vertex = 0;        // where it spills (kept for endorheic lakes too)
  uint32_t outflow_river = kNoLake;  // river index that starts at it, if any
  // Shoreline rings as unit directions, counter-clockwise seen from outside the sphere for
  // outer rings and clockwise for holes (islands); first point not repeated.
  std::vector<std::vector<glm::dvec3>> rings;
  // Water surface at level_m over the lake, clipped at the shoreline: planet-centred metres,
  // triangles counter-clockwise seen from outside.
  std::vector<glm::dvec3> surface_m;
  std::vector<uint32_t> surface_indices;
};

struct RiverNetwork {
  std::vector<River> rivers;           // largest discharge at the mouth first
  std::vector<LakeShape> lakes;        // every routing lake of at least min_lake_vertices
  std::vector<double> discharge_m3_s;  // per vertex (0 on the sea)
  std::vector<float> surface_m;        // per vertex: the surface the points lie on
  std::vector<uint32_t> lake_of;       // per vertex: index into lakes, or kNoLake
};

struct RiverInput {
  const geodesy::SphereMesh* mesh = nullptr;
  double radius_m = 6371000.0;
  double sea_level_m = 0.0;
  std::span<const float> elevation_m;    // per vertex
  const FlowRouting* routing = nullptr;  // routeFlow on elevation_m and sea_level_m
  std::span<const uint8_t> endorheic;    // per routing lake: no outflow (may be empty: none)
  std::span<const double> runoff_m3_s;   // per vertex: the water its own area yields
};

// Accumulates runoff downstream (an endorheic lake passes nothing on), then extracts every
// river whose discharge reaches params.min_discharge_m3_s and every lake. Serial and
// deterministic; O(V) plus O(F) for the lakes.
RiverNetwork extractRivers(const RiverInput& input, const RiverParams& params);

// The surface of the header comment, per vertex: elevation_m, raised to the water level in
// lakes smaller than min_lake_vertices.
std::vector<float> surfaceOf(const FlowRouting& routing, std::span<const float> elevation_m,
                             uint32_t min_lake_vertices);

// That surface at unit direction p (barycentric over the face that holds p).
double surfaceAt(const geodesy::SphereMesh& mesh, std::span<const float> surface_m,
                 const glm::dvec3& p);

}  // namespace hydrology
