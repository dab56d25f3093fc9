#pragma once
// What the engine writers and the maps read: a mesh, one elevation per vertex and the few
// numbers that place it in metres. Plain views; nothing is copied or owned.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "export/colour_ramps.h"
#include "geodesy/sphere_mesh.h"

namespace planet_export {

struct WaterGeometry;  // water_geometry.h
struct EquirectLocations;
class SharedNormals;  // shared_normals.h

// A float per land vertex, written as the custom glTF attribute `name` (e.g. "_ELEVATION").
// Contract: name starts with '_' (glTF's rule for application-specific attributes), is not
// "_ELEVATION" or "_BIOME", is unique in PlanetSurface::attributes, and values has one finite value
// per vertex. The writers throw std::invalid_argument otherwise.
struct VertexAttribute {
  std::string name;
  std::span<const float> values;
};

// What the land's vertex colours (glTF COLOR_0, OBJ `v x y z r g b`) show.
enum class LandColour : uint8_t {
  kTerrain,  // hypsometric tint above sea level, bathymetric blue below (colour_ramps.h)
  kBiome,    // the biome palette (biomes.h); needs PlanetSurface::biome
};

struct PlanetSurface {
  const geodesy::SphereMesh* mesh = nullptr;
  std::span<const float> elevation_m;  // one per vertex, metres relative to radius_m, finite
  double radius_m = 6371000.0;
  double sea_level_m = 0.0;  // ocean sphere radius is radius_m + sea_level_m
  // Extra float attributes; _ELEVATION is always written and need not be listed.
  std::vector<VertexAttribute> attributes;
  // JSON object text stored in the root node's extras (seed, frequency, full config).
  // Integers keep their full 64-bit value (the GLB writer never routes them through double).
  std::string extras_json = "{}";
  // Added by export: where the colour bands of the land tint change (vertex colours, maps).
  TerrainPalette palette;
  // Optional biome class per vertex (weather/biomes.h; values < kBiomePaletteSize), or empty. When
  // given, the GLB carries it as the float attribute _BIOME (so "_BIOME" may not be listed in
  // attributes).
  std::span<const uint8_t> biome;
  // kBiome requires biome.
  LandColour land_colour = LandColour::kTerrain;
  // Rivers and lakes: planet.glb gets "Rivers" and "Lakes" nodes (glb_water.h) when set.
  const WaterGeometry* water = nullptr;
  // Optional: the pixel centres of a map of one size located on `mesh` (locateEquirect), for
  // every map and heightmap of that size to share instead of each locating them again. Maps
  // of another size locate their own. Not owned; null = none.
  const EquirectLocations* equirect = nullptr;
  // Optional: vertex normals computed once for the outputs planned on them, taken instead of
  // computed when made for this mesh, elevation and radius (vertexNormals). Not owned; null =
  // none.
  SharedNormals* normals = nullptr;
};

// The pixel centres of a width x height map on surface.mesh: surface.equirect when it has that
// size, else located into `own` (which the result then refers to).
const EquirectLocations& mapLocations(const PlanetSurface& surface, int width, int height,
                                      EquirectLocations& own);

}  // namespace planet_export
