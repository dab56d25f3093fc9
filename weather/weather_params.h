#pragma once
// Settings of the weather stage ([weather] in the config). Defaults are written here;
// docs/config.md gives each key's allowed range and meaning.
//
// Time is counted in ticks. One tick is about 1.5 hours of Earth weather at the default wind
// speeds (westerlies 0.65 deg/tick ~ 13 m/s on Earth). Moisture is in arbitrary units: rain is
// normalised to the droplet budget in the end, so only ratios between the moisture settings matter.

#include <cstdint>

namespace weather {

// The cloud simulation's settings (uniform rain, weather/uniform_rain.h, has none).
struct WeatherParams {
  // Simulated ticks over the whole run, split as evenly as possible over `epochs`. Erosion runs
  // after each epoch, so clouds of the next epoch see the eroded terrain.
  int ticks = 600;
  int epochs = 4;
  // Ticks run before the first epoch to fill the sky with clouds; their rain is not recorded.
  int spinup_ticks = 100;

  // Clouds born per steradian of ocean per tick (the unit sphere has 4 pi sr). With the default
  // lifetime that keeps about spawn_rate * ocean area * lifetime ~ 1200 clouds alive on an
  // Earth-like planet (70 % ocean, 8.8 sr).
  double spawn_rate = 0.7;
  int cloud_lifetime = 200;  // ticks
  // Clouds move over an icosphere of this frequency (or the terrain's mesh if that is coarser)
  // on which the terrain is resampled every epoch; 64 gives edges of about 1 deg (110 km).
  int grid_frequency = 64;
  // Radius of the disc under a cloud where its rain (and its droplets) fall, degrees of arc.
  double cloud_radius_deg = 0.5;

  double moisture_capacity = 1.0;  // most moisture a cloud can hold
  double initial_moisture = 0.5;   // moisture of a new cloud (clamped to the capacity)
  double pickup_rate = 0.03;       // moisture gained per tick over ocean, up to the capacity
  double dry_moisture = 0.02;      // a cloud with less moisture than this dissipates
  // Rain per tick as a fraction of the moisture carried: rain_rate everywhere, plus
  // orographic_factor per 1000 m the ground under the cloud rose during the tick.
  double rain_rate = 0.03;
  // Share of the rain over land that evaporates again into the same cloud (moisture
  // recycling: about 40 % of continental rain on Earth), so rain reaches further inland.
  double land_recycling = 0.5;
  double orographic_factor = 0.35;
  // On a descent, the base rain is cut by rain_shadow * min(1, descent / shadow_descent_m):
  // descending air warms and its clouds thin out.
  double rain_shadow = 0.6;
  double shadow_descent_m = 300.0;

  // Wind bands: |latitude| in [0, e1) trade easterlies, [e1, e2) westerlies, [e2, 90] polar
  // easterlies, mirrored in the south. Neighbouring bands blend with a smoothstep over
  // band_blend_deg centred on each edge; the wind also fades to zero within half a blend width
  // of the poles (where east is undefined) and the north-south component fades at the equator.
  double band_edge_1_deg = 30.0;
  double band_edge_2_deg = 60.0;
  double band_blend_deg = 20.0;
  // Wind speeds, degrees of arc per tick. Trades and polar easterlies blow toward the west and
  // the equator, westerlies toward the east and the pole.
  double trade_strength_deg = 0.5;
  double westerly_strength_deg = 0.65;
  double polar_strength_deg = 0.4;
  // North-south wind component as a fraction of the east-west one.
  double meridional_ratio = 0.08;
  // Fraction of the wind's up-slope component removed on steep ground, so clouds bend around
  // mountains (0 = off). Full strength from a slope of 1000 m per degree of arc.
  double terrain_deflection = 0.5;
  // Fraction of the gap between a cloud's velocity and the local wind closed each tick.
  double velocity_relaxation = 0.15;
};

// Checks what a per-key range cannot: the band edges are ordered and the blends fit between
// them, every count and rate is in range. Throws std::invalid_argument naming the key.
void validate(const WeatherParams& params);

}  // namespace weather
