#include "export/lod_levels.h"

#include <atomic>
#include <stdexcept>

#include <tbb/parallel_for.h>

#include "export/detail/surface_buffers.h"

namespace planet_export {

std::string lodProblem(int frequency, int lods) {
  if (lods < 0 || lods > 30) {
    return "lods = " + std::to_string(lods) + " is out of range; allowed: 0 to 30";
  }
  if (frequency < 1 || frequency % (1 << lods) != 0) {
    return "lods = " + std::to_string(lods) + " needs the icosphere frequency (" +
           std::to_string(frequency) + ") to be divisible by 2^" + std::to_string(lods) + " = " +
           std::to_string(1 << lods) + "; allowed: lods such that every level f / 2^i is whole";
  }
  return {};
}

std::vector<LodLevel> buildLodLevels(const PlanetSurface& surface, int lods) {
  validateSurface(surface);
  const geodesy::SphereMesh& fine = *surface.mesh;
  if (const std::string problem = lodProblem(fine.frequency, lods); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  std::vector<LodLevel> levels;
  for (int i = 1; i <= lods; ++i) {
    LodLevel level;
    level.level = i;
    level.mesh = geodesy::buildIcosphere(fine.frequency >> i, {.spacing = fine.spacing});
    const size_t n = level.mesh.vertexCount();
    level.elevation_m.resize(n);
    level.attributes.assign(surface.attributes.size(), std::vector<float>(n));
    if (!surface.biome.empty()) level.biome.resize(n);
    std::atomic<size_t> exact{0};
    tbb::parallel_for(size_t(0), n, [&](size_t v) {
      const glm::vec3 p = level.mesh.positions[v];
      const geodesy::SurfacePoint sp = fine.locate(p);
      const uint32_t* corner = &fine.indices[3 * size_t(sp.face)];
      int nearest = 0;
      for (int k = 1; k < 3; ++k) {
        if (sp.bary[k] > sp.bary[nearest]) nearest = k;
      }
      const uint32_t u = corner[nearest];
      const auto sample = [&](std::span<const float> field) {
        if (fine.positions[u] == p) return field[u];
        return sp.bary[0] * field[corner[0]] + sp.bary[1] * field[corner[1]] +
               sp.bary[2] * field[corner[2]];
      };
      if (fine.positions[u] == p) exact.fetch_add(1, std::memory_order_relaxed);
      level.elevation_m[v] = sample(surface.elevation_m);
      for (size_t a = 0; a < surface.attributes.size(); ++a) {
        level.attributes[a][v] = sample(surface.attributes[a].values);
      }
      if (!level.biome.empty()) level.biome[v] = surface.biome[u];
    });
    level.exact_vertices = exact.load();
    levels.push_back(std::move(level));
  }
  return levels;
}

PlanetSurface lodSurface(const PlanetSurface& full, const LodLevel& level) {
  PlanetSurface s = full;
  s.mesh = &level.mesh;
  s.elevation_m = level.elevation_m;
  for (size_t a = 0; a < s.attributes.size(); ++a) s.attributes[a].values = level.attributes[a];
  s.biome = level.biome;
  return s;
}

}  // namespace planet_export
