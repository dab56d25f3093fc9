// Invariants of the icosphere (geodesy/icosphere.cpp): counts, orientation, spacing, dual
// areas, adjacency, faceAcross, thread-count identity. Point location: locate_test.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <numbers>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <catch2/catch.hpp>
#include <glm/geometric.hpp>

#include "geodesy/hash.h"
#include "geodesy/sphere_mesh.h"
#include "support/geodesy_fixtures.h"

using namespace geodesy_fixtures;

namespace {

// Directed edges (from, to) of all faces.
std::vector<std::pair<uint32_t, uint32_t>> directedEdges(const SphereMesh& mesh) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(mesh.indices.size());
  for (uint32_t f = 0; f < mesh.faceCount(); ++f) {
    const auto c = corners(mesh, f);
    for (int k = 0; k < 3; ++k) edges.emplace_back(c[k], c[(k + 1) % 3]);
  }
  std::sort(edges.begin(), edges.end());
  return edges;
}

double minEdgeChord(const SphereMesh& mesh) {
  double shortest = 1e30;
  for (uint32_t f = 0; f < mesh.faceCount(); ++f) {
    const auto c = corners(mesh, f);
    for (int k = 0; k < 3; ++k) {
      shortest =
          std::min(shortest, glm::length(position(mesh, c[k]) - position(mesh, c[(k + 1) % 3])));
    }
  }
  return shortest;
}

template <typename T>
bool sameBytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace

TEST_CASE("icosphere: frequencies out of range are rejected", "[geodesy]") {
  REQUIRE_THROWS_AS(geodesy::buildIcosphere(0), std::invalid_argument);
  REQUIRE_THROWS_AS(geodesy::buildIcosphere(-3), std::invalid_argument);
  REQUIRE_THROWS_AS(geodesy::buildIcosphere(geodesy::kMaxFrequency + 1), std::invalid_argument);
}

TEST_CASE("icosphere: frequency 1 is the icosahedron", "[geodesy]") {
  const SphereMesh& mesh = meshOf(1);
  REQUIRE(mesh.vertexCount() == 12);
  REQUIRE(mesh.faceCount() == 20);
  const double edge_arc = std::atan(2.0);
  for (const auto& [u, v] : directedEdges(mesh)) {
    REQUIRE(
        std::acos(glm::dot(glm::normalize(position(mesh, u)), glm::normalize(position(mesh, v)))) ==
        Approx(edge_arc).epsilon(1e-6));
  }
  // Five faces of 4 pi / 20 around each vertex, a third each.
  for (float a : mesh.vertex_areas) REQUIRE(a == Approx(std::numbers::pi / 3).epsilon(1e-6));
  REQUIRE(mesh.mean_edge_length == Approx(edge_arc).epsilon(1e-6));
}

TEST_CASE("icosphere: counts and Euler characteristic", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    const SphereMesh& mesh = meshOf(f);
    const size_t V = 10 * size_t(f) * f + 2, F = 20 * size_t(f) * f;
    REQUIRE(mesh.frequency == f);
    REQUIRE(mesh.vertexCount() == V);
    REQUIRE(mesh.faceCount() == F);
    REQUIRE(mesh.indices.size() == 3 * F);
    REQUIRE(mesh.vertex_areas.size() == V);
    REQUIRE(mesh.neighbour_offsets.size() == V + 1);
    for (uint32_t i : mesh.indices) REQUIRE(i < V);

    auto edges = directedEdges(mesh);
    for (auto& e : edges) {
      if (e.first > e.second) std::swap(e.first, e.second);
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    const size_t E = edges.size();
    REQUIRE(E == 30 * size_t(f) * f);
    REQUIRE(int64_t(V) - int64_t(E) + int64_t(F) == 2);
  }
}

TEST_CASE("icosphere: vertices are unit length", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    for (const glm::vec3& p : meshOf(f).positions) {
      REQUIRE(std::abs(glm::length(glm::dvec3(p)) - 1.0) < 1e-6);
    }
  }
}

TEST_CASE("icosphere: every edge is shared by two faces with opposite orientation", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    const auto edges = directedEdges(meshOf(f));
    // Each directed edge once (a repeat would mean two faces with the same orientation), and
    // its reverse present.
    REQUIRE(std::adjacent_find(edges.begin(), edges.end()) == edges.end());
    for (const auto& [u, v] : edges) {
      REQUIRE(u != v);
      REQUIRE(std::binary_search(edges.begin(), edges.end(), std::make_pair(v, u)));
    }
  }
}

TEST_CASE("icosphere: faces wind counter-clockwise seen from outside", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    const SphereMesh& mesh = meshOf(f);
    for (uint32_t face = 0; face < mesh.faceCount(); ++face) {
      const auto c = corners(mesh, face);
      const glm::dvec3 a = position(mesh, c[0]), b = position(mesh, c[1]), d = position(mesh, c[2]);
      REQUIRE(glm::dot(glm::cross(b - a, d - a), a + b + d) > 0.0);
    }
  }
}

TEST_CASE("icosphere: no two vertices closer than half the shortest edge", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    const SphereMesh& mesh = meshOf(f);
    const double limit = 0.5 * minEdgeChord(mesh);
    // Grid buckets of side `limit`: any pair closer than that lies in neighbouring buckets.
    const int64_t cells = int64_t(std::ceil(2.0 / limit)) + 3;
    auto cellOf = [&](const glm::dvec3& p) {
      return std::array<int64_t, 3>{int64_t(std::floor((p.x + 1.0) / limit)) + 1,
                                    int64_t(std::floor((p.y + 1.0) / limit)) + 1,
                                    int64_t(std::floor((p.z + 1.0) / limit)) + 1};
    };
    auto keyOf = [&](int64_t x, int64_t y, int64_t z) { return (x * cells + y) * cells + z; };
    std::vector<std::pair<int64_t, uint32_t>> buckets;
    for (uint32_t v = 0; v < mesh.vertexCount(); ++v) {
      const auto c = cellOf(position(mesh, v));
      buckets.emplace_back(keyOf(c[0], c[1], c[2]), v);
    }
    std::sort(buckets.begin(), buckets.end());
    for (uint32_t v = 0; v < mesh.vertexCount(); ++v) {
      const glm::dvec3 p = position(mesh, v);
      const auto c = cellOf(p);
      for (int dx = -1; dx <= 1; ++dx) {
        for (int dy = -1; dy <= 1; ++dy) {
          for (int dz = -1; dz <= 1; ++dz) {
            const int64_t key = keyOf(c[0] + dx, c[1] + dy, c[2] + dz);
            auto it = std::lower_bound(buckets.begin(), buckets.end(), std::make_pair(key, 0u));
            for (; it != buckets.end() && it->first == key; ++it) {
              if (it->second == v) continue;
              REQUIRE(glm::length(position(mesh, it->second) - p) >= limit);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("icosphere: dual areas are positive and sum to 4 pi", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    const SphereMesh& mesh = meshOf(f);
    double sum = 0.0;
    for (float a : mesh.vertex_areas) {
      REQUIRE(a > 0.0f);
      sum += a;
    }
    REQUIRE(std::abs(sum / (4.0 * std::numbers::pi) - 1.0) < 1e-6);
    // Even spacing: no vertex owns more than twice another's area.
    const auto [lo, hi] = std::minmax_element(mesh.vertex_areas.begin(), mesh.vertex_areas.end());
    REQUIRE(*hi / *lo < 2.0f);
  }
}

TEST_CASE("icosphere: vertex neighbours are consistent with the faces", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    const SphereMesh& mesh = meshOf(f);
    const auto edges = directedEdges(mesh);
    std::set<std::array<uint32_t, 3>> faces;  // each face in its three rotations
    for (uint32_t face = 0; face < mesh.faceCount(); ++face) {
      const auto c = corners(mesh, face);
      for (int k = 0; k < 3; ++k) faces.insert({c[k], c[(k + 1) % 3], c[(k + 2) % 3]});
    }
    REQUIRE(mesh.neighbour_offsets.front() == 0);
    REQUIRE(mesh.neighbour_offsets.back() == mesh.neighbours.size());
    int five_valent = 0;
    for (uint32_t v = 0; v < mesh.vertexCount(); ++v) {
      const uint32_t begin = mesh.neighbour_offsets[v], end = mesh.neighbour_offsets[v + 1];
      const uint32_t valence = end - begin;
      REQUIRE((valence == 5 || valence == 6));
      if (valence == 5) ++five_valent;
      // Neighbours are exactly the vertices sharing an edge with v.
      auto first = std::lower_bound(edges.begin(), edges.end(), std::make_pair(v, 0u));
      std::vector<uint32_t> expected;
      for (; first != edges.end() && first->first == v; ++first) expected.push_back(first->second);
      std::vector<uint32_t> got(mesh.neighbours.begin() + begin, mesh.neighbours.begin() + end);
      std::sort(got.begin(), got.end());
      REQUIRE(got == expected);
      for (uint32_t n = begin; n < end; ++n) {
        const uint32_t u = mesh.neighbours[n];
        // Symmetric: v is among u's neighbours.
        const auto nu_begin = mesh.neighbours.begin() + mesh.neighbour_offsets[u];
        const auto nu_end = mesh.neighbours.begin() + mesh.neighbour_offsets[u + 1];
        REQUIRE(std::find(nu_begin, nu_end, v) != nu_end);
        // Counter-clockwise: each consecutive pair closes a face (v, u, next).
        const uint32_t next = mesh.neighbours[n + 1 == end ? begin : n + 1];
        REQUIRE(faces.count({v, u, next}) == 1);
      }
    }
    REQUIRE(five_valent == 12);
  }
}

TEST_CASE("icosphere: faceAcross is the face holding the same edge the other way", "[geodesy]") {
  for (int f : kFrequencies) {
    CAPTURE(f);
    const SphereMesh& mesh = meshOf(f);
    // The known answer, from the faces alone: the face of each directed edge.
    std::unordered_map<uint64_t, uint32_t> face_of_edge;
    auto key = [](uint32_t from, uint32_t to) { return uint64_t(from) << 32 | to; };
    for (uint32_t face = 0; face < mesh.faceCount(); ++face) {
      const auto c = corners(mesh, face);
      for (int k = 0; k < 3; ++k) face_of_edge.emplace(key(c[k], c[(k + 1) % 3]), face);
    }
    REQUIRE(face_of_edge.size() == 3 * mesh.faceCount());  // every directed edge once
    // latticeFace against the numbering: faces base by base, row by row, up and down
    // triangles interleaved (up i at 2i, down i at 2i + 1).
    uint32_t face = 0;
    for (uint32_t base = 0; base < 20; ++base) {
      for (uint32_t j = 0; j < uint32_t(f); ++j) {
        for (uint32_t column = 0; column < 2 * (uint32_t(f) - j) - 1; ++column, ++face) {
          const geodesy::LatticeFace place = geodesy::latticeFace(f, face);
          REQUIRE(place.base == base);
          REQUIRE(place.j == j);
          REQUIRE(place.i == column / 2);
          REQUIRE(place.down == (column % 2 == 1));
        }
      }
    }
    REQUIRE(face == mesh.faceCount());
    for (uint32_t face = 0; face < mesh.faceCount(); ++face) {
      const auto c = corners(mesh, face);
      for (int k = 0; k < 3; ++k) {
        CAPTURE(face, k);
        const auto other = face_of_edge.find(key(c[(k + 1) % 3], c[k]));
        REQUIRE(other != face_of_edge.end());
        REQUIRE(mesh.faceAcross(face, k) == other->second);
        REQUIRE(mesh.facesAcross(face)[size_t(k)] == other->second);
      }
    }
  }
}

TEST_CASE("icosphere: base edges carry equally spaced vertices", "[geodesy]") {
  // With the default spacing the points along a base edge are its slerp at steps 1 / f: each
  // base edge holds f + 1 vertices (corners included) an equal arc of atan(2) / f apart.
  for (int f : {2, 7, 64}) {
    CAPTURE(f);
    const SphereMesh& mesh = meshOf(f);
    int base_edges = 0;
    for (uint32_t a = 0; a < 12; ++a) {
      for (uint32_t b = a + 1; b < 12; ++b) {
        const glm::dvec3 ca = position(mesh, a), cb = position(mesh, b);
        if (glm::dot(ca, cb) < 0.4) continue;  // not a base edge
        ++base_edges;
        const glm::dvec3 normal = glm::normalize(glm::cross(ca, cb));
        const double edge_arc = std::atan2(glm::length(glm::cross(ca, cb)), glm::dot(ca, cb));
        std::vector<double> arcs;  // from a, of the vertices on the arc a-b
        for (uint32_t v = 0; v < mesh.vertexCount(); ++v) {
          const glm::dvec3 p = glm::normalize(position(mesh, v));
          const double from_a = std::atan2(glm::length(glm::cross(ca, p)), glm::dot(ca, p));
          const double from_b = std::atan2(glm::length(glm::cross(cb, p)), glm::dot(cb, p));
          if (std::abs(glm::dot(p, normal)) < 1e-6 && from_a + from_b < edge_arc + 1e-6) {
            arcs.push_back(from_a);
          }
        }
        REQUIRE(arcs.size() == size_t(f) + 1);
        std::sort(arcs.begin(), arcs.end());
        for (int s = 0; s <= f; ++s) REQUIRE(std::abs(arcs[s] - s * std::atan(2.0) / f) < 1e-6);
      }
    }
    REQUIRE(base_edges == 30);
  }
}

TEST_CASE("icosphere: edge-length spread", "[geodesy]") {
  // The spread at f = 256 (docs/geodesy.md); plain normalisation for comparison. The floor for
  // any mapping is 2 sin 36 deg = 1.1756, set by the rings around the 12 corners.
  const SphereMesh sine = geodesy::buildIcosphere(256);
  const geodesy::EdgeLengthStats s = geodesy::edgeLengthStats(sine);
  REQUIRE(s.count == 30u * 256 * 256);
  REQUIRE(s.ratio() <= 1.25);
  REQUIRE(s.ratio() >= 2.0 * std::sin(std::numbers::pi / 5) - 1e-4);
  REQUIRE(sine.mean_edge_length == s.mean_rad);
  REQUIRE(sine.mean_edge_length ==
          Approx(std::sqrt(4.0 * std::numbers::pi / sine.vertexCount())).epsilon(0.1));

  geodesy::IcosphereOptions flat_options;
  flat_options.spacing = geodesy::Spacing::kFlat;
  const SphereMesh flat = geodesy::buildIcosphere(256, flat_options);
  REQUIRE(geodesy::edgeLengthStats(flat).ratio() > 1.4);
}

TEST_CASE("icosphere: bit-identical for 1, 2 and 4 threads", "[geodesy]") {
  // Let the arenas have more threads than this machine has cores.
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);
  auto build = [](int threads) {
    SphereMesh mesh;
    tbb::task_arena(threads).execute([&] { mesh = geodesy::buildIcosphere(97); });
    return mesh;
  };
  const SphereMesh one = build(1);
  for (int threads : {2, 4}) {
    CAPTURE(threads);
    const SphereMesh other = build(threads);
    REQUIRE(sameBytes(one.positions, other.positions));
    REQUIRE(sameBytes(one.indices, other.indices));
    REQUIRE(sameBytes(one.neighbour_offsets, other.neighbour_offsets));
    REQUIRE(sameBytes(one.neighbours, other.neighbours));
    REQUIRE(sameBytes(one.vertex_areas, other.vertex_areas));
    REQUIRE(std::memcmp(&one.mean_edge_length, &other.mean_edge_length, sizeof(double)) == 0);
  }
}
