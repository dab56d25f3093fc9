#pragma once
// Numbers that describe an eroded planet for the compare report: roughness, drainage, how
// erosion follows the rain, land masses. All are deterministic (serial sums in vertex order,
// or sorts with index tie-breaks).

#include <cstdint>
#include <span>
#include <vector>

#include "geodesy/sphere_mesh.h"

namespace metrics {

// Spearman rank correlation of x and y (average ranks for ties); 0 if either is constant or
// fewer than 3 values.
double spearman(std::span<const double> x, std::span<const double> y);

struct Roughness {
  double rms_slope = 0.0;           // RMS of |gradient| over land faces (m/m), area weighted
  double mean_abs_curvature = 0.0;  // mean |Laplacian| over land vertices (1/m)
};

// Land = faces/vertices whose `land_mask` vertices are set (from the initial terrain, so
// before and after are measured over the same ground).
Roughness landRoughness(const geodesy::SphereMesh& mesh, double radius_m,
                        std::span<const float> elevation_m, std::span<const uint8_t> land_mask);

struct Drainage {
  uint64_t channel_vertices = 0;   // land vertices draining more than the threshold area
  double longest_channel_m = 0.0;  // longest downstream path through channel vertices
  double threshold_area_m2 = 0.0;
};

// Steepest-descent flow accumulation on the mesh: every land vertex passes its area plus what
// it received to its lowest neighbour, if that is lower. A channel vertex drains more than
// threshold_area_m2.
Drainage drainage(const geodesy::SphereMesh& mesh, double radius_m,
                  std::span<const float> elevation_m, std::span<const uint8_t> land_mask,
                  double threshold_area_m2);

// Connected components of land (via the vertex adjacency), largest area first; each entry is
// the list of its vertices.
std::vector<std::vector<uint32_t>> landMasses(const geodesy::SphereMesh& mesh,
                                              std::span<const uint8_t> land_mask);

}  // namespace metrics
