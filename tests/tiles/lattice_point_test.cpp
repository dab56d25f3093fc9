// The lattice tiles work on: geodesy's numbering and placement against the icosphere itself,
// canonical names of shared points, and rings of neighbours across base-face edges and at the
// five-valent corners (tiles/lattice_point.h, geodesy/lattice_numbering.h).

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "geodesy/icosahedron.h"
#include "geodesy/lattice_numbering.h"
#include "geodesy/sphere_mesh.h"
#include "tiles/lattice_point.h"

using tiles::LatticePoint;

namespace {

bool sameBits(const glm::vec3& a, const glm::vec3& b) {
  return std::memcmp(&a, &b, sizeof(a)) == 0;
}
bool sameBits(const glm::dvec3& a, const glm::dvec3& b) {
  return std::memcmp(&a, &b, sizeof(a)) == 0;
}

// Every lattice point of every base face, in the face's own chart.
template <typename Body>
void forEachPoint(uint32_t f, const Body& body) {
  for (uint32_t base = 0; base < 20; ++base) {
    for (uint32_t j = 0; j <= f; ++j) {
      for (uint32_t i = 0; i + j <= f; ++i) body(LatticePoint{base, i, j});
    }
  }
}

}  // namespace

TEST_CASE("lattice numbering: ids and positions are the icosphere's, bit for bit", "[tiles]") {
  for (const geodesy::Spacing spacing : {geodesy::Spacing::kSineWeights, geodesy::Spacing::kFlat}) {
    for (int f : {1, 2, 3, 5, 8, 12}) {
      const geodesy::SphereMesh mesh = geodesy::buildIcosphere(f, {spacing});
      const geodesy::LatticeNumbering numbering(f);
      std::set<uint32_t> seen;
      forEachPoint(uint32_t(f), [&](const LatticePoint& p) {
        const uint32_t v = numbering.vertex(p.base, p.i, p.j);
        REQUIRE(v < mesh.vertexCount());
        seen.insert(v);
        const glm::vec3 placed(geodesy::latticePosition(spacing, uint64_t(f), p.base, p.i, p.j));
        REQUIRE(sameBits(placed, mesh.positions[v]));
      });
      CHECK(seen.size() == mesh.vertexCount());
      // The mesh's faces name the same vertices as the numbering's lattice points.
      for (uint32_t face = 0; face < mesh.faceCount(); ++face) {
        const geodesy::LatticeFace at = geodesy::latticeFace(f, face);
        const uint32_t expected[3][2] = {{at.i + (at.down ? 1 : 0), at.j},
                                         {at.i + 1, at.j + (at.down ? 1 : 0)},
                                         {at.i, at.j + 1}};
        for (int k = 0; k < 3; ++k) {
          REQUIRE(mesh.indices[3 * face + k] ==
                  numbering.vertex(at.base, expected[k][0], expected[k][1]));
        }
      }
    }
  }
}

TEST_CASE("lattice numbering: a finer lattice places the planet's points at the same doubles",
          "[tiles]") {
  const uint64_t f = 12;
  for (const uint64_t m : {uint64_t(2), uint64_t(8), uint64_t(1) << 20, uint64_t(1) << 25}) {
    forEachPoint(uint32_t(f), [&](const LatticePoint& p) {
      const glm::dvec3 coarse =
          geodesy::latticePosition(geodesy::Spacing::kSineWeights, f, p.base, p.i, p.j);
      const glm::dvec3 fine =
          geodesy::latticePosition(geodesy::Spacing::kSineWeights, f * m, p.base, p.i * m, p.j * m);
      REQUIRE(sameBits(coarse, fine));
    });
  }
}

TEST_CASE("lattice point: one canonical name per point, the same position from every face",
          "[tiles]") {
  for (uint64_t f : {uint64_t(1), uint64_t(2), uint64_t(7), uint64_t(16)}) {
    std::set<std::array<uint32_t, 3>> names;
    uint64_t edge_points = 0;
    forEachPoint(uint32_t(f), [&](const LatticePoint& p) {
      const LatticePoint c = tiles::canonicalPoint(f, p);
      REQUIRE(tiles::canonicalPoint(f, c) == c);
      REQUIRE(c.base <= p.base);
      REQUIRE(sameBits(tiles::unitPosition(geodesy::Spacing::kSineWeights, f, c),
                       tiles::unitPosition(geodesy::Spacing::kSineWeights, f, p)));
      if (tiles::onBaseEdge(f, p)) ++edge_points;
      names.insert({c.base, c.i, c.j});
    });
    // 10 f^2 + 2 distinct points; each base-edge point is named by 2 faces, a corner by 5.
    CHECK(names.size() == 10 * f * f + 2);
    CHECK(edge_points == 20 * 3 * f);
  }
}

TEST_CASE("lattice point: rings are the icosphere's neighbours, counter-clockwise", "[tiles]") {
  for (int f : {1, 2, 3, 8}) {
    const geodesy::SphereMesh mesh = geodesy::buildIcosphere(f);
    const geodesy::LatticeNumbering numbering(f);
    forEachPoint(uint32_t(f), [&](const LatticePoint& p) {
      const LatticePoint c = tiles::canonicalPoint(uint64_t(f), p);
      std::array<LatticePoint, 6> ring;
      const int count = tiles::latticeRing(uint64_t(f), c, ring);
      const uint32_t v = numbering.vertex(c.base, c.i, c.j);
      const uint32_t begin = mesh.neighbour_offsets[v], end = mesh.neighbour_offsets[v + 1];
      REQUIRE(count == int(end - begin));
      REQUIRE(count == (tiles::cornerOf(uint64_t(f), c) >= 0 ? 5 : 6));
      std::vector<uint32_t> ids;
      for (int k = 0; k < count; ++k) {
        REQUIRE(tiles::canonicalPoint(uint64_t(f), ring[k]) == ring[k]);
        ids.push_back(numbering.vertex(ring[k].base, ring[k].i, ring[k].j));
        if (k > 0) REQUIRE(tiles::pointLess(ring[0], ring[k]));
      }
      // The mesh's ring is counter-clockwise too: the same cycle, up to where it starts.
      std::vector<uint32_t> expected(mesh.neighbours.begin() + begin,
                                     mesh.neighbours.begin() + end);
      const auto start = std::find(expected.begin(), expected.end(), ids[0]);
      REQUIRE(start != expected.end());
      std::rotate(expected.begin(), start, expected.end());
      REQUIRE(ids == expected);
      // The ring does not depend on the face the point was reached from.
      std::array<LatticePoint, 6> again;
      tiles::latticeRing(uint64_t(f), tiles::canonicalPoint(uint64_t(f), c), again);
      REQUIRE(std::equal(ring.begin(), ring.begin() + count, again.begin()));
    });
  }
}

TEST_CASE("lattice point: the five faces around each corner, counter-clockwise", "[tiles]") {
  std::set<std::pair<int, int>> seen;
  for (int c = 0; c < 12; ++c) {
    const tiles::CornerFan& fan = tiles::cornerFan(c);
    for (int m = 0; m < 5; ++m) {
      CHECK(seen.insert({fan.faces[m], fan.corner_in_face[m]}).second);
      CHECK(geodesy::icosahedron().faces[fan.faces[m]][fan.corner_in_face[m]] == c);
      if (m > 0) CHECK(fan.faces[0] < fan.faces[m]);
    }
  }
  CHECK(seen.size() == 60);  // every corner of every base face once
}
