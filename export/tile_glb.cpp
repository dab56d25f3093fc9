#include "export/tile_glb.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <glm/geometric.hpp>

#include "export/detail/glb_builder.h"

namespace planet_export {
namespace {

void check(const TileGlb& t) {
  const size_t n = t.positions_m.size();
  if (t.normals.size() != n || t.height_m.size() != n || t.parent_height_m.size() != n)
    throw std::invalid_argument("tile glb: positions, normals and heights differ in count");
  if (t.indices.size() % 3 != 0)
    throw std::invalid_argument("tile glb: the index count is not a multiple of 3");
  const auto out_of_range = [n](uint32_t k) { return k >= n; };
  if (std::any_of(t.indices.begin(), t.indices.end(), out_of_range))
    throw std::invalid_argument("tile glb: a triangle index is out of range");
  for (const auto& edge : t.edges) {
    if (std::any_of(edge.begin(), edge.end(), out_of_range))
      throw std::invalid_argument("tile glb: an edge index is out of range");
  }
  if (!(t.skirt_depth_m >= 0.0)) throw std::invalid_argument("tile glb: negative skirt depth");
}

// The triangles' indices, then the skirts', as uint16 (little-endian).
std::vector<uint8_t> narrowIndexBytes(std::span<const uint32_t> indices,
                                      std::span<const uint32_t> skirt_indices) {
  std::vector<uint8_t> bytes((indices.size() + skirt_indices.size()) * 2);
  size_t k = 0;
  for (const auto& list : {indices, skirt_indices}) {
    for (uint32_t index : list) {
      bytes[2 * k] = uint8_t(index);
      bytes[2 * k + 1] = uint8_t(index >> 8);
      ++k;
    }
  }
  return bytes;
}

}  // namespace

glm::vec3 skirtOffset(const glm::dvec3& centre_m, const glm::vec3& offset, double depth_m) {
  const glm::dvec3 at = centre_m + glm::dvec3(offset);
  return glm::vec3(at - glm::normalize(at) * depth_m - centre_m);
}

void writeTileGlb(const std::filesystem::path& path, const TileGlb& tile) {
  check(tile);
  // The tile's arrays go into the file as they are (borrowed, no copies: a bake's memory per
  // vertex in flight); only the skirts' vertices and triangles are made here, to follow them.
  std::vector<glm::vec3> skirt_position, skirt_normal;
  std::vector<float> skirt_height, skirt_parent;
  std::vector<uint32_t> skirt_indices;
  const uint32_t tile_vertices = uint32_t(tile.positions_m.size());
  if (tile.skirt_depth_m > 0.0) {
    // Each edge vertex gets a copy lowered toward the planet's centre (skirtOffset), and each
    // edge segment (a, b) a quad a, b, b', a' facing away from the tile.
    const float depth = float(tile.skirt_depth_m);
    for (const auto& edge : tile.edges) {
      if (edge.size() < 2) continue;
      const uint32_t first = tile_vertices + uint32_t(skirt_position.size());
      for (uint32_t v : edge) {
        skirt_position.push_back(
            skirtOffset(tile.centre_m, tile.positions_m[v], tile.skirt_depth_m));
        skirt_normal.push_back(tile.normals[v]);
        skirt_height.push_back(tile.height_m[v] - depth);
        skirt_parent.push_back(tile.parent_height_m[v] - depth);
      }
      for (size_t k = 0; k + 1 < edge.size(); ++k) {
        const uint32_t a = edge[k], b = edge[k + 1];
        const uint32_t a2 = first + uint32_t(k), b2 = first + uint32_t(k + 1);
        skirt_indices.insert(skirt_indices.end(), {a, b2, b, a, a2, b2});
      }
    }
  }

  const size_t n = tile_vertices + skirt_position.size();
  GlbBuilder glb(false, {}, size_t(64) << 10);
  const auto [tile_lo, tile_hi] = positionBounds(tile.positions_m.data(), tile_vertices);
  const auto [skirt_lo, skirt_hi] = positionBounds(skirt_position.data(), skirt_position.size());
  Json lo = tile_lo, hi = tile_hi;
  for (size_t a = 0; a < 3 && !skirt_position.empty(); ++a) {
    lo[a] = std::min(lo[a].get<double>(), skirt_lo[a].get<double>());
    hi[a] = std::max(hi[a].get<double>(), skirt_hi[a].get<double>());
  }
  auto parts = [](auto tile_values, auto&& skirt_values) {
    std::vector<ViewBytes> out{ViewBytes::borrowed(tile_values)};
    if (!skirt_values.empty()) out.emplace_back(std::move(skirt_values));
    return out;
  };
  const int position_view =
      glb.addVertexView(parts(tile.positions_m, std::move(skirt_position)), 12);
  const int normal_view = glb.addVertexView(parts(tile.normals, std::move(skirt_normal)), 12);
  const int height_view = glb.addVertexView(parts(tile.height_m, std::move(skirt_height)), 4);
  const int parent_view =
      glb.addVertexView(parts(tile.parent_height_m, std::move(skirt_parent)), 4);
  const bool narrow = n <= 65536;
  const size_t index_count = tile.indices.size() + skirt_indices.size();
  int index_view = 0;
  if (narrow) {
    index_view =
        glb.addIndexView(narrowIndexBytes(tile.indices, skirt_indices), Component::kUnsignedShort);
  } else {
    std::vector<uint32_t> indices(tile.indices.begin(), tile.indices.end());
    indices.insert(indices.end(), skirt_indices.begin(), skirt_indices.end());
    index_view = glb.addIndexView(ViewBytes(std::move(indices)), Component::kUnsignedInt);
  }
  Json attributes;
  attributes["POSITION"] =
      glb.addAccessor(position_view, 0, Component::kFloat, false, n, "VEC3", lo, hi);
  attributes["NORMAL"] = glb.addAccessor(normal_view, 0, Component::kFloat, false, n, "VEC3");
  attributes["_HEIGHT"] = glb.addAccessor(height_view, 0, Component::kFloat, false, n, "SCALAR");
  attributes["_PARENT_HEIGHT"] =
      glb.addAccessor(parent_view, 0, Component::kFloat, false, n, "SCALAR");
  const int index_accessor =
      glb.addAccessor(index_view, 0, narrow ? Component::kUnsignedShort : Component::kUnsignedInt,
                      false, index_count, "SCALAR");

  const std::string name = "tile_" + std::to_string(tile.level) + "_" + std::to_string(tile.base) +
                           "_" + std::to_string(tile.index);
  Json gltf;
  gltf["asset"] = {{"version", "2.0"}, {"generator", "planetgen"}};
  gltf["scene"] = 0;
  gltf["scenes"] = Json::array({{{"nodes", {0}}}});
  Json node = {{"name", name}, {"mesh", 0}};
  // Doubles print with 17 significant digits: the centre reads back bit for bit.
  node["translation"] = {tile.centre_m.x, tile.centre_m.y, tile.centre_m.z};
  node["extras"]["planetgen_tile"] = {{"base", tile.base},
                                      {"level", tile.level},
                                      {"index", std::to_string(tile.index)},
                                      {"spacing_m", tile.spacing_m},
                                      {"skirt_depth_m", tile.skirt_depth_m}};
  gltf["nodes"] = Json::array({node});
  gltf["meshes"] = Json::array({{{"name", name},
                                 {"primitives", Json::array({{{"attributes", attributes},
                                                              {"indices", index_accessor},
                                                              {"material", 0}}})}}});
  gltf["materials"] = Json::array({{{"name", "terrain"},
                                    {"pbrMetallicRoughness",
                                     {{"baseColorFactor", {0.55, 0.53, 0.48, 1.0}},
                                      {"metallicFactor", 0.0},
                                      {"roughnessFactor", 1.0}}}}});
  glb.write(path, std::move(gltf));
}

}  // namespace planet_export
