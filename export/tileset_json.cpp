#include "export/tileset_json.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace planet_export {
namespace {

using Json = nlohmann::ordered_json;

Json boxOf(const std::array<double, 12>& b) {
  Json out = Json::array();
  for (int k = 0; k < 4; ++k) {
    for (double x : zUpOf(b[3 * k], b[3 * k + 1], b[3 * k + 2])) out.push_back(x);
  }
  return out;
}

}  // namespace

std::string tilesetJson(std::span<const TilesetTile> tiles, uint32_t root,
                        const std::string& generator, const TilesetPlanet& planet) {
  if (root >= tiles.size()) throw std::invalid_argument("tileset: the root is not a tile");
  // Built without recursion: every tile's object, then each moved into its parent, deepest
  // first (children always come after their parent in a depth-first order).
  std::vector<uint32_t> order{root};
  std::vector<uint8_t> seen(tiles.size(), 0);
  seen[root] = 1;
  for (size_t k = 0; k < order.size(); ++k) {
    for (uint32_t child : tiles[order[k]].children) {
      if (child >= tiles.size()) throw std::invalid_argument("tileset: a child is not a tile");
      if (seen[child]) throw std::invalid_argument("tileset: a tile is reached twice");
      seen[child] = 1;
      order.push_back(child);
    }
  }
  std::vector<Json> objects(tiles.size());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const TilesetTile& t = tiles[*it];
    Json o;
    o["boundingVolume"] = {{"box", boxOf(t.box)}};
    o["geometricError"] = t.geometric_error_m;
    if (*it == root) o["refine"] = "REPLACE";
    if (!t.content_uri.empty()) o["content"] = {{"uri", t.content_uri}};
    if (!t.children.empty()) {
      Json children = Json::array();
      for (uint32_t child : t.children) children.push_back(std::move(objects[child]));
      o["children"] = std::move(children);
    }
    objects[*it] = std::move(o);
  }
  Json tileset;
  tileset["asset"] = {{"version", "1.1"}, {"generator", generator}};
  if (planet.radius_m > 0.0) {
    // Used, not required: a reader without the extension still loads the tiles (on its own
    // globe's frame, which is the same ECEF axes).
    tileset["extensionsUsed"] = Json::array({"3DTILES_ellipsoid"});
    const double r = planet.radius_m;
    tileset["extensions"]["3DTILES_ellipsoid"] = {{"body", "none"}, {"radii", {r, r, r}}};
    tileset["extras"]["planetgen"] = {{"radius_m", r},
                                      {"sea_level_m", planet.sea_level_m},
                                      {"region",
                                       {{"lat_deg", planet.region_lat_deg},
                                        {"lon_deg", planet.region_lon_deg},
                                        {"radius_m", planet.region_radius_m}}},
                                      {"finest_level", planet.finest_level},
                                      {"finest_spacing_m", planet.finest_spacing_m}};
  }
  tileset["geometricError"] = tiles[root].geometric_error_m;
  tileset["root"] = std::move(objects[root]);
  return tileset.dump(1) + "\n";
}

}  // namespace planet_export
