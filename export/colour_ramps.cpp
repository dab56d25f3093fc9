#include "export/colour_ramps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

namespace planet_export {
namespace {

struct Stop {
  double at;
  Rgb colour;
};

constexpr Rgb hex(uint32_t rgb) {
  return Rgb{float((rgb >> 16) & 0xff) / 255.0f, float((rgb >> 8) & 0xff) / 255.0f,
             float(rgb & 0xff) / 255.0f};
}

// Piecewise-linear ramp through stops sorted by `at`; clamps outside the stops.
Rgb rampAt(std::span<const Stop> stops, double x) {
  if (!(x > stops.front().at)) return stops.front().colour;  // also catches NaN
  for (size_t i = 1; i < stops.size(); ++i) {
    if (x <= stops[i].at) {
      const double span = stops[i].at - stops[i - 1].at;
      const double t = span > 0.0 ? (x - stops[i - 1].at) / span : 1.0;
      return mix(stops[i - 1].colour, stops[i].colour, t);
    }
  }
  return stops.back().colour;
}

}  // namespace

Rgb mix(Rgb a, Rgb b, double t) {
  const auto lerp = [t](float x, float y) { return float(x + (y - x) * t); };
  return Rgb{lerp(a.r, b.r), lerp(a.g, b.g), lerp(a.b, b.b)};
}

Rgb scaled(Rgb c, double factor) {
  const auto s = [factor](float x) { return float(std::clamp(x * factor, 0.0, 1.0)); };
  return Rgb{s(c.r), s(c.g), s(c.b)};
}

Rgb hypsometricTint(double height_above_sea_m, const TerrainPalette& p) {
  // Colours in the spirit of classic atlas tints (sand, greens, olive, brown, grey, snow).
  const std::array<Stop, 9> stops = {{
      {0.0, hex(0xe3d3a2)},                                         // wet sand
      {p.beach_top_m * 0.7, hex(0xd9c68f)},                         // dry sand
      {p.beach_top_m, hex(0x6f9e4f)},                               // coastal green
      {p.lowland_top_m, hex(0x8fae5c)},                             // lowland green
      {0.5 * (p.lowland_top_m + p.highland_top_m), hex(0xb5ad6a)},  // olive uplands
      {p.highland_top_m, hex(0x9c7a52)},                            // brown highlands
      {0.5 * (p.highland_top_m + p.rock_top_m), hex(0x8a7c70)},     // rock
      {p.rock_top_m, hex(0x9a9490)},                                // bare grey rock
      {p.snow_full_m, hex(0xf4f6f8)},                               // snow
  }};
  return rampAt(stops, height_above_sea_m);
}

Rgb bathymetricTint(double depth_m, const TerrainPalette& p) {
  const double d = p.abyss_depth_m;
  const std::array<Stop, 5> stops = {{
      {0.0, hex(0x9fd4e8)},       // shallows
      {0.03 * d, hex(0x6fb2d9)},  // continental shelf
      {0.15 * d, hex(0x3d7fbf)},  // slope
      {0.5 * d, hex(0x1f4f94)},   // basin
      {d, hex(0x0d2a5e)},         // abyss
  }};
  return rampAt(stops, depth_m);
}

Rgb terrainColour(double elevation_m, double sea_level_m, const TerrainPalette& palette) {
  const double height = elevation_m - sea_level_m;
  return height >= 0.0 ? hypsometricTint(height, palette) : bathymetricTint(-height, palette);
}

Rgb divergingColour(double t) {
  static constexpr std::array<Stop, 7> kStops = {{
      {-1.0, hex(0x2166ac)},
      {-2.0 / 3.0, hex(0x67a9cf)},
      {-1.0 / 3.0, hex(0xd1e5f0)},
      {0.0, hex(0xf7f7f7)},
      {1.0 / 3.0, hex(0xfddbc7)},
      {2.0 / 3.0, hex(0xef8a62)},
      {1.0, hex(0xb2182b)},
  }};
  return rampAt(kStops, t);
}

Rgb sequentialColour(double t) {
  static constexpr std::array<Stop, 8> kStops = {{
      {0.0 / 7.0, hex(0xffffd9)},
      {1.0 / 7.0, hex(0xedf8b1)},
      {2.0 / 7.0, hex(0xc7e9b4)},
      {3.0 / 7.0, hex(0x7fcdbb)},
      {4.0 / 7.0, hex(0x41b6c4)},
      {5.0 / 7.0, hex(0x1d91c0)},
      {6.0 / 7.0, hex(0x225ea8)},
      {7.0 / 7.0, hex(0x0c2c84)},
  }};
  return rampAt(kStops, t);
}

float srgbToLinear(float c) {
  const double x = std::clamp(double(c), 0.0, 1.0);
  return float(x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4));
}

}  // namespace planet_export
