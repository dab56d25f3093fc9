#pragma once
// Pictures of a patch of a planet's surface seen from straight above its middle: orthographic,
// north up, no vertical exaggeration (the tiles of a region, a block of tiles). Triangles are
// drawn in the order given, without depth test: for patches small enough that no triangle hides
// another seen from above.

#include <functional>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "export/image.h"

namespace planet_export {

// Where the picture's pixels are: pixel (x, y) shows the point centre + (left_m + (x + 0.5) /
// pixels_per_m) east + (top_m - (y + 0.5) / pixels_per_m) north.
struct TopDownView {
  glm::dvec3 centre{0.0};
  glm::dvec3 east{1.0, 0.0, 0.0}, north{0.0, 1.0, 0.0}, up{0.0, 0.0, 1.0};
  double left_m = 0.0, top_m = 0.0;
  double pixels_per_m = 1.0;
  int width = 0, height = 0;
};

// The view above the mean of `positions` (planet frame, metres; +Y the north pole) that fits
// them all into at most `size` pixels along the longer side. Throws std::invalid_argument for
// no positions or a size below 2.
TopDownView fitTopDown(std::span<const glm::dvec3> positions, int size);

// Draws each triangle (three indices into positions) with colour(a, b, c, wa, wb, wc) at every
// pixel centre it covers (wa + wb + wc = 1); white where none is.
using TriangleShader =
    std::function<Rgb(uint32_t a, uint32_t b, uint32_t c, double wa, double wb, double wc)>;
RgbImage drawTopDown(const TopDownView& view, std::span<const glm::dvec3> positions,
                     std::span<const uint32_t> indices, const TriangleShader& colour);

// Hillshade: unit normals interpolated per pixel, lit from the north-west 45 degrees up, grey.
RgbImage hillshadeTopDown(const TopDownView& view, std::span<const glm::dvec3> positions,
                          std::span<const glm::dvec3> normals, std::span<const uint32_t> indices);

// A value per vertex, interpolated per pixel and coloured by ramp(value).
RgbImage valuesTopDown(const TopDownView& view, std::span<const glm::dvec3> positions,
                       std::span<const float> values, std::span<const uint32_t> indices,
                       const std::function<Rgb(double)>& ramp);

}  // namespace planet_export
