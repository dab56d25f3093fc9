#include "export/tile_heightmap.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <glm/geometric.hpp>

#include <nlohmann/json.hpp>

#include "export/image.h"
#include "export/png_io.h"
#include "export/tileset_json.h"
#include "geodesy/latlon.h"

namespace planet_export {
namespace {

using Json = nlohmann::ordered_json;

void check(const TileHeightmap& map) {
  if (map.size < 2 || map.height_m.size() != size_t(map.size) * size_t(map.size))
    throw std::invalid_argument("tile heightmap: the heights do not fill a square of its size");
  for (double h : map.height_m) {
    if (!std::isfinite(h)) throw std::invalid_argument("tile heightmap: a height is not finite");
  }
}

Json vec(const glm::dvec3& v) {
  return {v.x, v.y, v.z};
}

Json ecef(const glm::dvec3& v) {
  const auto e = zUpOf(v.x, v.y, v.z);
  return {e[0], e[1], e[2]};
}

}  // namespace

HeightmapRange heightmapRange(const TileHeightmap& map) {
  check(map);
  const auto [lo, hi] = std::minmax_element(map.height_m.begin(), map.height_m.end());
  return {double(*lo), double(*hi)};
}

std::string encodeHeightmapPng(const TileHeightmap& map) {
  const HeightmapRange range = heightmapRange(map);
  const double span = range.max_m - range.min_m;
  Gray16Image image(map.size, map.size);
  for (size_t k = 0; k < map.height_m.size(); ++k) {
    const double unit = span > 0.0 ? (double(map.height_m[k]) - range.min_m) / span : 0.0;
    image.pixels[k] = uint16_t(std::lround(std::clamp(unit, 0.0, 1.0) * 65535.0));
  }
  return encodePngGray16(image);
}

std::array<double, 2> heightmapLatLon(const TileHeightmap& map, double x_m, double y_m) {
  const glm::dvec3 d = map.up + (x_m * map.east + y_m * map.north) / map.radius_m;
  const geodesy::LatLon ll = geodesy::unitToLatLon(glm::normalize(d));
  return {ll.lat_rad * 180.0 / M_PI, ll.lon_rad * 180.0 / M_PI};
}

std::string heightmapSidecarJson(const TileHeightmap& map, const std::string& png_name) {
  const HeightmapRange range = heightmapRange(map);
  const double half = 0.5 * map.spacing_m * double(map.size - 1);
  auto latLon = [&](double x, double y) {
    const auto ll = heightmapLatLon(map, x, y);
    return Json{{"lat_deg", ll[0]}, {"lon_deg", ll[1]}};
  };
  Json j;
  j["png"] = png_name;
  j["width"] = map.size;
  j["height"] = map.size;
  j["height_min_m"] = range.min_m;
  j["height_max_m"] = range.max_m;
  j["metres_per_step"] = (range.max_m - range.min_m) / 65535.0;
  j["decode"] = "height_m = height_min_m + sample * metres_per_step, above radius_m";
  j["spacing_m"] = map.spacing_m;
  j["size_m"] = map.spacing_m * double(map.size - 1);
  j["radius_m"] = map.radius_m;
  j["layout"] = "row 0 is the northern edge, column 0 the western; rows run south, columns east";
  j["frame"] = {
      {"projection",
       "gnomonic: the square lies in the plane tangent to the sphere at its centre; sample (x, y) "
       "stands at direction normalize(up + (x east + y north) / radius_m)"},
      {"up", vec(map.up)},
      {"east", vec(map.east)},
      {"north", vec(map.north)},
      {"planet_frame", "+Y north, longitude 0 on +X, 90 degrees east on -Z (glTF y-up)"},
      {"up_ecef", ecef(map.up)},
      {"east_ecef", ecef(map.east)},
      {"north_ecef", ecef(map.north)}};
  j["centre"] = latLon(0.0, 0.0);
  j["corners"] = {{"north_west", latLon(-half, half)},
                  {"north_east", latLon(half, half)},
                  {"south_west", latLon(-half, -half)},
                  {"south_east", latLon(half, -half)}};
  j["tile"] = {{"base", map.base}, {"level", map.level}, {"index", std::to_string(map.index)}};
  return j.dump(1) + "\n";
}

}  // namespace planet_export
