// The course of a planet river along a planet edge at tile scale: it joins the edge's ends,
// its lattice points are a chain of neighbours that follows the curve, and its meanders scale
// with the river's width as Leopold & Wolman's wavelength of 11 widths.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include <catch2/catch.hpp>

#include "tiles/detail/river_course.h"
#include "tiles/lattice_point.h"

namespace {

using tiles::detail::RiverCourse;

constexpr double kEdgeM = 13800.0;  // earthlike's planet spacing
constexpr double kRowHeight = 0.8660254037844386;

// The curve's length over the edge's, from 20,000 samples.
double sinuosity(const RiverCourse& course) {
  constexpr int kSamples = 20000;
  double length = 0.0, x0 = 0.0, y0 = course.offset(0.0);
  for (int k = 1; k <= kSamples; ++k) {
    const double s = double(k) / kSamples, y = course.offset(s);
    length += std::hypot(s - x0, y - y0);
    x0 = s, y0 = y;
  }
  return length;
}

}  // namespace

TEST_CASE("river course: meets the edge's ends and stays near its line", "[tiles]") {
  for (uint32_t vertex = 0; vertex < 40; ++vertex) {
    for (double width_m : {18.0, 90.0, 980.0}) {
      const RiverCourse course(7, vertex, width_m, kEdgeM);
      CHECK(course.offset(0.0) == 0.0);
      CHECK(std::abs(course.offset(1.0)) < 1e-9);
      CHECK(course.reach() <= 0.11);
      double most = 0.0;
      for (int k = 0; k <= 1000; ++k) most = std::max(most, std::abs(course.offset(k / 1000.0)));
      CHECK(most <= course.reach());
      CHECK(most > 0.0);
    }
  }
}

TEST_CASE("river course: meander wavelength of 11 widths", "[tiles]") {
  // Width 28.3 m (50 m^3/s): wavelength 311 m, 2 * 13,800 / 311 = 88.7 half-waves.
  CHECK(RiverCourse(1, 2, 28.3, kEdgeM).halfWaves() == 89);
  // 283 m (5,000 m^3/s): wavelength 3,113 m: 8.87.
  CHECK(RiverCourse(1, 2, 283.0, kEdgeM).halfWaves() == 9);
  // A river wider than the edge is long bends once.
  CHECK(RiverCourse(1, 2, 1e5, kEdgeM).halfWaves() == 1);
  // Small rivers wind (sinuosity from amplitudes of 0.15 to 0.25 wavelengths), the largest
  // barely leave the line.
  for (uint32_t vertex = 0; vertex < 20; ++vertex) {
    const double small = sinuosity(RiverCourse(3, vertex, 28.3, kEdgeM));
    const double large = sinuosity(RiverCourse(3, vertex, 980.0, kEdgeM));
    CHECK(small >= 1.15);
    CHECK(large < small);
  }
}

TEST_CASE("river course: lattice points are a chain of neighbours along the curve", "[tiles]") {
  for (uint32_t steps : {1u, 7u, 64u, 1024u}) {
    for (uint32_t vertex = 0; vertex < 8; ++vertex) {
      const RiverCourse course(11, vertex, vertex % 2 ? 28.3 : 220.0, kEdgeM);
      const auto points = course.lattice(steps);
      REQUIRE(points.size() >= steps + 1);
      CHECK(points.front() == std::array<int64_t, 2>{0, 0});
      CHECK(points.back() == std::array<int64_t, 2>{int64_t(steps), 0});
      for (size_t k = 1; k < points.size(); ++k) {
        const int64_t dx = points[k][0] - points[k - 1][0], dy = points[k][1] - points[k - 1][1];
        bool neighbour = false;
        for (const auto& d : tiles::kLatticeSteps)
          neighbour = neighbour || (dx == d[0] && dy == d[1]);
        INFO("steps " << steps << ", vertex " << vertex << ", point " << k);
        REQUIRE(neighbour);
      }
      // Each point is the nearest lattice point of a point of the curve: within 1/sqrt(3)
      // steps of it (the hexagonal cell's corner).
      std::vector<std::array<double, 2>> curve;
      for (uint64_t k = 0; k <= 16 * uint64_t(steps); ++k) {
        const double s = double(k) / double(16 * steps);
        curve.push_back({s * steps, course.offset(s) * steps});
      }
      for (const auto& p : points) {
        const double x = double(p[0]) + 0.5 * double(p[1]), y = kRowHeight * double(p[1]);
        double nearest = 1e9;
        for (const auto& c : curve) nearest = std::min(nearest, std::hypot(c[0] - x, c[1] - y));
        CHECK(nearest <= 0.5774 + 1.0 / 16.0);
      }
    }
  }
}
