#include "export/surface_maps.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include <tbb/parallel_for.h>
#include <glm/geometric.hpp>

#include "export/biome_palette.h"
#include "export/detail/legend.h"
#include "export/detail/map_input.h"
#include "export/equirect_sampler.h"
#include "export/shared_normals.h"
#include "geodesy/latlon.h"

namespace planet_export {
namespace {

// Size in pixels of the key drawBiomeKey draws at this scale.
struct KeySize {
  int width = 0;
  int height = 0;
};
KeySize biomeKeySize(const std::array<bool, kBiomePaletteSize>& present, int scale) {
  const int line = 9 * scale, pad = 2 * scale;
  int rows = 0, widest = 0;
  for (int id = 0; id < kBiomePaletteSize; ++id) {
    if (!present[size_t(id)]) continue;
    ++rows;
    widest = std::max(widest, textWidth(biomeName(uint8_t(id)), scale));
  }
  return {pad * 3 + line + widest, pad * 2 + rows * line};
}

// A box of swatches with names for the classes that appear, top-left corner at (x0, y0).
void drawBiomeKey(RgbImage& image, const std::array<bool, kBiomePaletteSize>& present, int scale,
                  int x0, int y0) {
  const int line = 9 * scale, pad = 2 * scale;
  const KeySize size = biomeKeySize(present, scale);
  for (int y = y0; y < y0 + size.height; ++y) {
    for (int x = x0; x < x0 + size.width; ++x) image.set(x, y, scaled(image.get(x, y), 0.35));
  }
  int y = y0 + pad;
  for (int id = 0; id < kBiomePaletteSize; ++id) {
    if (!present[size_t(id)]) continue;
    for (int dy = 0; dy < line - scale; ++dy) {
      for (int dx = 0; dx < line - scale; ++dx)
        image.set(x0 + pad + dx, y + dy, biomeColour(uint8_t(id)));
    }
    drawText(image, x0 + 2 * pad + line, y + scale, biomeName(uint8_t(id)), Rgb{1, 1, 1}, scale);
    y += line;
  }
}

// The key in the bottom-left corner of a map, if it fits.
void drawBiomeKey(RgbImage& image, const std::array<bool, kBiomePaletteSize>& present) {
  const int scale = std::max(1, image.height / 400);
  const KeySize size = biomeKeySize(present, scale);
  const int pad = 2 * scale;
  const int y0 = image.height - size.height - pad;
  if (y0 < 0 || size.width > image.width) return;  // too small a map for a key
  drawBiomeKey(image, present, scale, pad, y0);
}

}  // namespace

RgbImage renderBiomeMap(const PlanetSurface& surface, const BiomeMapOptions& options) {
  checkMapInput("renderBiomeMap", surface, options.width);
  if (surface.biome.empty()) {
    throw std::invalid_argument("renderBiomeMap: the surface has no biome classes");
  }
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const int width = options.width, height = width / 2;
  EquirectLocations own;
  const EquirectLocations& where = mapLocations(surface, width, height, own);
  RgbImage image(width, height);
  std::vector<uint8_t> classes(where.points.size());
  tbb::parallel_for(size_t(0), where.points.size(), [&](size_t i) {
    const geodesy::SurfacePoint& p = where.points[i];
    int nearest = 0;
    for (int k = 1; k < 3; ++k) {
      if (p.bary[k] > p.bary[nearest]) nearest = k;
    }
    classes[i] = surface.biome[mesh.indices[3 * size_t(p.face) + size_t(nearest)]];
    image.set(int(i % size_t(width)), int(i / size_t(width)), biomeColour(classes[i]));
  });
  if (options.legend) {
    std::array<bool, kBiomePaletteSize> present{};
    for (uint8_t c : classes) present[c] = true;
    drawBiomeKey(image, present);
  }
  return image;
}

RgbImage renderBiomeLegend(std::span<const uint8_t> biome, int scale) {
  std::array<bool, kBiomePaletteSize> present{};
  for (uint8_t c : biome) {
    if (c < kBiomePaletteSize) present[c] = true;
  }
  scale = std::max(1, scale);
  const KeySize size = biomeKeySize(present, scale);
  RgbImage image(std::max(1, size.width), std::max(1, size.height));
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) image.set(x, y, Rgb{0.5f, 0.5f, 0.5f});
  }
  drawBiomeKey(image, present, scale, 0, 0);
  return image;
}

RgbImage renderNormalMap(const PlanetSurface& surface, const NormalMapOptions& options) {
  checkMapInput("renderNormalMap", surface, options.width);
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const VertexNormals normals = vertexNormals(surface, options.vertical_exaggeration);
  const int width = options.width, height = width / 2;
  EquirectLocations own;
  const EquirectLocations& where = mapLocations(surface, width, height, own);
  RgbImage image(width, height);
  tbb::parallel_for(0, height, [&](int y) {
    for (int x = 0; x < width; ++x) {
      const glm::dvec3 up = equirectDirection(x, y, width, height);
      const glm::dvec3 east = geodesy::eastAt(up), north = geodesy::northAt(up);
      const glm::dvec3 n = glm::normalize(glm::dvec3(interpolate(
          mesh, where.points[size_t(y) * size_t(width) + size_t(x)], normals.values())));
      image.set(x, y,
                Rgb{float(0.5 + 0.5 * glm::dot(n, east)), float(0.5 + 0.5 * glm::dot(n, north)),
                    float(0.5 + 0.5 * glm::dot(n, up))});
    }
  });
  return image;
}

}  // namespace planet_export
