#pragma once
// Prevailing winds in six latitude bands (Kelley 2020 §4.3, Fig. 6), smooth across the band
// edges, and their bending around high ground. Frame of geodesy/latlon.h: +Y north, east
// toward -Z at longitude 0.

#include <glm/vec3.hpp>

#include "weather/weather_params.h"

namespace weather {

// East-west (u, positive toward the east) and north-south (v, positive toward the north) wind
// at a latitude, in degrees of arc per tick. Each band's value is a constant (trades: u < 0,
// v toward the equator; westerlies: u > 0, v toward the pole; polar easterlies: u < 0, v toward
// the equator); bands blend with a smoothstep of width band_blend_deg centred on each edge.
// v fades to zero at the equator and both fade to zero at the poles, so the field is continuous
// on the whole sphere. u is even in latitude, v odd.
struct ZonalWind {
  double east_deg = 0.0;
  double north_deg = 0.0;
};
ZonalWind zonalWindAt(const WeatherParams& params, double lat_deg);

// Wind at a point of the unit sphere (any non-zero length): a vector tangent there whose length
// is the speed in radians of arc per tick. Zero at the poles.
glm::dvec3 windAt(const WeatherParams& params, const glm::dvec3& unit_position);

// The wind bent around terrain: removes terrain_deflection * s of the wind's component up the
// slope, s = min(1, |gradient| / 1000 m per degree). gradient_m_per_rad is the tangent
// gradient of the ground height (metres per radian of arc). Never adds speed.
glm::dvec3 deflectedWind(const WeatherParams& params, const glm::dvec3& wind,
                         const glm::dvec3& gradient_m_per_rad);

}  // namespace weather
