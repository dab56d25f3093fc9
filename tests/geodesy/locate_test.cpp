// Point location on the icosphere (geodesy/locate): locate and locateFrom against an
// independent ray-plane computation; sharedVertices against locate.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <numbers>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <catch2/catch.hpp>
#include <glm/geometric.hpp>

#include "geodesy/hash.h"
#include "geodesy/latlon.h"
#include "geodesy/lattice_numbering.h"
#include "geodesy/sphere_mesh.h"
#include "support/geodesy_fixtures.h"

using namespace geodesy_fixtures;

namespace {

glm::dvec3 rayBarycentric(const SphereMesh& mesh, uint32_t face, const glm::dvec3& p, bool* front) {
  const auto c = corners(mesh, face);
  const glm::dvec3 a = position(mesh, c[0]), b = position(mesh, c[1]), d = position(mesh, c[2]);
  const glm::dvec3 n = glm::cross(b - a, d - a);
  *front = glm::dot(p, n) > 0.0;
  const glm::dvec3 q = p * (glm::dot(a, n) / glm::dot(p, n));
  const double nn = glm::dot(n, n);
  return {glm::dot(glm::cross(b - q, d - q), n) / nn, glm::dot(glm::cross(d - q, a - q), n) / nn,
          glm::dot(glm::cross(a - q, b - q), n) / nn};
}

// Checks that sp is a valid answer for the float point p: the face holds p and the weights
// match. Not inlined on purpose: GCC 12.2 at -O2 and above (SLP vectorizer) can fold
// double(float(x)) back to x when both conversions are in view, and the check would then see
// a point locate() never saw.
[[gnu::noinline]] void requireHolds(const SphereMesh& mesh, const geodesy::SurfacePoint& sp,
                                    const glm::vec3& p_float) {
  const glm::dvec3 p(p_float);
  bool front = false;
  const glm::dvec3 expected =
      sp.face < mesh.faceCount() ? rayBarycentric(mesh, sp.face, p, &front) : glm::dvec3(0.0);
  bool ok = front && std::min({expected.x, expected.y, expected.z}) >= -1e-6 &&
            std::min({sp.bary.x, sp.bary.y, sp.bary.z}) >= -1e-6f &&
            std::abs(double(sp.bary.x + sp.bary.y + sp.bary.z) - 1.0) < 1e-6;
  for (int k = 0; k < 3; ++k) ok = ok && std::abs(double(sp.bary[k]) - expected[k]) < 1e-5;
  if (ok) return;  // Catch's CAPTURE is costly, so only a failure pays for the details
  CAPTURE(p.x, p.y, p.z, sp.face, sp.bary.x, sp.bary.y, sp.bary.z, expected.x, expected.y,
          expected.z);
  REQUIRE(sp.face < mesh.faceCount());
  REQUIRE(front);
  REQUIRE(std::min({expected.x, expected.y, expected.z}) >= -1e-6);
  REQUIRE(std::min({sp.bary.x, sp.bary.y, sp.bary.z}) >= -1e-6f);
  REQUIRE(std::abs(double(sp.bary.x + sp.bary.y + sp.bary.z) - 1.0) < 1e-6);
  for (int k = 0; k < 3; ++k) REQUIRE(std::abs(double(sp.bary[k]) - expected[k]) < 1e-5);
}

}  // namespace

TEST_CASE("icosphere: locate finds the face holding random points", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    const SphereMesh& mesh = meshOf(f);
    for (uint64_t i = 0; i < 100000; ++i) {
      geodesy::HashStream rng(42, 0x10ca7e, i);
      const glm::dvec3 p = randomUnit(rng);
      const glm::vec3 pf(p);
      requireHolds(mesh, mesh.locate(pf), pf);
    }
  }
}

TEST_CASE("icosphere: locate with the flat spacing", "[geodesy]") {
  geodesy::IcosphereOptions options;
  options.spacing = geodesy::Spacing::kFlat;
  for (int f : {1, 5, 64}) {
    CAPTURE(f);
    const SphereMesh mesh = geodesy::buildIcosphere(f, options);
    for (uint64_t i = 0; i < 20000; ++i) {
      geodesy::HashStream rng(7, 0xf1a7, i);
      const glm::vec3 p(randomUnit(rng));
      requireHolds(mesh, mesh.locate(p), p);
    }
  }
}

TEST_CASE("icosphere: locate on vertices, edges and base-face boundaries", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    const SphereMesh& mesh = meshOf(f);
    // Exactly on a vertex: a face with that corner, weight 1 there.
    for (uint32_t v = 0; v < mesh.vertexCount(); v += (v < 12 ? 1 : 7)) {
      const geodesy::SurfacePoint sp = mesh.locate(mesh.positions[v]);
      requireHolds(mesh, sp, mesh.positions[v]);
      const auto c = corners(mesh, sp.face);
      const auto at = std::find(c.begin(), c.end(), v);
      REQUIRE(at != c.end());
      REQUIRE(sp.bary[int(at - c.begin())] > 1.0f - 1e-5f);
    }
    // On an edge, its midpoint and a point a quarter along: one of the two faces sharing it.
    for (uint32_t face = 0; face < mesh.faceCount(); face += (f < 8 ? 1 : 13)) {
      const auto c = corners(mesh, face);
      for (int k = 0; k < 3; ++k) {
        const uint32_t a = c[k], b = c[(k + 1) % 3];
        for (double t : {0.5, 0.25}) {
          const glm::vec3 p(glm::normalize((1 - t) * position(mesh, a) + t * position(mesh, b)));
          const geodesy::SurfacePoint sp = mesh.locate(p);
          requireHolds(mesh, sp, p);
          const auto o = corners(mesh, sp.face);
          REQUIRE(std::count(o.begin(), o.end(), a) + std::count(o.begin(), o.end(), b) == 2);
        }
      }
    }
    // Base-face corners and edges, where the lattice guess switches base face: points on the
    // great circle between adjacent corners, and points a hair off a corner in all directions.
    for (uint32_t a = 0; a < 12; ++a) {
      for (uint32_t b = a + 1; b < 12; ++b) {
        const glm::dvec3 ca = position(mesh, a), cb = position(mesh, b);
        if (glm::dot(ca, cb) < 0.4) continue;  // not a base edge
        for (int s = 0; s <= 20; ++s) {
          const double t = s / 20.0;
          const glm::vec3 p(glm::normalize((1 - t) * ca + t * cb));
          requireHolds(mesh, mesh.locate(p), p);
        }
      }
      for (uint64_t i = 0; i < 200; ++i) {
        geodesy::HashStream rng(3, 0xc0, a * 1000 + i);
        const glm::dvec3 offset = randomUnit(rng) * (i % 2 ? 1e-7 : 1e-4);
        const glm::vec3 p(glm::normalize(position(mesh, a) + offset));
        requireHolds(mesh, mesh.locate(p), p);
      }
    }
    // Base-face centres (three mutually adjacent corners), the poles and the axes.
    std::vector<glm::dvec3> special = {{0, 1, 0}, {0, -1, 0}, {1, 0, 0}, {0, 0, -1}};
    for (uint32_t a = 0; a < 12; ++a) {
      for (uint32_t b = a + 1; b < 12; ++b) {
        for (uint32_t c = b + 1; c < 12; ++c) {
          const glm::dvec3 ca = position(mesh, a), cb = position(mesh, b), cc = position(mesh, c);
          if (glm::dot(ca, cb) > 0.4 && glm::dot(cb, cc) > 0.4 && glm::dot(cc, ca) > 0.4) {
            special.push_back(glm::normalize(ca + cb + cc));
          }
        }
      }
    }
    REQUIRE(special.size() == 24);
    for (const glm::dvec3& p : special) {
      const glm::vec3 pf(p);
      requireHolds(mesh, mesh.locate(pf), pf);
    }
  }
}

TEST_CASE("icosphere: locateFrom from near, far and invalid hints", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    const SphereMesh& mesh = meshOf(f);
    const uint32_t F = uint32_t(mesh.faceCount());
    for (uint64_t i = 0; i < 20000; ++i) {
      geodesy::HashStream rng(11, 0xf20, i);
      const glm::vec3 p(randomUnit(rng));
      const uint32_t right = mesh.locate(p).face;
      requireHolds(mesh, mesh.locateFrom(right, p), p);
      requireHolds(mesh, mesh.locateFrom(mesh.faceAcross(right, int(i % 3)), p), p);
      requireHolds(mesh, mesh.locateFrom((right + F / 2) % F, p), p);
      requireHolds(mesh, mesh.locateFrom(uint32_t(rng.next() % F), p), p);
      if (i % 100 == 0) requireHolds(mesh, mesh.locateFrom(UINT32_MAX, p), p);
    }
  }
}

TEST_CASE("icosphere: locateFrom follows a droplet-like path", "[geodesy]") {
  // Steps of about one edge along a great circle, each located from the previous face.
  const SphereMesh& mesh = meshOf(64);
  const glm::dvec3 start = glm::normalize(glm::dvec3(0.3, -0.2, 0.9));
  const glm::dvec3 side = glm::normalize(glm::cross(start, glm::dvec3(0.1, 1.0, 0.2)));
  uint32_t face = mesh.locate(glm::vec3(start)).face;
  for (int s = 0; s < 5000; ++s) {
    const double angle = s * 0.9 * mesh.mean_edge_length;
    const glm::vec3 p(std::cos(angle) * start + std::sin(angle) * side);
    const geodesy::SurfacePoint sp = mesh.locateFrom(face, p);
    requireHolds(mesh, sp, p);
    face = sp.face;
  }
}

TEST_CASE("icosphere: sharedVertices is the fine vertex at each coarse vertex", "[geodesy]") {
  // Against point location: the coarse vertex located on the fine mesh lands on a face whose
  // largest weight is the listed vertex (the rule the fluvial stage located them by), and the
  // two positions are the same floats.
  geodesy::IcosphereOptions flat;
  flat.spacing = geodesy::Spacing::kFlat;
  struct Case {
    int coarse, fine;
    geodesy::IcosphereOptions options;
  };
  for (const Case& c : {Case{1, 4, {}}, Case{8, 32, {}}, Case{32, 128, {}}, Case{12, 36, {}},
                        Case{16, 32, {}}, Case{8, 32, flat}}) {
    CAPTURE(c.coarse, c.fine, int(c.options.spacing));
    const SphereMesh coarse = geodesy::buildIcosphere(c.coarse, c.options);
    const SphereMesh fine = geodesy::buildIcosphere(c.fine, c.options);
    const std::vector<uint32_t> shared = geodesy::sharedVertices(coarse, fine);
    REQUIRE(shared.size() == coarse.vertexCount());
    std::set<uint32_t> distinct(shared.begin(), shared.end());
    REQUIRE(distinct.size() == shared.size());
    for (uint32_t v = 0; v < coarse.vertexCount(); ++v) {
      const uint32_t at = shared[v];
      REQUIRE(at < fine.vertexCount());
      REQUIRE(std::memcmp(&fine.positions[at], &coarse.positions[v], sizeof(glm::vec3)) == 0);
      const geodesy::SurfacePoint sp = fine.locate(coarse.positions[v]);
      const glm::vec3& b = sp.bary;
      const int k = b.x >= b.y && b.x >= b.z ? 0 : (b.y >= b.z ? 1 : 2);
      REQUIRE(fine.indices[3 * size_t(sp.face) + k] == at);
    }
  }
  // Only between meshes it can pair: a multiple of the frequency, one spacing.
  CHECK(geodesy::sharedVertices(meshOf(32), geodesy::buildIcosphere(48)).empty());
  CHECK(geodesy::sharedVertices(meshOf(8), geodesy::buildIcosphere(32, flat)).empty());
  CHECK(geodesy::sharedVertices(meshOf(32), meshOf(8)).empty());
}
