#include "export/geojson.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace planet_export {
namespace {

using Json = nlohmann::ordered_json;
using Point = std::pair<double, double>;  // lon, lat (unwrapped longitudes allowed inside)

double round7(double deg) {
  return std::round(deg * 1e7) / 1e7;
}
double round2(double m) {
  return std::round(m * 100.0) / 100.0;
}

Json properties(const std::string& text) {
  Json p = Json::parse(text, nullptr, false);
  if (!p.is_object()) throw std::invalid_argument("geojson: properties must be a JSON object");
  return p;
}

// Longitude difference b - a brought into [-180, 180].
double lonStep(double a, double b) {
  double d = b - a;
  while (d > 180.0) d -= 360.0;
  while (d < -180.0) d += 360.0;
  return d;
}

Json lineGeometry(const GeoLine& line, Json& props) {
  const size_t n = line.lon_deg.size();
  std::vector<Json> parts(1, Json::array());
  std::vector<std::vector<double>> values(line.point_values.size());
  auto add = [&](double lon, double lat, double e, size_t i, size_t j, double t) {
    parts.back().push_back({round7(lon), round7(lat), round2(e)});
    for (size_t k = 0; k < values.size(); ++k) {
      const auto& v = line.point_values[k].second;
      values[k].push_back((1.0 - t) * v[i] + t * v[j]);
    }
  };
  add(line.lon_deg[0], line.lat_deg[0], line.elevation_m[0], 0, 0, 0.0);
  for (size_t i = 0; i + 1 < n; ++i) {
    const double a = line.lon_deg[i];
    const double step = lonStep(a, line.lon_deg[i + 1]);
    const double b = a + step;
    if (b > 180.0 || b < -180.0) {  // crosses the antimeridian: cut at +-180
      const double edge = b > 180.0 ? 180.0 : -180.0;
      const double t = (edge - a) / (b - a);
      const double lat = line.lat_deg[i] + t * (line.lat_deg[i + 1] - line.lat_deg[i]);
      const double e = line.elevation_m[i] + t * (line.elevation_m[i + 1] - line.elevation_m[i]);
      add(edge, lat, e, i, i + 1, t);
      parts.push_back(Json::array());
      parts.back().push_back({round7(-edge), round7(lat), round2(e)});
      for (size_t k = 0; k < values.size(); ++k) values[k].push_back(values[k].back());
    }
    add(line.lon_deg[i + 1], line.lat_deg[i + 1], line.elevation_m[i + 1], i + 1, i + 1, 0.0);
  }
  for (size_t k = 0; k < values.size(); ++k) props[line.point_values[k].first] = values[k];
  // A part of a single point (a cut exactly at a vertex) is dropped.
  std::vector<Json> kept;
  for (Json& p : parts)
    if (p.size() >= 2) kept.push_back(std::move(p));
  if (kept.size() == 1) return {{"type", "LineString"}, {"coordinates", std::move(kept[0])}};
  return {{"type", "MultiLineString"}, {"coordinates", kept}};
}

double signedArea(const std::vector<Point>& ring) {
  double a = 0.0;
  for (size_t i = 0; i < ring.size(); ++i) {
    const Point& p = ring[i];
    const Point& q = ring[(i + 1) % ring.size()];
    a += p.first * q.second - q.first * p.second;
  }
  return 0.5 * a;
}

bool contains(const std::vector<Point>& ring, Point p) {
  bool inside = false;
  for (size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
    const Point& a = ring[i];
    const Point& b = ring[j];
    if ((a.second > p.second) != (b.second > p.second) &&
        p.first < (b.first - a.first) * (p.second - a.second) / (b.second - a.second) + a.first)
      inside = !inside;
  }
  return inside;
}

// Sutherland-Hodgman against the half-plane sign * (lon - edge) <= 0.
std::vector<Point> clip(const std::vector<Point>& ring, double edge, double sign) {
  std::vector<Point> out;
  for (size_t i = 0; i < ring.size(); ++i) {
    const Point& a = ring[i];
    const Point& b = ring[(i + 1) % ring.size()];
    const bool in_a = sign * (a.first - edge) <= 0.0, in_b = sign * (b.first - edge) <= 0.0;
    if (in_a) out.push_back(a);
    if (in_a != in_b) {
      const double t = (edge - a.first) / (b.first - a.first);
      out.push_back({edge, a.second + t * (b.second - a.second)});
    }
  }
  return out;
}

// Rings unwrapped so that no step jumps by more than 180 degrees, around a common centre.
std::vector<Point> unwrap(const std::vector<Point>& ring, double centre) {
  std::vector<Point> out;
  double lon = centre + lonStep(centre, ring[0].first);
  for (size_t i = 0; i < ring.size(); ++i) {
    if (i > 0) lon += lonStep(ring[i - 1].first, ring[i].first);
    out.push_back({lon, ring[i].second});
  }
  return out;
}

Json polygonGeometry(const GeoPolygon& poly) {
  if (poly.rings.empty()) throw std::invalid_argument("geojson: a polygon needs a ring");
  const double centre = poly.rings[0][0].first;
  std::vector<std::vector<Point>> outers, holes;
  for (const auto& r : poly.rings) {
    if (r.size() < 3) throw std::invalid_argument("geojson: a ring needs 3 points");
    std::vector<Point> u = unwrap(r, centre);
    // A ring around a pole does not close in longitude; it cannot be a lon/lat ring.
    if (std::abs(lonStep(u.back().first, u.front().first) + u.back().first - u.front().first) >
        1e-6)
      continue;
    (signedArea(u) >= 0.0 ? outers : holes).push_back(std::move(u));
  }
  // Polygons (outer + its holes), each cut into the parts west and east of +-180.
  Json polygons = Json::array();
  auto emit = [&](const std::vector<std::vector<Point>>& rings, double shift) {
    Json coords = Json::array();
    for (const auto& r : rings) {
      if (r.size() < 3) continue;
      Json ring = Json::array();
      for (const Point& p : r) {
        double lon = std::clamp(p.first + shift, -180.0, 180.0);
        ring.push_back({round7(lon), round7(p.second), round2(poly.elevation_m)});
      }
      ring.push_back(ring[0]);
      coords.push_back(std::move(ring));
      if (coords.size() == 1 && coords[0].size() < 4) return;
    }
    if (!coords.empty() && coords[0].size() >= 4) polygons.push_back(std::move(coords));
  };
  std::vector<size_t> owner(holes.size(), 0);
  for (size_t h = 0; h < holes.size(); ++h)
    for (size_t o = outers.size(); o-- > 0;)
      if (contains(outers[o], holes[h][0])) owner[h] = o;
  for (size_t o = 0; o < outers.size(); ++o) {
    std::vector<std::vector<Point>> rings = {outers[o]};
    for (size_t h = 0; h < holes.size(); ++h)
      if (owner[h] == o) rings.push_back(holes[h]);
    for (double shift : {-360.0, 0.0, 360.0}) {
      // The part of every ring inside [-180, 180] after shifting by `shift`.
      std::vector<std::vector<Point>> part;
      for (const auto& r : rings) {
        std::vector<Point> c = clip(clip(r, 180.0 - shift, 1.0), -180.0 - shift, -1.0);
        part.push_back(std::move(c));
      }
      if (part[0].size() >= 3) emit(part, shift);
    }
  }
  if (polygons.size() == 1) return {{"type", "Polygon"}, {"coordinates", polygons[0]}};
  return {{"type", "MultiPolygon"}, {"coordinates", polygons}};
}

void requireFinite(double x) {
  if (!std::isfinite(x)) throw std::invalid_argument("geojson: a coordinate is not finite");
}

}  // namespace

std::string geoJsonText(std::span<const GeoLine> lines, std::span<const GeoPolygon> polygons) {
  Json features = Json::array();
  for (const GeoLine& line : lines) {
    const size_t n = line.lon_deg.size();
    if (n < 2 || line.lat_deg.size() != n || line.elevation_m.size() != n)
      throw std::invalid_argument("geojson: a line needs >= 2 points and one lat/elevation each");
    for (const auto& [name, v] : line.point_values)
      if (v.size() != n) throw std::invalid_argument("geojson: point value count of " + name);
    for (size_t i = 0; i < n; ++i) {
      requireFinite(line.lon_deg[i]);
      requireFinite(line.lat_deg[i]);
      requireFinite(line.elevation_m[i]);
    }
    Json props = properties(line.properties_json);
    Json geometry = lineGeometry(line, props);
    features.push_back(
        {{"type", "Feature"}, {"geometry", std::move(geometry)}, {"properties", std::move(props)}});
  }
  for (const GeoPolygon& poly : polygons) {
    for (const auto& r : poly.rings)
      for (const auto& [lon, lat] : r) requireFinite(lon), requireFinite(lat);
    Json props = properties(poly.properties_json);
    Json geometry = polygonGeometry(poly);
    if (geometry["coordinates"].empty()) continue;  // e.g. a lake around a pole
    features.push_back(
        {{"type", "Feature"}, {"geometry", std::move(geometry)}, {"properties", std::move(props)}});
  }
  Json doc = {{"type", "FeatureCollection"}, {"features", std::move(features)}};
  return doc.dump() + "\n";
}

}  // namespace planet_export
