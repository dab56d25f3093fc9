#pragma once
// Colour ramps shared by the engine files (vertex colours) and the PNG maps, so a planet
// looks the same in a game engine and in its pictures.

#include <cstdint>

namespace planet_export {

// An sRGB colour, components in [0, 1]: the display values PNG and OBJ files store. glTF
// vertex colours are linear; convert with srgbToLinear.
struct Rgb {
  float r = 0.0f;
  float g = 0.0f;
  float b = 0.0f;
};

// Where the hypsometric bands of the land ramp change, in metres above sea level, and the
// depth where the bathymetric ramp reaches its darkest blue. Heights must increase in the
// order the fields are listed.
struct TerrainPalette {
  double beach_top_m = 30.0;       // sand from the shoreline up to here
  double lowland_top_m = 600.0;    // greens
  double highland_top_m = 2000.0;  // olive to brown
  double rock_top_m = 3500.0;      // grey-brown rock; snow starts here
  double snow_full_m = 4200.0;     // pure snow from here up
  double abyss_depth_m = 6000.0;   // metres below sea level where the blue is darkest
};

// Land tint for a height above sea level (>= 0): beach, lowlands, highlands, rock, snow,
// blended linearly between band colours.
Rgb hypsometricTint(double height_above_sea_m, const TerrainPalette& palette = {});

// Sea-floor tint for a depth below sea level (>= 0): light blue shelves to dark abyss. Chosen
// light enough to read under the semi-transparent ocean of the engine files.
Rgb bathymetricTint(double depth_m, const TerrainPalette& palette = {});

// The tint of a surface point: hypsometric above sea level, bathymetric below.
Rgb terrainColour(double elevation_m, double sea_level_m, const TerrainPalette& palette = {});

// Diverging ramp (ColorBrewer RdBu): t = -1 blue, 0 near-white, +1 red. t is clamped.
Rgb divergingColour(double t);

// Sequential ramp (ColorBrewer YlGnBu): t = 0 pale yellow, 1 dark blue. t is clamped.
Rgb sequentialColour(double t);

// The surface colour of the ocean (sRGB), used for the ocean material and OBJ vertex colours.
inline constexpr Rgb kOceanColour{0.10f, 0.32f, 0.62f};

// sRGB transfer function inverse (IEC 61966-2-1), for glTF's linear vertex colours.
float srgbToLinear(float c);

// std::lround of a float of magnitude at most 2^24 (halves away from zero), inline where
// lround is a library call: there |x| + 0.5 is exact in double (a float's bits span at most 24
// places, and below 0.5 the sum stays below 1), so truncating it rounds as lround does. NaN
// gives 0 (the byte lround's result became in the callers).
inline int32_t roundHalfAway(float x) {
  if (x != x) return 0;
  const auto magnitude = int32_t(double(x < 0.0f ? -x : x) + 0.5);
  return x < 0.0f ? -magnitude : magnitude;
}

// Component in [0, 1] to an 8-bit value, rounded; out-of-range values are clamped.
inline uint8_t toByte(float c) {
  const float clamped = c > 0.0f ? (c < 1.0f ? c : 1.0f) : 0.0f;  // NaN compares false: 0
  return uint8_t(roundHalfAway(clamped * 255.0f));
}

// Component-wise scale, clamped to [0, 1].
Rgb scaled(Rgb c, double factor);

// Linear blend a + (b - a) * t.
Rgb mix(Rgb a, Rgb b, double t);

}  // namespace planet_export
