#include "export/detail/glb_water.h"

#include <utility>

#include <glm/geometric.hpp>

namespace planet_export {
namespace {

constexpr int kLines = 1;
constexpr int kTriangles = 4;

// POSITION accessor (float32 vec3, with the min/max glTF requires).
int positionAccessor(GlbBuilder& glb, const std::vector<glm::vec3>& p) {
  auto [lo, hi] = positionBounds(p.data(), p.size());
  const int view = glb.addVertexView(bytesOf(p), 12);
  return glb.addAccessor(view, 0, Component::kFloat, false, p.size(), "VEC3", std::move(lo),
                         std::move(hi));
}

int scalarAccessor(GlbBuilder& glb, const std::vector<float>& values) {
  const int view = glb.addVertexView(bytesOf(values), 4);
  return glb.addAccessor(view, 0, Component::kFloat, false, values.size(), "SCALAR");
}

}  // namespace

void addWaterNodes(GlbBuilder& glb, const WaterGeometry& water, int ocean_material, Json& nodes,
                   Json& meshes, Json& materials) {
  Json rivers = {{"name", "Rivers"}};
  // LINES with indices: each river's points once, a segment between consecutive ones, so
  // importers that build edges from indices (Blender) get one connected polyline per river.
  std::vector<glm::vec3> positions;
  std::vector<float> discharge, width;
  std::vector<uint32_t> segments;
  for (const WaterLine& line : water.rivers) {
    if (line.position_m.size() < 2) continue;
    const auto first = uint32_t(positions.size());
    for (size_t k = 0; k < line.position_m.size(); ++k) {
      positions.push_back(glm::vec3(line.position_m[k]));
      discharge.push_back(line.discharge_m3_s[k]);
      width.push_back(line.width_m[k]);
      if (k > 0) segments.insert(segments.end(), {first + uint32_t(k) - 1, first + uint32_t(k)});
    }
  }
  if (!positions.empty()) {
    const int material = int(materials.size());
    materials.push_back({{"name", "River"},
                         {"pbrMetallicRoughness",
                          {{"baseColorFactor", {0.05, 0.25, 0.8, 1.0}},
                           {"metallicFactor", 0.0},
                           {"roughnessFactor", 0.2}}}});
    Json attributes = {{"POSITION", positionAccessor(glb, positions)},
                       {"_DISCHARGE", scalarAccessor(glb, discharge)},
                       {"_WIDTH", scalarAccessor(glb, width)}};
    const int segment_view = glb.addIndexSequenceView(bytesOf(segments), Component::kUnsignedInt);
    const int segment_accessor =
        glb.addAccessor(segment_view, 0, Component::kUnsignedInt, false, segments.size(), "SCALAR");
    meshes.push_back({{"name", "Rivers"},
                      {"primitives", Json::array({Json{{"attributes", std::move(attributes)},
                                                       {"indices", segment_accessor},
                                                       {"material", material},
                                                       {"mode", kLines}}})}});
    rivers["mesh"] = int(meshes.size()) - 1;
  }
  Json lakes = {{"name", "Lakes"}};
  std::vector<glm::vec3> lake_positions, normals;
  std::vector<uint32_t> indices;
  for (const WaterSurface& lake : water.lakes) {
    const uint32_t base = uint32_t(lake_positions.size());
    for (const glm::dvec3& p : lake.position_m) {
      lake_positions.push_back(glm::vec3(p));
      normals.push_back(glm::vec3(glm::normalize(p)));
    }
    for (uint32_t i : lake.indices) indices.push_back(base + i);
  }
  if (!indices.empty()) {
    Json attributes = {
        {"POSITION", positionAccessor(glb, lake_positions)},
        {"NORMAL", glb.addAccessor(glb.addVertexView(bytesOf(normals), 12), 0, Component::kFloat,
                                   false, normals.size(), "VEC3")}};
    const int index_view = glb.addIndexView(bytesOf(indices), Component::kUnsignedInt);
    const int index_accessor =
        glb.addAccessor(index_view, 0, Component::kUnsignedInt, false, indices.size(), "SCALAR");
    meshes.push_back({{"name", "Lakes"},
                      {"primitives", Json::array({Json{{"attributes", std::move(attributes)},
                                                       {"indices", index_accessor},
                                                       {"material", ocean_material},
                                                       {"mode", kTriangles}}})}});
    lakes["mesh"] = int(meshes.size()) - 1;
  }
  for (Json* node : {&rivers, &lakes}) {
    nodes.push_back(std::move(*node));
    nodes[0]["children"].push_back(int(nodes.size()) - 1);
  }
}

}  // namespace planet_export
