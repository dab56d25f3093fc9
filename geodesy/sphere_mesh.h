#pragma once
// The icosphere every stage works on: plain arrays, built once, never mutated.
//
// Frame: right-handed, +Y is the north pole (glTF is Y-up). Longitude 0 is +X and grows
// eastward, which is toward -Z (counter-clockwise seen from above the north pole).

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

namespace geodesy {

// A point on the surface: the face that holds it and its barycentric weights for the
// face's corners indices[3*face + 0..2]. Weights are >= 0 (up to rounding) and sum to 1.
struct SurfacePoint {
  uint32_t face = 0;
  glm::vec3 bary{1.0f, 0.0f, 0.0f};
};

// Class I geodesic subdivision of the icosahedron with frequency f >= 1:
// V = 10 f^2 + 2 vertices, F = 20 f^2 faces, E = 30 f^2 edges.
struct SphereMesh {
  int frequency = 0;

  // Unit-length positions, one per vertex.
  std::vector<glm::vec3> positions;
  // Three vertex ids per face, counter-clockwise seen from outside the sphere.
  std::vector<uint32_t> indices;

  // Vertex adjacency in CSR form: the neighbours of v are
  // neighbours[neighbour_offsets[v] .. neighbour_offsets[v+1]), in counter-clockwise order
  // seen from outside. 12 vertices have 5 neighbours, all others 6.
  std::vector<uint32_t> neighbour_offsets;
  std::vector<uint32_t> neighbours;

  // face_neighbours[3*f + k] is the face across the edge from corner k to corner (k+1)%3.
  std::vector<uint32_t> face_neighbours;

  // Dual area of each vertex on the unit sphere (steradians); they sum to 4*pi.
  std::vector<float> vertex_areas;

  size_t vertexCount() const { return positions.size(); }
  size_t faceCount() const { return indices.size() / 3; }

  // Face holding the unit-length point p and p's barycentric weights in it.
  // O(1) expected: the icosahedron lattice gives a first guess, a short walk finishes it.
  // Thread-safe (const).
  SurfacePoint locate(const glm::vec3& p) const;

  // Same as locate, but starts walking from hint (a face near p, e.g. the face a
  // droplet was on one step ago). Cheaper than locate when the hint is within a few faces.
  SurfacePoint locateFrom(uint32_t hint_face, const glm::vec3& p) const;

  // Mean edge length on the unit sphere (radians): sqrt(4*pi / V) is close, this is exact.
  double mean_edge_length = 0.0;
};

// Builds the icosphere of the given frequency (f >= 1) with all arrays above filled.
// Parallelism: uses the calling thread's oneTBB arena (the caller sets the thread count).
SphereMesh buildIcosphere(int frequency);

}  // namespace geodesy
