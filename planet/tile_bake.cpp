#include "planet/tile_bake.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <tbb/parallel_pipeline.h>

#include "export/tile_glb.h"
#include "export/tile_heightmap.h"
#include "export/tile_masks.h"
#include "export/tileset_json.h"
#include "io/atomic_file.h"
#include "io/file_writer.h"
#include "planet/tile_heightmap_grid.h"
#include "planetgen_version.h"

namespace planet {
namespace {

// One write of the whole file: no buffer.
void writeWhole(const std::filesystem::path& path, const std::string& bytes) {
  io::FileWriter out(path, io::FileWriter::Create::kTruncate, io::FileWriter::kDirectFrom, 0);
  out.write(bytes);
  out.close();
}

// The erosion masks' files of a tile (export/tile_masks.h), written when the tiles erode.
struct TileMaskFiles {
  std::filesystem::path png, sidecar;
  std::string png_name;
};

void writeTileMasks(const tiles::TileGenerator& generator, const tiles::TileId& id,
                    const tiles::TileMesh& mesh, const TileMaskFiles& files) {
  planet_export::TileMasksView view;
  view.tile_edge = generator.layout().tileEdge();
  view.flow_m2 = mesh.masks.flow_m2, view.wear_m = mesh.masks.wear_m;
  view.deposition_m = mesh.masks.deposition_m, view.water = mesh.masks.water;
  view.base = id.base, view.level = id.level, view.index = id.index;
  planet_export::TileMasksEncoding encoding;
  const double spacing = generator.layout().levelSpacingRad(int(id.level)) * generator.radiusM();
  encoding.cell_m2 = 0.8660254037844386 * spacing * spacing;
  writeWhole(files.png, planet_export::encodeTileMasksPng(view, encoding));
  writeWhole(files.sidecar, planet_export::tileMasksSidecarJson(view, encoding, files.png_name));
}

// The heights of the tiles made last (up to a fixed count, so memory does not grow with the
// region), for the heightmaps of their neighbours, whose squares reach into them. Thread-safe.
class RecentTiles {
 public:
  static constexpr size_t kTiles = 8;

  struct Entry {
    tiles::TileId id;
    std::vector<float> height_m;
  };

  void add(const tiles::TileId& id, const std::vector<float>& height_m) {
    auto entry = std::make_shared<const Entry>(Entry{id, height_m});
    const std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_back(std::move(entry));
    if (entries_.size() > kTiles) entries_.pop_front();
  }

  // Those of `id`'s level within two edge steps of it (the tiles its square reaches into);
  // the shared pointers keep them while the caller reads.
  std::vector<std::shared_ptr<const Entry>> around(const tiles::TileLayout& layout,
                                                   const tiles::TileId& id) const {
    std::vector<uint64_t> near;
    for (const auto& a : layout.neighbours(id)) {
      near.push_back(tiles::packTileId(a.id));
      for (const auto& b : layout.neighbours(a.id)) near.push_back(tiles::packTileId(b.id));
    }
    std::vector<std::shared_ptr<const Entry>> out;
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& e : entries_) {
      const uint64_t key = tiles::packTileId(e->id);
      if (e->id != id && std::find(near.begin(), near.end(), key) != near.end()) out.push_back(e);
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::deque<std::shared_ptr<const Entry>> entries_;
};

double skirtDepthOf(const tiles::TileGenerator& generator, const tiles::TileMesh& mesh,
                    bool skirts) {
  return skirts ? skirtDepth(mesh, tileGeometricError(generator, int(mesh.id.level))) : 0.0;
}

// One tile's files, made and written; what is left of it in memory is freed on return. Its
// content's extent goes to `extent`.
uint64_t bakeOne(const tiles::TileGenerator& generator, const tiles::TileId& id, bool skirts,
                 const std::filesystem::path& glb, const std::filesystem::path& png,
                 const std::filesystem::path& sidecar, const std::string& png_name,
                 const TileMaskFiles& masks, RecentTiles& recent, BoxExtent& extent) {
  const double spacing = tileGeometricError(generator, int(id.level));
  tiles::TileMesh mesh = generator.generate(id);
  if (!mesh.masks.flow_m2.empty()) writeTileMasks(generator, id, mesh, masks);
  const double skirt_depth = skirtDepthOf(generator, mesh, skirts);
  extent = tileContentExtent(tileBoxFrame(generator, id), mesh, skirt_depth);
  planet_export::TileGlb file;
  file.centre_m = mesh.centre_m;
  file.positions_m = mesh.positions_m;
  file.normals = mesh.normals;
  file.height_m = mesh.height_m;
  file.parent_height_m = mesh.parent_height_m;
  file.indices = mesh.topology->indices;
  for (int k = 0; k < 3; ++k) file.edges[k] = mesh.topology->edges[k];
  file.skirt_depth_m = skirt_depth;
  file.base = id.base, file.level = id.level, file.index = id.index;
  file.spacing_m = spacing;
  planet_export::writeTileGlb(glb, file);
  // The heightmap needs the heights and the edge positions only.
  std::vector<glm::vec3>().swap(mesh.normals);
  std::vector<float>().swap(mesh.parent_height_m);
  std::vector<uint64_t>().swap(mesh.lattice_ids);
  recent.add(id, mesh.height_m);
  const auto around = recent.around(generator.layout(), id);
  std::vector<KnownTile> known;
  for (const auto& e : around) known.push_back({e->id, e->height_m});
  const planet_export::TileHeightmap map = tileHeightmap(generator, mesh, known);
  const uint64_t vertices = mesh.vertexCount();
  mesh = {};
  writeWhole(png, planet_export::encodeHeightmapPng(map));
  writeWhole(sidecar, planet_export::heightmapSidecarJson(map, png_name));
  return vertices;
}

}  // namespace

std::string tileFileStem(const tiles::TileId& id) {
  return "tile_" + std::to_string(id.level) + "_" + std::to_string(id.base) + "_" +
         std::to_string(id.index);
}

std::string tilesetJsonOf(const tiles::TileGenerator& generator, const TileBakePlan& plan,
                          const TileBakeOptions& options, std::span<const BoxExtent> content) {
  const std::vector<std::array<double, 12>> boxes = tileBoxes(generator, plan, content);
  // The root (no content) holds the 20 base faces; then the plan's tiles.
  std::vector<planet_export::TilesetTile> tiles(plan.tiles.size() + 1);
  for (size_t k = 0; k < plan.tiles.size(); ++k) {
    const BakeTile& t = plan.tiles[k];
    planet_export::TilesetTile& out = tiles[k + 1];
    out.box = boxes[k];
    out.geometric_error_m = tileGeometricError(generator, int(t.id.level));
    out.content_uri = tileFileStem(t.id) + ".glb";
    for (uint32_t child : t.children) out.children.push_back(child + 1);
  }
  planet_export::TilesetTile& root = tiles[0];
  double top = 0.0;
  for (size_t k = 1; k < tiles.size(); ++k) {
    if (plan.tiles[k - 1].id.level != 0) continue;
    root.children.push_back(uint32_t(k));
    // The farthest any box corner reaches from the planet's centre.
    const auto& b = tiles[k].box;
    for (int corner = 0; corner < 8; ++corner) {
      double p[3];
      for (int a = 0; a < 3; ++a) {
        p[a] = b[a];
        for (int axis = 0; axis < 3; ++axis)
          p[a] += ((corner >> axis) & 1 ? 1.0 : -1.0) * b[3 + 3 * axis + a];
      }
      top = std::max(top, std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
    }
  }
  root.box = {0, 0, 0, top, 0, 0, 0, top, 0, 0, 0, top};
  // Larger than any tile's: a viewer always refines the content-less root into the faces.
  root.geometric_error_m = generator.radiusM();
  planet_export::TilesetPlanet about;
  about.radius_m = generator.radiusM();
  about.sea_level_m = options.sea_level_m;
  about.region_lat_deg = options.region.lat_deg;
  about.region_lon_deg = options.region.lon_deg;
  about.region_radius_m = options.region.radius_m;
  about.finest_level = plan.level;
  about.finest_spacing_m = tileGeometricError(generator, plan.level);
  return planet_export::tilesetJson(tiles, 0, std::string("planetgen ") + planetgen::kVersion,
                                    about);
}

TileBakeResult bakeTiles(const tiles::TileGenerator& generator, const TileBakeOptions& options,
                         const std::filesystem::path& folder) {
  const tiles::TileLayout& layout = generator.layout();
  if (options.shards < 1 || options.shard < 0 || options.shard >= options.shards) {
    throw std::invalid_argument("shard " + std::to_string(options.shard) + "/" +
                                std::to_string(options.shards) +
                                " does not exist; allowed: K/N with 0 <= K < N");
  }
  const int level = layout.levelForSpacing(options.spacing_m, generator.radiusM());
  TileBakeResult result;
  result.level = level;
  result.spacing_m = tileGeometricError(generator, level);
  if (result.spacing_m > options.spacing_m) {
    throw std::invalid_argument("a spacing of " + std::to_string(options.spacing_m) +
                                " m needs a level past the deepest, " +
                                std::to_string(layout.deepestLevel()) + " (" +
                                std::to_string(result.spacing_m) + " m)");
  }
  const TileBakePlan plan = planTileBake(generator, options.region, level);
  result.plan_tiles = plan.tiles.size();
  // The tiles this run makes: its own, written; on shard 0 of several also the others', for
  // their extents only (tileset.json's boxes bound what the tiles hold, which only a made tile
  // knows).
  std::vector<size_t> visit;
  for (size_t k = 0; k < plan.tiles.size(); ++k) {
    const bool own = shardOf(k, options.shards) == options.shard;
    result.shard_tiles += own;
    if (own || options.shard == 0) visit.push_back(k);
    if (int(plan.tiles[k].id.level) == level && plan.tiles[k].in_region) ++result.region_tiles;
  }

  io::OutputTransaction transaction(folder);
  struct Job {
    size_t k = 0;
    bool own = false;  // its files are written
    std::filesystem::path glb, png, sidecar;
    std::string png_name;
    TileMaskFiles masks;
    uint64_t vertices = 0;
  };
  // Each tile's content extent, for the boxes of tileset.json.
  std::vector<BoxExtent> content(plan.tiles.size());
  RecentTiles recent;
  size_t next = 0, done = 0;
  tbb::parallel_pipeline(
      size_t(std::max(1, options.threads)),
      tbb::make_filter<void, Job>(tbb::filter_mode::serial_in_order, [&](tbb::flow_control&
                                                                             control) {
        Job job;
        if (next == visit.size()) {
          control.stop();
          return job;
        }
        job.k = visit[next++];
        job.own = shardOf(job.k, options.shards) == options.shard;
        if (!job.own) return job;
        const std::string stem = tileFileStem(plan.tiles[job.k].id);
        job.png_name = stem + "_height.png";
        job.glb = transaction.temporaryFor(stem + ".glb");
        job.png = transaction.temporaryFor(job.png_name);
        job.sidecar = transaction.temporaryFor(stem + "_height.json");
        if (generator.erodes(int(plan.tiles[job.k].id.level))) {
          job.masks.png_name = stem + "_masks.png";
          job.masks.png = transaction.temporaryFor(job.masks.png_name);
          job.masks.sidecar = transaction.temporaryFor(stem + "_masks.json");
        }
        return job;
      }) & tbb::make_filter<Job, Job>(tbb::filter_mode::parallel, [&](Job job) {
        const tiles::TileId& id = plan.tiles[job.k].id;
        if (job.own) {
          job.vertices = bakeOne(generator, id, options.skirts, job.glb, job.png, job.sidecar,
                                 job.png_name, job.masks, recent, content[job.k]);
        } else {
          const tiles::TileMesh mesh = generator.generate(id);
          content[job.k] = tileContentExtent(tileBoxFrame(generator, id), mesh,
                                             skirtDepthOf(generator, mesh, options.skirts));
        }
        return job;
      }) & tbb::make_filter<Job, void>(tbb::filter_mode::serial_in_order, [&](const Job& job) {
        if (!job.own) return;
        result.vertices += job.vertices;
        ++done;
        if (options.on_tile) options.on_tile(done, result.shard_tiles);
      }));
  if (options.shard == 0) {
    transaction.stage("tileset.json", tilesetJsonOf(generator, plan, options, content));
  }
  transaction.commit();
  result.warnings = transaction.warnings();
  return result;
}

}  // namespace planet
