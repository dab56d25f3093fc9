#pragma once
// Erodibility ("erosion factor", Beyer 2015 §5.2) per vertex in [hardness_min, 1], from a
// low-frequency noise so hard and soft rock vary across the planet.

#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

namespace terrain {

std::vector<float> erodibilityField(std::span<const glm::vec3> unit_positions, uint64_t seed,
                                    double hardness_min, double frequency);

}  // namespace terrain
