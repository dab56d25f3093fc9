#pragma once
// Per-vertex rainfall maps: water that fell per unit area, in droplets (of water 1, i.e. one
// droplet of erosion's initial_water) per steradian of the unit sphere. Both rain sources give
// maps in this unit, at the same resolution, so they compare directly.

#include <span>
#include <vector>

#include "geodesy/droplet_spawn.h"
#include "geodesy/sphere_mesh.h"

namespace weather {

// Rainfall map of any spawn list (e.g. weather::uniformRain), one value per vertex of mesh.
// Each spawn's water is split barycentrically over its mesh face's corners, those vertex totals
// are binned the same way on an icosphere of grid_frequency and divided by the dual area, and
// that map is interpolated to mesh's vertices: rain smoothed to the grid scale, as
// CloudSimulation::rainfall() is. With grid_frequency >= mesh.frequency the spawns are binned on
// mesh itself (no smoothing). Parallel in the caller's arena; identical for any thread count.
std::vector<float> rainfallFromSpawns(const geodesy::SphereMesh& mesh,
                                      std::span<const geodesy::DropletSpawn> spawns,
                                      int grid_frequency = 64);

// A per-vertex field of `from` interpolated (barycentrically) at every vertex of `to`.
// values has one value per vertex of from. Parallel in the caller's arena; identical for any
// thread count.
std::vector<float> resampleField(const geodesy::SphereMesh& from, std::span<const double> values,
                                 const geodesy::SphereMesh& to);

// Adds water at a surface point to per-vertex totals (not yet divided by area).
inline void splatWater(const geodesy::SphereMesh& mesh, const geodesy::SurfacePoint& at,
                       double water, std::span<double> totals) {
  const uint32_t* v = &mesh.indices[3 * size_t(at.face)];
  totals[v[0]] += water * at.bary.x;
  totals[v[1]] += water * at.bary.y;
  totals[v[2]] += water * at.bary.z;
}

}  // namespace weather
