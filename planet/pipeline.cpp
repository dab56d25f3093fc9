#include "planet/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>

#include <tbb/parallel_invoke.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_group.h>
#include <nlohmann/json.hpp>

#include "export/equirect_sampler.h"
#include "export/mesh_export.h"
#include "hydrology/flow_routing.h"
#include "io/atomic_file.h"
#include "io/signals.h"
#include "metrics/drainage_metrics.h"
#include "metrics/latitude_bands.h"
#include "planet/detail/drainage_report.h"
#include "planet/detail/stats_fields.h"
#include "planet/detail/stopwatch.h"
#include "planet/masks_output.h"
#include "planet/planet_outputs.h"
#include "planet/rivers_output.h"
#include "planetgen_version.h"
#include "terrain/hardness.h"
#include "terrain/heightmap_import.h"
#include "terrain/ocean.h"
#include "terrain/terrain.h"
#include "weather/biomes.h"
#include "weather/rainfall.h"
#include "weather/uniform_rain.h"

namespace planet {

using Json = nlohmann::json;

PlanetState buildPlanet(const Config& config, StageTimer& timer, const StageCallback& on_stage) {
  PlanetState planet;
  on_stage("icosphere");
  timer.start("icosphere");
  planet.mesh =
      std::make_shared<const geodesy::SphereMesh>(geodesy::buildIcosphere(config.planet.frequency));

  on_stage("terrain");
  timer.start("terrain");
  if (config.heightmap_file.empty()) {
    planet.elevation_m =
        terrain::generateElevation(planet.mesh->positions, config.planet.seed, config.terrain);
  } else {
    terrain::HeightmapImportOptions options;
    options.range = {config.terrain.heightmap_min_m, config.terrain.heightmap_max_m};
    try {
      planet.elevation_m =
          terrain::importHeightmap(config.heightmap_file, *planet.mesh, options).elevation_m;
    } catch (const std::runtime_error& e) {
      throw ConfigError(std::string("--heightmap: ") + e.what());
    }
  }

  on_stage("ocean level");
  timer.start("ocean");
  const double level =
      terrain::oceanLevel(planet.elevation_m, planet.mesh->vertex_areas, config.ocean);
  if (config.ocean.mode == terrain::OceanMode::kFraction) {
    // Elevations are reported above sea level: shift so the quantile is exactly 0 m.
    for (float& e : planet.elevation_m) e = float(double(e) - level);
    planet.sea_level_m = 0.0;
  } else {
    planet.sea_level_m = level;
  }
  planet.land_vertices =
      uint64_t(std::count_if(planet.elevation_m.begin(), planet.elevation_m.end(),
                             [&](float e) { return e >= planet.sea_level_m; }));
  planet.initial_elevation_m = planet.elevation_m;
  planet.change_m.assign(planet.elevation_m.size(), 0.0f);
  timer.stop();
  return planet;
}

uint64_t dropletBudget(const Config& config, uint64_t land_vertices) {
  if (config.droplets.droplets > 0) return config.droplets.droplets;
  return uint64_t(std::llround(config.droplets.droplets_per_land_vertex * double(land_vertices)));
}

namespace {

// Uniform rain's map is its expectation: the budget spread evenly over the land, in droplets
// per steradian like weather::CloudSimulation::rainfall(). (Binning the actual spawns would
// show sampling noise, which is not where it rains more.)
std::vector<float> uniformRainfall(const PlanetState& planet, uint64_t droplets) {
  double land_area = 0.0;
  for (size_t v = 0; v < planet.elevation_m.size(); ++v)
    if (planet.elevation_m[v] >= planet.sea_level_m) land_area += planet.mesh->vertex_areas[v];
  const float per_sr = land_area > 0 ? float(double(droplets) / land_area) : 0.0f;
  std::vector<float> rainfall(planet.elevation_m.size(), 0.0f);
  for (size_t v = 0; v < rainfall.size(); ++v)
    if (planet.elevation_m[v] >= planet.sea_level_m) rainfall[v] = per_sr;
  return rainfall;
}

// The rivers of the fluvial stage's relief, which the droplets after it hand their load to: the
// land vertices draining at least channel_cells mean cells (drainage area, not rain-weighted)
// along steepest descent on the heights the droplets start from, and whose descent reaches the
// sea (a river into a closed basin, or on a planet without sea, carries its load nowhere: there
// the droplets lay it down). One flag per vertex.
std::vector<uint8_t> fluvialChannels(const PlanetState& planet, double channel_cells) {
  const geodesy::SphereMesh& mesh = *planet.mesh;
  const size_t n = mesh.vertexCount();
  std::vector<uint8_t> channel(n, 0);
  if (!(channel_cells > 0.0)) return channel;
  const metrics::SteepestDescent descent =
      metrics::steepestDescent(mesh, planet.elevation_m, planet.sea_level_m);
  const std::vector<double> area = metrics::steepestArea(mesh, descent, 1.0);
  std::vector<uint8_t> to_sea(n, 0);
  for (size_t v = 0; v < n; ++v) to_sea[v] = double(planet.elevation_m[v]) < planet.sea_level_m;
  for (const uint32_t v : descent.order) {
    const uint32_t r = descent.receiver[v];
    to_sea[v] = r != v && to_sea[r];
  }
  const double threshold = channel_cells * 4.0 * std::numbers::pi / double(n);
  for (const uint32_t v : descent.order) channel[v] = to_sea[v] && area[v] >= threshold;
  // No channel (no sea): no mask, so the droplets keep their vector brush (it knows no mask).
  if (std::none_of(channel.begin(), channel.end(), [](uint8_t c) { return c != 0; }))
    channel.clear();
  return channel;
}

}  // namespace

void erodePlanet(PlanetState& planet, const Config& config, StageTimer& timer,
                 const StageCallback& on_stage, bool with_droplet_density) {
  const uint64_t droplets = dropletBudget(config, planet.land_vertices);
  const bool fluvial = config.pipeline.fluvial;
  if ((droplets == 0 && !fluvial) || planet.land_vertices == 0) return;
  on_stage("erosion");
  timer.start("erosion");
  std::vector<float> erodibility;  // empty when hardness is off
  if (config.hardness.enabled) {
    erodibility =
        terrain::erodibilityField(planet.mesh->positions, config.planet.seed,
                                  config.hardness.min_erodibility, config.hardness.frequency);
  }
  planet.rain_mode = config.weather.mode;

  // The rain first (the clouds rain on the noise terrain, epoch by epoch), then the fluvial
  // stage builds the relief from all of it, then the droplets of every epoch run on that
  // relief as the detail pass, in the order the clouds spawned them.
  std::vector<geodesy::DropletSpawn> spawns;
  if (config.weather.mode == RainMode::kClouds) {
    // The clouds need a droplet budget to scale their rain: at least one per land vertex.
    weather::CloudSimulation clouds(*planet.mesh, config.weather.clouds, config.planet.seed,
                                    droplets > 0 ? droplets : planet.land_vertices);
    if (droplets > 0) spawns.reserve(droplets);
    while (!clouds.done()) {
      const int epoch = clouds.epochsRun();
      on_stage("weather, epoch " + std::to_string(epoch + 1) + "/" +
               std::to_string(config.weather.clouds.epochs));
      timer.start("weather");
      const std::vector<geodesy::DropletSpawn> epoch_spawns =
          clouds.runEpoch(planet.elevation_m, planet.sea_level_m);
      if (droplets > 0) spawns.insert(spawns.end(), epoch_spawns.begin(), epoch_spawns.end());
    }
    planet.rainfall = clouds.rainfall();
    planet.weather_stats = clouds.stats();
  } else {
    on_stage("weather (uniform rain)");
    timer.start("weather");
    if (droplets > 0)
      spawns = weather::uniformRain(*planet.mesh, planet.elevation_m, planet.sea_level_m, droplets,
                                    config.planet.seed);
    planet.rainfall = uniformRainfall(planet, droplets > 0 ? droplets : planet.land_vertices);
  }
  if (with_droplet_density) {
    timer.start("droplet_density");
    planet.droplet_density =
        weather::rainfallFromSpawns(*planet.mesh, spawns, config.weather.clouds.grid_frequency);
  }

  if (fluvial) {
    on_stage("erosion (fluvial)");
    timer.start("fluvial");
    erosion::FluvialInput river;
    river.mesh = planet.mesh.get();
    river.radius_m = config.planet.radius_m;
    river.sea_level_m = planet.sea_level_m;
    river.noise_m = planet.initial_elevation_m;
    river.rainfall = planet.rainfall;
    river.erodibility = erodibility;
    river.seed = config.planet.seed;
    planet.fluvial_stats = erosion::erodeFluvial(river, config.fluvial, planet.elevation_m);
    for (size_t v = 0; v < planet.change_m.size(); ++v)
      planet.change_m[v] = planet.elevation_m[v] - planet.initial_elevation_m[v];
  }
  const bool had_droplets = !spawns.empty();
  if (had_droplets) {
    on_stage("erosion (droplets)");
    timer.start("erosion");
    erosion::ErosionInput input;
    input.mesh = planet.mesh.get();
    input.radius_m = config.planet.radius_m;
    input.sea_level_m = planet.sea_level_m;
    input.erodibility = erodibility;
    input.seed = config.planet.seed;
    // After the fluvial stage, droplets are the detail pass of the hillslopes: its channels
    // carry their load away and keep their long profiles (docs/erosion.md, "Channels").
    std::vector<uint8_t> channel;
    if (fluvial) channel = fluvialChannels(planet, metrics::kChannelAreaCells);
    input.channel = channel;
    planet.erosion_stats = erosion::erodeDroplets(input, spawns, config.erosion, planet.elevation_m,
                                                  planet.change_m, 0);
    std::vector<geodesy::DropletSpawn>().swap(spawns);
    std::vector<float>().swap(erodibility);
  }
  if (had_droplets || fluvial) {
    // Droplets leave pits and flats: filled with an epsilon gradient, so that every vertex
    // outside a lake (kMinLakeVertices or more) drains again. Without droplets the fluvial
    // stage's relief needs it too: a kept endorheic lake whose rim the steady state lowered
    // can shrink to a pit of one or two vertices. Land without relief has nowhere to drain to
    // and stays flat.
    const double step_m = hydrology::fillStepM(*planet.mesh, config.planet.radius_m,
                                               planet.elevation_m, planet.sea_level_m);
    if (step_m > 0.0) {
      const std::vector<float> before = planet.elevation_m;
      const double r2 = config.planet.radius_m * config.planet.radius_m;
      planet.pit_fill_m3 = r2 * hydrology::fillDepressionsEpsilon(
                                    *planet.mesh, planet.elevation_m, planet.sea_level_m,
                                    metrics::kMinLakeVertices, {}, step_m);
      for (size_t v = 0; v < before.size(); ++v)
        planet.change_m[v] += planet.elevation_m[v] - before[v];
    }
  }
  timer.stop();
}

metrics::DrainageInput drainageInputOf(const PlanetState& planet, const Config& config) {
  metrics::DrainageInput input;
  input.mesh = planet.mesh.get();
  input.radius_m = config.planet.radius_m;
  input.sea_level_m = planet.sea_level_m;
  input.elevation_m = planet.elevation_m;
  input.rainfall = planet.rainfall;
  input.lake_evaporation = config.fluvial.lake_evaporation;
  input.seed = config.planet.seed;
  return input;
}

namespace {

// The drainage input of the terrain before erosion (the initial elevations, the run's rain).
metrics::DrainageInput inputBefore(const PlanetState& planet, const Config& config) {
  metrics::DrainageInput input = drainageInputOf(planet, config);
  input.elevation_m = planet.initial_elevation_m;
  return input;
}

// The land's highest tenth by initial elevation, where the relief measures look.
constexpr double kHighestShare = 0.1;

// The metrics of one terrain (before or after): the drainage, steepest descent on the
// heights, and the channel depth within the highest tenth of the land.
Json terrainDrainageJson(const PlanetState& planet, const metrics::DrainageInput& input,
                         const metrics::DrainageNetwork& network) {
  // Three independent measures of one network, side by side (each writes its own result).
  metrics::DrainageMetrics all, highest;
  metrics::SteepestMetrics steepest;
  tbb::parallel_invoke(
      [&] { all = metrics::drainageMetrics(input, network); },
      [&] { steepest = metrics::steepestMetrics(input, network); },
      [&] {
        highest = metrics::drainageMetrics(
            input, network,
            metrics::highestLand(planet.initial_elevation_m, planet.sea_level_m, kHighestShare));
      });
  Json j = drainageJson(all);
  j["steepest_descent"] = steepestJson(steepest);
  j["highest_tenth_channel_depth_m"] = highest.mean_channel_depth_m;
  return j;
}

// The drainage section but its "before" metrics.
Json drainageSummaryAfter(const PlanetState& planet, const Config& config,
                          const metrics::DrainageNetwork& after) {
  const metrics::DrainageInput input = drainageInputOf(planet, config);
  Json d;
  // The measures are independent: side by side, each writing its own result.
  metrics::RainQuarters q, banded;
  tbb::parallel_invoke([&] { d["after"] = terrainDrainageJson(planet, input, after); },
                       [&] {
                         if (!planet.rainfall.empty())
                           q = metrics::rainQuarters(input, after, planet.rainfall);
                       },
                       [&] {
                         if (!planet.rainfall.empty())
                           banded = metrics::rainQuarters(input, after, planet.rainfall,
                                                          planet.initial_elevation_m);
                       });
  d["highest_tenth_within_20m"] = metrics::shareWithin(
      planet.initial_elevation_m, planet.elevation_m,
      metrics::highestLand(planet.initial_elevation_m, planet.sea_level_m, kHighestShare));
  d["highest_quarter_within_20m"] = metrics::shareWithin(
      planet.initial_elevation_m, planet.elevation_m,
      metrics::highestLand(planet.initial_elevation_m, planet.sea_level_m, 0.25));
  if (!planet.rainfall.empty()) {
    d["wettest_quarter"] = drainageJson(q.wettest);
    d["driest_quarter"] = drainageJson(q.driest);
    d["elevation_matched_quarters"] = {{"elevation_bands", metrics::kElevationBands},
                                       {"wettest", drainageJson(banded.wettest)},
                                       {"driest", drainageJson(banded.driest)}};
  }
  const metrics::CoastChange c =
      metrics::coastChange(planet.initial_elevation_m, planet.elevation_m, planet.sea_level_m);
  d["coastline_moved"] = c.coastline_moved;
  d["former_sea_raised_over_100m"] = c.former_sea_raised_100m;
  const auto initial_max =
      *std::max_element(planet.initial_elevation_m.begin(), planet.initial_elevation_m.end());
  const auto final_max = *std::max_element(planet.elevation_m.begin(), planet.elevation_m.end());
  d["initial_max_m"] = initial_max;
  d["final_max_m"] = final_max;
  return d;
}

// The "before" metrics, the initial terrain routed here and freed once measured.
Json drainageBeforeJson(const PlanetState& planet, const Config& config) {
  const metrics::DrainageInput input = inputBefore(planet, config);
  return terrainDrainageJson(planet, input, metrics::drainageOf(input));
}

}  // namespace

Json drainageSummary(const PlanetState& planet, const Config& config) {
  // The two routings are mostly serial (the priority-flood): side by side.
  metrics::DrainageNetwork before;
  tbb::task_group routing;
  routing.run([&] { before = metrics::drainageOf(inputBefore(planet, config)); });
  const metrics::DrainageNetwork after = metrics::drainageOf(drainageInputOf(planet, config));
  routing.wait();
  Json d = drainageSummaryAfter(planet, config, after);
  d["before"] = terrainDrainageJson(planet, inputBefore(planet, config), before);
  return d;
}

Json drainageSummary(const PlanetState& planet, const Config& config,
                     const metrics::DrainageNetwork& after) {
  Json d = drainageSummaryAfter(planet, config, after);
  d["before"] = drainageBeforeJson(planet, config);
  return d;
}

Json drainageSummary(const PlanetState& planet, const Config& config,
                     std::shared_ptr<const metrics::DrainageNetwork> after) {
  Json d = drainageSummaryAfter(planet, config, *after);
  after.reset();
  d["before"] = drainageBeforeJson(planet, config);
  return d;
}

namespace {

// drainage: summary.json's "drainage" section when the caller made it already (null: made here).
Json summaryJson(const PlanetState& planet, const Config& config, const StageTimer& timer,
                 int threads, Json drainage) {
  Json s;
  s["generator"] = "planetgen";
  s["version"] = planetgen::kVersion;
  s["seed"] = config.planet.seed;
  s["frequency"] = config.planet.frequency;
  s["threads"] = threads;
  s["vertices"] = planet.mesh->vertexCount();
  s["faces"] = planet.mesh->faceCount();
  s["land_vertices"] = planet.land_vertices;
  s["sea_level_m"] = planet.sea_level_m;
  const auto [lo, hi] = std::minmax_element(planet.elevation_m.begin(), planet.elevation_m.end());
  s["elevation_min_m"] = *lo;
  s["elevation_max_m"] = *hi;
  s["elevation_hash"] = hashFloats(planet.elevation_m);
  s["initial_elevation_hash"] = hashFloats(planet.initial_elevation_m);
  s["timings"] = timingsJson(timer);
  // Each export output's own wall time; they run concurrently, so these overlap in time.
  Json outputs = Json::object();
  for (const auto& [name, seconds] : timer.parts()) outputs[name] = seconds;
  s["export_outputs_s"] = outputs;
  s["peak_rss_bytes"] = timer.peakRss();
  const erosion::ErosionStats& e = planet.erosion_stats;
  s["erosion"] = {{"droplets", e.droplets},
                  {"eroded_volume_m3", e.eroded_volume_m3},
                  {"deposited_volume_m3", e.deposited_volume_m3},
                  {"carried_out_volume_m3", e.carried_out_volume_m3},
                  {"mass_conservation_error", e.mass_error},
                  {"mean_steps_per_droplet", e.mean_steps},
                  {"ended",
                   {{"dried", e.ended_dried},
                    {"lifetime", e.ended_lifetime},
                    {"sea", e.ended_sea},
                    {"flat", e.ended_flat},
                    {"channel", e.ended_channel}}}};
  s["erosion"]["droplet_steps"] = e.droplet_steps;
  s["erosion"]["pit_fill_m3"] = planet.pit_fill_m3;
  s["fluvial"] = statsJson(planet.fluvial_stats);
  s["drainage"] = drainage.is_null() ? drainageSummary(planet, config) : std::move(drainage);
  s["rain_mode"] = planet.rain_mode ? rainModeName(*planet.rain_mode) : "";
  if (planet.rain_mode == RainMode::kClouds) {
    s["weather"] = statsJson(planet.weather_stats);
  }
  Json bands = Json::array();
  for (const metrics::LatitudeBand& b :
       metrics::latitudeBands(*planet.mesh, config.planet.radius_m, planet.initial_elevation_m,
                              planet.sea_level_m, planet.rainfall, planet.change_m)) {
    bands.push_back({{"lat_min_deg", b.lat_min_deg},
                     {"lat_max_deg", b.lat_max_deg},
                     {"land_fraction", b.land_fraction},
                     {"mean_land_rainfall", b.mean_rainfall},
                     {"eroded_volume_m3", b.eroded_volume_m3},
                     {"deposited_volume_m3", b.deposited_volume_m3}});
  }
  s["latitude_bands"] = bands;
  s["config"] = Json::parse(configToJson(config));
  return s;
}

// Moisture in [0, 1] for the biomes: the clouds' rainfall when weather ran (1 = twice the
// mean land rainfall), else a zonal proxy with noise so that deserts and forests are patchy.
std::vector<float> moistureOf(const PlanetState& planet, const Config& config) {
  const geodesy::SphereMesh& mesh = *planet.mesh;
  std::vector<float> moisture(mesh.vertexCount());
  if (planet.rain_mode == RainMode::kClouds && !planet.rainfall.empty()) {
    double rain = 0.0, area = 0.0;
    for (size_t v = 0; v < moisture.size(); ++v) {
      if (planet.elevation_m[v] < planet.sea_level_m) continue;
      rain += double(planet.rainfall[v]) * mesh.vertex_areas[v];
      area += mesh.vertex_areas[v];
    }
    const double scale = rain > 0.0 ? area / (2.0 * rain) : 0.0;
    for (size_t v = 0; v < moisture.size(); ++v)
      moisture[v] = std::clamp(float(planet.rainfall[v] * scale), 0.0f, 1.0f);
    return moisture;
  }
  moisture = weather::zonalMoistureProxy(mesh);
  const std::vector<float> noise =
      terrain::erodibilityField(mesh.positions, config.planet.seed ^ 0x6d6f6973ull, 0.0, 1.5);
  for (size_t v = 0; v < moisture.size(); ++v)
    moisture[v] = std::clamp(moisture[v] + 0.6f * (noise[v] - 0.5f), 0.0f, 1.0f);
  return moisture;
}

}  // namespace

planet_export::PlanetSurface surfaceOf(const PlanetState& planet, const Config& config) {
  planet_export::PlanetSurface surface;
  surface.mesh = planet.mesh.get();
  surface.elevation_m = planet.elevation_m;
  surface.radius_m = config.planet.radius_m;
  surface.sea_level_m = planet.sea_level_m;
  if (planet.rain_mode) surface.attributes.push_back({"_EROSION", planet.change_m});
  if (!planet.rainfall.empty()) surface.attributes.push_back({"_RAINFALL", planet.rainfall});
  Json extras;
  extras["generator"] = "planetgen";
  extras["seed"] = config.planet.seed;
  extras["frequency"] = config.planet.frequency;
  extras["radius_m"] = config.planet.radius_m;
  extras["sea_level_m"] = planet.sea_level_m;
  extras["rain_mode"] = planet.rain_mode ? rainModeName(*planet.rain_mode) : "";
  extras["config"] = Json::parse(configToJson(config));
  surface.extras_json = extras.dump();
  return surface;
}

std::vector<std::string> writePlanet(const PlanetState& planet, const Config& config,
                                     const std::filesystem::path& out_dir, StageTimer& timer,
                                     const StageCallback& on_stage, int threads) {
  on_stage("export");
  timer.start("export");
  io::OutputTransaction out(out_dir);  // creates out_dir only when it commits

  planet_export::PlanetSurface surface = surfaceOf(planet, config);
  const std::vector<uint8_t> biomes = weather::classifyBiomes(
      *planet.mesh, planet.elevation_m, planet.sea_level_m, moistureOf(planet, config));
  surface.biome = biomes;
  if (config.output.color == planet_export::LandColour::kBiome)
    surface.land_colour = planet_export::LandColour::kBiome;
  // The pixel centres of the maps, heightmaps and masks (all map_width wide), located once.
  planet_export::EquirectLocations grid;
  if (config.output.maps || config.output.heightmaps || config.output.masks) {
    const auto t0 = std::chrono::steady_clock::now();
    grid = planet_export::locateEquirect(*planet.mesh, config.output.map_width,
                                         config.output.map_width / 2);
    surface.equirect = &grid;
    timer.addPart("equirect_grid", planet::secondsSince(t0));
  }
  // Rivers and masks: the network is dropped once its files are staged; only the
  // glb's water geometry (and the mask attributes, when asked for) stay for the writers.
  planet_export::WaterGeometry water;
  std::vector<MaskLayer> masks;
  Json rivers_summary, drainage_summary;
  // summary.json's drainage section (two routings and their measures, mostly serial) is a
  // task beside the rivers, the masks and the outputs, timed as the part drainage_summary.
  // It routes the initial terrain only after it has let go of its share of the final one's.
  std::shared_ptr<const metrics::DrainageNetwork> summary_share;  // null: the task routes
  double drainage_seconds = 0.0;
  tbb::task_group summarising;  // after what its task writes: destroyed (waited) first
  const auto summarise = [&] {
    summarising.run([&] {
      const auto t0 = std::chrono::steady_clock::now();
      if (!summary_share)
        summary_share = std::make_shared<const metrics::DrainageNetwork>(
            metrics::drainageOf(drainageInputOf(planet, config)));
      drainage_summary = drainageSummary(planet, config, std::move(summary_share));
      drainage_seconds = planet::secondsSince(t0);
    });
  };
  const bool rivers_stage =
      config.rivers.enabled || config.output.masks || config.output.mask_attributes;
  if (rivers_stage) {
    on_stage("rivers");
    timer.start("rivers");
    // One routing of the final terrain for the rivers and the drainage section, shared with
    // the summary task: whichever is done with it last frees it.
    auto drainage = std::make_shared<const metrics::DrainageNetwork>(
        metrics::drainageOf(drainageInputOf(planet, config)));
    summary_share = drainage;
    summarise();
    {
      const hydrology::RiverNetwork rivers = riversOf(planet, config, *drainage);
      drainage.reset();
      if (config.rivers.enabled) {
        water = waterGeometryOf(rivers);
        surface.water = &water;
        out.stage("rivers.geojson", riversGeoJson(rivers, planet));
        rivers_summary = riversSummary(rivers, planet, config);
      }
      if (config.output.masks || config.output.mask_attributes)
        masks = maskLayers(planet, config, rivers, biomes);
    }
    if (config.output.mask_attributes) {
      for (MaskLayer& m : masks) {
        if (m.attribute.empty()) continue;
        keepMaskValues(m);
        surface.attributes.push_back({m.attribute, m.values});
      }
    }
    timer.start("export");
  }
  if (!rivers_stage) summarise();  // routes the final terrain itself
  writeOutputs(planet, config, surface, std::move(masks), out, timer);
  summarising.wait();
  timer.addPart("drainage_summary", drainage_seconds);
  timer.stop();
  // summary.json goes last so it can report the export time; it is staged like the rest.
  Json summary = summaryJson(planet, config, timer, threads, std::move(drainage_summary));
  if (!rivers_summary.is_null()) summary["rivers"] = std::move(rivers_summary);
  summary["files"] = out.names();  // this run's files; the commit drops any earlier run's others
  summary["files"].push_back("summary.json");
  out.stage("summary.json", summary.dump(2) + "\n");
  io::CommitGuard hold_signals;
  out.commit();
  hold_signals.committed();
  return out.warnings();
}

}  // namespace planet
