// The wind (weather/wind.h): six latitude bands blowing the right way in both hemispheres,
// smooth across band edges, deflected by terrain.

#include <algorithm>
#include <cmath>
#include <numbers>

#include <catch2/catch.hpp>
#include <glm/geometric.hpp>

#include "geodesy/latlon.h"
#include "weather/wind.h"

namespace {

using weather::WeatherParams;

constexpr double kDegPerRad = 180.0 / std::numbers::pi;

}  // namespace

TEST_CASE("weather: wind bands blow the right way in both hemispheres", "[weather]") {
  const WeatherParams p;
  for (double sign : {1.0, -1.0}) {
    for (double lat : {2.0, 10.0, 20.0, 24.0}) {
      const auto w = weather::zonalWindAt(p, sign * lat);
      CHECK(w.east_deg < 0.0);                          // trades blow toward the west
      if (lat >= 5.0) CHECK(sign * w.north_deg < 0.0);  // ... and toward the equator
    }
    for (double lat : {36.0, 45.0, 54.0}) {
      const auto w = weather::zonalWindAt(p, sign * lat);
      CHECK(w.east_deg > 0.0);          // westerlies blow toward the east
      CHECK(sign * w.north_deg > 0.0);  // ... and toward the pole
    }
    for (double lat : {66.0, 75.0, 84.0}) {
      const auto w = weather::zonalWindAt(p, sign * lat);
      CHECK(w.east_deg < 0.0);          // polar easterlies blow toward the west
      CHECK(sign * w.north_deg < 0.0);  // ... and toward the equator
    }
  }
  // Mirror symmetry: u even, v odd in latitude.
  for (double lat = 0.5; lat < 90.0; lat += 3.7) {
    const auto n = weather::zonalWindAt(p, lat), s = weather::zonalWindAt(p, -lat);
    CHECK(n.east_deg == s.east_deg);
    CHECK(n.north_deg == -s.north_deg);
  }
  // Inside the bands the speed is the configured one.
  CHECK(weather::zonalWindAt(p, 15.0).east_deg == Approx(-p.trade_strength_deg));
  CHECK(weather::zonalWindAt(p, 45.0).east_deg == Approx(p.westerly_strength_deg));
  CHECK(weather::zonalWindAt(p, 75.0).east_deg == Approx(-p.polar_strength_deg));
}

TEST_CASE("weather: the wind changes smoothly across band edges and vanishes at the poles",
          "[weather]") {
  const WeatherParams p;
  // Lipschitz bound: the largest change between latitudes 0.01 deg apart stays near the
  // smoothstep's largest slope (1.5 * jump / blend width), nowhere a jump.
  const double max_jump = p.trade_strength_deg + p.westerly_strength_deg;
  const double bound = 1.6 * max_jump / p.band_blend_deg * 0.01 * 2.0;
  double worst = 0.0;
  for (double lat = -90.0; lat < 90.0 - 1e-9; lat += 0.01) {
    const auto a = weather::zonalWindAt(p, lat), b = weather::zonalWindAt(p, lat + 0.01);
    worst =
        std::max({worst, std::fabs(a.east_deg - b.east_deg), std::fabs(a.north_deg - b.north_deg)});
  }
  CHECK(worst < bound);
  CHECK(weather::zonalWindAt(p, 90.0).east_deg == 0.0);
  CHECK(weather::zonalWindAt(p, -90.0).north_deg == 0.0);
  CHECK(weather::zonalWindAt(p, 0.0).north_deg == 0.0);

  // windAt is tangent, has the zonal components, and is zero at the poles.
  for (double lat : {-70.0, -40.0, -10.0, 5.0, 35.0, 65.0}) {
    for (double lon : {-170.0, -30.0, 0.0, 80.0}) {
      const glm::dvec3 pos = geodesy::latLonToUnit({lat / kDegPerRad, lon / kDegPerRad});
      const glm::dvec3 w = weather::windAt(p, pos);
      const auto z = weather::zonalWindAt(p, lat);
      CHECK(std::fabs(glm::dot(w, pos)) < 1e-12);
      CHECK(glm::dot(w, geodesy::eastAt(pos)) * kDegPerRad == Approx(z.east_deg).margin(1e-9));
      CHECK(glm::dot(w, geodesy::northAt(pos)) * kDegPerRad == Approx(z.north_deg).margin(1e-9));
    }
  }
  CHECK(glm::length(weather::windAt(p, {0.0, 1.0, 0.0})) == 0.0);

  // Band edges and blend are configurable: with edges at 20 and 50 deg, 25 deg is westerly.
  WeatherParams q;
  q.band_edge_1_deg = 20.0;
  q.band_edge_2_deg = 50.0;
  q.band_blend_deg = 4.0;
  CHECK(weather::zonalWindAt(q, 25.0).east_deg > 0.0);
  CHECK(weather::zonalWindAt(q, 55.0).east_deg < 0.0);
}

TEST_CASE("weather: terrain deflection removes only the up-slope part of the wind", "[weather]") {
  WeatherParams p;
  p.terrain_deflection = 1.0;
  const glm::dvec3 wind(1.0, 0.0, 0.0);
  // Steep slope straight ahead: the whole up-slope component goes.
  const glm::dvec3 steep_up = weather::deflectedWind(p, wind, {1e6, 0.0, 0.0});
  CHECK(glm::length(steep_up) == Approx(0.0).margin(1e-12));
  // Slope at 45 deg to the wind: the wind turns along the contour and slows.
  const glm::dvec3 side = weather::deflectedWind(p, wind, {1e6, 1e6, 0.0});
  CHECK(side.x == Approx(0.5));
  CHECK(side.y == Approx(-0.5));
  // Downhill wind is left alone; so is any wind when the factor is 0.
  CHECK(weather::deflectedWind(p, wind, {-1e6, 0.0, 0.0}) == wind);
  p.terrain_deflection = 0.0;
  CHECK(weather::deflectedWind(p, wind, {1e6, 0.0, 0.0}) == wind);
}
