#pragma once
// One droplet followed step by step, for tests and debugging: where it goes, what it carries,
// what it takes and gives, and why it stops. Units are those of erosion/detail/droplet.h: heights
// in mean edge lengths of the planet (h_m / (mean_edge_length * radius_m)), volumes in those
// heights times dual area / mean dual area.

#include <cstdint>
#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "erosion/droplet_erosion.h"
#include "geodesy/droplet_spawn.h"

namespace erosion {

enum class DropletEnd : uint8_t {
  kLifetime,  // ran max_lifetime steps
  kDried,     // water fell below kMinWaterFraction * initial_water
  kSea,       // reached a point below sea level (or spawned there)
  kFlat,      // stalled two steps in a row (no direction, or no speed and no slope), or trapped
              // in a pit (back near a vertex it passed a few steps before)
  kChannel,   // stepped onto (or spawned on) a face with a channel corner (ErosionInput::channel)
};

// A droplet dries up below this fraction of initial_water (eq. 5.8 never reaches 0).
inline constexpr float kMinWaterFraction = 0.005f;

// One step of a traced droplet: the state after the step, at its new position.
struct DropletStep {
  glm::vec3 position{0.0f};         // unit sphere
  uint32_t corners[3] = {0, 0, 0};  // the face under the droplet, nearest vertex first
  float height_m = 0.0f;            // frozen terrain under the droplet
  float speed = 0.0f;               // normalised (edge lengths per step)
  float water = 0.0f;
  float sediment = 0.0f;       // normalised volume carried after the step
  float eroded = 0.0f;         // height (normalised) taken at the old position, eq. 5.6
  float deposited = 0.0f;      // volume (normalised) dropped at the old position, eq. 5.5
  float height_change = 0.0f;  // normalised dh of the step, eq. 5.3
};

struct DropletTrace {
  std::vector<DropletStep> steps;  // steps[0] is the spawn
  DropletEnd end = DropletEnd::kLifetime;
};

// Follows one droplet over the terrain as erodeDroplets would (elevations frozen, as within a
// batch) and records every step; changes nothing. For tests and debugging.
DropletTrace traceDroplet(const ErosionInput& input, const geodesy::DropletSpawn& spawn,
                          const ErosionParams& params, std::span<const float> elevation_m,
                          uint64_t droplet_id = 0);

}  // namespace erosion
