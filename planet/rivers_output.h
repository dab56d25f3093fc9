#pragma once
// Rivers and lakes of a generated planet as files: hydrology's extraction (hydrology/rivers.h)
// on the final terrain and the rain of the run, turned into rivers.geojson and the data for
// planet.glb's Rivers and Lakes nodes (docs/rivers.md).

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "export/water_geometry.h"
#include "hydrology/rivers.h"
#include "planet/config.h"
#include "planet/pipeline.h"

namespace planet {

// The river network of planet's current terrain with config.rivers (discharge from the run's
// rainfall, or uniform rain when none).
hydrology::RiverNetwork riversOf(const PlanetState& planet, const Config& config);
// The same on the network of planet's current terrain, already routed
// (drainageOf(drainageInputOf(planet, config))).
hydrology::RiverNetwork riversOf(const PlanetState& planet, const Config& config,
                                 const metrics::DrainageNetwork& drainage);

// Discharge threshold of config.rivers on this planet (m^3/s).
double minDischargeM3s(const PlanetState& planet, const Config& config);

planet_export::WaterGeometry waterGeometryOf(const hydrology::RiverNetwork& network);

// rivers.geojson: a LineString (or MultiLineString across the antimeridian) per river and a
// Polygon (or MultiPolygon) per lake.
std::string riversGeoJson(const hydrology::RiverNetwork& network, const PlanetState& planet);

// River length (km) per 1000 km^2 of land in the wettest and the driest quarter of the land
// vertices by split_rain (each river edge counted at its upstream vertex).
struct RiverQuarters {
  double wettest = 0.0, driest = 0.0;
};
RiverQuarters riverLengthByRainQuarter(const hydrology::RiverNetwork& network,
                                       const PlanetState& planet, const Config& config,
                                       std::span<const float> split_rain);

// summary.json's "rivers" section.
nlohmann::json riversSummary(const hydrology::RiverNetwork& network, const PlanetState& planet,
                             const Config& config);

}  // namespace planet
