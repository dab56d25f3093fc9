// The latitude/longitude frame (geodesy/latlon.h): +Y north, longitude 0 on +X, east and
// north unit vectors, round trips.

#include <cmath>
#include <numbers>

#include <catch2/catch.hpp>
#include <glm/geometric.hpp>

#include "geodesy/hash.h"
#include "geodesy/latlon.h"
#include "support/geodesy_fixtures.h"

using namespace geodesy_fixtures;

TEST_CASE("latlon: frame orientation", "[geodesy]") {
  const double pi = std::numbers::pi;
  auto near = [](const glm::dvec3& a, const glm::dvec3& b) { return glm::length(a - b) < 1e-12; };
  REQUIRE(near(geodesy::latLonToUnit({pi / 2, 0.0}), {0, 1, 0}));    // north pole is +Y
  REQUIRE(near(geodesy::latLonToUnit({-pi / 2, 1.0}), {0, -1, 0}));  // south pole is -Y
  REQUIRE(near(geodesy::latLonToUnit({0.0, 0.0}), {1, 0, 0}));       // lon 0 is +X
  REQUIRE(near(geodesy::latLonToUnit({0.0, pi / 2}), {0, 0, -1}));   // 90 deg east is -Z
  REQUIRE(near(geodesy::eastAt({1, 0, 0}), {0, 0, -1}));
  REQUIRE(near(geodesy::northAt({1, 0, 0}), {0, 1, 0}));

  geodesy::HashStream rng(5, 0x1a7, 0);
  for (int i = 0; i < 10000; ++i) {
    const glm::dvec3 p = randomUnit(rng);
    const glm::dvec3 east = geodesy::eastAt(p), north = geodesy::northAt(p);
    REQUIRE(near(glm::cross(east, north), p));
    REQUIRE(std::abs(glm::dot(east, p)) < 1e-12);
    REQUIRE(std::abs(glm::length(east) - 1.0) < 1e-12);
    // East is the direction of growing longitude, north of growing latitude.
    const geodesy::LatLon ll = geodesy::unitToLatLon(p);
    const double h = 1e-6;
    const glm::dvec3 de =
        geodesy::latLonToUnit({ll.lat_rad, ll.lon_rad + h}) - geodesy::latLonToUnit(ll);
    const glm::dvec3 dn =
        geodesy::latLonToUnit({ll.lat_rad + h, ll.lon_rad}) - geodesy::latLonToUnit(ll);
    REQUIRE(glm::dot(glm::normalize(de), east) > 1.0 - 1e-6);
    REQUIRE(glm::dot(glm::normalize(dn), north) > 1.0 - 1e-6);
  }
  // At the poles the frame stays finite and right-handed.
  for (const glm::dvec3& pole : {glm::dvec3(0, 1, 0), glm::dvec3(0, -1, 0)}) {
    REQUIRE(near(glm::cross(geodesy::eastAt(pole), geodesy::northAt(pole)), pole));
    REQUIRE(geodesy::unitToLatLon(pole).lon_rad == 0.0);
  }
}

TEST_CASE("latlon: round trips", "[geodesy]") {
  const double pi = std::numbers::pi;
  geodesy::HashStream rng(9, 0x2070, 0);
  for (int i = 0; i < 10000; ++i) {
    const geodesy::LatLon ll{(rng.uniform() - 0.5) * pi * 0.999, (rng.uniform() * 2 - 1) * pi};
    const geodesy::LatLon back = geodesy::unitToLatLon(geodesy::latLonToUnit(ll));
    REQUIRE(back.lat_rad == Approx(ll.lat_rad).margin(1e-12));
    REQUIRE(back.lon_rad == Approx(ll.lon_rad).margin(1e-12));
    const glm::dvec3 p = randomUnit(rng);
    const geodesy::LatLon q = geodesy::unitToLatLon(p);
    REQUIRE(q.lat_rad >= -pi / 2);
    REQUIRE(q.lat_rad <= pi / 2);
    REQUIRE(q.lon_rad > -pi);
    REQUIRE(q.lon_rad <= pi);
    REQUIRE(glm::length(geodesy::latLonToUnit(q) - p) < 1e-12);
  }
  // The antimeridian maps to +pi, never -pi.
  REQUIRE(geodesy::unitToLatLon({-1.0, 0.0, -0.0}).lon_rad == pi);
  REQUIRE(geodesy::unitToLatLon({-1.0, 0.0, 0.0}).lon_rad == pi);
}
