#include "weather/weather_params.h"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace weather {
namespace {

// The shortest text that reads back as v (integers without a fraction).
std::string text(double v) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, error == std::errc() ? end : buffer);
}

void require(bool ok, const char* key, double value, const std::string& allowed) {
  if (ok) return;
  throw std::invalid_argument(std::string("[weather] ") + key + " = " + text(value) +
                              " is not allowed; allowed: " + allowed + ".");
}

bool finite(double x) {
  return std::isfinite(x);
}

}  // namespace

void validate(const WeatherParams& p) {
  require(p.ticks >= 1, "ticks", p.ticks, "an integer >= 1");
  require(p.epochs >= 1 && p.epochs <= p.ticks, "epochs", p.epochs,
          "an integer in [1, ticks], here [1, " + text(p.ticks) + "]");
  require(p.spinup_ticks >= 0, "spinup_ticks", p.spinup_ticks, "an integer >= 0");
  require(finite(p.spawn_rate) && p.spawn_rate >= 0.0 && p.spawn_rate <= 1e4, "spawn_rate",
          p.spawn_rate, "a number in [0, 10000]");
  require(p.cloud_lifetime >= 1, "cloud_lifetime", p.cloud_lifetime, "an integer >= 1");
  require(p.grid_frequency >= 4 && p.grid_frequency <= 1024, "grid_frequency", p.grid_frequency,
          "an integer in [4, 1024]");
  require(finite(p.cloud_radius_deg) && p.cloud_radius_deg >= 0.0 && p.cloud_radius_deg <= 30.0,
          "cloud_radius_deg", p.cloud_radius_deg, "a number in [0, 30]");
  require(finite(p.moisture_capacity) && p.moisture_capacity > 0.0, "moisture_capacity",
          p.moisture_capacity, "a number > 0");
  require(finite(p.initial_moisture) && p.initial_moisture >= 0.0, "initial_moisture",
          p.initial_moisture, "a number >= 0");
  require(finite(p.pickup_rate) && p.pickup_rate >= 0.0, "pickup_rate", p.pickup_rate,
          "a number >= 0");
  require(finite(p.dry_moisture) && p.dry_moisture >= 0.0, "dry_moisture", p.dry_moisture,
          "a number >= 0");
  require(finite(p.rain_rate) && p.rain_rate >= 0.0 && p.rain_rate <= 1.0, "rain_rate", p.rain_rate,
          "a number in [0, 1]");
  require(finite(p.land_recycling) && p.land_recycling >= 0.0 && p.land_recycling < 1.0,
          "land_recycling", p.land_recycling, "a number in [0, 1)");
  require(finite(p.orographic_factor) && p.orographic_factor >= 0.0, "orographic_factor",
          p.orographic_factor, "a number >= 0");
  require(finite(p.rain_shadow) && p.rain_shadow >= 0.0 && p.rain_shadow <= 1.0, "rain_shadow",
          p.rain_shadow, "a number in [0, 1]");
  require(finite(p.shadow_descent_m) && p.shadow_descent_m > 0.0, "shadow_descent_m",
          p.shadow_descent_m, "a number > 0");
  require(finite(p.band_edge_1_deg) && p.band_edge_1_deg > 0.0 && p.band_edge_1_deg < 90.0,
          "band_edge_1_deg", p.band_edge_1_deg, "a number in (0, 90)");
  require(finite(p.band_edge_2_deg) && p.band_edge_2_deg > p.band_edge_1_deg &&
              p.band_edge_2_deg < 90.0,
          "band_edge_2_deg", p.band_edge_2_deg,
          "a number in (band_edge_1_deg, 90), here (" + text(p.band_edge_1_deg) + ", 90)");
  const double max_blend =
      std::fmin(std::fmin(2.0 * p.band_edge_1_deg, p.band_edge_2_deg - p.band_edge_1_deg),
                90.0 - p.band_edge_2_deg);
  require(finite(p.band_blend_deg) && p.band_blend_deg >= 0.0 && p.band_blend_deg <= max_blend,
          "band_blend_deg", p.band_blend_deg,
          "a number in [0, min(2 e1, e2 - e1, 90 - e2)] for the band edges e1, e2");
  for (auto [key, value] : {std::pair{"trade_strength_deg", p.trade_strength_deg},
                            std::pair{"westerly_strength_deg", p.westerly_strength_deg},
                            std::pair{"polar_strength_deg", p.polar_strength_deg}}) {
    require(finite(value) && value >= 0.0 && value <= 10.0, key, value, "a number in [0, 10]");
  }
  require(finite(p.meridional_ratio) && p.meridional_ratio >= 0.0 && p.meridional_ratio <= 2.0,
          "meridional_ratio", p.meridional_ratio, "a number in [0, 2]");
  require(
      finite(p.terrain_deflection) && p.terrain_deflection >= 0.0 && p.terrain_deflection <= 1.0,
      "terrain_deflection", p.terrain_deflection, "a number in [0, 1]");
  require(
      finite(p.velocity_relaxation) && p.velocity_relaxation > 0.0 && p.velocity_relaxation <= 1.0,
      "velocity_relaxation", p.velocity_relaxation, "a number in (0, 1]");
}

}  // namespace weather
