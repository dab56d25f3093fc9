#pragma once
// Synthetic planets for the routing, drainage and fluvial tests (hydrology/flow_routing_test,
// metrics/drainage_metrics_test, erosion/fluvial_test): a cone, a dome continent, and the same
// with rolling pits on it.

#include <algorithm>
#include <cmath>
#include <vector>

#include "geodesy/sphere_mesh.h"

namespace relief_fixtures {

// A cone rising 1000 m per unit of y, from the southern sea (y < 0) to the north pole: every
// land vertex has a lower neighbour.
inline std::vector<float> conePlanet(const geodesy::SphereMesh& mesh) {
  std::vector<float> h(mesh.vertexCount());
  for (size_t v = 0; v < h.size(); ++v) h[v] = float(1000.0 * mesh.positions[v].y);
  return h;
}

// A dome continent around the north pole (land within 60 deg), sea elsewhere, with a little
// deterministic roughness so that flow is not tied.
inline std::vector<float> domePlanet(const geodesy::SphereMesh& mesh, double peak_m = 2000.0) {
  std::vector<float> h(mesh.vertexCount());
  for (size_t v = 0; v < h.size(); ++v) {
    const double lat = std::asin(std::clamp(double(mesh.positions[v].y), -1.0, 1.0));
    const double from_pole = M_PI / 2 - lat;
    const double land = 1.0 - from_pole / (M_PI / 3);
    const double wobble =
        20.0 * std::sin(37.0 * mesh.positions[v].x) * std::cos(23.0 * mesh.positions[v].z);
    h[v] = float(land > 0 ? peak_m * land + wobble + 25.0 : -3000.0);
  }
  return h;
}

// Rolling land with pits, a sea around it: something for routing to resolve.
inline std::vector<float> roughPlanet(const geodesy::SphereMesh& mesh) {
  std::vector<float> h = domePlanet(mesh, 1500.0);
  for (size_t v = 0; v < h.size(); ++v) {
    if (h[v] < 0) continue;
    const glm::vec3 p = mesh.positions[v];
    h[v] += float(300.0 * std::sin(11.0 * p.x + 3.0 * p.y) * std::sin(13.0 * p.z - 2.0 * p.x));
    h[v] = std::max(h[v], 1.0f);
  }
  return h;
}

}  // namespace relief_fixtures
