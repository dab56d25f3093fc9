#include "planet/planet_outputs.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "export/cube_map.h"
#include "export/equirect_sampler.h"
#include "export/globe.h"
#include "export/heightmap_files.h"
#include "export/lod_levels.h"
#include "export/maps.h"
#include "export/mesh_export.h"
#include "export/png_io.h"
#include "export/shared_normals.h"
#include "export/surface_maps.h"
#include "io/file_writer.h"
#include "planet/detail/stopwatch.h"
#include "planet/masks_output.h"

namespace planet {
namespace {

using planet::secondsSince;

// Writes bytes to a staged path (taken from the transaction beforehand): checked, synced.
void writeStaged(const std::filesystem::path& path, const std::filesystem::path& final_path,
                 std::string_view bytes) {
  try {
    io::FileWriter file(path, io::FileWriter::Create::kExclusive);
    file.write(bytes);
    file.sync();
    file.close();
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot write " + final_path.string() + ": " + e.what());
  }
}

// The outputs as tasks. Every file's staged path is taken when its job is added, so the
// transaction's file list has a fixed order; each task writes its files as soon as they are
// made, so no output waits in memory for the others.
class OutputJobs {
 public:
  explicit OutputJobs(io::OutputTransaction& out) : out_(out) {}

  // A file made in memory.
  void add(const std::string& name, std::function<std::string()> make) {
    addGroup(name, {name}, [make = std::move(make)] { return std::vector{make()}; });
  }
  // Several files made together (they share an image), bytes in the order of `names`.
  void addGroup(std::string label, const std::vector<std::string>& names,
                std::function<std::vector<std::string>()> make) {
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> paths;
    for (const std::string& name : names)
      paths.emplace_back(out_.temporaryFor(name), out_.folder() / name);
    jobs_.push_back({std::move(label),
                     [paths, make = std::move(make)] {
                       const std::vector<std::string> bytes = make();
                       for (size_t k = 0; k < paths.size(); ++k)
                         writeStaged(paths[k].first, paths[k].second, bytes[k]);
                     },
                     {}});
  }
  // A task that writes its own files to paths it took from the transaction.
  void addWriter(std::string label, std::function<void()> write) {
    jobs_.push_back({std::move(label), std::move(write), {}});
  }
  // The last job added is spawned next to the earlier job `label` instead of in the order added
  // (its files keep their place): two jobs that share an array then run one after the other
  // (in either order) rather than with other jobs between them that would hold it longer.
  void spawnNextTo(std::string label) {
    assert(std::any_of(jobs_.begin(), jobs_.end() - 1,
                       [&](const Job& job) { return job.label == label && job.next_to.empty(); }));
    jobs_.back().next_to = std::move(label);
  }

  // Runs every job as a task on the caller's arena and waits; records each job's wall time.
  void run(StageTimer& timer) {
    std::vector<size_t> order;
    std::vector<bool> placed(jobs_.size(), false);
    for (size_t i = 0; i < jobs_.size(); ++i) {
      if (placed[i] || !jobs_[i].next_to.empty()) continue;
      order.push_back(i), placed[i] = true;
      for (size_t j = i + 1; j < jobs_.size(); ++j)
        if (!placed[j] && jobs_[j].next_to == jobs_[i].label) order.push_back(j), placed[j] = true;
    }
    for (size_t i = 0; i < jobs_.size(); ++i)  // next to a label no job has: in the order added
      if (!placed[i]) order.push_back(i);
    std::vector<double> seconds(jobs_.size(), 0.0);
    tbb::task_group tasks;
    for (const size_t i : order) {
      tasks.run([&, i] {
        const auto t0 = std::chrono::steady_clock::now();
        // Isolated: a thread waiting inside this job's parallel loops takes only this job's
        // work, never another job, so at most one job per thread holds its images at a time.
        tbb::this_task_arena::isolate([&] { jobs_[i].run(); });
        seconds[i] = secondsSince(t0);
      });
    }
    tasks.wait();
    for (size_t i = 0; i < jobs_.size(); ++i) timer.addPart(jobs_[i].label, seconds[i]);
  }

 private:
  struct Job {
    std::string label;  // for the timing
    std::function<void()> run;
    std::string next_to;  // the job this one is spawned next to (spawnNextTo), or none
  };
  io::OutputTransaction& out_;
  std::vector<Job> jobs_;
};

std::string png(const planet_export::RgbImage& image) {
  return planet_export::encodePngRgb8(image);
}

// planet.glb and normals.png share the true surface's normals only when they run side by side:
// with two threads or more a second thread takes the glb (the first job) while the caller runs
// the last jobs first, normals.png among them (after the masks); with one thread the glb is the
// last job run and normals.png one of the first, and a share would be held through all the
// others (+12 bytes per vertex at that run's peak, measured at f = 512).
void planBesideGlb(const planet_export::PlanetSurface& surface, double exaggeration) {
  const size_t threads =
      std::min(size_t(tbb::this_task_arena::max_concurrency()),
               tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
  if (threads > 1) surface.normals->plan(exaggeration);
}

// planet.glb and planet_lodN.glb, the OBJ: written by their writers to staged paths. The glb's
// full level takes the surface's normals (planet_lodN.glb's are of other meshes). The OBJ makes
// its own: on two threads or more it is written after the glb, on the thread the glb frees, so
// a share would hold them through the glb's encoding, the export's peak (+12 bytes per vertex).
void addMeshes(const Config& config, const planet_export::PlanetSurface& surface,
               io::OutputTransaction& out, OutputJobs& jobs,
               std::vector<planet_export::LodLevel>& lods) {
  if (config.output.glb) {
    const planet_export::GlbOptions options = glbOptions(config.output);
    lods = planet_export::buildLodLevels(surface, config.output.lods);
    planBesideGlb(surface, planet_export::kEngineExaggeration);
    jobs.addWriter("planet.glb", [&, options, path = out.temporaryFor("planet.glb")] {
      planet_export::writeGlb(path, surface, lods, options);
    });
    if (config.output.lod_files) {
      // lods[0] is level 1: planet_lodN.glb holds lods[N - 1].
      planet_export::GlbOptions single = options;
      single.lods = 0;
      for (size_t i = 0; i < lods.size(); ++i) {
        const std::string name = "planet_lod" + std::to_string(i + 1) + ".glb";
        jobs.addWriter(name, [&, i, single, path = out.temporaryFor(name)] {
          planet_export::writeGlb(path, planet_export::lodSurface(surface, lods[i]), single);
        });
      }
    }
  }
  if (config.output.obj) {
    planet_export::PlanetSurface unshared = surface;
    unshared.normals = nullptr;
    jobs.addWriter("planet.obj", [unshared, obj = out.temporaryFor("planet.obj"),
                                  mtl = out.temporaryFor("planet.mtl")] {
      planet_export::writeObj(obj, mtl, "planet.mtl", unshared);
    });
  }
}

// Equirectangular pictures: shaded relief before and after erosion, the erosion/deposition
// map, the rainfall map, and a globe view of the result.
void addMaps(const PlanetState& planet, const Config& config,
             const planet_export::PlanetSurface& surface,
             const planet_export::PlanetSurface& before, OutputJobs& jobs) {
  const int width = config.output.map_width;
  planet_export::ReliefOptions relief;
  relief.width = width;
  surface.normals->plan(relief.vertical_exaggeration);
  jobs.add("relief.png",
           [&, relief] { return png(planet_export::renderShadedRelief(surface, relief)); });
  if (planet.rain_mode) {
    jobs.add("relief_before.png",
             [&, relief] { return png(planet_export::renderShadedRelief(before, relief)); });
    planet_export::FieldMapOptions change;
    change.width = width;
    change.title = "erosion (red) / deposition (blue)";
    change.units = "m";
    jobs.add("erosion.png", [&, change] {
      return png(planet_export::renderDivergingMap(surface, planet.change_m, change));
    });
  }
  if (!planet.rainfall.empty()) {
    planet_export::FieldMapOptions rain;
    rain.width = width;
    rain.title = planet.rain_mode == RainMode::kClouds ? "rainfall (clouds)" : "rainfall (uniform)";
    rain.units = "drops/sr";
    jobs.add("rainfall.png", [&, rain] {
      return png(planet_export::renderSequentialMap(surface, planet.rainfall, rain));
    });
  }
  planet_export::GlobeOptions globe;
  globe.size_px = std::max(64, width / 2);
  surface.normals->plan(globe.vertical_exaggeration);
  jobs.add("globe.png", [&, globe] { return png(planet_export::renderGlobe(surface, globe)); });
  jobs.spawnNextTo("relief.png");  // its shading normals are relief.png's
}

// heightmap.png/.r16/.r32 + heightmap.json, cube faces, biome and normal maps.
void addEngineMaps(const Config& config, const planet_export::PlanetSurface& surface,
                   OutputJobs& jobs) {
  const int width = config.output.map_width;
  planet_export::HeightmapOptions options;
  options.width = width;
  const planet_export::HeightmapRange range = planet_export::heightmapRange(surface, options);
  jobs.addGroup("heightmap.png", {"heightmap.png", "heightmap.r16"}, [&, options] {
    const planet_export::Gray16Image height16 = planet_export::renderHeightmap(surface, options);
    return std::vector{planet_export::encodePngGray16(height16),
                       planet_export::encodeRawU16(height16)};
  });
  jobs.add("heightmap.r32", [&, width] {
    return planet_export::encodeRawF32(planet_export::renderElevationMap(surface, width));
  });
  std::vector<planet_export::HeightmapSidecar> sidecar = {
      {"heightmap.png", "png-gray16", "equirectangular", width, width / 2, range, surface.radius_m,
       surface.sea_level_m},
      {"heightmap.r16", "raw-uint16-le", "equirectangular", width, width / 2, range,
       surface.radius_m, surface.sea_level_m},
      {"heightmap.r32",
       "raw-float32-le",
       "equirectangular",
       width,
       width / 2,
       {},
       surface.radius_m,
       surface.sea_level_m}};
  const int cube_size = config.output.cube_size;
  if (cube_size > 0) {
    std::vector<std::string> names;
    for (const char* face : planet_export::kCubeFaceNames) {
      names.push_back(std::string("cube_") + face + ".png");
      sidecar.push_back({names.back(), "png-gray16", "cube-face", cube_size, cube_size, range,
                         surface.radius_m, surface.sea_level_m});
    }
    jobs.addGroup("cube_faces", names, [&, cube_size, range] {
      std::vector<std::string> faces;
      for (const auto& face : planet_export::renderCubeHeightmap(surface, cube_size, range))
        faces.push_back(planet_export::encodePngGray16(face));
      return faces;
    });
  }
  jobs.add("heightmap.json", [sidecar] { return planet_export::heightmapSidecarJson(sidecar); });
  if (!surface.biome.empty()) {
    planet_export::BiomeMapOptions biome;
    biome.width = width;
    biome.legend = false;  // a texture for TEXCOORD_0; the key goes to its own picture
    jobs.add("biome.png",
             [&, biome] { return png(planet_export::renderBiomeMap(surface, biome)); });
    jobs.add("biome_legend.png",
             [&] { return png(planet_export::renderBiomeLegend(surface.biome)); });
  }
  planet_export::NormalMapOptions normals;
  normals.width = width;
  planBesideGlb(surface, normals.vertical_exaggeration);
  jobs.add("normals.png",
           [&, normals] { return png(planet_export::renderNormalMap(surface, normals)); });
}

// The texturing masks and climate layers (masks_output.h), one PNG per task, and masks.json.
// A layer's values are freed once its PNG is made, unless the glb writes them as an attribute
// (keep_attributes: config.output.mask_attributes).
void addMasks(std::vector<MaskLayer>& masks, const planet_export::PlanetSurface& surface, int width,
              bool keep_attributes, OutputJobs& jobs, planet_export::EquirectLocations& own) {
  const planet_export::EquirectLocations& where =
      planet_export::mapLocations(surface, width, width / 2, own);
  // The jobs run after this returns: nothing of this frame by reference.
  for (MaskLayer& m : masks) {
    jobs.add(m.file, [&m, &surface, &where, keep_attributes] {
      std::string bytes = maskPng(m, *surface.mesh, where);
      if (!keep_attributes || m.attribute.empty()) std::vector<float>().swap(m.values);
      return bytes;
    });
  }
  jobs.add("masks.json", [&masks, width] { return masksJson(masks, width); });
}

}  // namespace

void writeOutputs(const PlanetState& planet, const Config& config,
                  const planet_export::PlanetSurface& given, std::vector<MaskLayer> masks,
                  io::OutputTransaction& out, StageTimer& timer) {
  // The normals that several outputs shade with, each exaggeration's computed once by its first
  // user and freed after its last: every job that takes them plans its use as it is added.
  planet_export::SharedNormals normals(given);
  planet_export::PlanetSurface surface = given;
  surface.normals = &normals;
  planet_export::PlanetSurface before = given;
  before.elevation_m = planet.initial_elevation_m;

  OutputJobs jobs(out);
  std::vector<planet_export::LodLevel> lods;
  addMeshes(config, surface, out, jobs, lods);  // first: the longest tasks start first
  if (config.output.maps) addMaps(planet, config, surface, before, jobs);
  if (config.output.heightmaps) addEngineMaps(config, surface, jobs);
  planet_export::EquirectLocations mask_grid;  // only when the masks cannot share surface's
  if (config.output.masks)
    addMasks(masks, surface, config.output.map_width, config.output.mask_attributes, jobs,
             mask_grid);
  jobs.run(timer);
}

}  // namespace planet
