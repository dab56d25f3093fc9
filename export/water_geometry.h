#pragma once
// Rivers and lakes for planet.glb: plain arrays the planet layer fills from hydrology's
// rivers (hydrology/rivers.h). Positions are planet-centred metres in the mesh frame.

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

namespace planet_export {

// One river from source to mouth: at least 2 points, one discharge and width per point.
struct WaterLine {
  std::vector<glm::dvec3> position_m;
  std::vector<float> discharge_m3_s;
  std::vector<float> width_m;
};

// One lake's water surface: triangles counter-clockwise seen from outside the planet.
struct WaterSurface {
  std::vector<glm::dvec3> position_m;
  std::vector<uint32_t> indices;
};

struct WaterGeometry {
  std::vector<WaterLine> rivers;
  std::vector<WaterSurface> lakes;
};

}  // namespace planet_export
