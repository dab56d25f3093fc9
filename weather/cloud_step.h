#pragma once
// Internal to weather/: one cloud over one tick, a pure function of the cloud, the terrain and
// the params (no randomness). CloudSimulation runs it for every cloud in parallel.

#include <cstdint>

#include <glm/vec3.hpp>

#include "geodesy/sphere_mesh.h"
#include "weather/surface_sampling.h"
#include "weather/weather_params.h"

namespace weather {

struct Cloud {
  glm::dvec3 position{};  // unit length
  glm::dvec3 velocity{};  // tangent, radians of arc per tick
  double moisture = 0.0;
  double ground_m = 0.0;  // groundAt under the cloud after its last step
  uint32_t face = 0;      // face holding position
  uint32_t id = 0;
  int age = 0;
};

// What a cloud did in a tick.
struct CloudTick {
  enum class End : uint8_t { kAlive, kDry, kLifetime };
  double rain = 0.0;         // moisture that fell as rain
  glm::dvec3 from{};         // the cloud centre before the step: the rain fell along the way
  geodesy::SurfacePoint at;  // the cloud centre after the step
  bool over_land = false;    // the cloud centre was over land when it rained
  End end = End::kAlive;
};

// Random streams (geodesy/hash.h), one constant per use.
inline constexpr uint64_t kStreamSpawnCount = 0x5c0a7e11c0u;
inline constexpr uint64_t kStreamSpawnPoint = 0x5c0a7e11c1u;
inline constexpr uint64_t kStreamDroplet = 0x5c0a7e11c3u;
inline constexpr uint64_t kStreamFallback = 0x5c0a7e11c4u;
inline constexpr uint64_t kStreamShuffle = 0x5c0a7e11c5u;

// A cloud's random stream at a tick: hash of (seed, cloud id, tick) for one use.
inline geodesy::HashStream cloudStream(uint64_t seed, uint64_t use, uint32_t cloud_id,
                                       uint64_t tick) {
  return geodesy::HashStream(geodesy::hash3(seed, use, cloud_id), 0x7c1c, tick);
}

// Relaxes the cloud's velocity toward the (deflected) wind, moves it along a great circle,
// then rains and picks up moisture at the new place:
//   rain = moisture * min(1, rain_rate * (1 - rain_shadow * min(1, descent / shadow_descent_m))
//                            + orographic_factor * rise / 1000 m),
// rise and descent being the change of groundAt over the step. Over land the cloud loses only
// (1 - land_recycling) of that rain; over the ocean it loses all of it, then picks up
// pickup_rate, up to moisture_capacity. Ages the cloud and says whether it ended.
CloudTick stepCloud(Cloud& cloud, const Terrain& terrain, const WeatherParams& params);

// A new cloud at an ocean point (caller checked it is ocean), moving with the wind.
Cloud spawnCloud(const glm::dvec3& position, const geodesy::SurfacePoint& at,
                 const Terrain& terrain, const WeatherParams& params, uint32_t id);

}  // namespace weather
