// planet.glb writer.
//
// The GLB container is written here (glb_builder.h) rather than through tinygltf's writer
// (tinygltf is used to read the file back in the tests) for three reasons found in tinygltf
// 2.7 (Debian 12): its extras values hold integers as 32-bit int, so a 64-bit seed would be
// rounded through double; its GLB writer copies the whole binary buffer twice (Model::buffers,
// then the BIN chunk) where this one streams the arrays straight to the file; and it does not
// check stream errors. The JSON chunk is built with nlohmann::json.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/parallel_for.h>

#include "export/biomes.h"
#include "export/chunk_buffers.h"
#include "export/chunks.h"
#include "export/colour_ramps.h"
#include "export/glb_builder.h"
#include "export/mesh_export.h"
#include "export/surface_buffers.h"

namespace planet_export {
namespace {

constexpr int kTriangles = 4;  // primitive.mode
constexpr double kOceanAlpha = 0.6;
constexpr int kLandMaterial = 0;
constexpr int kOceanMaterial = 1;

static_assert(sizeof(glm::vec3) == 12 && sizeof(Rgb) == 12, "vertex arrays must be packed");

const float* floats(const std::vector<glm::vec3>& v) {
  return &v.front().x;
}

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

Json primitive(Json attributes, int indices, int material) {
  return {{"attributes", std::move(attributes)},
          {"indices", indices},
          {"material", material},
          {"mode", kTriangles}};
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
  for (int id = 0; id < kBiomeCount; ++id) {
    const Rgb c = biomeColour(uint8_t(id));
    char hex[8];
    std::snprintf(hex, sizeof(hex), "#%02x%02x%02x", toByte(c.r), toByte(c.g), toByte(c.b));
    legend.push_back({{"id", id}, {"name", std::string(biomeName(uint8_t(id)))}, {"colour", hex}});
  }
  return legend;
}

// The vertex data of one level's full mesh, which its chunks slice.
struct LandData {
  PlanetBuffers buffers;
  std::vector<glm::vec3> linear_colours;
  std::vector<float> biome_values;
  std::vector<std::string> scalar_names;
  LandVertexData vertex;
};

LandData landData(const PlanetSurface& surface) {
  LandData data;
  data.buffers = buildPlanetBuffers(surface);
  const MeshBuffers& land = data.buffers.land;
  // glTF vertex colours are linear (glTF 2.0 spec 3.7.2.1); the ramps are sRGB.
  data.linear_colours.resize(land.positions.size());
  tbb::parallel_for(size_t(0), land.positions.size(), [&](size_t v) {
    const Rgb& c = land.colours[v];
    data.linear_colours[v] = {srgbToLinear(c.r), srgbToLinear(c.g), srgbToLinear(c.b)};
  });
  data.vertex.normals = land.normals;
  data.vertex.colours = data.linear_colours;
  data.scalar_names.push_back("_ELEVATION");
  data.vertex.scalars.push_back(surface.elevation_m);
  if (!surface.biome.empty()) {
    data.biome_values.assign(surface.biome.begin(), surface.biome.end());
    data.scalar_names.push_back("_BIOME");
    data.vertex.scalars.push_back(data.biome_values);
  }
  for (const VertexAttribute& attribute : surface.attributes) {
    data.scalar_names.push_back(attribute.name);
    data.vertex.scalars.push_back(attribute.values);
  }
  return data;
}

// Builds the JSON document and the binary chunk.
class GltfDocument {
 public:
  GltfDocument() {
    nodes_ = Json::array({Json{{"name", "Planet"}, {"children", Json::array({1, 2})}},
                          Json{{"name", "Land"}}, Json{{"name", "Ocean"}}});
  }

  GlbBuilder& glb() { return glb_; }
  Json& node(int index) { return nodes_[size_t(index)]; }

  int addNode(Json node) {
    nodes_.push_back(std::move(node));
    return int(nodes_.size()) - 1;
  }
  int addMesh(Json mesh) {
    meshes_.push_back(std::move(mesh));
    return int(meshes_.size()) - 1;
  }

  // One unchunked land mesh; the LandData must outlive write().
  int addLandMesh(const std::string& name, const LandData& data) {
    const MeshBuffers& land = data.buffers.land;
    const size_t count = land.positions.size();
    Json attributes = {
        {"POSITION", glb_.addFloatAttribute(floats(land.positions), count, 3)},
        {"NORMAL", glb_.addFloatAttribute(floats(land.normals), count, 3)},
        {"COLOR_0", glb_.addFloatAttribute(floats(data.linear_colours), count, 3)},
    };
    for (size_t a = 0; a < data.scalar_names.size(); ++a) {
      attributes[data.scalar_names[a]] =
          glb_.addFloatAttribute(data.vertex.scalars[a].data(), count, 1);
    }
    const int indices = glb_.addIndices(land.indices);
    return addMesh(
        {{"name", name},
         {"primitives", Json::array({primitive(std::move(attributes), indices, kLandMaterial)})}});
  }

  // Chunk nodes of one level, returned as node indices. Takes ownership of the arrays.
  std::vector<int> addChunks(const std::string& prefix, ChunkedLand&& land,
                             const std::vector<std::string>& scalar_names, int lod) {
    land_keep_.push_back(std::move(land));
    const ChunkedLand& chunks = land_keep_.back();
    const size_t total = chunks.positions.size();
    const int position_view = glb_.addVertexView(floats(chunks.positions), total, 3);
    const int normal_view = glb_.addVertexView(floats(chunks.normals), total, 3);
    const int colour_view = glb_.addVertexView(floats(chunks.colours), total, 3);
    std::vector<int> scalar_views;
    for (const std::vector<float>& values : chunks.scalars) {
      scalar_views.push_back(glb_.addVertexView(values.data(), total, 1));
    }
    const int index_view = glb_.addIndexView(chunks.indices);

    std::vector<int> node_indices;
    for (size_t c = 0; c < chunks.chunkCount(); ++c) {
      const auto attributes = [&](size_t count) {
        const size_t first = chunks.vertex_offsets[c];
        Json a = {{"POSITION", glb_.addVertexAccessor(position_view, first, count)},
                  {"NORMAL", glb_.addVertexAccessor(normal_view, first, count)},
                  {"COLOR_0", glb_.addVertexAccessor(colour_view, first, count)}};
        for (size_t s = 0; s < scalar_views.size(); ++s) {
          a[scalar_names[s]] = glb_.addVertexAccessor(scalar_views[s], first, count);
        }
        return a;
      };
      const size_t first_index = chunks.index_offsets[c];
      const size_t surface_indices = chunks.surface_indices[c];
      const size_t all_indices = chunks.index_offsets[c + 1] - first_index;
      Json primitives = Json::array({primitive(
          attributes(chunks.surface_vertices[c]),
          glb_.addIndexAccessor(index_view, first_index, surface_indices), kLandMaterial)});
      if (all_indices > surface_indices) {
        // The skirt indexes the surface vertices too: its accessors span both.
        const size_t vertex_count = chunks.vertex_offsets[c + 1] - chunks.vertex_offsets[c];
        primitives.push_back(
            primitive(attributes(vertex_count),
                      glb_.addIndexAccessor(index_view, first_index + surface_indices,
                                            all_indices - surface_indices),
                      kLandMaterial));
      }
      char suffix[16];
      std::snprintf(suffix, sizeof(suffix), "_C%04zu", c);
      const std::string name = prefix + suffix;
      const int mesh = addMesh({{"name", name}, {"primitives", std::move(primitives)}});
      const glm::dvec3& t = chunks.frames.translations[c];
      node_indices.push_back(addNode({{"name", name},
                                      {"mesh", mesh},
                                      {"translation", {t.x, t.y, t.z}},
                                      {"extras", {{"chunk", c}, {"lod", lod}}}}));
    }
    return node_indices;
  }

  void write(const std::filesystem::path& path, const LandData& ocean_source, Json extras,
             bool uses_lod) {
    const MeshBuffers& ocean = ocean_source.buffers.ocean;
    const size_t count = ocean.positions.size();
    Json attributes = {
        {"POSITION", glb_.addFloatAttribute(floats(ocean.positions), count, 3)},
        {"NORMAL", glb_.addFloatAttribute(floats(ocean.normals), count, 3)},
    };
    const int indices = glb_.addIndices(ocean.indices);
    node(2)["mesh"] = addMesh(
        {{"name", "Ocean"},
         {"primitives", Json::array({primitive(std::move(attributes), indices, kOceanMaterial)})}});
    if (!extras.empty()) node(0)["extras"] = std::move(extras);

    Json gltf = Json::object();
    gltf["asset"] = {{"version", "2.0"}, {"generator", "planetgen"}};
    if (uses_lod) gltf["extensionsUsed"] = Json::array({"MSFT_lod"});
    gltf["scene"] = 0;
    gltf["scenes"] = Json::array({Json{{"name", "Planet"}, {"nodes", Json::array({0})}}});
    gltf["nodes"] = std::move(nodes_);
    gltf["meshes"] = std::move(meshes_);
    gltf["materials"] = materials();
    glb_.write(path, std::move(gltf));
  }

 private:
  GlbBuilder glb_;
  Json nodes_;
  Json meshes_ = Json::array();
  std::deque<ChunkedLand> land_keep_;
};

// Fills node `target` with one level: a mesh, or chunk children.
void addLevel(GltfDocument& doc, int target, const std::string& name, const LandData& data,
              const PlanetSurface& surface, const GlbOptions& options, int lod) {
  if (options.chunks == 0) {
    doc.node(target)["mesh"] = doc.addLandMesh(name, data);
    return;
  }
  ChunkedLand chunks =
      buildChunkedLand(surface, data.vertex, options.chunks, options.skirt_depth_m);
  const double grid = chunks.frames.grid_m;
  const std::vector<int> children = doc.addChunks(name, std::move(chunks), data.scalar_names, lod);
  doc.node(target)["children"] = children;
  Json& extras = doc.node(target)["extras"];
  extras["chunks_per_edge"] = options.chunks;
  extras["position_grid_m"] = grid;
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
  const LandData full = landData(surface);
  std::deque<LandData> level_data;
  std::vector<PlanetSurface> level_surfaces;
  for (const LodLevel& level : lods) {
    level_surfaces.push_back(lodSurface(surface, level));
    level_data.push_back(landData(level_surfaces.back()));
  }

  GltfDocument doc;
  constexpr int kLand = 1;
  if (!surface.biome.empty()) doc.node(kLand)["extras"]["biome_legend"] = biomeLegend();
  if (lods.empty()) {
    addLevel(doc, kLand, "Land", full, surface, options, 0);
  } else {
    const int lod0 = doc.addNode({{"name", "Land_LOD0"}});
    doc.node(kLand)["children"] = Json::array({lod0});
    addLevel(doc, lod0, "Land_LOD0", full, surface, options, 0);
    Json ids = Json::array();
    Json coverage = Json::array({0.5});
    for (size_t i = 0; i < lods.size(); ++i) {
      const std::string name = "Land_LOD" + std::to_string(i + 1);
      const int node = doc.addNode({{"name", name}});
      addLevel(doc, node, name, level_data[i], level_surfaces[i], options, int(i + 1));
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
  doc.write(path, full, std::move(extras), !lods.empty());
}

}  // namespace planet_export
