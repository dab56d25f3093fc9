#include "planet/tile_compare.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <sstream>

#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/colour_ramps.h"
#include "export/png_io.h"
#include "export/top_down_view.h"
#include "geodesy/sphere_mesh.h"
#include "io/atomic_file.h"
#include "io/signals.h"
#include "metrics/terrain_metrics.h"
#include "planet/pipeline.h"

namespace planet {
namespace {

using Json = nlohmann::json;

// The region's tiles of one run, concatenated: positions, normals, heights and masks per
// vertex, three indices per triangle into them.
struct RegionSurface {
  std::vector<glm::dvec3> position, normal;
  std::vector<float> height_m, flow_m2;
  std::vector<uint32_t> indices;
};

RegionSurface regionSurface(const tiles::TileGenerator& generator,
                            std::span<const tiles::TileId> ids) {
  RegionSurface s;
  for (const tiles::TileId& id : ids) {
    const tiles::TileMesh m = generator.generate(id);
    const auto first = uint32_t(s.position.size());
    for (size_t v = 0; v < m.vertexCount(); ++v) {
      s.position.push_back(m.position(v));
      s.normal.push_back(glm::dvec3(m.normals[v]));
      s.height_m.push_back(m.height_m[v]);
      s.flow_m2.push_back(m.masks.flow_m2.empty() ? 0.0f : m.masks.flow_m2[v]);
    }
    for (uint32_t k : m.topology->indices) s.indices.push_back(first + k);
  }
  return s;
}

// The vertices inside a tile (not on its edges: each is counted once), tile by tile, with their
// six lattice neighbours, as offsets into the tile's vertices.
struct InnerVertices {
  std::vector<uint32_t> vertex;               // index within a tile
  std::vector<std::array<uint32_t, 6>> ring;  // its neighbours, within the same tile
};

InnerVertices innerVertices(uint32_t t) {
  const auto index = [t](uint32_t u, uint32_t v) {
    return v * (t + 1) - v * (v ? v - 1 : 0) / 2 + u;
  };
  InnerVertices inner;
  for (uint32_t v = 1; v < t; ++v) {
    for (uint32_t u = 1; u + v < t; ++u) {
      inner.vertex.push_back(index(u, v));
      inner.ring.push_back({index(u + 1, v), index(u, v + 1), index(u - 1, v + 1), index(u - 1, v),
                            index(u, v - 1), index(u + 1, v - 1)});
    }
  }
  return inner;
}

// Rain at each vertex: the planet's, interpolated over the planet triangle under it.
std::vector<float> rainAt(const planetgen::Planet& planet, std::span<const glm::dvec3> position) {
  const geodesy::SphereMesh& mesh = *planet.state().mesh;
  const std::span<const float> rain = planet.rainfall();
  std::vector<float> out(position.size());
  uint32_t hint = 0;
  for (size_t v = 0; v < position.size(); ++v) {
    const geodesy::SurfacePoint p = mesh.locateFrom(hint, glm::vec3(glm::normalize(position[v])));
    hint = p.face;
    const uint32_t* corner = &mesh.indices[size_t(p.face) * 3];
    out[v] = p.bary.x * rain[corner[0]] + p.bary.y * rain[corner[1]] + p.bary.z * rain[corner[2]];
  }
  return out;
}

struct RunMeasures {
  double eroded_m3 = 0.0, deposited_m3 = 0.0, change_rms_m = 0.0;
  double gully_density = 0.0;              // the share of inner vertices that are gullies
  std::vector<double> tile_gully_density;  // per tile
  double spearman_wear_rain = 0.0;         // depth worn against the planet's rain, per vertex
};

RunMeasures measure(const RegionSurface& eroded, const RegionSurface& plain,
                    std::span<const float> rain, const InnerVertices& inner, size_t tile_vertices,
                    double cell_m2, const TileCompareOptions& options) {
  RunMeasures r;
  const size_t tiles = eroded.height_m.size() / tile_vertices;
  std::vector<double> wear, wet;
  size_t gullies = 0, count = 0;
  double square = 0.0;
  for (size_t t = 0; t < tiles; ++t) {
    const size_t first = t * tile_vertices;
    size_t tile_gullies = 0;
    for (size_t k = 0; k < inner.vertex.size(); ++k) {
      const size_t v = first + inner.vertex[k];
      const double change = double(eroded.height_m[v]) - double(plain.height_m[v]);
      (change < 0.0 ? r.eroded_m3 : r.deposited_m3) += std::abs(change) * cell_m2;
      square += change * change;
      wear.push_back(std::max(0.0, -change));
      wet.push_back(rain[v]);
      double ring = 0.0;
      for (uint32_t n : inner.ring[k]) ring += double(eroded.height_m[first + n]);
      if (double(eroded.flow_m2[v]) >= options.gully_cells * cell_m2 &&
          ring / 6.0 - double(eroded.height_m[v]) >= options.gully_depth_m)
        ++tile_gullies;
    }
    r.tile_gully_density.push_back(double(tile_gullies) / double(inner.vertex.size()));
    gullies += tile_gullies, count += inner.vertex.size();
  }
  r.change_rms_m = count ? std::sqrt(square / double(count)) : 0.0;
  r.gully_density = count ? double(gullies) / double(count) : 0.0;
  r.spearman_wear_rain = metrics::spearman(wear, wet);
  return r;
}

// The mean over the wettest and the driest quarter of the tiles (by their mean rain) of a
// per-tile value; fewer than four tiles: the wettest and the driest tile.
std::array<double, 2> wetDry(std::span<const double> tile_rain, std::span<const double> value) {
  std::vector<size_t> order(tile_rain.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return tile_rain[a] > tile_rain[b]; });
  const size_t q = std::max<size_t>(1, order.size() / 4);
  double wettest = 0.0, driest = 0.0;
  for (size_t k = 0; k < q; ++k) {
    wettest += value[order[k]];
    driest += value[order[order.size() - 1 - k]];
  }
  return {wettest / double(q), driest / double(q)};
}

Json runJson(const RunMeasures& r, std::span<const double> tile_rain) {
  const auto [wet, dry] = wetDry(tile_rain, r.tile_gully_density);
  return {{"eroded_volume_m3", r.eroded_m3},
          {"deposited_volume_m3", r.deposited_m3},
          {"change_rms_m", r.change_rms_m},
          {"gully_density", r.gully_density},
          {"spearman_wear_rain", r.spearman_wear_rain},
          {"wettest_quarter_gully_density", wet},
          {"driest_quarter_gully_density", dry},
          {"wet_dry_gully_ratio", dry > 0.0 ? Json(wet / dry) : Json(nullptr)}};
}

}  // namespace

TileCompareResult compareTileRain(const planetgen::Planet& planet, const tiles::TileParams& params,
                                  const TileCompareOptions& options,
                                  const std::filesystem::path& out_dir) {
  if (planet.rainfall().empty())
    throw planetgen::ConfigError(
        "tiles --compare-rain: the planet has no rain (it was not eroded); allowed: a planet "
        "generated with erosion (clouds or uniform rain)");
  tiles::TileParams plain_params = params, weather_params = params, uniform_params = params;
  plain_params.erosion.enabled = false;
  weather_params.erosion.enabled = uniform_params.erosion.enabled = true;
  weather_params.erosion.rain = tiles::TileRain::kPlanet;
  uniform_params.erosion.rain = tiles::TileRain::kUniform;
  const tiles::TileGenerator weather = planetgen::makeTileGenerator(planet, weather_params);
  const tiles::TileGenerator uniform = planetgen::makeTileGenerator(planet, uniform_params);
  const tiles::TileGenerator plain = planetgen::makeTileGenerator(planet, plain_params);

  TileCompareResult result;
  const tiles::TileLayout& layout = weather.layout();
  result.level = layout.levelForSpacing(options.spacing_m, planet.radiusM());
  result.spacing_m = layout.levelSpacingRad(result.level) * planet.radiusM();
  if (!weather.erodes(result.level)) {
    std::ostringstream message;
    message << "--spacing-m " << options.spacing_m << " is not allowed with --compare-rain: level "
            << result.level << " (" << result.spacing_m
            << " m) is not eroded by the tiles; allowed: at most " << params.erosion.max_spacing_m
            << " (metres: the tiles erode the levels of that spacing and finer)";
    throw planetgen::ConfigError(message.str());
  }
  std::vector<tiles::TileId> ids;
  for (const BakeTile& t : planTileBake(weather, options.region, result.level).tiles)
    if (t.in_region && int(t.id.level) == result.level) ids.push_back(t.id);
  result.tiles = ids.size();
  if (ids.size() > kMaxCompareTiles) {
    std::ostringstream message;
    message << "--radius-km " << options.region.radius_m / 1000.0
            << " is not allowed with --compare-rain at --spacing-m " << options.spacing_m << ": "
            << ids.size() << " tiles; allowed: a region of at most " << kMaxCompareTiles
            << " tiles at that spacing (each is made three times and held for the pictures)";
    throw planetgen::ConfigError(message.str());
  }

  const RegionSurface base = regionSurface(plain, ids);
  const RegionSurface wet = regionSurface(weather, ids);
  const RegionSurface even = regionSurface(uniform, ids);
  result.vertices = base.height_m.size();
  const std::vector<float> rain = rainAt(planet, base.position);

  const auto t = uint32_t(layout.tileEdge());
  const size_t tile_vertices = size_t(t + 1) * (t + 2) / 2;
  const InnerVertices inner = innerVertices(t);
  const double cell_m2 = std::sqrt(3.0) / 2.0 * result.spacing_m * result.spacing_m;
  const RunMeasures w = measure(wet, base, rain, inner, tile_vertices, cell_m2, options);
  const RunMeasures u = measure(even, base, rain, inner, tile_vertices, cell_m2, options);
  std::vector<double> tile_rain(ids.size(), 0.0);
  for (size_t k = 0; k < ids.size(); ++k) {
    for (uint32_t v : inner.vertex) tile_rain[k] += rain[k * tile_vertices + v];
    tile_rain[k] /= double(inner.vertex.size());
  }

  Json j;
  j["generator"] = "planetgen";
  j["region"] = {{"lat_deg", options.region.lat_deg},
                 {"lon_deg", options.region.lon_deg},
                 {"radius_m", options.region.radius_m}};
  j["level"] = result.level;
  j["spacing_m"] = result.spacing_m;
  j["tiles"] = result.tiles;
  j["vertices"] = result.vertices;
  j["gully"] = {{"min_cells", options.gully_cells}, {"min_depth_m", options.gully_depth_m}};
  // The rain against the planet's mean over land (uniform rain's everywhere), as the tiles'
  // erosion scales it.
  double land_rain = 0.0;
  size_t land = 0;
  const std::span<const float> elevation = planet.elevationM(), planet_rain = planet.rainfall();
  for (size_t v = 0; v < elevation.size(); ++v)
    if (double(elevation[v]) >= planet.seaLevelM()) land_rain += double(planet_rain[v]), ++land;
  land_rain = land ? land_rain / double(land) : 0.0;
  if (!rain.empty() && land_rain > 0.0) {
    const auto [least, most] = std::minmax_element(rain.begin(), rain.end());
    j["rain"] = {{"mean_over_land_mean",
                  std::accumulate(rain.begin(), rain.end(), 0.0) / double(rain.size()) / land_rain},
                 {"least_over_land_mean", *least / land_rain},
                 {"most_over_land_mean", *most / land_rain}};
  }
  j["weather"] = runJson(w, tile_rain);
  j["uniform"] = runJson(u, tile_rain);

  io::OutputTransaction out(out_dir);
  if (!ids.empty()) {
    const planet_export::TopDownView view =
        planet_export::fitTopDown(base.position, options.image_size);
    const auto stagePng = [&](const std::string& name, const planet_export::RgbImage& image) {
      out.stage(name, planet_export::encodePngRgb8(image));
    };
    stagePng("relief_plain.png",
             planet_export::hillshadeTopDown(view, base.position, base.normal, base.indices));
    stagePng("relief_weather.png",
             planet_export::hillshadeTopDown(view, wet.position, wet.normal, wet.indices));
    stagePng("relief_uniform.png",
             planet_export::hillshadeTopDown(view, even.position, even.normal, even.indices));
    // The changes on one symmetric scale: the 99th percentile of |change| over both runs.
    std::vector<float> change_w(base.height_m.size()), change_u(base.height_m.size()),
        difference(base.height_m.size());
    std::vector<float> magnitude;
    for (size_t v = 0; v < base.height_m.size(); ++v) {
      change_w[v] = wet.height_m[v] - base.height_m[v];
      change_u[v] = even.height_m[v] - base.height_m[v];
      difference[v] = wet.height_m[v] - even.height_m[v];
      magnitude.push_back(std::abs(change_w[v]));
      magnitude.push_back(std::abs(change_u[v]));
    }
    const size_t p99 = magnitude.size() * 99 / 100;
    std::nth_element(magnitude.begin(), magnitude.begin() + std::ptrdiff_t(p99), magnitude.end());
    const double scale = std::max(1e-3, double(magnitude[p99]));
    const auto diverging = [scale](double x) { return planet_export::divergingColour(-x / scale); };
    stagePng("change_weather.png",
             planet_export::valuesTopDown(view, base.position, change_w, base.indices, diverging));
    stagePng("change_uniform.png",
             planet_export::valuesTopDown(view, base.position, change_u, base.indices, diverging));
    stagePng("difference.png", planet_export::valuesTopDown(view, base.position, difference,
                                                            base.indices, diverging));
    // The rain from the region's least (pale) to its most (dark blue): it varies at the
    // planet's spacing, so over a small region the range is narrow (metrics.json's "rain").
    const auto [least, most] = std::minmax_element(rain.begin(), rain.end());
    const double lo = *least, range = std::max(1e-30, double(*most) - lo);
    stagePng("rainfall.png",
             planet_export::valuesTopDown(view, base.position, rain, base.indices, [&](double x) {
               return planet_export::sequentialColour((x - lo) / range);
             }));
    j["change_scale_m"] = scale;
  }
  j["files"] = out.names();
  j["files"].push_back("metrics.json");
  out.stage("metrics.json", j.dump(2) + "\n");
  io::CommitGuard hold_signals;
  out.commit();
  hold_signals.committed();
  result.warnings = out.warnings();
  return result;
}

}  // namespace planet
