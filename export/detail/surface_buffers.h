#pragma once
// The vertex data of the engine files, computed once so planet.glb and planet.obj carry the
// same positions, normals and colours.

#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "export/colour_ramps.h"
#include "export/planet_surface.h"
#include "export/shared_normals.h"
#include "geodesy/sphere_mesh.h"

namespace planet_export {

// One object of an engine file; arrays have one entry per vertex.
struct MeshBuffers {
  std::vector<glm::vec3> positions;   // metres, float as written
  VertexNormals normals;              // unit length within 1e-6 (toUnitFloat)
  std::vector<Rgb> colours;           // sRGB in [0, 1]
  std::span<const uint32_t> indices;  // 3 per triangle, counter-clockwise seen from outside
};

// Land and ocean of a planet. Move-only: ocean.indices views ocean_indices.
struct PlanetBuffers {
  PlanetBuffers() = default;
  PlanetBuffers(PlanetBuffers&&) = default;
  PlanetBuffers& operator=(PlanetBuffers&&) = default;
  PlanetBuffers(const PlanetBuffers&) = delete;
  PlanetBuffers& operator=(const PlanetBuffers&) = delete;

  // Land: (radius_m + elevation_m[v]) * unit position; normals of that displaced surface;
  // landColour of each vertex. indices view surface.mesh.
  MeshBuffers land;
  std::vector<uint32_t> ocean_indices;
  // Ocean: the land triangles with a corner below sea level (oceanCover, engine_pieces.h) at
  // oceanRadius; radial normals; kOceanColour. Empty when no vertex is below sea level.
  MeshBuffers ocean;
};

// Throws std::invalid_argument describing the first problem: null or empty mesh, index out of
// range, elevation_m or an attribute of the wrong size or with a non-finite value, a vertex
// at or below the centre, a bad attribute name (see VertexAttribute), radius or sea level not
// finite, biome of the wrong size or with an unknown class, land_colour
// kBiome without biome.
void validateSurface(const PlanetSurface& surface);

// The sRGB vertex colour of land vertex v: terrainColour or biomeColour by s.land_colour.
// s must pass validateSurface.
Rgb landColour(const PlanetSurface& s, size_t v);

// validateSurface, then the buffers; the ocean only if with_ocean (the glb builds its own, in
// pieces). Parallel on the caller's arena.
PlanetBuffers buildPlanetBuffers(const PlanetSurface& surface, bool with_ocean = true);

}  // namespace planet_export
