#include "export/detail/surface_buffers.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

#include "export/biome_palette.h"
#include "export/detail/engine_pieces.h"
#include "export/shared_normals.h"

namespace planet_export {
namespace {

[[noreturn]] void fail(const std::string& message) {
  throw std::invalid_argument("PlanetSurface: " + message);
}

// Messages are built only on failure: the per-vertex checks run millions of times.
void require(bool condition, const char* message) {
  if (!condition) fail(message);
}

// Index of the first non-finite value, or values.size().
size_t firstNonFinite(std::span<const float> values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) return i;
  }
  return values.size();
}

// Whole-array checks as max reductions, which the compiler vectorises (a loop that stops at
// the first bad value is not): the exact loops above and below run only to name what failed.
// Every value is finite when no exponent field is all ones.
bool allFinite(std::span<const float> values) {
  constexpr uint32_t kExponent = 0x7f800000u;
  uint32_t largest = 0;
  for (float x : values) largest = std::max(largest, std::bit_cast<uint32_t>(x) & kExponent);
  return largest != kExponent;
}

// The smallest of finite values, through an integer key ordered as the floats are.
float smallestFinite(std::span<const float> values) {
  int32_t smallest = INT32_MAX;
  for (float x : values) {
    const int32_t bits = std::bit_cast<int32_t>(x);
    smallest = std::min(smallest, bits ^ ((bits >> 31) & INT32_MAX));
  }
  return std::bit_cast<float>(smallest ^ ((smallest >> 31) & INT32_MAX));
}

template <typename T>
T largestOf(std::span<const T> values) {
  T largest = 0;
  for (T x : values) largest = std::max(largest, x);
  return largest;
}

// Every vertex's landPosition, as float.
std::vector<glm::vec3> landPositions(const PlanetSurface& surface) {
  std::vector<glm::vec3> positions(surface.mesh->vertexCount());
  tbb::parallel_for(size_t(0), positions.size(), [&](size_t v) {
    positions[v] = glm::vec3(landPosition(surface, uint32_t(v)));
  });
  return positions;
}

}  // namespace

void validateSurface(const PlanetSurface& s) {
  require(s.mesh != nullptr, "mesh is null");
  const geodesy::SphereMesh& mesh = *s.mesh;
  const size_t vertex_count = mesh.vertexCount();
  require(vertex_count > 0 && mesh.faceCount() > 0, "mesh has no vertices or faces");
  require(mesh.indices.size() % 3 == 0, "index count is not a multiple of 3");
  require(vertex_count <= UINT32_MAX, "more vertices than uint32 indices can address");
  if (size_t(largestOf(std::span(mesh.indices))) >= vertex_count) {
    for (size_t i = 0; i < mesh.indices.size(); ++i) {
      if (mesh.indices[i] >= vertex_count) fail("index " + std::to_string(i) + " is out of range");
    }
  }
  require(std::isfinite(s.radius_m) && s.radius_m > 0.0, "radius_m must be finite and > 0");
  require(std::isfinite(s.sea_level_m) && s.radius_m + s.sea_level_m > 0.0,
          "sea_level_m must be finite and above -radius_m");
  if (s.elevation_m.size() != vertex_count) {
    fail("elevation_m has " + std::to_string(s.elevation_m.size()) + " values for " +
         std::to_string(vertex_count) + " vertices");
  }
  if (!allFinite(s.elevation_m) || s.radius_m + double(smallestFinite(s.elevation_m)) <= 0.0) {
    for (size_t v = 0; v < vertex_count; ++v) {
      const double e = s.elevation_m[v];
      if (!std::isfinite(e)) fail("elevation_m[" + std::to_string(v) + "] is not finite");
      if (s.radius_m + e <= 0.0) {
        fail("elevation_m[" + std::to_string(v) + "] puts the vertex at or below the centre");
      }
    }
  }
  std::set<std::string> names = {"_ELEVATION", "_BIOME"};
  for (const VertexAttribute& attribute : s.attributes) {
    if (attribute.name.size() < 2 || attribute.name[0] != '_') {
      fail("attribute name '" + attribute.name + "' must start with '_'");
    }
    if (!names.insert(attribute.name).second) {
      fail("attribute name '" + attribute.name + "' is used twice (or is _ELEVATION or _BIOME)");
    }
    if (attribute.values.size() != vertex_count) {
      fail("attribute " + attribute.name + " has " + std::to_string(attribute.values.size()) +
           " values for " + std::to_string(vertex_count) + " vertices");
    }
    if (!allFinite(attribute.values)) {
      const size_t bad = firstNonFinite(attribute.values);
      fail(attribute.name + "[" + std::to_string(bad) + "] is not finite");
    }
  }
  if (!s.biome.empty()) {
    if (s.biome.size() != vertex_count) {
      fail("biome has " + std::to_string(s.biome.size()) + " values for " +
           std::to_string(vertex_count) + " vertices");
    }
    if (largestOf(s.biome) >= kBiomePaletteSize) {
      for (size_t v = 0; v < vertex_count; ++v) {
        if (s.biome[v] >= kBiomePaletteSize) {
          fail("biome[" + std::to_string(v) + "] = " + std::to_string(s.biome[v]) +
               " is not a biome class (0 to " + std::to_string(kBiomePaletteSize - 1) + ")");
        }
      }
    }
  }
  require(s.land_colour != LandColour::kBiome || !s.biome.empty(),
          "land_colour is kBiome but no biome classes were given");
}

Rgb landColour(const PlanetSurface& s, size_t v) {
  return s.land_colour == LandColour::kBiome
             ? biomeColour(s.biome[v])
             : terrainColour(s.elevation_m[v], s.sea_level_m, s.palette);
}

PlanetBuffers buildPlanetBuffers(const PlanetSurface& s, bool with_ocean) {
  validateSurface(s);
  PlanetBuffers out;
  const geodesy::SphereMesh& mesh = *s.mesh;
  out.land.positions = landPositions(s);
  out.land.normals = vertexNormals(s, kEngineExaggeration);
  out.land.colours.resize(mesh.vertexCount());
  tbb::parallel_for(size_t(0), mesh.vertexCount(),
                    [&](size_t v) { out.land.colours[v] = landColour(s, v); });
  out.land.indices = mesh.indices;
  if (!with_ocean) return out;

  std::vector<uint32_t> faces(mesh.faceCount());
  std::iota(faces.begin(), faces.end(), 0u);
  DistinctIds distinct;
  const OceanCover cover = oceanCover(mesh, s.elevation_m, s.sea_level_m, faces, distinct);
  LocalIds local;
  OceanMesh ocean = oceanMesh(mesh, cover, oceanRadius(s.radius_m, s.sea_level_m), local);
  out.ocean.positions = std::move(ocean.positions);
  out.ocean.normals = VertexNormals(std::move(ocean.normals));
  out.ocean.colours.assign(cover.vertices.size(), kOceanColour);
  out.ocean_indices = std::move(ocean.indices);
  out.ocean.indices = out.ocean_indices;
  return out;
}

}  // namespace planet_export
