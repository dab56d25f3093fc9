#include "export/tile_masks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "export/png_io.h"

namespace planet_export {
namespace {

using Json = nlohmann::ordered_json;

uint8_t toByte(double x) {
  if (!(x > 0.0)) return 0;  // also NaN
  return uint8_t(std::lround(std::min(x, 255.0)));
}

}  // namespace

std::vector<uint8_t> tileMaskPixels(const TileMasksView& masks, const TileMasksEncoding& encoding) {
  const size_t t = size_t(masks.tile_edge);
  const size_t vertices = (t + 1) * (t + 2) / 2;
  if (masks.tile_edge < 1 || masks.flow_m2.size() < vertices || masks.wear_m.size() < vertices ||
      masks.deposition_m.size() < vertices || masks.water.size() < vertices) {
    throw std::invalid_argument("tile masks: a tile of edge " + std::to_string(masks.tile_edge) +
                                " needs " + std::to_string(vertices) + " values per mask");
  }
  const size_t side = t + 1;
  std::vector<uint8_t> pixels(side * side * 4, 0);
  const double flow_scale = 255.0 / encoding.flow_decades;
  const double depth_scale = 1.0 / encoding.depth_step_m;
  size_t k = 0;
  for (size_t v = 0; v <= t; ++v) {
    for (size_t u = 0; u + v <= t; ++u, ++k) {
      uint8_t* p = &pixels[(v * side + u) * 4];
      const double cells = double(masks.flow_m2[k]) / encoding.cell_m2;
      p[0] = cells > 1.0 ? toByte(flow_scale * std::log10(cells)) : 0;
      p[1] = toByte(depth_scale * double(masks.wear_m[k]));
      p[2] = toByte(depth_scale * double(masks.deposition_m[k]));
      p[3] = toByte(255.0 * double(masks.water[k]));
    }
  }
  return pixels;
}

std::string encodeTileMasksPng(const TileMasksView& masks, const TileMasksEncoding& encoding) {
  const int side = masks.tile_edge + 1;
  return encodePngRgba8(side, side, tileMaskPixels(masks, encoding));
}

std::string tileMasksSidecarJson(const TileMasksView& masks, const TileMasksEncoding& encoding,
                                 const std::string& png_name) {
  Json j;
  j["png"] = png_name;
  j["size"] = masks.tile_edge + 1;
  j["layout"] =
      "pixel (u, v), column u and row v, is the tile vertex u lattice steps along the tile's "
      "first edge and v along its second (tile glb vertex v*(T+1) - v*(v-1)/2 + u); pixels with "
      "u + v > T are 0";
  j["tile_edge"] = masks.tile_edge;
  j["channels"] = {
      {"r", "flow: drainage area A, byte = 255 * log10(A / cell_m2) / flow_decades"},
      {"g", "wear: depth taken away by erosion at this level and coarser, byte * depth_step_m"},
      {"b", "deposition: depth laid down at this level and coarser, byte * depth_step_m"},
      {"a", "water: 255 under the sea, a lake or a river of the planet's size"}};
  j["cell_m2"] = encoding.cell_m2;
  j["flow_decades"] = encoding.flow_decades;
  j["depth_step_m"] = encoding.depth_step_m;
  j["tile"] = {{"base", masks.base}, {"level", masks.level}, {"index", masks.index}};
  return j.dump(2) + "\n";
}

}  // namespace planet_export
