#pragma once
// Texturing masks and climate layers of a generated planet: per-vertex fields written as
// 16-bit equirectangular PNGs aligned with planet.glb's TEXCOORD_0 (the heightmap's pixel
// layout, export/maps.h) with a masks.json sidecar giving each file's units and decoding, and
// optionally as glb vertex attributes. docs/rivers.md.

#include <functional>
#include <string>
#include <vector>

#include "export/equirect_sampler.h"
#include "export/planet_surface.h"
#include "hydrology/rivers.h"
#include "io/atomic_file.h"
#include "planet/config.h"
#include "planet/pipeline.h"

namespace planet {

// One per-vertex field; the PNG maps [min, max] to 0..65535.
struct MaskLayer {
  std::string file;       // e.g. "mask_flow.png"
  std::string attribute;  // glb attribute name, or empty when it is not one
  std::string units;
  std::string meaning;
  std::vector<float> values;  // empty when `make` makes them on demand
  double min = 0.0, max = 1.0;
  // Makes the values from data that outlives the layer (the planet, the biomes, a compact
  // copy), so a layer needs no per-vertex floats until its PNG is made. Empty: `values`.
  std::function<std::vector<float>()> make;
};

// The layer's values: `values`, or made by `make` into `own`.
std::span<const float> maskValues(const MaskLayer& layer, std::vector<float>& own);
// Makes a layer's values once and keeps them (for the glb attributes).
void keepMaskValues(MaskLayer& layer);

// flow (log10(1 + discharge)), wear and deposition (metres of elevation change), water
// (rivers and lakes), one splat weight per biome group (water, ice, forest, open, desert),
// temperature (degrees C) and precipitation (relative to the mean land rain, if any rain).
// Only flow and water are stored (water as bytes); the other layers are made on demand from
// planet and biomes, which must outlive the layers.
std::vector<MaskLayer> maskLayers(const PlanetState& planet, const Config& config,
                                  const hydrology::RiverNetwork& rivers,
                                  std::span<const uint8_t> biomes);

// One layer's 16-bit PNG, sampled at the located pixel centres (their width and height).
std::string maskPng(const MaskLayer& layer, const geodesy::SphereMesh& mesh,
                    const planet_export::EquirectLocations& where);

// masks.json: every layer's file, units, meaning, range and decoding.
std::string masksJson(const std::vector<MaskLayer>& layers, int width);

// Stages every layer's PNG at `width` and masks.json, one after another (generate writes them
// as tasks beside its other outputs: planet_outputs.h).
void writeMasks(const std::vector<MaskLayer>& layers, const planet_export::PlanetSurface& surface,
                int width, io::OutputTransaction& out);

}  // namespace planet
