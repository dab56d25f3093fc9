#include "planet/masks_output.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/equirect_sampler.h"
#include "export/maps.h"
#include "export/png_io.h"
#include "geodesy/latlon.h"
#include "planet/rivers_output.h"
#include "weather/biomes.h"

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

// The smallest and largest of a field, the values std::minmax_element would find, kept
// while the field is made one value at a time.
struct Range {
  float lo = 0.0f, hi = 0.0f;
  bool any = false;
  void add(float x) {
    if (!any) {
      lo = hi = x, any = true;
      return;
    }
    if (x < lo) lo = x;
    if (!(x < hi)) hi = x;
  }
};

MaskLayer layer(std::string name, std::string attribute, std::string units, std::string meaning,
                Range range, std::function<std::vector<float>()> make) {
  MaskLayer m{"mask_" + name + ".png",
              std::move(attribute),
              std::move(units),
              std::move(meaning),
              {},
              0.0,
              1.0,
              std::move(make)};
  m.min = std::min(0.0, double(range.lo));
  m.max = std::max(m.min + 1e-6, double(range.hi));
  return m;
}

// n values of f(v), made in parallel (each value on its own: the same for any thread count).
template <class F>
std::vector<float> field(size_t n, F f) {
  std::vector<float> out(n);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 16384),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t v = r.begin(); v != r.end(); ++v) out[v] = f(v);
                    });
  return out;
}

}  // namespace

std::span<const float> maskValues(const MaskLayer& layer, std::vector<float>& own) {
  if (!layer.values.empty() || !layer.make) return layer.values;
  own = layer.make();
  return own;
}

void keepMaskValues(MaskLayer& layer) {
  if (layer.values.empty() && layer.make) layer.values = layer.make();
  layer.make = nullptr;
}

std::vector<MaskLayer> maskLayers(const PlanetState& planet, const Config& config,
                                  const hydrology::RiverNetwork& rivers,
                                  std::span<const uint8_t> biomes) {
  const geodesy::SphereMesh& mesh = *planet.mesh;
  const size_t n = mesh.vertexCount();
  std::vector<MaskLayer> layers;
  // Flow and water need the river network, which is freed before the PNGs are made: they are
  // stored (water as bytes). The other layers are made again from the planet when written.
  std::vector<float> flow(n);
  auto water = std::make_shared<std::vector<uint8_t>>(n, 0);
  auto temperatureAt = [&planet, &mesh](size_t v) {
    const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(mesh.positions[v]));
    return float(
        weather::temperatureC(ll.lat_rad, double(planet.elevation_m[v]) - planet.sea_level_m));
  };
  auto wearAt = [&planet](size_t v) { return std::max(0.0f, -planet.change_m[v]); };
  auto depositionAt = [&planet](size_t v) { return std::max(0.0f, planet.change_m[v]); };
  Range flow_range, wear_range, deposition_range, water_range, temperature_range;
  const double min_q = minDischargeM3s(planet, config);
  for (size_t v = 0; v < n; ++v) {
    const double q = rivers.discharge_m3_s[v];
    flow[v] = float(std::log10(1.0 + q));
    flow_range.add(flow[v]);
    wear_range.add(wearAt(v));
    deposition_range.add(depositionAt(v));
    const bool land = planet.elevation_m[v] >= planet.sea_level_m;
    (*water)[v] = (land && q >= min_q) || rivers.lake_of[v] != hydrology::kNoLake;
    water_range.add((*water)[v] ? 1.0f : 0.0f);
    temperature_range.add(temperatureAt(v));
  }
  MaskLayer flow_layer = layer("flow", "_FLOW", "log10(1 + discharge in m^3/s)",
                               "river discharge, log scale", flow_range, nullptr);
  flow_layer.values = std::move(flow);
  layers.push_back(std::move(flow_layer));
  layers.push_back(layer("wear", "", "m", "depth eroded (initial - final elevation, > 0)",
                         wear_range, [n, wearAt] { return field(n, wearAt); }));
  layers.push_back(layer("deposition", "", "m", "thickness deposited (final - initial, > 0)",
                         deposition_range, [n, depositionAt] { return field(n, depositionAt); }));
  layers.push_back(
      layer("water", "_WATER", "0-1", "1 on rivers and lakes, 0 elsewhere", water_range,
            [n, water] { return field(n, [&](size_t v) { return (*water)[v] ? 1.0f : 0.0f; }); }));
  for (const Group& g : groups()) {
    auto weight = [biomes, &g](size_t v) -> float {
      if (biomes.empty()) return 0.0f;
      return std::find(g.biomes.begin(), g.biomes.end(), biomes[v]) != g.biomes.end();
    };
    MaskLayer m = layer(std::string("biome_") + g.name, "", "0-1",
                        "splat weight of the biome group (the groups sum to 1)", Range{},
                        [n, weight] { return field(n, weight); });
    m.min = 0.0, m.max = 1.0;
    layers.push_back(std::move(m));
  }
  layers.push_back(layer("temperature", "_TEMPERATURE", "degC",
                         "annual mean temperature (export/biomes.h: latitude, 6.5 degC/km)",
                         temperature_range,
                         [n, temperatureAt] { return field(n, temperatureAt); }));
  layers.back().file = "climate_temperature.png";
  if (!planet.rainfall.empty()) {
    double rain = 0.0, area = 0.0;
    for (size_t v = 0; v < n; ++v) {
      if (planet.elevation_m[v] < planet.sea_level_m) continue;
      rain += double(planet.rainfall[v]) * mesh.vertex_areas[v];
      area += mesh.vertex_areas[v];
    }
    const double scale = rain > 0.0 ? area / rain : 0.0;
    auto precipitationAt = [&planet, scale](size_t v) { return float(planet.rainfall[v] * scale); };
    Range range;
    for (size_t v = 0; v < n; ++v) range.add(precipitationAt(v));
    layers.push_back(layer("precipitation", "", "relative to the mean land rainfall",
                           "rain of the run (planet.rainfall); 1 = mean over land", range,
                           [n, precipitationAt] { return field(n, precipitationAt); }));
    layers.back().file = "climate_precipitation.png";
  }
  return layers;
}

std::string maskPng(const MaskLayer& layer, const geodesy::SphereMesh& mesh,
                    const planet_export::EquirectLocations& where) {
  std::vector<float> samples;
  {
    std::vector<float> own;
    samples = planet_export::sampleVertexField(mesh, where, maskValues(layer, own));
  }
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
                int width, io::OutputTransaction& out) {
  // Every pixel centre located once for all layers, or the run's shared grid (equirect_sampler.h).
  planet_export::EquirectLocations own;
  const planet_export::EquirectLocations& where =
      planet_export::mapLocations(surface, width, width / 2, own);
  for (const MaskLayer& m : layers) out.stage(m.file, maskPng(m, *surface.mesh, where));
  out.stage("masks.json", masksJson(layers, width));
}

}  // namespace planet
