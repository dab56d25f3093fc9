// The noise terrain (terrain/terrain.h): a pure function of the unit-sphere position, so the
// mesh samples it exactly, the continents are the same at any frequency, and the threads do
// not change a bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <vector>

#include <tbb/task_arena.h>

#include "geodesy/hash.h"
#include "geodesy/latlon.h"
#include "geodesy/sphere_mesh.h"
#include "terrain/terrain.h"

namespace {

float interpolate(const geodesy::SphereMesh& mesh, const std::vector<float>& field,
                  const glm::vec3& p) {
  const geodesy::SurfacePoint sp = mesh.locate(p);
  const uint32_t* f = &mesh.indices[3 * sp.face];
  return sp.bary.x * field[f[0]] + sp.bary.y * field[f[1]] + sp.bary.z * field[f[2]];
}

}  // namespace

TEST_CASE("terrain: vertex elevations are the continuous terrain at the vertex", "[planet]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(16);
  const terrain::TerrainParams params;
  const auto elevation = terrain::generateElevation(mesh.positions, 9, params);
  const terrain::Terrain terrain(9, params);
  for (size_t v = 0; v < mesh.vertexCount(); ++v)
    REQUIRE(elevation[v] == terrain.elevationAt(mesh.positions[v]));
}

TEST_CASE("terrain: same continents at f = 64 and f = 256", "[planet]") {
  const terrain::TerrainParams params;
  const geodesy::SphereMesh coarse = geodesy::buildIcosphere(64);
  const geodesy::SphereMesh fine = geodesy::buildIcosphere(256);
  const auto h64 = terrain::generateElevation(coarse.positions, 5, params);
  const auto h256 = terrain::generateElevation(fine.positions, 5, params);
  const terrain::Terrain terrain(5, params);

  // Fixed lat/lon points, spread over the whole sphere.
  std::vector<double> a, b;
  double err64 = 0, diff = 0;
  int same_side = 0;
  const int n = 4000;
  geodesy::HashStream rng(77, 1, 0);
  for (int i = 0; i < n; ++i) {
    const double lat = std::asin(2 * rng.uniform() - 1), lon = (2 * rng.uniform() - 1) * M_PI;
    const glm::vec3 p(geodesy::latLonToUnit({lat, lon}));
    const double x = interpolate(coarse, h64, p), y = interpolate(fine, h256, p);
    a.push_back(x), b.push_back(y);
    err64 += std::abs(x - terrain.elevationAt(p));
    diff += std::abs(x - y);
    same_side += (x > 0) == (y > 0);
  }
  auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  };
  const double ma = mean(a), mb = mean(b);
  double sab = 0, saa = 0, sbb = 0;
  for (int i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb), saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  const double correlation = sab / std::sqrt(saa * sbb);
  INFO("correlation " << correlation << ", mean |h64-h256| " << diff / n
                      << " m, mean interpolation error of f=64 " << err64 / n << " m");
  CHECK(correlation > 0.97);
  // The two meshes differ by no more than the coarse mesh's own interpolation error
  // (plus 10 % for the fine mesh's smaller error).
  CHECK(diff / n <= 1.1 * err64 / n + 1.0);
  CHECK(same_side >= int(0.95 * n));
}

TEST_CASE("terrain: bit-identical at 1, 2 and 4 threads", "[planet]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32);
  std::vector<std::vector<float>> runs;
  for (int threads : {1, 2, 4}) {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      runs.push_back(terrain::generateElevation(mesh.positions, 3, terrain::TerrainParams{}));
    });
  }
  CHECK(runs[0] == runs[1]);
  CHECK(runs[0] == runs[2]);
}
