#include "geodesy/icosahedron.h"

#include <cassert>
#include <cmath>

#include <glm/geometric.hpp>

namespace geodesy {
namespace {

Icosahedron makeIcosahedron() {
  Icosahedron ico;
  const double phi = (1.0 + std::sqrt(5.0)) / 2.0;
  const glm::dvec3 raw[Icosahedron::kCorners] = {
      {-1, phi, 0},  {1, phi, 0},  {-1, -phi, 0}, {1, -phi, 0}, {0, -1, phi},  {0, 1, phi},
      {0, -1, -phi}, {0, 1, -phi}, {phi, 0, -1},  {phi, 0, 1},  {-phi, 0, -1}, {-phi, 0, 1},
  };
  for (int c = 0; c < Icosahedron::kCorners; ++c) ico.corners[c] = glm::normalize(raw[c]);
  ico.faces = {{
      {0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
      {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1},
  }};
  ico.edge_arc = std::acos(glm::dot(ico.corners[0], ico.corners[1]));

  for (int b = 0; b < Icosahedron::kFaces; ++b) {
    const auto& f = ico.faces[b];
    const glm::dvec3 c[3] = {ico.corners[f[0]], ico.corners[f[1]], ico.corners[f[2]]};
    ico.centres[b] = glm::normalize(c[0] + c[1] + c[2]);
    for (int k = 0; k < 3; ++k) {
      ico.opposite_normals[b][k] = glm::cross(c[(k + 1) % 3], c[(k + 2) % 3]);
    }
    assert(glm::dot(glm::cross(c[1] - c[0], c[2] - c[0]), ico.centres[b]) > 0.0);

    // Each edge a -> b has exactly one face holding b -> a.
    for (int k = 0; k < 3; ++k) {
      const uint8_t from = f[k], to = f[(k + 1) % 3];
      int found = 0;
      for (int o = 0; o < Icosahedron::kFaces; ++o) {
        for (int m = 0; m < 3; ++m) {
          const auto& g = ico.faces[o];
          if (g[m] == to && g[(m + 1) % 3] == from) {
            ico.adjacent_face[b][k] = uint8_t(o);
            ico.adjacent_edge[b][k] = uint8_t(m);
            ++found;
          }
        }
      }
      assert(found == 1);
      (void)found;
    }
  }
  return ico;
}

}  // namespace

const Icosahedron& icosahedron() {
  static const Icosahedron ico = makeIcosahedron();
  return ico;
}

}  // namespace geodesy
