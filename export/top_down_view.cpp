#include "export/top_down_view.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <glm/geometric.hpp>

namespace planet_export {

TopDownView fitTopDown(std::span<const glm::dvec3> positions, int size) {
  if (positions.empty()) throw std::invalid_argument("fitTopDown: no positions");
  if (size < 2) throw std::invalid_argument("fitTopDown: a size of at least 2 pixels");
  TopDownView view;
  for (const glm::dvec3& p : positions) view.centre += p;
  view.centre /= double(positions.size());
  view.up = glm::normalize(view.centre);
  // East is undefined over a pole: any horizontal direction will do there.
  const glm::dvec3 axis =
      std::abs(view.up.y) > 0.999999 ? glm::dvec3(1, 0, 0) : glm::dvec3(0, 1, 0);
  view.east = glm::normalize(glm::cross(axis, view.up));
  view.north = glm::cross(view.up, view.east);
  double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
  for (const glm::dvec3& p : positions) {
    const double x = glm::dot(p - view.centre, view.east),
                 y = glm::dot(p - view.centre, view.north);
    lo_x = std::min(lo_x, x), hi_x = std::max(hi_x, x);
    lo_y = std::min(lo_y, y), hi_y = std::max(hi_y, y);
  }
  const double extent = std::max({hi_x - lo_x, hi_y - lo_y, 1e-9});
  view.pixels_per_m = double(size) / extent;
  view.width = std::max(1, int(std::ceil((hi_x - lo_x) * view.pixels_per_m)));
  view.height = std::max(1, int(std::ceil((hi_y - lo_y) * view.pixels_per_m)));
  view.width = std::min(view.width, size), view.height = std::min(view.height, size);
  view.left_m = lo_x, view.top_m = hi_y;
  return view;
}

RgbImage drawTopDown(const TopDownView& view, std::span<const glm::dvec3> positions,
                     std::span<const uint32_t> indices, const TriangleShader& colour) {
  RgbImage image(view.width, view.height);
  std::fill(image.pixels.begin(), image.pixels.end(), uint8_t(255));
  std::vector<double> px(positions.size()), py(positions.size());
  for (size_t v = 0; v < positions.size(); ++v) {
    const glm::dvec3 d = positions[v] - view.centre;
    px[v] = (glm::dot(d, view.east) - view.left_m) * view.pixels_per_m;
    py[v] = (view.top_m - glm::dot(d, view.north)) * view.pixels_per_m;
  }
  for (size_t t = 0; t + 2 < indices.size(); t += 3) {
    const uint32_t a = indices[t], b = indices[t + 1], c = indices[t + 2];
    const double ax = px[a], ay = py[a], bx = px[b], by = py[b], cx = px[c], cy = py[c];
    const double det = (bx - ax) * (cy - ay) - (cx - ax) * (by - ay);
    if (det == 0.0) continue;
    const int x0 = std::max(0, int(std::floor(std::min({ax, bx, cx}))));
    const int x1 = std::min(view.width - 1, int(std::ceil(std::max({ax, bx, cx}))));
    const int y0 = std::max(0, int(std::floor(std::min({ay, by, cy}))));
    const int y1 = std::min(view.height - 1, int(std::ceil(std::max({ay, by, cy}))));
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        const double qx = x + 0.5, qy = y + 0.5;
        const double wb = ((qx - ax) * (cy - ay) - (cx - ax) * (qy - ay)) / det;
        const double wc = ((bx - ax) * (qy - ay) - (qx - ax) * (by - ay)) / det;
        const double wa = 1.0 - wb - wc;
        if (wa < -1e-9 || wb < -1e-9 || wc < -1e-9) continue;
        image.set(x, y, colour(a, b, c, wa, wb, wc));
      }
    }
  }
  return image;
}

RgbImage hillshadeTopDown(const TopDownView& view, std::span<const glm::dvec3> positions,
                          std::span<const glm::dvec3> normals, std::span<const uint32_t> indices) {
  const double alt = M_PI / 4.0, az = 7.0 * M_PI / 4.0;  // 45 degrees up, from the north-west
  const glm::dvec3 light =
      glm::normalize(std::cos(alt) * std::sin(az) * view.east +
                     std::cos(alt) * std::cos(az) * view.north + std::sin(alt) * view.up);
  return drawTopDown(view, positions, indices,
                     [&](uint32_t a, uint32_t b, uint32_t c, double wa, double wb, double wc) {
                       const glm::dvec3 n =
                           glm::normalize(wa * normals[a] + wb * normals[b] + wc * normals[c]);
                       const float shade = float(std::max(0.0, glm::dot(n, light)));
                       return Rgb{shade, shade, shade};
                     });
}

RgbImage valuesTopDown(const TopDownView& view, std::span<const glm::dvec3> positions,
                       std::span<const float> values, std::span<const uint32_t> indices,
                       const std::function<Rgb(double)>& ramp) {
  return drawTopDown(view, positions, indices,
                     [&](uint32_t a, uint32_t b, uint32_t c, double wa, double wb, double wc) {
                       return ramp(wa * values[a] + wb * values[b] + wc * values[c]);
                     });
}

}  // namespace planet_export
