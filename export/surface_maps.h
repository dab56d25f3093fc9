#pragma once
// More 8-bit equirectangular pictures (pixel layout of equirect_sampler.h, height = width / 2):
// the biome map and a normal map. (Rainfall: renderSequentialMap in maps.h.) Parallel over
// rows on the caller's oneTBB arena, same pixels for any thread count. Throw
// std::invalid_argument for a surface validateSurface rejects or width < 2.

#include <span>

#include "export/image.h"
#include "export/planet_surface.h"

namespace planet_export {

struct BiomeMapOptions {
  int width = 2048;
  bool legend = true;  // swatches and names of the classes present, bottom left
};

// Each pixel shows the class of the nearest corner of the face it falls in (classes are not
// interpolated), in the biome palette. Needs surface.biome (else std::invalid_argument).
RgbImage renderBiomeMap(const PlanetSurface& surface, const BiomeMapOptions& options = {});

// The biome key alone (swatch and name of every class in `biome`, one per line), for maps
// written without legend because they are textures. scale: font pixel size (>= 1).
RgbImage renderBiomeLegend(std::span<const uint8_t> biome, int scale = 2);

struct NormalMapOptions {
  int width = 2048;
  // Scales the relief before the normals are taken; 1 is the true surface (on a planet map
  // nearly flat), larger values bring the relief out.
  double vertical_exaggeration = 1.0;
};

// Tangent-space normal map: the unit normal of the displaced surface (area-weighted vertex
// normals, interpolated and renormalised) in the local frame east, north, up, encoded
// RGB = 0.5 + 0.5 * (n.east, n.north, n.up). East is image-right and north image-up, so this
// is the OpenGL (+Y up) convention; flip green for DirectX. Flat ground is (128, 128, 255).
RgbImage renderNormalMap(const PlanetSurface& surface, const NormalMapOptions& options = {});

}  // namespace planet_export
