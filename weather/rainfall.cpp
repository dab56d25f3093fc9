#include "weather/rainfall.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

namespace weather {
namespace {

// Vertices per task. Neighbouring vertex ids are mostly neighbours on the sphere, so within a
// block each vertex is located starting from the face of the one before (a step or two).
constexpr size_t kResampleBlock = 4096;

glm::vec3 spawnPosition(const geodesy::SphereMesh& mesh, const geodesy::SurfacePoint& at) {
  const uint32_t* v = &mesh.indices[3 * size_t(at.face)];
  return glm::normalize(at.bary.x * mesh.positions[v[0]] + at.bary.y * mesh.positions[v[1]] +
                        at.bary.z * mesh.positions[v[2]]);
}

std::vector<double> perArea(const geodesy::SphereMesh& mesh, std::vector<double> totals) {
  for (size_t v = 0; v < totals.size(); ++v) totals[v] /= double(mesh.vertex_areas[v]);
  return totals;
}

}  // namespace

std::vector<float> resampleField(const geodesy::SphereMesh& from, std::span<const double> values,
                                 const geodesy::SphereMesh& to) {
  std::vector<float> out(to.vertexCount());
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, out.size(), kResampleBlock),
      [&](const tbb::blocked_range<size_t>& r) {
        uint32_t hint = from.locate(to.positions[r.begin()]).face;
        for (size_t v = r.begin(); v != r.end(); ++v) {
          const geodesy::SurfacePoint at = from.locateFrom(hint, to.positions[v]);
          hint = at.face;
          const uint32_t* c = &from.indices[3 * size_t(at.face)];
          out[v] =
              float(at.bary.x * values[c[0]] + at.bary.y * values[c[1]] + at.bary.z * values[c[2]]);
        }
      },
      tbb::simple_partitioner());
  return out;
}

std::vector<float> rainfallFromSpawns(const geodesy::SphereMesh& mesh,
                                      std::span<const geodesy::DropletSpawn> spawns,
                                      int grid_frequency) {
  if (grid_frequency >= mesh.frequency) {
    std::vector<double> totals(mesh.vertexCount(), 0.0);
    for (const geodesy::DropletSpawn& s : spawns) splatWater(mesh, s.point, s.water, totals);
    const std::vector<double> density = perArea(mesh, std::move(totals));
    return std::vector<float>(density.begin(), density.end());
  }
  const geodesy::SphereMesh grid = geodesy::buildIcosphere(grid_frequency, {mesh.spacing});
  // Locate in parallel, bin serially in spawn order: the sums do not depend on scheduling.
  std::vector<geodesy::SurfacePoint> on_grid(spawns.size());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, spawns.size(), 4096),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t i = r.begin(); i != r.end(); ++i) {
                        on_grid[i] = grid.locate(spawnPosition(mesh, spawns[i].point));
                      }
                    });
  std::vector<double> totals(grid.vertexCount(), 0.0);
  for (size_t i = 0; i < spawns.size(); ++i) splatWater(grid, on_grid[i], spawns[i].water, totals);
  return resampleField(grid, perArea(grid, std::move(totals)), mesh);
}

}  // namespace weather
