#pragma once
// A tile's erosion masks (flow, wear, deposition, water: the texture splats engines blend) as
// an 8-bit RGBA PNG laid out on the tile's own lattice, and a JSON sidecar that says how to read
// it. Pixel (u, v), column u and row v, is the tile vertex u steps along the tile's first edge
// and v along its second (in the tile glb, vertex v (T + 1) - v (v - 1) / 2 + u); pixels with
// u + v > T are 0. Each byte is a fixed function of the vertex's value (no per-tile scaling), so
// the vertices two tiles share get the same bytes in both, as they get the same heights.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace planet_export {

// How the bytes encode the values: red = flow, 255 log10(area / cell_m2) / flow_decades
// (clamped: 0 is a single cell or less); green = wear and blue = deposition, the depth over
// depth_step_m (clamped to 255); alpha = water, 255 times its share (1: sea, lake or river).
struct TileMasksEncoding {
  double cell_m2 = 1.0;  // the level's lattice cell area
  double flow_decades = 6.0;
  double depth_step_m = 0.1;
};

struct TileMasksView {
  int tile_edge = 0;  // T: T + 1 vertices along each edge
  // Per vertex in the tile's row order ((T + 1)(T + 2) / 2 values at least; more are ignored).
  std::span<const float> flow_m2, wear_m, deposition_m, water;
  // The tile it was made for.
  uint32_t base = 0;
  uint32_t level = 0;
  uint64_t index = 0;
};

// The RGBA pixels, (T + 1)^2 * 4 bytes. Throws std::invalid_argument for arrays too short.
std::vector<uint8_t> tileMaskPixels(const TileMasksView& masks, const TileMasksEncoding& encoding);
// The PNG of tileMaskPixels.
std::string encodeTileMasksPng(const TileMasksView& masks, const TileMasksEncoding& encoding);
// The sidecar (JSON text): the png's name, the layout, the channels and their encoding, the tile.
std::string tileMasksSidecarJson(const TileMasksView& masks, const TileMasksEncoding& encoding,
                                 const std::string& png_name);

}  // namespace planet_export
