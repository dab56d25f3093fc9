#include "planet/masks_output.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/biomes.h"
#include "export/equirect_sampler.h"
#include "export/maps.h"
#include "export/png_io.h"
#include "geodesy/latlon.h"
#include "planet/rivers_output.h"

namespace planet {
namespace {

using Json = nlohmann::json;

// Biome groups of the splat map, by Biome id (export/biomes.h).
struct Group {
  const char* name;
  std::vector<uint8_t> biomes;
};
const std::vector<Group>& groups() {
  static const std::vector<Group> g = {{"water", {0, 1}},
                                       {"ice", {2, 3}},
                                       {"forest", {4, 7, 8, 11}},
                                       {"open", {5, 6, 10}},
                                       {"desert", {9}}};
  return g;
}

MaskLayer layer(std::string name, std::string attribute, std::string units, std::string meaning,
                std::vector<float> values) {
  MaskLayer m{"mask_" + name + ".png", std::move(attribute), std::move(units), std::move(meaning),
              std::move(values)};
  const auto [lo, hi] = std::minmax_element(m.values.begin(), m.values.end());
  m.min = std::min(0.0, double(*lo));
  m.max = std::max(m.min + 1e-6, double(*hi));
  return m;
}

}  // namespace

std::vector<MaskLayer> maskLayers(const PlanetState& planet, const Config& config,
                                  const hydrology::RiverNetwork& rivers,
                                  std::span<const uint8_t> biomes) {
  const geodesy::SphereMesh& mesh = *planet.mesh;
  const size_t n = mesh.vertexCount();
  std::vector<MaskLayer> layers;
  std::vector<float> flow(n), wear(n), deposition(n), water(n, 0.0f), temperature(n);
  const double min_q = minDischargeM3s(planet, config);
  for (size_t v = 0; v < n; ++v) {
    const double q = rivers.discharge_m3_s[v];
    flow[v] = float(std::log10(1.0 + q));
    wear[v] = std::max(0.0f, -planet.change_m[v]);
    deposition[v] = std::max(0.0f, planet.change_m[v]);
    const bool land = planet.elevation_m[v] >= planet.sea_level_m;
    water[v] = land && q >= min_q ? 1.0f : 0.0f;
    const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(mesh.positions[v]));
    temperature[v] = float(planet_export::temperatureC(
        ll.lat_rad, double(planet.elevation_m[v]) - planet.sea_level_m));
  }
  for (size_t v = 0; v < n; ++v)
    if (rivers.lake_of[v] != hydrology::kNoLake) water[v] = 1.0f;
  layers.push_back(layer("flow", "_FLOW", "log10(1 + discharge in m^3/s)",
                         "river discharge, log scale", std::move(flow)));
  layers.push_back(
      layer("wear", "", "m", "depth eroded (initial - final elevation, > 0)", std::move(wear)));
  layers.push_back(layer("deposition", "", "m", "thickness deposited (final - initial, > 0)",
                         std::move(deposition)));
  layers.push_back(
      layer("water", "_WATER", "0-1", "1 on rivers and lakes, 0 elsewhere", std::move(water)));
  for (const Group& g : groups()) {
    std::vector<float> w(n, 0.0f);
    for (size_t v = 0; v < n && !biomes.empty(); ++v)
      w[v] = std::find(g.biomes.begin(), g.biomes.end(), biomes[v]) != g.biomes.end();
    MaskLayer m = layer(std::string("biome_") + g.name, "", "0-1",
                        "splat weight of the biome group (the groups sum to 1)", std::move(w));
    m.min = 0.0, m.max = 1.0;
    layers.push_back(std::move(m));
  }
  layers.push_back(layer("temperature", "_TEMPERATURE", "degC",
                         "annual mean temperature (export/biomes.h: latitude, 6.5 degC/km)",
                         std::move(temperature)));
  layers.back().file = "climate_temperature.png";
  if (!planet.rainfall.empty()) {
    double rain = 0.0, area = 0.0;
    for (size_t v = 0; v < n; ++v) {
      if (planet.elevation_m[v] < planet.sea_level_m) continue;
      rain += double(planet.rainfall[v]) * mesh.vertex_areas[v];
      area += mesh.vertex_areas[v];
    }
    const double scale = rain > 0.0 ? area / rain : 0.0;
    std::vector<float> p(n);
    for (size_t v = 0; v < n; ++v) p[v] = float(planet.rainfall[v] * scale);
    layers.push_back(layer("precipitation", "", "relative to the mean land rainfall",
                           "rain of the run (planet.rainfall); 1 = mean over land", std::move(p)));
    layers.back().file = "climate_precipitation.png";
  }
  return layers;
}

std::string maskPng(const MaskLayer& layer, const geodesy::SphereMesh& mesh,
                    const planet_export::EquirectLocations& where) {
  const std::vector<float> samples = planet_export::sampleVertexField(mesh, where, layer.values);
  planet_export::Gray16Image image(where.width, where.height);
  const double scale = 65535.0 / (layer.max - layer.min);
  for (size_t i = 0; i < samples.size(); ++i)
    image.pixels[i] =
        uint16_t(std::lround(std::clamp((samples[i] - layer.min) * scale, 0.0, 65535.0)));
  return planet_export::encodePngGray16(image);
}

std::string masksJson(const std::vector<MaskLayer>& layers, int width) {
  Json files = Json::array();
  for (const MaskLayer& m : layers) {
    files.push_back({{"file", m.file},
                     {"units", m.units},
                     {"meaning", m.meaning},
                     {"min", m.min},
                     {"max", m.max},
                     {"attribute", m.attribute.empty() ? Json(nullptr) : Json(m.attribute)},
                     {"decode", "value = min + v / 65535 * (max - min)"}});
  }
  Json doc = {{"encoding", "png-gray16"},
              {"projection", "equirectangular"},
              {"width", width},
              {"height", width / 2},
              {"pixel_centres",
               "lon = -180 + (x + 0.5) * 360 / width, lat = 90 - (y + 0.5) * 180 / height"},
              {"texcoord", "TEXCOORD_0 of planet.glb: u = (lon + 180) / 360, v = (90 - lat) / 180"},
              {"interpolation", "barycentric over the mesh triangles, like heightmap.png"},
              {"files", files}};
  return doc.dump(2) + "\n";
}

void writeMasks(const std::vector<MaskLayer>& layers, const planet_export::PlanetSurface& surface,
                int width, planet_export::OutputTransaction& out) {
  // Every pixel centre located once for all layers, or the run's shared grid (equirect_sampler.h).
  planet_export::EquirectLocations own;
  const planet_export::EquirectLocations& where =
      planet_export::mapLocations(surface, width, width / 2, own);
  for (const MaskLayer& m : layers) out.stage(m.file, maskPng(m, *surface.mesh, where));
  out.stage("masks.json", masksJson(layers, width));
}

}  // namespace planet
