#include "tiles/tile_generator.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <glm/geometric.hpp>

#include "geodesy/icosahedron.h"
#include "geodesy/lattice_numbering.h"
#include "geodesy/spacing.h"
#include "tiles/detail/erosion_model.h"
#include "tiles/detail/level_sampler.h"
#include "tiles/detail/surface_model.h"

namespace tiles {
namespace {

using detail::LevelSampler;
using detail::SurfaceModel;

template <typename Body>
void parallelFor(size_t n, size_t grain, const Body& body) {
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, grain),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t k = r.begin(); k != r.end(); ++k) body(k);
                    });
}

size_t rowStart(uint32_t t, uint32_t v) {
  return size_t(v) * (t + 1) - size_t(v) * (v - (v > 0 ? 1 : 0)) / 2;
}

std::shared_ptr<const TileTopology> makeTopology(uint32_t t) {
  auto topology = std::make_shared<TileTopology>();
  topology->tile_edge = t;
  auto index = [&](uint32_t u, uint32_t v) { return uint32_t(rowStart(t, v) + u); };
  topology->indices.reserve(size_t(3) * t * t);
  for (uint32_t v = 0; v < t; ++v) {
    for (uint32_t u = 0; u + v < t; ++u) {
      topology->indices.insert(topology->indices.end(),
                               {index(u, v), index(u + 1, v), index(u, v + 1)});
      if (u + v + 1 < t) {
        topology->indices.insert(topology->indices.end(),
                                 {index(u + 1, v), index(u + 1, v + 1), index(u, v + 1)});
      }
    }
  }
  for (uint32_t s = 0; s <= t; ++s) {
    topology->edges[0].push_back(index(s, 0));
    topology->edges[1].push_back(index(t - s, s));
    topology->edges[2].push_back(index(0, t - s));
  }
  return topology;
}

// The tile's place in its base face's chart: vertex (u, v) is corner 0 + u d1 + v d2.
struct TileChart {
  uint32_t base = 0;
  uint32_t edge = 0;  // T
  int64_t i0 = 0, j0 = 0;
  int64_t d1i = 0, d1j = 0, d2i = 0, d2j = 0;

  TileChart(const TileLayout& layout, const TileId& id) : base(id.base), edge(layout.tileEdge()) {
    const auto c = layout.tileCorners(id);
    const int64_t t = edge;
    i0 = c[0].i, j0 = c[0].j;
    d1i = (int64_t(c[1].i) - i0) / t, d1j = (int64_t(c[1].j) - j0) / t;
    d2i = (int64_t(c[2].i) - i0) / t, d2j = (int64_t(c[2].j) - j0) / t;
  }
  LatticePoint point(uint32_t u, uint32_t v) const {
    return {base, uint32_t(i0 + u * d1i + v * d2i), uint32_t(j0 + u * d1j + v * d2j)};
  }
  // Vertex index of chart point (i, j) of this base face, or -1 outside the tile.
  int64_t vertexOf(int64_t i, int64_t j) const {
    // d1, d2 are unit lattice steps with determinant 1: invert exactly.
    const int64_t di = i - i0, dj = j - j0;
    const int64_t u = di * d2j - dj * d2i, v = dj * d1i - di * d1j;
    if (u < 0 || v < 0 || u + v > int64_t(edge)) return -1;
    return int64_t(rowStart(edge, uint32_t(v)) + size_t(u));
  }
};

// Spacing weights of the tile's three coordinate ranges (each T + 1 values): the only weights
// latticePosition asks for at the tile's points.
struct TileWeights {
  geodesy::Spacing spacing;
  uint64_t frequency = 0;
  uint64_t edge = 0;
  uint64_t lo[3] = {0, 0, 0};
  std::vector<double> g[3];

  TileWeights(geodesy::Spacing s, uint64_t f, const TileLayout& layout, const TileId& id)
      : spacing(s), frequency(f), edge(uint64_t(layout.tileEdge())) {
    const auto c = layout.tileCorners(id);
    uint64_t lows[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
    for (const LatticePoint& p : c) {
      lows[0] = std::min<uint64_t>(lows[0], f - p.i - p.j);
      lows[1] = std::min<uint64_t>(lows[1], p.i);
      lows[2] = std::min<uint64_t>(lows[2], p.j);
    }
    for (int k = 0; k < 3; ++k) {
      lo[k] = lows[k];
      g[k].resize(edge + 1);
      for (uint64_t s2 = 0; s2 <= edge; ++s2)
        g[k][s2] = geodesy::spacingWeight(spacing, lo[k] + s2, f);
    }
  }
  double operator()(uint64_t k) const {
    for (int r = 0; r < 3; ++r) {
      if (k >= lo[r] && k - lo[r] <= edge) return g[r][k - lo[r]];
    }
    return geodesy::spacingWeight(spacing, k, frequency);
  }
};

// Counter-clockwise chart steps starting from (-1, 0): for a point inside a base face this is
// the ring latticeRing returns (its lowest neighbour is (i - 1, j)).
constexpr int kInteriorRing[6][2] = {{-1, 0}, {0, -1}, {1, -1}, {1, 0}, {0, 1}, {-1, 1}};

glm::vec3 ringNormal(const glm::dvec3& centre, const glm::dvec3* ring, int count) {
  glm::dvec3 n(0.0);
  for (int k = 0; k < count; ++k) {
    n += glm::cross(ring[k] - centre, ring[(k + 1) % count] - centre);
  }
  return glm::vec3(glm::normalize(n));
}

// Planet triangles one sampler prepares at most, about: a sampler holds every planet triangle
// its points fall in (hundreds of bytes each), and at the coarse levels a tile's points fall in
// nearly one each, so their points are sampled in chunks, a sampler per chunk. The preparation
// changes no bit of any answer (level_sampler.h): the chunks change no result.
constexpr size_t kSamplerTriangles = 2048;

// Heights of canonical points of `level` (with their unit positions) into out as floats, a
// sampler per chunk, in parallel blocks; every point's bits are its own, whatever block or
// chunk it falls in.
void sampleHeights(const SurfaceModel& model, int level, std::span<const LatticePoint> points,
                   std::span<const glm::dvec3> units, float* out) {
  // A planet triangle holds about m^2 / 2 points of a level m times finer than the planet (none
  // of a level as coarse: those points are planet vertices); past m = 64 a tile falls in a few.
  const uint64_t f = model.layout.levelFrequency(level), planet = model.planetFrequency();
  const uint64_t m = f > planet ? f / planet : 0;
  const size_t chunk_points =
      m == 0 || m >= 64 ? std::max<size_t>(points.size(), 1) : kSamplerTriangles * m * m / 2;
  constexpr size_t kBlock = 256;
  for (size_t chunk = 0; chunk < points.size(); chunk += chunk_points) {
    const size_t size = std::min(chunk_points, points.size() - chunk);
    const LevelSampler sampler(model, level, points.subspan(chunk, size));
    parallelFor((size + kBlock - 1) / kBlock, 1, [&](size_t block) {
      const size_t first = chunk + block * kBlock;
      const size_t count = std::min(kBlock, chunk + size - first);
      double heights[kBlock];
      sampler.heights(points.subspan(first, count), units.subspan(first, count), heights);
      for (size_t k = 0; k < count; ++k) out[first + k] = float(heights[k]);
    });
  }
}

void checkLevel(const TileLayout& layout, int level) {
  if (level < 0 || level > layout.deepestLevel()) {
    throw std::invalid_argument("tile level " + std::to_string(level) +
                                " does not exist; allowed: 0 to " +
                                std::to_string(layout.deepestLevel()));
  }
}

}  // namespace

TileGenerator::TileGenerator(const TilePlanet& planet, const TileParams& params)
    : model_(std::make_unique<const SurfaceModel>(planet, params)),
      topology_(makeTopology(uint32_t(model_->layout.tileEdge()))),
      erosion_(params.erosion.enabled
                   ? std::make_unique<const detail::ErosionModel>(*model_, planet, params.erosion)
                   : nullptr) {}

TileGenerator::~TileGenerator() = default;
TileGenerator::TileGenerator(TileGenerator&&) noexcept = default;
TileGenerator& TileGenerator::operator=(TileGenerator&&) noexcept = default;

const TileLayout& TileGenerator::layout() const {
  return model_->layout;
}

double TileGenerator::radiusM() const {
  return model_->radius_m;
}

geodesy::Spacing TileGenerator::spacing() const {
  return model_->spacing;
}

glm::dvec3 TileGenerator::surfacePosition(int level, const LatticePoint& p, float height_m) const {
  checkLevel(model_->layout, level);
  const uint64_t f = model_->layout.levelFrequency(level);
  return unitPosition(model_->spacing, f, p) * (model_->radius_m + double(height_m));
}

TileId TileGenerator::tileAt(const glm::dvec3& direction, int level) const {
  const TileLayout& layout = model_->layout;
  checkLevel(layout, level);
  const double length = glm::length(direction);
  if (!(length > 0.0) || !std::isfinite(length)) {
    char text[96];
    std::snprintf(text, sizeof text, "tile direction (%g, %g, %g) is zero or not finite",
                  direction.x, direction.y, direction.z);
    throw std::invalid_argument(text);
  }
  const geodesy::Icosahedron& ico = geodesy::icosahedron();
  const glm::dvec3 p = direction / length;
  uint32_t base = 0;
  for (uint32_t b = 1; b < 20; ++b) {
    if (glm::dot(p, ico.centres[b]) > glm::dot(p, ico.centres[base])) base = b;
  }
  const auto& normals = ico.opposite_normals[base];
  const glm::dvec3 b = geodesy::latticeCoordinates(
      model_->spacing, {glm::dot(p, normals[0]), glm::dot(p, normals[1]), glm::dot(p, normals[2])});
  const uint64_t n = uint64_t(1) << level;
  const double x = std::clamp(b.y * double(n), 0.0, double(n));
  const double y = std::clamp(b.z * double(n), 0.0, double(n));
  const uint64_t j = std::min(uint64_t(y), n - 1);
  const uint64_t i = std::min(uint64_t(x), n - 1 - j);
  const bool down = (x - double(i)) + (y - double(j)) > 1.0 && i + j + 1 < n;
  return {base, uint32_t(level), slotIndex(n, {i, j, down})};
}

std::vector<float> TileGenerator::heights(int level, std::span<const LatticePoint> points) const {
  const SurfaceModel& m = *model_;
  checkLevel(m.layout, level);
  const uint64_t f = m.layout.levelFrequency(level);
  std::vector<LatticePoint> canonical(points.size());
  parallelFor(points.size(), 256, [&](size_t k) { canonical[k] = canonicalPoint(f, points[k]); });
  std::vector<glm::dvec3> unit(points.size());
  parallelFor(points.size(), 256,
              [&](size_t k) { unit[k] = unitPosition(m.spacing, f, canonical[k]); });
  std::vector<float> out(points.size());
  sampleHeights(m, level, canonical, unit, out.data());
  if (erosion_ && erosion_->erodes(level)) {
    std::vector<detail::PointErosion> change(points.size());
    erosion_->sample(level, canonical, change);
    for (size_t k = 0; k < out.size(); ++k) out[k] = float(double(out[k]) + change[k].change_m);
  }
  return out;
}

bool TileGenerator::erodes(int level) const {
  return erosion_ && erosion_->erodes(level);
}

TileMesh TileGenerator::generate(const TileId& id) const {
  const SurfaceModel& m = *model_;
  const TileLayout& layout = m.layout;
  layout.check(id);
  const int level = int(id.level);
  const uint64_t f = layout.levelFrequency(level);
  const uint32_t t = uint32_t(layout.tileEdge());
  const size_t n = layout.verticesPerTile();
  const TileChart chart(layout, id);
  const TileWeights weights(m.spacing, f, layout, id);

  // The tile's points: canonical form and unit position.
  std::vector<LatticePoint> canonical(n);
  std::vector<glm::dvec3> unit(n);
  parallelFor(t + 1, 4, [&](size_t v) {
    for (uint32_t u = 0; u + v <= t; ++u) {
      const size_t k = rowStart(t, uint32_t(v)) + u;
      const LatticePoint p = chart.point(u, uint32_t(v));
      canonical[k] = canonicalPoint(f, p);
      unit[k] = geodesy::latticePosition(weights, f, p.base, p.i, p.j);
    }
  });

  // The points around the tile's edge vertices that the tile does not hold (or holds under
  // another base face's name): their heights enter the edge normals.
  std::vector<LatticePoint> halo;
  {
    std::array<LatticePoint, 6> ring;
    for (const auto& edge : topology_->edges) {
      for (uint32_t k : edge) {
        const int count = latticeRing(f, canonical[k], ring);
        for (int r = 0; r < count; ++r) {
          if (ring[r].base != chart.base || chart.vertexOf(ring[r].i, ring[r].j) < 0) {
            halo.push_back(ring[r]);
          }
        }
      }
    }
    std::sort(halo.begin(), halo.end(), pointLess);
    halo.erase(std::unique(halo.begin(), halo.end()), halo.end());
  }

  TileMesh mesh;
  mesh.id = id;
  mesh.topology = topology_;
  mesh.height_m.resize(n);
  sampleHeights(m, level, canonical, unit, mesh.height_m.data());
  std::vector<float> halo_height(halo.size());
  std::vector<glm::dvec3> halo_unit(halo.size());
  parallelFor(halo.size(), 64,
              [&](size_t k) { halo_unit[k] = unitPosition(m.spacing, f, halo[k]); });
  sampleHeights(m, level, halo, halo_unit, halo_height.data());
  if (erosion_ && erosion_->erodes(level)) {
    // Erosion at the tile's level and coarser: its change at the tile's points and halo, and
    // the masks.
    std::vector<LatticePoint> wanted(canonical);
    wanted.insert(wanted.end(), halo.begin(), halo.end());
    std::vector<detail::PointErosion> change(wanted.size());
    erosion_->sample(level, wanted, change);
    TileMasks& masks = mesh.masks;
    masks.flow_m2.resize(n), masks.wear_m.resize(n), masks.deposition_m.resize(n);
    masks.water.resize(n);
    for (size_t k = 0; k < n; ++k) {
      const detail::PointErosion& e = change[k];
      mesh.height_m[k] = float(double(mesh.height_m[k]) + e.change_m);
      masks.flow_m2[k] = e.flow_m2, masks.wear_m[k] = e.wear_m;
      masks.deposition_m[k] = e.deposition_m, masks.water[k] = e.water;
    }
    for (size_t k = 0; k < halo.size(); ++k) {
      halo_height[k] = float(double(halo_height[k]) + change[n + k].change_m);
    }
  }

  // Normals from the ring of lattice neighbours, positions in double.
  const double radius = m.radius_m;
  auto position = [&](size_t k) { return unit[k] * (radius + double(mesh.height_m[k])); };
  mesh.normals.resize(n);
  parallelFor(t + 1, 4, [&](size_t v) {
    std::array<LatticePoint, 6> ring;
    glm::dvec3 around[6];
    for (uint32_t u = 0; u + v <= t; ++u) {
      const size_t k = rowStart(t, uint32_t(v)) + u;
      int count = 6;
      if (u > 0 && v > 0 && u + v < t) {
        const LatticePoint p = chart.point(u, uint32_t(v));
        for (int r = 0; r < 6; ++r) {
          around[r] = position(size_t(chart.vertexOf(int64_t(p.i) + kInteriorRing[r][0],
                                                     int64_t(p.j) + kInteriorRing[r][1])));
        }
      } else {
        count = latticeRing(f, canonical[k], ring);
        for (int r = 0; r < count; ++r) {
          const int64_t local =
              ring[r].base == chart.base ? chart.vertexOf(ring[r].i, ring[r].j) : -1;
          if (local >= 0) {
            around[r] = position(size_t(local));
          } else {
            const size_t h = size_t(std::lower_bound(halo.begin(), halo.end(), ring[r], pointLess) -
                                    halo.begin());
            assert(h < halo.size() && halo[h] == ring[r]);
            around[r] = halo_unit[h] * (radius + double(halo_height[h]));
          }
        }
      }
      mesh.normals[k] = ringNormal(position(k), around, count);
    }
  });

  // The parent level's surface: its own height at its lattice points (both coordinates even
  // here), the mean of the two ends of the parent edge through the others.
  mesh.parent_height_m.resize(n);
  if (level == 0) {
    mesh.parent_height_m = mesh.height_m;
  } else {
    std::vector<LatticePoint> parent_points;
    std::vector<size_t> parent_vertex;
    for (size_t k = 0; k < n; ++k) {
      const LatticePoint& p = canonical[k];
      if (p.i % 2 == 0 && p.j % 2 == 0) {
        parent_points.push_back({p.base, p.i / 2, p.j / 2});
        parent_vertex.push_back(k);
      }
    }
    std::vector<glm::dvec3> parent_unit(parent_points.size());
    for (size_t k = 0; k < parent_points.size(); ++k) parent_unit[k] = unit[parent_vertex[k]];
    std::vector<float> at_parent_points(parent_points.size());
    sampleHeights(m, level - 1, parent_points, parent_unit, at_parent_points.data());
    if (erosion_ && erosion_->erodes(level - 1)) {
      std::vector<detail::PointErosion> change(parent_points.size());
      erosion_->sample(level - 1, parent_points, change);
      for (size_t k = 0; k < parent_points.size(); ++k) {
        at_parent_points[k] = float(double(at_parent_points[k]) + change[k].change_m);
      }
    }
    std::vector<float> parent_height(n, 0.0f);
    for (size_t k = 0; k < parent_points.size(); ++k) {
      parent_height[parent_vertex[k]] = at_parent_points[k];
    }
    parallelFor(t + 1, 4, [&](size_t v) {
      for (uint32_t u = 0; u + v <= t; ++u) {
        const size_t k = rowStart(t, uint32_t(v)) + u;
        const LatticePoint p = chart.point(u, uint32_t(v));
        const bool odd_i = p.i % 2 == 1, odd_j = p.j % 2 == 1;
        if (!odd_i && !odd_j) {
          mesh.parent_height_m[k] = parent_height[k];
          continue;
        }
        // The parent edge through p: along i, along j, or the diagonal (i + 1, j - 1) --
        // (i - 1, j + 1) of the lattice's triangles.
        const int64_t si = odd_i && odd_j ? 1 : odd_i ? 1 : 0;
        const int64_t sj = odd_i && odd_j ? -1 : odd_j ? 1 : 0;
        const size_t a = size_t(chart.vertexOf(int64_t(p.i) + si, int64_t(p.j) + sj));
        const size_t b = size_t(chart.vertexOf(int64_t(p.i) - si, int64_t(p.j) - sj));
        mesh.parent_height_m[k] =
            float(0.5 * (double(parent_height[a]) + double(parent_height[b])));
      }
    });
  }

  // Centre: the middle of the bounding box, so float offsets are as small as they can be.
  glm::dvec3 lo(INFINITY), hi(-INFINITY);
  for (size_t k = 0; k < n; ++k) lo = glm::min(lo, position(k)), hi = glm::max(hi, position(k));
  mesh.centre_m = 0.5 * (lo + hi);
  mesh.positions_m.resize(n);
  parallelFor(n, 256,
              [&](size_t k) { mesh.positions_m[k] = glm::vec3(position(k) - mesh.centre_m); });
  // The unit positions (24 bytes a vertex) go before the ids are made: a bake holds one tile
  // in the making per thread, and this is its largest array.
  std::vector<glm::dvec3>().swap(unit);
  mesh.lattice_ids.resize(n);
  parallelFor(n, 256,
              [&](size_t k) { mesh.lattice_ids[k] = layout.latticeId(level, canonical[k]); });
  return mesh;
}

}  // namespace tiles
