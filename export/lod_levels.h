#pragma once
// Coarser levels of detail of a planet surface: LOD i is an icosphere of frequency f / 2^i
// (same spacing as the full mesh) with every per-vertex field sampled from the full surface.
//
// The spacing mappings are nested: the coarse lattice point (i, j) of a base face has the
// same lattice barycentrics, computed by the same double operations, as the fine point
// (2i, 2j), so its position is bit-identical to a fine vertex. Such vertices copy the fine
// values exactly (elevation, attributes, biome). Any other vertex (there are none for meshes
// from geodesy::buildIcosphere; kept for robustness) is located on the full mesh and
// interpolated barycentrically, with the biome of the nearest corner.

#include <string>
#include <vector>

#include "export/planet_surface.h"
#include "geodesy/sphere_mesh.h"

namespace planet_export {

struct LodLevel {
  int level = 0;  // i >= 1
  geodesy::SphereMesh mesh;
  std::vector<float> elevation_m;
  // One array per entry of the full surface's attributes, in the same order.
  std::vector<std::vector<float>> attributes;
  std::vector<uint8_t> biome;  // empty when the full surface has none
  size_t exact_vertices = 0;   // vertices that coincide with a full-mesh vertex
};

// Empty if `lods` coarser levels can be made from a mesh of this frequency (f divisible by
// 2^lods, lods >= 0), else a message saying why not.
std::string lodProblem(int frequency, int lods);

// Levels 1 .. lods (lods >= 0; 0 gives none). Throws std::invalid_argument with lodProblem's
// message, or for a surface validateSurface rejects. Parallel on the caller's oneTBB arena,
// deterministic.
std::vector<LodLevel> buildLodLevels(const PlanetSurface& surface, int lods);

// The surface of a level: `full` with mesh, elevation, attribute values and biome viewing
// `level` (both must outlive the result; names, radius, sea level, palette, colours copied).
PlanetSurface lodSurface(const PlanetSurface& full, const LodLevel& level);

}  // namespace planet_export
