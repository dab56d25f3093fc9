#include "weather/uniform_rain.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

#include "geodesy/hash.h"

namespace weather {
namespace {

constexpr uint64_t kRainStream = 0x756E69666F726D32ull;  // "uniform2"
constexpr size_t kFaceGrain = 4096;
constexpr uint64_t kDropletGrain = 1024;

// The faces that can hold land (a corner at or above sea level: the interpolated height is
// below every corner's elsewhere), with the running sum of their flat areas and each one's
// plane distance from the centre.
struct LandFaces {
  std::vector<uint32_t> face;
  std::vector<double> area_until;  // area_until[k] = flat area of faces 0 .. k
  std::vector<double> plane_distance;
  double min_plane_distance = 1.0;
  // Guide table (Chen and Asau): guide[j] is the first k whose area_until[k] exceeds
  // j / guide.size() of the total, so a pick starts its search there and moves on a step or
  // two instead of binary-searching megabytes of sums.
  std::vector<uint32_t> guide;

  // The first face from k on whose running area exceeds target (the last face at most).
  size_t firstAbove(size_t k, double target) const {
    while (k + 1 < area_until.size() && area_until[k] <= target) ++k;
    return k;
  }
  // A face with probability proportional to its flat area, for u uniform in [0, 1).
  size_t pick(double u) const {
    const size_t j = std::min(guide.size() - 1, size_t(u * double(guide.size())));
    return firstAbove(guide[j], u * area_until.back());
  }
};

LandFaces landFaces(const geodesy::SphereMesh& mesh, std::span<const float> elevation_m,
                    double sea_level_m) {
  const size_t faces = mesh.faceCount();
  std::vector<uint8_t> is_candidate(faces);
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, faces, kFaceGrain), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t f = r.begin(); f != r.end(); ++f) {
          const uint32_t* v = &mesh.indices[3 * f];
          is_candidate[f] = elevation_m[v[0]] >= sea_level_m || elevation_m[v[1]] >= sea_level_m ||
                            elevation_m[v[2]] >= sea_level_m;
        }
      });
  LandFaces out;
  for (size_t f = 0; f < faces; ++f)
    if (is_candidate[f]) out.face.push_back(uint32_t(f));
  out.area_until.resize(out.face.size());
  out.plane_distance.resize(out.face.size());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, out.face.size(), kFaceGrain),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t k = r.begin(); k != r.end(); ++k) {
                        const uint32_t* v = &mesh.indices[3 * size_t(out.face[k])];
                        const glm::dvec3 a(mesh.positions[v[0]]), b(mesh.positions[v[1]]),
                            c(mesh.positions[v[2]]);
                        const glm::dvec3 n = glm::cross(b - a, c - a);
                        const double twice_area = glm::length(n);
                        out.area_until[k] = 0.5 * twice_area;  // summed below
                        out.plane_distance[k] = glm::dot(n, a) / twice_area;
                      }
                    });
  double sum = 0.0;
  for (size_t k = 0; k < out.face.size(); ++k) {
    sum += out.area_until[k];
    out.area_until[k] = sum;
    out.min_plane_distance = std::min(out.min_plane_distance, out.plane_distance[k]);
  }
  out.guide.resize(out.face.size());
  size_t k = 0;
  for (size_t j = 0; j < out.guide.size(); ++j) {
    k = out.firstAbove(k, double(j) / double(out.guide.size()) * sum);
    out.guide[j] = uint32_t(k);
  }
  return out;
}

// One try: a face by flat area, a point uniform on its flat triangle (reflected square), kept
// if the solid-angle correction and the land test both pass.
std::optional<geodesy::SurfacePoint> drawLandPoint(const geodesy::SphereMesh& mesh,
                                                   const LandFaces& land,
                                                   std::span<const float> elevation_m,
                                                   double sea_level_m, double h_min_sq,
                                                   geodesy::HashStream& rng) {
  const size_t k = land.pick(rng.uniform());
  double u = rng.uniform(), w = rng.uniform();
  if (u + w > 1.0) {
    u = 1.0 - u;
    w = 1.0 - w;
  }
  const glm::dvec3 bary(1.0 - u - w, u, w);
  const uint32_t* v = &mesh.indices[3 * size_t(land.face[k])];
  const glm::dvec3 x = bary.x * glm::dvec3(mesh.positions[v[0]]) +
                       bary.y * glm::dvec3(mesh.positions[v[1]]) +
                       bary.z * glm::dvec3(mesh.positions[v[2]]);
  // Projected to the sphere, the flat point has density |x|^3 / h per steradian (solid angle
  // dOmega = h dA / |x|^3 for a plane at distance h); keeping it with probability
  // h_min^2 h / |x|^3 (at most 1, since |x| >= h >= h_min) leaves a density uniform by solid
  // angle.
  const double len = glm::length(x);
  if (rng.uniform() >= h_min_sq * land.plane_distance[k] / (len * len * len)) return {};
  const double height = double(elevation_m[v[0]]) * bary.x + double(elevation_m[v[1]]) * bary.y +
                        double(elevation_m[v[2]]) * bary.z;
  if (height < sea_level_m) return {};
  return geodesy::SurfacePoint{land.face[k], glm::vec3(bary)};
}

}  // namespace

std::vector<geodesy::DropletSpawn> uniformRain(const geodesy::SphereMesh& mesh,
                                               std::span<const float> elevation_m,
                                               double sea_level_m, uint64_t count, uint64_t seed) {
  assert(elevation_m.size() == mesh.vertexCount());
  const LandFaces land = landFaces(mesh, elevation_m, sea_level_m);
  if (land.face.empty() || count == 0) return {};
  const double h_min_sq = land.min_plane_distance * land.min_plane_distance;

  std::vector<geodesy::DropletSpawn> all(count);
  std::vector<uint8_t> found(count, 0);
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, count, kDropletGrain),
                    [&](const tbb::blocked_range<uint64_t>& r) {
                      for (uint64_t i = r.begin(); i < r.end(); ++i) {
                        geodesy::HashStream rng(seed, kRainStream, i);
                        for (int t = 0; t < kMaxRainTries; ++t) {
                          const std::optional<geodesy::SurfacePoint> at =
                              drawLandPoint(mesh, land, elevation_m, sea_level_m, h_min_sq, rng);
                          if (!at) continue;
                          all[i].point = *at;
                          all[i].water = 1.0f;
                          found[i] = 1;
                          break;
                        }
                      }
                    });
  std::vector<geodesy::DropletSpawn> spawns;
  spawns.reserve(count);
  for (uint64_t i = 0; i < count; ++i)
    if (found[i]) spawns.push_back(all[i]);
  return spawns;
}

}  // namespace weather
