// planet.glb writer.
//
// The GLB container is written here rather than through tinygltf's writer (tinygltf is used
// to read the file back in the tests) for three reasons found in tinygltf 2.7 (Debian 12):
// its extras values hold integers as 32-bit int, so a 64-bit seed would be rounded through
// double; its GLB writer copies the whole binary buffer twice (Model::buffers, then the BIN
// chunk) where this one streams the arrays straight to the file; and it does not check stream
// errors. The JSON chunk is built with nlohmann::json; the format is the glTF 2.0 spec,
// section 4.4 "Binary glTF Layout".

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/parallel_for.h>
#include <nlohmann/json.hpp>

#include "export/colour_ramps.h"
#include "export/file_writer.h"
#include "export/mesh_export.h"
#include "export/surface_buffers.h"

namespace planet_export {
namespace {

using Json = nlohmann::ordered_json;

constexpr uint32_t kGlbMagic = 0x46546C67;   // "glTF"
constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"
constexpr int kFloat = 5126;                 // accessor.componentType
constexpr int kUnsignedInt = 5125;
constexpr int kArrayBuffer = 34962;  // bufferView.target
constexpr int kElementArrayBuffer = 34963;
constexpr int kTriangles = 4;  // primitive.mode
constexpr double kOceanAlpha = 0.6;

static_assert(sizeof(glm::vec3) == 12 && sizeof(Rgb) == 12, "vertex arrays must be packed");

// Collects the binary chunk as a list of views into existing arrays plus the JSON objects
// that describe them, so nothing is copied before it goes to the file.
class GlbBuilder {
 public:
  // A float vertex attribute with `components` floats per vertex (1 or 3), its own
  // bufferView (byteStride = element size, target ARRAY_BUFFER) and min/max from the data.
  int addFloatAttribute(const float* data, size_t count, int components) {
    const size_t element_bytes = sizeof(float) * size_t(components);
    const int view = addView(data, count * element_bytes, kArrayBuffer, int(element_bytes));
    Json min = Json::array(), max = Json::array();
    for (int c = 0; c < components; ++c) {
      float lo = std::numeric_limits<float>::infinity();
      float hi = -lo;
      for (size_t i = 0; i < count; ++i) {
        lo = std::min(lo, data[i * size_t(components) + size_t(c)]);
        hi = std::max(hi, data[i * size_t(components) + size_t(c)]);
      }
      // double(float) is exact and nlohmann prints the shortest round-trip form, so the
      // JSON bounds equal the written values bit for bit.
      min.push_back(double(lo));
      max.push_back(double(hi));
    }
    return addAccessor(view, kFloat, count, components == 1 ? "SCALAR" : "VEC3", std::move(min),
                       std::move(max));
  }

  int addIndices(std::span<const uint32_t> indices) {
    const int view = addView(indices.data(), indices.size_bytes(), kElementArrayBuffer, 0);
    return addAccessor(view, kUnsignedInt, indices.size(), "SCALAR", Json(), Json());
  }

  Json& accessors() { return accessors_; }
  Json& views() { return views_; }
  size_t binaryLength() const { return offset_; }

  // Writes the BIN chunk payload. Every piece is a multiple of 4 bytes, so no padding.
  void writeBinary(FileWriter& out) const {
    for (const auto& [data, bytes] : pieces_) out.write(data, bytes);
  }

 private:
  int addView(const void* data, size_t bytes, int target, int stride) {
    Json view = {{"buffer", 0}, {"byteOffset", offset_}, {"byteLength", bytes}};
    if (stride > 0) view["byteStride"] = stride;
    view["target"] = target;
    views_.push_back(std::move(view));
    pieces_.emplace_back(data, bytes);
    offset_ += bytes;
    return int(views_.size()) - 1;
  }

  int addAccessor(int view, int component_type, size_t count, const char* type, Json min,
                  Json max) {
    Json accessor = {
        {"bufferView", view}, {"componentType", component_type}, {"count", count}, {"type", type}};
    if (!min.is_null()) {
      accessor["min"] = std::move(min);
      accessor["max"] = std::move(max);
    }
    accessors_.push_back(std::move(accessor));
    return int(accessors_.size()) - 1;
  }

  Json accessors_ = Json::array();
  Json views_ = Json::array();
  std::vector<std::pair<const void*, size_t>> pieces_;
  size_t offset_ = 0;
};

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

void writeU32(FileWriter& out, uint32_t value) {
  const std::array<unsigned char, 4> bytes = {uint8_t(value), uint8_t(value >> 8),
                                              uint8_t(value >> 16), uint8_t(value >> 24)};
  out.write(bytes.data(), bytes.size());
}

}  // namespace

void writeGlb(const std::filesystem::path& path, const PlanetSurface& surface) {
  Json extras = parseExtras(surface.extras_json);
  const PlanetBuffers buffers = buildPlanetBuffers(surface);
  const MeshBuffers& land = buffers.land;
  const MeshBuffers& ocean = buffers.ocean;
  const size_t land_count = land.positions.size();

  // glTF vertex colours are linear (glTF 2.0 spec 3.7.2.1); the ramps are sRGB.
  std::vector<glm::vec3> linear_colours(land_count);
  tbb::parallel_for(size_t(0), land_count, [&](size_t v) {
    const Rgb& c = land.colours[v];
    linear_colours[v] = {srgbToLinear(c.r), srgbToLinear(c.g), srgbToLinear(c.b)};
  });

  GlbBuilder glb;
  Json land_attributes = {
      {"POSITION", glb.addFloatAttribute(floats(land.positions), land_count, 3)},
      {"NORMAL", glb.addFloatAttribute(floats(land.normals), land_count, 3)},
      {"COLOR_0", glb.addFloatAttribute(floats(linear_colours), land_count, 3)},
      {"_ELEVATION", glb.addFloatAttribute(surface.elevation_m.data(), land_count, 1)},
  };
  for (const VertexAttribute& attribute : surface.attributes) {
    land_attributes[attribute.name] = glb.addFloatAttribute(attribute.values.data(), land_count, 1);
  }
  const int land_indices = glb.addIndices(land.indices);
  const size_t ocean_count = ocean.positions.size();
  Json ocean_attributes = {
      {"POSITION", glb.addFloatAttribute(floats(ocean.positions), ocean_count, 3)},
      {"NORMAL", glb.addFloatAttribute(floats(ocean.normals), ocean_count, 3)},
  };
  const int ocean_indices = glb.addIndices(ocean.indices);

  Json root_node = {{"name", "Planet"}, {"children", Json::array({1, 2})}};
  if (!extras.empty()) root_node["extras"] = std::move(extras);
  Json land_mesh = {
      {"name", "Land"},
      {"primitives", Json::array({primitive(std::move(land_attributes), land_indices, 0)})}};
  Json ocean_mesh = {
      {"name", "Ocean"},
      {"primitives", Json::array({primitive(std::move(ocean_attributes), ocean_indices, 1)})}};
  Json gltf = Json::object();
  gltf["asset"] = {{"version", "2.0"}, {"generator", "planetgen"}};
  gltf["scene"] = 0;
  gltf["scenes"] = Json::array({Json{{"name", "Planet"}, {"nodes", Json::array({0})}}});
  gltf["nodes"] = Json::array({std::move(root_node), Json{{"name", "Land"}, {"mesh", 0}},
                               Json{{"name", "Ocean"}, {"mesh", 1}}});
  gltf["meshes"] = Json::array({std::move(land_mesh), std::move(ocean_mesh)});
  gltf["materials"] = materials();
  gltf["buffers"] = Json::array({Json{{"byteLength", glb.binaryLength()}}});
  gltf["bufferViews"] = std::move(glb.views());
  gltf["accessors"] = std::move(glb.accessors());

  std::string json_chunk = gltf.dump();
  json_chunk.resize((json_chunk.size() + 3) / 4 * 4, ' ');  // JSON chunk pads with spaces
  const size_t total = 12 + 8 + json_chunk.size() + 8 + glb.binaryLength();
  if (total > UINT32_MAX) {
    throw std::runtime_error("cannot write " + path.string() + ": " + std::to_string(total) +
                             " bytes exceed the 4 GiB limit of a GLB file");
  }

  FileWriter out(path);
  writeU32(out, kGlbMagic);
  writeU32(out, 2);
  writeU32(out, uint32_t(total));
  writeU32(out, uint32_t(json_chunk.size()));
  writeU32(out, kChunkJson);
  out.write(json_chunk);
  writeU32(out, uint32_t(glb.binaryLength()));
  writeU32(out, kChunkBin);
  glb.writeBinary(out);
  out.close();
}

}  // namespace planet_export
