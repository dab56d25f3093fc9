#include "export/biome_palette.h"

#include <array>

namespace planet_export {
namespace {

struct BiomeEntry {
  std::string_view name;
  uint32_t rgb;
};

// Colours follow the usual Whittaker-diagram conventions: blues and whites for water and ice,
// greens for forests (darker when wetter), yellows and tans for dry land.
constexpr std::array<BiomeEntry, kBiomePaletteSize> kBiomes = {{
    {"ocean", 0x1F4E8C},
    {"sea ice", 0xD6E6F2},
    {"ice sheet / snow", 0xF7FAFC},
    {"tundra", 0x9EA58C},
    {"boreal forest", 0x3D6B4F},
    {"temperate grassland / cold desert", 0xC8BE8A},
    {"woodland / shrubland", 0xA7A35B},
    {"temperate seasonal forest", 0x5E9A3E},
    {"temperate rainforest", 0x2F7D5C},
    {"subtropical desert", 0xE2C48A},
    {"tropical seasonal forest / savanna", 0xB3AE45},
    {"tropical rainforest", 0x1E6A2B},
}};

}  // namespace

Rgb biomeColour(uint8_t biome) {
  if (biome >= kBiomePaletteSize) return Rgb{1.0f, 0.0f, 1.0f};
  const uint32_t rgb = kBiomes[biome].rgb;
  return Rgb{float((rgb >> 16) & 0xff) / 255.0f, float((rgb >> 8) & 0xff) / 255.0f,
             float(rgb & 0xff) / 255.0f};
}

std::string_view biomeName(uint8_t biome) {
  return biome < kBiomePaletteSize ? kBiomes[biome].name : std::string_view("unknown");
}

}  // namespace planet_export
