#pragma once
// A tile's heights on a square grid, for engine heightmap terrains (Unity Terrain, Unreal
// Landscape, Godot heightmap plugins): a 16-bit grayscale PNG and a JSON sidecar that says how
// to read it (the height range, the spacing, where the square lies on the planet). The grid is
// made by the caller (planet/ resamples a tile onto it); this writes it.
//
// The square lies in the plane tangent to the sphere at its centre, +x east, +y north; a sample
// at plane coordinates (x, y) metres stands on the sphere at the direction
// normalize(up + (x east + y north) / radius) (a gnomonic projection), at its height above the
// radius. Row 0 is the northern edge, column 0 the western; both run in steps of spacing_m.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

namespace planet_export {

struct TileHeightmap {
  int size = 0;  // samples per side (2^n + 1)
  // size * size, row-major from the north-west corner; double, so that a 16-bit step of a
  // flat tile (below a float's resolution at kilometres of height) still counts
  std::vector<double> height_m;
  double spacing_m = 0.0;        // between neighbouring samples, in the tangent plane
  double radius_m = 0.0;         // the planet's
  glm::dvec3 up{0.0, 1.0, 0.0};  // unit: the square's centre direction (planet frame)
  glm::dvec3 east{1.0, 0.0, 0.0};
  glm::dvec3 north{0.0, 0.0, -1.0};
  // The tile it was made for.
  uint32_t base = 0;
  uint32_t level = 0;
  uint64_t index = 0;
};

// The height range a PNG sample stands for: sample s means min_m + s * (max_m - min_m) / 65535.
struct HeightmapRange {
  double min_m = 0.0;
  double max_m = 0.0;
};
HeightmapRange heightmapRange(const TileHeightmap& map);

// 16-bit grayscale PNG of the heights, scaled onto [0, 65535] over heightmapRange (rounded to
// the nearest step). Throws std::invalid_argument for a size below 2 or heights that do not fit
// it, or that are not finite.
std::string encodeHeightmapPng(const TileHeightmap& map);

// The sidecar (JSON text): the png's name, size, range, spacing, the frame (centre and axes in
// the planet frame and in ECEF order), the centre's and the four corners' latitude and
// longitude in degrees, and the tile.
std::string heightmapSidecarJson(const TileHeightmap& map, const std::string& png_name);

// Latitude and longitude (degrees) of the direction under plane point (x, y) of the map.
std::array<double, 2> heightmapLatLon(const TileHeightmap& map, double x_m, double y_m);

}  // namespace planet_export
