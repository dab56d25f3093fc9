#pragma once
// The icosahedron the sphere is cut from. Internal to geodesy: constant tables shared by the
// mesh builder and point location.

#include <array>
#include <cstdint>

#include <glm/vec3.hpp>

namespace geodesy {

struct Icosahedron {
  static constexpr int kCorners = 12;
  static constexpr int kFaces = 20;

  // Unit-length corners (computed in double) at the cyclic permutations of (+-1, +-phi, 0),
  // and three corners per face, counter-clockwise seen from outside. No corner lies on the
  // polar (Y) axis; the edge between corners 0 and 1 crosses the north pole at its midpoint.
  std::array<glm::dvec3, kCorners> corners;
  std::array<std::array<uint8_t, 3>, kFaces> faces;

  // The face across edge k (corner k -> corner k+1) of face b, and the index of the same edge
  // in that face, where it runs the other way.
  std::array<std::array<uint8_t, 3>, kFaces> adjacent_face;
  std::array<std::array<uint8_t, 3>, kFaces> adjacent_edge;

  // Unit face centres: the face whose centre is nearest a direction p is the face that p's
  // ray crosses (true for any regular solid).
  std::array<glm::dvec3, kFaces> centres;

  // opposite_normals[b][k] = cross(c[k+1], c[k+2]) for the corners c of face b, so that for
  // p = sum_k w_k c[k], dot(p, opposite_normals[b][k]) = w_k * det(c0, c1, c2).
  std::array<std::array<glm::dvec3, 3>, kFaces> opposite_normals;

  // Arc (radians) between two adjacent corners: atan(2) = 63.43 deg.
  double edge_arc = 0.0;
};

// Built once on first use (thread-safe), immutable afterwards.
const Icosahedron& icosahedron();

}  // namespace geodesy
