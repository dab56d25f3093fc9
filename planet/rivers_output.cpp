#include "planet/rivers_output.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/geojson.h"
#include "geodesy/latlon.h"
#include "metrics/drainage_metrics.h"

namespace planet {
namespace {

using Json = nlohmann::json;
constexpr double kSecondsPerYear = 365.25 * 86400.0;

double runoffMPerS(const Config& config) {
  return config.rivers.runoff_mm_per_yr * 1e-3 / kSecondsPerYear;
}

double cellM2(const PlanetState& planet, const Config& config) {
  return metrics::meanCellAreaM2(*planet.mesh, config.planet.radius_m);
}

const char* endName(hydrology::RiverEnd end) {
  switch (end) {
    case hydrology::RiverEnd::kSea:
      return "sea";
    case hydrology::RiverEnd::kLake:
      return "lake";
    case hydrology::RiverEnd::kRiver:
      return "river";
    case hydrology::RiverEnd::kSink:
      break;
  }
  return "sink";
}

double degrees(double rad) {
  return rad * 180.0 / std::numbers::pi;
}

}  // namespace

double minDischargeM3s(const PlanetState& planet, const Config& config) {
  return config.rivers.min_drainage_cells * cellM2(planet, config) * runoffMPerS(config);
}

hydrology::RiverNetwork riversOf(const PlanetState& planet, const Config& config) {
  return riversOf(planet, config, metrics::drainageOf(drainageInputOf(planet, config)));
}

hydrology::RiverNetwork riversOf(const PlanetState& planet, const Config& config,
                                 const metrics::DrainageNetwork& drainage) {
  const geodesy::SphereMesh& mesh = *planet.mesh;
  // Runoff per vertex: its rain-weighted area (drainageOf's weights: rain relative to the
  // mean land rain) times the mean runoff, recovered from the accumulated areas.
  const auto& rt = drainage.routing;
  std::vector<double> runoff(mesh.vertexCount(), 0.0);
  for (uint32_t v : rt.order) runoff[v] += drainage.area_m2[v];
  for (uint32_t v : rt.order)
    if (rt.receiver[v] != v) runoff[rt.receiver[v]] -= drainage.area_m2[v];
  for (uint32_t v : rt.order) runoff[v] = std::max(0.0, runoff[v]) * runoffMPerS(config);
  hydrology::RiverInput in;
  in.mesh = &mesh;
  in.radius_m = config.planet.radius_m;
  in.sea_level_m = planet.sea_level_m;
  in.elevation_m = planet.elevation_m;
  in.routing = &drainage.routing;
  in.endorheic = drainage.endorheic;
  in.runoff_m3_s = runoff;
  hydrology::RiverParams params;
  params.min_discharge_m3_s = minDischargeM3s(planet, config);
  params.width_coefficient = config.rivers.width_coefficient;
  params.subdivisions = config.rivers.subdivisions;
  params.min_lake_vertices = metrics::kMinLakeVertices;
  return hydrology::extractRivers(in, params);
}

planet_export::WaterGeometry waterGeometryOf(const hydrology::RiverNetwork& network) {
  planet_export::WaterGeometry water;
  for (const hydrology::River& river : network.rivers) {
    planet_export::WaterLine line;
    for (const hydrology::RiverPoint& p : river.points) {
      line.position_m.push_back(p.position_m);
      line.discharge_m3_s.push_back(float(p.discharge_m3_s));
      line.width_m.push_back(float(p.width_m));
    }
    water.rivers.push_back(std::move(line));
  }
  for (const hydrology::LakeShape& lake : network.lakes)
    water.lakes.push_back({lake.surface_m, lake.surface_indices});
  return water;
}

std::string riversGeoJson(const hydrology::RiverNetwork& network, const PlanetState& planet) {
  std::vector<planet_export::GeoLine> lines;
  for (size_t i = 0; i < network.rivers.size(); ++i) {
    const hydrology::River& river = network.rivers[i];
    planet_export::GeoLine line;
    std::vector<double> discharge, width;
    for (const hydrology::RiverPoint& p : river.points) {
      line.lon_deg.push_back(p.lon_deg);
      line.lat_deg.push_back(p.lat_deg);
      line.elevation_m.push_back(p.elevation_m);
      discharge.push_back(p.discharge_m3_s);
      width.push_back(p.width_m);
    }
    line.point_values = {{"discharge_m3_s", std::move(discharge)}, {"width_m", std::move(width)}};
    Json props = {{"kind", "river"},
                  {"id", i},
                  {"strahler", river.strahler},
                  {"length_km", river.length_m * 1e-3},
                  {"mouth_discharge_m3_s", river.points.back().discharge_m3_s},
                  {"ends_in", endName(river.end)}};
    props["into"] =
        river.end == hydrology::RiverEnd::kLake || river.end == hydrology::RiverEnd::kRiver
            ? Json(river.into)
            : Json(nullptr);
    props["source_lake"] =
        river.source_lake == hydrology::kNoLake ? Json(nullptr) : Json(river.source_lake);
    line.properties_json = props.dump();
    lines.push_back(std::move(line));
  }
  std::vector<planet_export::GeoPolygon> polygons;
  for (size_t i = 0; i < network.lakes.size(); ++i) {
    const hydrology::LakeShape& lake = network.lakes[i];
    if (lake.rings.empty()) continue;
    planet_export::GeoPolygon poly;
    for (const auto& ring : lake.rings) {
      std::vector<std::pair<double, double>> r;
      for (const glm::dvec3& d : ring) {
        const geodesy::LatLon ll = geodesy::unitToLatLon(d);
        r.push_back({degrees(ll.lon_rad), degrees(ll.lat_rad)});
      }
      poly.rings.push_back(std::move(r));
    }
    poly.elevation_m = lake.level_m;
    const geodesy::LatLon outlet =
        geodesy::unitToLatLon(glm::dvec3(planet.mesh->positions[lake.outlet_vertex]));
    Json props = {{"kind", "lake"},
                  {"id", i},
                  {"level_m", lake.level_m},
                  {"area_km2", lake.area_m2 * 1e-6},
                  {"volume_km3", lake.volume_m3 * 1e-9},
                  {"max_depth_m", lake.max_depth_m},
                  {"endorheic", lake.endorheic},
                  {"outlet", {degrees(outlet.lon_rad), degrees(outlet.lat_rad)}}};
    props["outflow_river"] =
        lake.outflow_river == hydrology::kNoLake ? Json(nullptr) : Json(lake.outflow_river);
    poly.properties_json = props.dump();
    polygons.push_back(std::move(poly));
  }
  return planet_export::geoJsonText(lines, polygons);
}

RiverQuarters riverLengthByRainQuarter(const hydrology::RiverNetwork& network,
                                       const PlanetState& planet, const Config& config,
                                       std::span<const float> split_rain) {
  const geodesy::SphereMesh& mesh = *planet.mesh;
  std::vector<uint32_t> land;
  for (uint32_t v = 0; v < mesh.vertexCount(); ++v)
    if (planet.elevation_m[v] >= planet.sea_level_m) land.push_back(v);
  const metrics::QuarterMasks quarter =
      metrics::rainQuarterMasks(land, mesh.vertexCount(), split_rain, {}, 1);
  double dry_sr = 0.0, wet_sr = 0.0;
  for (uint32_t v : land) {
    if (quarter.driest[v]) dry_sr += mesh.vertex_areas[v];
    if (quarter.wettest[v]) wet_sr += mesh.vertex_areas[v];
  }
  const double r = config.planet.radius_m;
  double dry_m = 0.0, wet_m = 0.0;
  for (const hydrology::River& river : network.rivers) {
    for (size_t k = 0; k + 1 < river.vertices.size(); ++k) {
      const uint32_t v = river.vertices[k];
      const double len = r * glm::length(glm::dvec3(mesh.positions[v]) -
                                         glm::dvec3(mesh.positions[river.vertices[k + 1]]));
      if (quarter.driest[v]) dry_m += len;
      if (quarter.wettest[v]) wet_m += len;
    }
  }
  auto per1000 = [&](double m, double sr) {
    return sr > 0.0 ? m * 1e-3 / (sr * r * r * 1e-9) : 0.0;
  };
  return {per1000(wet_m, wet_sr), per1000(dry_m, dry_sr)};
}

Json riversSummary(const hydrology::RiverNetwork& network, const PlanetState& planet,
                   const Config& config) {
  double length_m = 0.0;
  int max_order = 0;
  uint64_t to_sea = 0;
  for (const hydrology::River& r : network.rivers) {
    length_m += r.length_m;
    max_order = std::max(max_order, r.strahler);
    to_sea += r.end == hydrology::RiverEnd::kSea;
  }
  uint64_t endorheic = 0;
  for (const hydrology::LakeShape& l : network.lakes) endorheic += l.endorheic;
  Json s = {{"rivers", network.rivers.size()},
            {"rivers_to_sea", to_sea},
            {"total_length_km", length_m * 1e-3},
            {"max_strahler", max_order},
            {"min_discharge_m3_s", minDischargeM3s(planet, config)},
            {"lakes", network.lakes.size()},
            {"endorheic_lakes", endorheic}};
  if (!planet.rainfall.empty()) {
    const RiverQuarters q = riverLengthByRainQuarter(network, planet, config, planet.rainfall);
    s["wettest_quarter_km_per_1000km2"] = q.wettest;
    s["driest_quarter_km_per_1000km2"] = q.driest;
  }
  return s;
}

}  // namespace planet
