// planet.glb writer.
//
// The GLB container is written here (glb_builder.h) rather than through tinygltf's writer
// (tinygltf is used to read the file back in the tests) for three reasons found in tinygltf
// 2.7 (Debian 12): its extras values hold integers as 32-bit int, so a 64-bit seed would be
// rounded through double; its GLB writer copies the whole binary buffer twice (Model::buffers,
// then the BIN chunk) where this one encodes each array once (glb_encoding.h); and it does not
// check stream errors. The JSON chunk is built with nlohmann::json. The pieces the file is made
// of come from glb_groups.h.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/task_group.h>

#include "export/biome_palette.h"
#include "export/colour_ramps.h"
#include "export/detail/chunks.h"
#include "export/detail/glb_builder.h"
#include "export/detail/glb_encoding.h"
#include "export/detail/glb_groups.h"
#include "export/detail/glb_water.h"
#include "export/detail/meshopt_codec.h"
#include "export/detail/surface_buffers.h"
#include "export/mesh_export.h"
#include "planetgen_version.h"

namespace planet_export {
namespace {

constexpr int kTriangles = 4;  // primitive.mode
constexpr double kOceanAlpha = 0.6;
constexpr int kLandMaterial = 0;
constexpr int kOceanMaterial = 1;

static_assert(sizeof(glm::vec3) == 12 && sizeof(Rgb) == 12, "vertex arrays must be packed");

Json parseExtras(const std::string& text) {
  Json extras;
  try {
    extras = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw std::invalid_argument(std::string("PlanetSurface: extras_json is not valid JSON: ") +
                                e.what());
  }
  if (!extras.is_object()) {
    throw std::invalid_argument("PlanetSurface: extras_json must be a JSON object");
  }
  return extras;
}

// Objects and arrays inside extras become their JSON text: assimp 5.2 turns nested extras into
// nested metadata and then aborts (ai_assert in SceneCombiner) when it copies the scene, as
// `assimp export` does. Readers parse the text back (e.g. extras.config).
Json flatExtras(Json extras) {
  for (auto& [key, value] : extras.items()) {
    if (value.is_object() || value.is_array()) value = value.dump();
  }
  return extras;
}

// material < 0: none (collision meshes).
Json primitive(Json attributes, int indices, int material) {
  Json p = {{"attributes", std::move(attributes)}, {"indices", indices}};
  if (material >= 0) p["material"] = material;
  p["mode"] = kTriangles;
  return p;
}

Json materials() {
  const float r = srgbToLinear(kOceanColour.r);
  const float g = srgbToLinear(kOceanColour.g);
  const float b = srgbToLinear(kOceanColour.b);
  // Land: white base so COLOR_0 is the colour; rough, non-metallic ground.
  Json land = {{"name", "Land"},
               {"pbrMetallicRoughness",
                {{"baseColorFactor", {1.0, 1.0, 1.0, 1.0}},
                 {"metallicFactor", 0.0},
                 {"roughnessFactor", 0.9}}}};
  Json ocean = {{"name", "Ocean"},
                {"pbrMetallicRoughness",
                 {{"baseColorFactor", {double(r), double(g), double(b), kOceanAlpha}},
                  {"metallicFactor", 0.0},
                  {"roughnessFactor", 0.1}}},
                {"alphaMode", "BLEND"}};
  return Json::array({std::move(land), std::move(ocean)});
}

Json biomeLegend() {
  Json legend = Json::array();
  for (int id = 0; id < kBiomePaletteSize; ++id) {
    const Rgb c = biomeColour(uint8_t(id));
    char hex[8];
    std::snprintf(hex, sizeof(hex), "#%02x%02x%02x", toByte(c.r), toByte(c.g), toByte(c.b));
    legend.push_back({{"id", id}, {"name", std::string(biomeName(uint8_t(id)))}, {"colour", hex}});
  }
  return legend;
}

// A render node's name turned into the name of its collision mesh (kNone: unchanged).
std::string collisionName(const std::string& name, CollisionNames names) {
  switch (names) {
    case CollisionNames::kGodot:
      return name + "-colonly";
    case CollisionNames::kUnreal:
      return "UCX_" + name + "_00";
    case CollisionNames::kNone:
      break;
  }
  return name;
}

// Builds the JSON document and the binary chunk.
class GltfDocument {
 public:
  // The binary chunk is spooled in spool_dir (GlbBuilder) until the file is written.
  GltfDocument(const GlbOptions& options, const std::filesystem::path& spool_dir)
      : glb_(options.meshopt, spool_dir), options_(options) {
    nodes_ = Json::array({Json{{"name", "Planet"}, {"children", Json::array({1, 2})}},
                          Json{{"name", "Land"}}, Json{{"name", "Ocean"}}});
  }

  Json& node(int index) { return nodes_[size_t(index)]; }

  int addNode(Json node) {
    nodes_.push_back(std::move(node));
    return int(nodes_.size()) - 1;
  }
  int addMesh(Json mesh) {
    meshes_.push_back(std::move(mesh));
    return int(meshes_.size()) - 1;
  }

  // One mesh holding every piece of the group as primitives (skirts as extra primitives).
  int addGroupMesh(const std::string& name, Group&& group,
                   const std::vector<std::string>& scalar_names, int material) {
    const std::vector<PieceAccessors> pieces =
        encodeGroup(glb_, group, scalar_names, options_.quantize);
    Json primitives = Json::array();
    for (const PieceAccessors& p : pieces) {
      primitives.push_back(primitive(p.attributes, p.surface, material));
      if (p.skirt >= 0) primitives.push_back(primitive(skirtAttributes(p), p.skirt, material));
    }
    return addMesh({{"name", name}, {"primitives", std::move(primitives)}});
  }

  // One node per piece (chunk), translated to its frame; returns their indices.
  std::vector<int> addChunkNodes(const std::string& prefix, Group&& group,
                                 const std::vector<std::string>& scalar_names, int lod,
                                 int material, CollisionNames names = CollisionNames::kNone) {
    const std::vector<PieceAccessors> pieces =
        encodeGroup(glb_, group, scalar_names, options_.quantize);
    std::vector<int> node_indices;
    for (size_t c = 0; c < pieces.size(); ++c) {
      const PieceAccessors& p = pieces[c];
      Json primitives = Json::array({primitive(p.attributes, p.surface, material)});
      if (p.skirt >= 0) primitives.push_back(primitive(skirtAttributes(p), p.skirt, material));
      char suffix[32];
      std::snprintf(suffix, sizeof(suffix), "_C%04zu", c);
      const std::string name = collisionName(prefix + suffix, names);
      const int mesh = addMesh({{"name", name}, {"primitives", std::move(primitives)}});
      const glm::dvec3& t = group.translations[c];
      node_indices.push_back(addNode({{"name", name},
                                      {"mesh", mesh},
                                      {"translation", {t.x, t.y, t.z}},
                                      {"extras", {{"chunk", c}, {"lod", lod}}}}));
    }
    return node_indices;
  }

  void write(const std::filesystem::path& path, Group&& ocean, Json extras, bool uses_lod,
             const WaterGeometry* water) {
    if (ocean.pieceCount() > 0) {  // a planet without water keeps an empty Ocean node
      node(2)["mesh"] = addGroupMesh("Ocean", std::move(ocean), {}, kOceanMaterial);
    }
    if (!extras.empty()) node(0)["extras"] = std::move(extras);
    if (options_.metres_per_unit != 1.0) {
      const double s = 1.0 / options_.metres_per_unit;
      node(0)["scale"] = {s, s, s};
    }

    Json all_materials = materials();
    if (water) addWaterNodes(glb_, *water, kOceanMaterial, nodes_, meshes_, all_materials);
    Json gltf = Json::object();
    gltf["asset"] = {{"version", "2.0"},
                     {"generator", std::string("planetgen ") + planetgen::kVersion}};
    Json used = Json::array(), required = Json::array();
    if (options_.quantize) {
      used.push_back("KHR_mesh_quantization");
      required.push_back("KHR_mesh_quantization");
    }
    if (options_.meshopt) {
      used.push_back("EXT_meshopt_compression");
      required.push_back("EXT_meshopt_compression");
    }
    if (uses_lod) used.push_back("MSFT_lod");
    if (!used.empty()) gltf["extensionsUsed"] = std::move(used);
    if (!required.empty()) gltf["extensionsRequired"] = std::move(required);
    gltf["scene"] = 0;
    // The scene has no name: Godot 3 names the imported scene's root after it, and a scene
    // named like its node "Planet" turned that node into "Planet 2" (unnamed: the file's name).
    gltf["scenes"] = Json::array({Json{{"nodes", Json::array({0})}}});
    gltf["nodes"] = std::move(nodes_);
    gltf["meshes"] = std::move(meshes_);
    gltf["materials"] = std::move(all_materials);
    glb_.write(path, std::move(gltf));
  }

 private:
  GlbBuilder glb_;
  GlbOptions options_;
  Json nodes_;
  Json meshes_ = Json::array();
};

// Fills node `target` with one level: a mesh of pieces small enough for uint16 indices, or
// chunk children. The level's data goes into its group, which makes its vertex arrays as they
// are encoded (the writer's peak memory); `built` runs (if given) once the group's pieces are
// made, before their encoding. full_pieces: partitionPieces(surface.mesh, autoChunks(f)) when
// already made (the ocean's), used when the level is cut into those pieces.
void addLevel(GltfDocument& doc, int target, const std::string& name, LandData data,
              const PlanetSurface& surface, const GlbOptions& options, int lod,
              const ChunkPartition* full_pieces = nullptr,
              const std::function<void()>& built = nullptr) {
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const std::vector<std::string> scalar_names = data.scalar_names;
  // The partition outlives the group, whose arrays are made from it.
  ChunkPartition partition;
  if (options.chunks > 0) {
    partition = partitionChunks(mesh, options.chunks);
  } else if (!full_pieces) {
    partition = partitionPieces(mesh, autoChunks(mesh.frequency));
  }
  const ChunkPartition& pieces = options.chunks == 0 && full_pieces ? *full_pieces : partition;
  const double skirt_m = options.chunks == 0 ? 0.0 : options.skirt_depth_m;
  Group group = landGroup(surface, data, pieces, skirt_m, options.chunks == 0, options.tangents);
  data = LandData();
  if (built) built();
  if (options.chunks == 0) {
    doc.node(target)["mesh"] =
        doc.addGroupMesh(name, std::move(group), scalar_names, kLandMaterial);
    return;
  }
  const double grid_m = group.grid_m;
  doc.node(target)["children"] =
      doc.addChunkNodes(name, std::move(group), scalar_names, lod, kLandMaterial);
  doc.node(target)["extras"]["chunks_per_edge"] = options.chunks;
  doc.node(target)["extras"]["position_grid_m"] = grid_m;
}

// Collision meshes for the land (node kLand's children): per chunk, or one mesh of pieces
// when the land is not chunked, from level 2 (f / 4) or the finest coarser level the chunks
// divide.
void addCollision(GltfDocument& doc, int land, const PlanetSurface& surface,
                  const GlbOptions& options) {
  const int f = surface.mesh->frequency;
  const int k = options.chunks;
  int level = 0;
  for (int c = 1; c <= 2; ++c) {
    if (f % (1 << c) == 0 && (k == 0 || (f >> c) % k == 0)) level = c;
  }
  const std::vector<LodLevel> levels = buildLodLevels(surface, level);
  const PlanetSurface coarse = level > 0 ? lodSurface(surface, levels.back()) : surface;
  Json& children = doc.node(land)["children"];
  if (k == 0) {
    const std::string name = collisionName("Land", options.collision);
    const int mesh = doc.addGroupMesh(
        name, collisionGroup(coarse, autoChunks(coarse.mesh->frequency), true), {}, -1);
    const int node = doc.addNode({{"name", name}, {"mesh", mesh}});
    children.push_back(node);
  } else {
    for (int node : doc.addChunkNodes("Land", collisionGroup(coarse, k, false), {}, level, -1,
                                      options.collision)) {
      children.push_back(node);
    }
  }
}

}  // namespace

std::string glbOptionsProblem(int frequency, const GlbOptions& options) {
  if (options.chunks < 0) {
    return "chunks = " + std::to_string(options.chunks) +
           " is not allowed; allowed: 0 (one mesh) or k >= 1 (20 k^2 chunks)";
  }
  if (!std::isfinite(options.skirt_depth_m) || options.skirt_depth_m < 0.0) {
    return "skirt depth " + std::to_string(options.skirt_depth_m) +
           " m is not allowed; allowed: a finite depth >= 0 (0 = no skirts)";
  }
  if (std::string problem = lodProblem(frequency, options.lods); !problem.empty()) return problem;
  if (!std::isfinite(options.metres_per_unit) || options.metres_per_unit <= 0.0) {
    return "metres per unit " + std::to_string(options.metres_per_unit) +
           " is not allowed; allowed: a finite number > 0";
  }
  if (options.meshopt && !meshoptAvailable()) {
    return "meshopt compression is not available: planetgen was built without meshoptimizer "
           "(install libmeshoptimizer-dev and rebuild)";
  }
  if (options.chunks > 0) {
    for (int i = 0; i <= options.lods; ++i) {
      std::string problem = chunkingProblem(frequency >> i, options.chunks);
      if (!problem.empty()) {
        return i == 0 ? problem : problem + " (level of detail " + std::to_string(i) + ")";
      }
    }
  }
  return {};
}

void writeGlb(const std::filesystem::path& path, const PlanetSurface& surface) {
  writeGlb(path, surface, std::span<const LodLevel>(), GlbOptions{});
}

void writeGlb(const std::filesystem::path& path, const PlanetSurface& surface,
              const GlbOptions& options) {
  validateSurface(surface);
  if (std::string problem = glbOptionsProblem(surface.mesh->frequency, options); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  const std::vector<LodLevel> lods = buildLodLevels(surface, options.lods);
  writeGlb(path, surface, lods, options);
}

void writeGlb(const std::filesystem::path& path, const PlanetSurface& surface,
              std::span<const LodLevel> lods, const GlbOptions& options) {
  Json extras = parseExtras(surface.extras_json);
  validateSurface(surface);
  if (std::string problem = glbOptionsProblem(surface.mesh->frequency, options); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  if (int(lods.size()) != options.lods) {
    throw std::invalid_argument("writeGlb: " + std::to_string(lods.size()) +
                                " levels given for lods = " + std::to_string(options.lods));
  }
  // The pieces of uint16 size, made once for the ocean and (unchunked) the full level.
  ChunkPartition pieces = partitionPieces(*surface.mesh, autoChunks(surface.mesh->frequency));
  // The ocean's pieces do not depend on the land's: built as a task (on the caller's arena)
  // beside the full level's encoding and the coarser levels, encoded after them, so the file's
  // bytes do not depend on the scheduling. It starts once the full level's pieces are cut
  // (their split and lists made), while the land's vertex arrays are made one at a time as
  // they are encoded; the ocean holds only its pieces' lists and indices until its own encoding.
  Group ocean;
  tbb::task_group building;
  const auto buildOcean = [&] { building.run([&] { ocean = oceanGroup(surface, pieces); }); };
  GltfDocument doc(options, path.has_parent_path() ? path.parent_path() : ".");
  constexpr int kLand = 1;
  // A JSON text, not an array: assimp 5.2 aborts on nested extras (see flatExtras).
  if (!surface.biome.empty()) doc.node(kLand)["extras"]["biome_legend"] = biomeLegend().dump();
  if (lods.empty()) {
    addLevel(doc, kLand, "Land", landData(surface), surface, options, 0, &pieces, buildOcean);
  } else {
    const int lod0 = doc.addNode({{"name", "Land_LOD0"}});
    doc.node(kLand)["children"] = Json::array({lod0});
    addLevel(doc, lod0, "Land_LOD0", landData(surface), surface, options, 0, &pieces, buildOcean);
    Json ids = Json::array();
    Json coverage = Json::array({0.5});
    for (size_t i = 0; i < lods.size(); ++i) {
      const std::string name = "Land_LOD" + std::to_string(i + 1);
      // Outside the scene, as MSFT_lod has it. Godot 3 and Blender 3.4 import such nodes
      // anyway; Godot drops a node whose name ends in "-noimp" (with its children).
      const int node = doc.addNode({{"name", name + "-noimp"}});
      // Each level's data made when its turn comes, so only one level's is held at a time.
      const PlanetSurface level_surface = lodSurface(surface, lods[i]);
      addLevel(doc, node, name, landData(level_surface), level_surface, options, int(i + 1));
      doc.node(node)["extras"]["lod"] = i + 1;
      doc.node(node)["extras"]["frequency"] = lods[i].mesh.frequency;
      ids.push_back(node);
      // MSFT_lod: one screen coverage per level, the last 0 so the planet never vanishes.
      coverage.push_back(i + 1 < lods.size() ? 0.5 / double(2 << i) : 0.0);
    }
    Json& lod0_node = doc.node(lod0);
    lod0_node["extensions"]["MSFT_lod"]["ids"] = std::move(ids);
    lod0_node["extras"]["lod"] = 0;
    lod0_node["extras"]["frequency"] = surface.mesh->frequency;
    lod0_node["extras"]["MSFT_screencoverage"] = std::move(coverage);
  }
  if (options.collision != CollisionNames::kNone) addCollision(doc, kLand, surface, options);
  building.wait();
  pieces = ChunkPartition();  // the land's and the ocean's groups are made: not held while encoding
  doc.write(path, std::move(ocean), flatExtras(std::move(extras)), !lods.empty(), surface.water);
}

}  // namespace planet_export
