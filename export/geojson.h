#pragma once
// GeoJSON (RFC 7946) text from lines and polygons in longitude/latitude: a FeatureCollection,
// coordinates [lon, lat, elevation] in degrees (WGS 84 axes order) and metres. Lines and rings
// that cross the antimeridian are cut there (RFC 7946 section 3.1.9): a line becomes a
// MultiLineString, a polygon a MultiPolygon. Coordinates are rounded to 1e-7 degrees and
// 1 cm.

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace planet_export {

struct GeoLine {
  std::vector<double> lon_deg, lat_deg, elevation_m;  // per point, at least 2
  // Per-point values written into properties as arrays aligned with the coordinates in order
  // (for a MultiLineString, the coordinates of all its parts one after the other; a cut adds
  // a point on each side of the antimeridian, with values interpolated).
  std::vector<std::pair<std::string, std::vector<double>>> point_values;
  std::string properties_json = "{}";  // a JSON object
};

struct GeoPolygon {
  // Rings of [lon, lat]: outer rings counter-clockwise, holes clockwise (RFC 7946's
  // right-hand rule), first point not repeated (the writer closes every ring). Each hole
  // belongs to the outer ring that contains its first point.
  std::vector<std::vector<std::pair<double, double>>> rings;
  double elevation_m = 0.0;  // third coordinate of every point
  std::string properties_json = "{}";
};

// Throws std::invalid_argument on a line of fewer than 2 points, mismatched sizes,
// non-finite values or properties that are not a JSON object.
std::string geoJsonText(std::span<const GeoLine> lines, std::span<const GeoPolygon> polygons);

}  // namespace planet_export
