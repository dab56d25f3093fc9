#pragma once
// The biomes' legend: an sRGB colour and an English name per class of weather/biomes.h (its
// ids are stable), for vertex colours, the biome picture and the glb's legend.

#include <cstdint>
#include <string_view>

#include "export/colour_ramps.h"

namespace planet_export {

// Classes in the palette: weather::kBiomeCount (a test checks they agree).
inline constexpr int kBiomePaletteSize = 12;

// Out-of-range ids give magenta / "unknown".
Rgb biomeColour(uint8_t biome);
std::string_view biomeName(uint8_t biome);

}  // namespace planet_export
