#include "weather/rainfall.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

namespace weather {
namespace {

// Vertices per task. Neighbouring vertex ids are mostly neighbours on the sphere, so within a
// block each vertex is located starting from the face of the one before (a step or two).
constexpr size_t kResampleBlock = 4096;

std::vector<double> perArea(const geodesy::SphereMesh& mesh, std::vector<double> totals) {
  for (size_t v = 0; v < totals.size(); ++v) totals[v] /= double(mesh.vertex_areas[v]);
  return totals;
}

// Calls body(v, at) with every vertex v of `to` located on `from`. Within a block each vertex is
// located from the face of the one before (a step or none); the simple partitioner's fixed
// blocks keep the result the same at any thread count.
template <typename Body>
void forEachVertexOn(const geodesy::SphereMesh& from, const geodesy::SphereMesh& to,
                     const Body& body) {
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, to.vertexCount(), kResampleBlock),
      [&](const tbb::blocked_range<size_t>& r) {
        uint32_t hint = from.locate(to.positions[r.begin()]).face;
        for (size_t v = r.begin(); v != r.end(); ++v) {
          const geodesy::SurfacePoint at = from.locateFrom(hint, to.positions[v]);
          hint = at.face;
          body(v, at);
        }
      },
      tbb::simple_partitioner());
}

float interpolate(const geodesy::SphereMesh& from, std::span<const double> values,
                  const geodesy::SurfacePoint& at) {
  const uint32_t* c = &from.indices[3 * size_t(at.face)];
  return float(at.bary.x * values[c[0]] + at.bary.y * values[c[1]] + at.bary.z * values[c[2]]);
}

}  // namespace

std::vector<float> resampleField(const geodesy::SphereMesh& from, std::span<const double> values,
                                 const geodesy::SphereMesh& to) {
  std::vector<float> out(to.vertexCount());
  forEachVertexOn(from, to, [&](size_t v, const geodesy::SurfacePoint& at) {
    out[v] = interpolate(from, values, at);
  });
  return out;
}

std::vector<float> rainfallFromSpawns(const geodesy::SphereMesh& mesh,
                                      std::span<const geodesy::DropletSpawn> spawns,
                                      int grid_frequency) {
  // Two splats, both serial in a fixed order so the sums do not depend on scheduling: each
  // spawn's water onto its own mesh face's corners (its face is known, no search), then each mesh
  // vertex's total onto the grid face that holds the vertex. The mesh vertices are located on the
  // grid once, walking from neighbour to neighbour, which costs far less than locating every
  // spawn from scratch (1.6 M spawns at f = 512: 0.6 s). The extra blur is one mesh edge, well
  // under the grid's.
  std::vector<double> on_mesh(mesh.vertexCount(), 0.0);
  for (const geodesy::DropletSpawn& s : spawns) splatWater(mesh, s.point, s.water, on_mesh);
  if (grid_frequency >= mesh.frequency) {
    const std::vector<double> density = perArea(mesh, std::move(on_mesh));
    return std::vector<float>(density.begin(), density.end());
  }
  const geodesy::SphereMesh grid = geodesy::buildIcosphere(grid_frequency, {mesh.spacing});
  std::vector<geodesy::SurfacePoint> mesh_on_grid(mesh.vertexCount());
  forEachVertexOn(grid, mesh,
                  [&](size_t v, const geodesy::SurfacePoint& at) { mesh_on_grid[v] = at; });
  std::vector<double> totals(grid.vertexCount(), 0.0);
  for (size_t v = 0; v < on_mesh.size(); ++v) {
    if (on_mesh[v] != 0.0) splatWater(grid, mesh_on_grid[v], on_mesh[v], totals);
  }
  const std::vector<double> density = perArea(grid, std::move(totals));
  std::vector<float> out(mesh.vertexCount());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, out.size(), kResampleBlock),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t v = r.begin(); v != r.end(); ++v) {
                        out[v] = interpolate(grid, density, mesh_on_grid[v]);
                      }
                    });
  return out;
}

}  // namespace weather
