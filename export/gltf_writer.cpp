// planet.glb writer.
//
// The GLB container is written here (glb_builder.h) rather than through tinygltf's writer
// (tinygltf is used to read the file back in the tests) for three reasons found in tinygltf
// 2.7 (Debian 12): its extras values hold integers as 32-bit int, so a 64-bit seed would be
// rounded through double; its GLB writer copies the whole binary buffer twice (Model::buffers,
// then the BIN chunk) where this one streams the arrays straight to the file; and it does not
// check stream errors. The JSON chunk is built with nlohmann::json.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/parallel_for.h>
#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include "export/biomes.h"
#include "export/chunk_buffers.h"
#include "export/chunk_frames.h"
#include "export/chunks.h"
#include "export/colour_ramps.h"
#include "export/engine_pieces.h"
#include "export/glb_builder.h"
#include "export/mesh_export.h"
#include "export/meshopt_codec.h"
#include "export/surface_buffers.h"
#include "export/surface_normals.h"

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

// The pieces of one mesh set (a level's land, the ocean, collision hulls), every array holding
// all pieces one after another. Piece p owns vertices [vertex_offsets[p], vertex_offsets[p+1])
// and indices [index_offsets[p], index_offsets[p+1]) (local to the piece; the first
// surface_indices[p] are the surface, the rest skirts).
struct Group {
  std::vector<glm::vec3> positions;  // metres, local to translations[p]
  std::vector<glm::vec3> normals;
  std::vector<glm::vec3> colours;  // linear; empty for the ocean and collision
  std::vector<glm::vec2> uvs;      // empty for the ocean and collision
  std::vector<glm::vec4> tangents;
  std::vector<std::vector<float>> scalars;
  std::vector<uint32_t> indices;
  std::vector<size_t> vertex_offsets{0};
  std::vector<size_t> index_offsets{0};
  std::vector<size_t> surface_indices;
  std::vector<size_t> surface_vertices;  // per piece: its first ones serve the surface
  std::vector<glm::dvec3> translations;
  double grid_m = 0.0;  // chunk frames' position grid (chunk_frames.h)

  size_t pieceCount() const { return surface_indices.size(); }
  size_t vertexCount(size_t p) const { return vertex_offsets[p + 1] - vertex_offsets[p]; }
  // surface_count: vertices the surface triangles may use (a prefix); default all.
  void closePiece(size_t surface, const glm::dvec3& translation, size_t surface_count = SIZE_MAX) {
    surface_vertices.push_back(std::min(surface_count, positions.size() - vertex_offsets.back()));
    vertex_offsets.push_back(positions.size());
    index_offsets.push_back(indices.size());
    surface_indices.push_back(surface);
    translations.push_back(translation);
  }
};

// 0 (one piece) when the whole mesh fits uint16 indices, else the smallest k (dividing f) whose
// 20 k^2 lattice chunks do; both with room for the copies splitSeam adds (the seam crosses
// about 2.9 f edges of the mesh, 2.9 m of a chunk; the poles add 5 each).
int autoChunks(int frequency) {
  const size_t f = size_t(frequency);
  if (10 * f * f + 2 + 4 * f + 32 <= 65535) return 0;
  for (int k = 1; k < frequency; ++k) {
    if (frequency % k != 0) continue;
    const size_t m = size_t(frequency / k);
    if ((m + 1) * (m + 2) / 2 + 4 * m + 32 <= 65535) return k;
  }
  return frequency;
}

// partitionChunks, or for chunks = 0 one piece of every face and vertex (no borders).
ChunkPartition partitionPieces(const geodesy::SphereMesh& mesh, int chunks) {
  if (chunks > 0) return partitionChunks(mesh, chunks);
  ChunkPartition all;
  all.face_offsets = {0, uint32_t(mesh.faceCount())};
  all.faces.resize(mesh.faceCount());
  std::iota(all.faces.begin(), all.faces.end(), 0u);
  all.vertex_offsets = {0, uint32_t(mesh.vertexCount())};
  all.vertices.resize(mesh.vertexCount());
  std::iota(all.vertices.begin(), all.vertices.end(), 0u);
  all.border_offsets = {0, 0};
  return all;
}

// The land of one level as pieces: the chunks of buildChunkedLand, seams split for the
// texture coordinates. world: positions in the planet frame (one node for all pieces) rather
// than in each chunk's frame.
Group landGroup(const PlanetSurface& surface, const LandData& data, int chunks, double skirt_m,
                bool world, bool tangents) {
  if (chunks == 0) {  // the whole mesh as one piece, in the planet frame
    const geodesy::SphereMesh& mesh = *surface.mesh;
    const MeshBuffers& land = data.buffers.land;
    const Piece piece = splitSeam(mesh.positions, mesh.indices, uint32_t(mesh.indices.size()));
    Group g;
    g.scalars.resize(data.vertex.scalars.size());
    for (size_t i = 0; i < piece.source.size(); ++i) {
      const uint32_t v = piece.source[i];
      g.positions.push_back(land.positions[v]);
      g.normals.push_back(land.normals[v]);
      g.colours.push_back(data.linear_colours[v]);
      g.uvs.push_back(piece.uv[i]);
      if (tangents) g.tangents.push_back(equirectTangent(land.normals[v], mesh.positions[v]));
      for (size_t a = 0; a < g.scalars.size(); ++a)
        g.scalars[a].push_back(data.vertex.scalars[a][v]);
    }
    g.indices = piece.indices;
    g.closePiece(piece.surface_indices, glm::dvec3(0.0));
    return g;
  }
  const ChunkedLand land = buildChunkedLand(surface, data.vertex, chunks, skirt_m);
  const geodesy::SphereMesh& mesh = *surface.mesh;
  Group g;
  g.grid_m = land.frames.grid_m;
  g.scalars.resize(land.scalars.size());
  for (size_t c = 0; c < land.chunkCount(); ++c) {
    const size_t first = land.vertex_offsets[c];
    std::vector<glm::vec3> directions;
    for (size_t slot = first; slot < land.vertex_offsets[c + 1]; ++slot) {
      directions.push_back(mesh.positions[land.global_vertex[slot]]);
    }
    const std::span<const uint32_t> indices(&land.indices[land.index_offsets[c]],
                                            land.index_offsets[c + 1] - land.index_offsets[c]);
    Piece piece = splitSeam(directions, indices, land.surface_indices[c]);
    // Surface vertices (and their copies) first, then the skirt's, so the surface primitive's
    // accessors cover a prefix, as in ChunkedLand.
    const auto is_surface = [&](uint32_t i) { return piece.source[i] < land.surface_vertices[c]; };
    std::vector<uint32_t> order(piece.source.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_partition(order.begin(), order.end(), is_surface);
    std::vector<uint32_t> new_of_old(order.size());
    for (uint32_t n = 0; n < order.size(); ++n) new_of_old[order[n]] = n;
    for (uint32_t& i : piece.indices) i = new_of_old[i];
    const size_t surface_vertices = size_t(
        std::count_if(order.begin(), order.end(), [&](uint32_t i) { return is_surface(i); }));
    const glm::dvec3& t = land.frames.translations[c];
    for (uint32_t i : order) {
      const size_t slot = first + piece.source[i];
      const glm::vec3 local = land.positions[slot];
      g.positions.push_back(world ? glm::vec3(glm::dvec3(local) + t) : local);
      g.normals.push_back(land.normals[slot]);
      g.colours.push_back(land.colours[slot]);
      g.uvs.push_back(piece.uv[i]);
      if (tangents)
        g.tangents.push_back(equirectTangent(land.normals[slot], directions[piece.source[i]]));
      for (size_t a = 0; a < g.scalars.size(); ++a) g.scalars[a].push_back(land.scalars[a][slot]);
    }
    g.indices.insert(g.indices.end(), piece.indices.begin(), piece.indices.end());
    g.closePiece(piece.surface_indices, world ? glm::dvec3(0.0) : t, surface_vertices);
  }
  return g;
}

// The ocean over the land mesh (oceanCover) at oceanRadius, in the planet frame, cut into the
// same pieces as the land.
Group oceanGroup(const PlanetSurface& surface, int chunks) {
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const double radius = oceanRadius(surface.radius_m, surface.sea_level_m);
  const ChunkPartition partition = partitionPieces(mesh, chunks);
  Group g;
  for (size_t c = 0; c < partition.chunkCount(); ++c) {
    const std::span<const uint32_t> faces(
        &partition.faces[partition.face_offsets[c]],
        partition.face_offsets[c + 1] - partition.face_offsets[c]);
    const OceanCover cover = oceanCover(mesh, surface.elevation_m, surface.sea_level_m, faces);
    if (cover.faces.empty()) continue;
    for (uint32_t v : cover.vertices) {
      const glm::dvec3 unit = glm::normalize(glm::dvec3(mesh.positions[v]));
      g.positions.push_back(glm::vec3(radius * unit));
      g.normals.push_back(toUnitFloat(unit));
    }
    for (uint32_t f : cover.faces) {
      for (int k = 0; k < 3; ++k) {
        const uint32_t v = mesh.indices[3 * size_t(f) + size_t(k)];
        g.indices.push_back(
            uint32_t(std::lower_bound(cover.vertices.begin(), cover.vertices.end(), v) -
                     cover.vertices.begin()));
      }
    }
    g.closePiece(3 * cover.faces.size(), glm::dvec3(0.0));
  }
  return g;
}

// Collision pieces: the land of `surface` (a coarser level) cut into 20 k^2 chunks, positions
// only, each chunk in its own frame (chunk_frames.h) unless world.
Group collisionGroup(const PlanetSurface& surface, int chunks, bool world) {
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const ChunkPartition partition = partitionPieces(mesh, chunks);
  const auto at = [&](uint32_t v) {
    return (surface.radius_m + double(surface.elevation_m[v])) *
           glm::normalize(glm::dvec3(mesh.positions[v]));
  };
  std::vector<Box> bounds(partition.chunkCount());
  for (size_t c = 0; c < bounds.size(); ++c) {
    Box box{glm::dvec3(INFINITY), glm::dvec3(-INFINITY)};
    for (uint32_t n = partition.vertex_offsets[c]; n < partition.vertex_offsets[c + 1]; ++n) {
      box.lo = glm::min(box.lo, at(partition.vertices[n]));
      box.hi = glm::max(box.hi, at(partition.vertices[n]));
    }
    bounds[c] = box;
  }
  const ChunkFrames frames = chooseChunkFrames(bounds);
  Group g;
  g.grid_m = frames.grid_m;
  for (size_t c = 0; c < bounds.size(); ++c) {
    const std::span<const uint32_t> verts(
        &partition.vertices[partition.vertex_offsets[c]],
        partition.vertex_offsets[c + 1] - partition.vertex_offsets[c]);
    const glm::dvec3 t = world ? glm::dvec3(0.0) : frames.translations[c];
    for (uint32_t v : verts) {
      g.positions.push_back(world ? glm::vec3(at(v)) : localPosition(at(v), t, frames.grid_m));
    }
    for (uint32_t n = partition.face_offsets[c]; n < partition.face_offsets[c + 1]; ++n) {
      for (int k = 0; k < 3; ++k) {
        const uint32_t v = mesh.indices[3 * size_t(partition.faces[n]) + size_t(k)];
        g.indices.push_back(
            uint32_t(std::lower_bound(verts.begin(), verts.end(), v) - verts.begin()));
      }
    }
    g.closePiece(g.indices.size() - g.index_offsets.back(), t);
  }
  return g;
}

// Renumbers the vertices and reorders the triangles of every piece for meshopt's codecs
// (meshoptReorder); the geometry is unchanged.
void reorderForCompression(Group& g) {
  const auto permute = [](auto& values, size_t first, const std::vector<uint32_t>& new_of_old) {
    if (values.empty()) return;
    const std::vector old(values.begin() + std::ptrdiff_t(first),
                          values.begin() + std::ptrdiff_t(first + new_of_old.size()));
    for (size_t v = 0; v < new_of_old.size(); ++v) values[first + new_of_old[v]] = old[v];
  };
  for (size_t p = 0; p < g.pieceCount(); ++p) {
    const size_t first = g.vertex_offsets[p];
    std::vector<uint32_t> indices(g.indices.begin() + std::ptrdiff_t(g.index_offsets[p]),
                                  g.indices.begin() + std::ptrdiff_t(g.index_offsets[p + 1]));
    const std::vector<uint32_t> new_of_old =
        meshoptReorder(indices, g.surface_indices[p], g.vertexCount(p));
    std::copy(indices.begin(), indices.end(),
              g.indices.begin() + std::ptrdiff_t(g.index_offsets[p]));
    // Vertices are numbered by first use and the surface triangles come first, so the
    // surface's vertices are still a prefix.
    uint32_t surface_end = 0;
    for (size_t i = 0; i < g.surface_indices[p]; ++i) {
      surface_end = std::max(surface_end, indices[i] + 1);
    }
    if (g.surface_vertices[p] < g.vertexCount(p)) g.surface_vertices[p] = surface_end;
    permute(g.positions, first, new_of_old);
    permute(g.normals, first, new_of_old);
    permute(g.colours, first, new_of_old);
    permute(g.uvs, first, new_of_old);
    permute(g.tangents, first, new_of_old);
    for (std::vector<float>& values : g.scalars) permute(values, first, new_of_old);
  }
}

template <typename T>
void appendBytes(std::vector<uint8_t>& bytes, const T& value) {
  const auto* p = reinterpret_cast<const uint8_t*>(&value);
  bytes.insert(bytes.end(), p, p + sizeof(T));
}

// Floats as written, `components` per element.
template <typename Vec>
std::vector<uint8_t> floatBytes(const std::vector<Vec>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(Vec));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Unit vectors as normalized signed bytes (KHR_mesh_quantization), 4 bytes per element: x, y,
// z and w (0 for VEC3, whose fourth byte is padding).
template <typename Vec>
std::vector<uint8_t> snormBytes(const std::vector<Vec>& values) {
  std::vector<uint8_t> bytes;
  bytes.reserve(values.size() * 4);
  for (const Vec& v : values) {
    for (int k = 0; k < 4; ++k) {
      const float x = k < Vec::length() ? v[k] : 0.0f;
      bytes.push_back(uint8_t(int8_t(std::lround(std::clamp(x, -1.0f, 1.0f) * 127.0f))));
    }
  }
  return bytes;
}

// Linear colours as normalized unsigned bytes, RGB plus a padding byte.
std::vector<uint8_t> unormBytes(const std::vector<glm::vec3>& values) {
  std::vector<uint8_t> bytes;
  bytes.reserve(values.size() * 4);
  for (const glm::vec3& c : values) {
    for (int k = 0; k < 3; ++k)
      bytes.push_back(uint8_t(std::lround(std::clamp(c[k], 0.0f, 1.0f) * 255.0f)));
    bytes.push_back(0);
  }
  return bytes;
}

// What encodeGroup made for piece p: its attribute accessors and its index accessors.
struct PieceAccessors {
  Json attributes;      // over the surface vertices
  Json all_attributes;  // over all vertices, when the skirt adds some (else null)
  int surface = -1;
  int skirt = -1;  // -1: no skirt
};

Json skirtAttributes(const PieceAccessors& p) {
  return p.all_attributes.is_null() ? p.attributes : p.all_attributes;
}

// Writes a group's arrays as views (one per attribute, one per index size) and one accessor set
// per piece. Quantized: NORMAL and TANGENT as normalized bytes, COLOR_0 as normalized unsigned
// bytes; POSITION, TEXCOORD_0 and the custom attributes stay float. Indices are uint16 for
// pieces of at most 65,535 vertices (65,535 itself is the restart value glTF forbids).
std::vector<PieceAccessors> encodeGroup(GlbBuilder& glb, Group& g,
                                        const std::vector<std::string>& scalar_names,
                                        bool quantize) {
  if (glb.compressed()) reorderForCompression(g);
  const size_t pieces = g.pieceCount();
  std::vector<PieceAccessors> out(pieces);
  // Per piece an accessor over the surface vertices, and one over all if the skirt adds some.
  const auto vertexAccessors = [&](const char* name, int view, size_t element_bytes, Component type,
                                   bool normalized, const char* shape, bool bounds) {
    const auto add = [&](size_t p, size_t count) {
      Json min = nullptr, max = nullptr;
      if (bounds) {  // POSITION: exact float bounds (double(float) prints back bit for bit)
        glm::vec3 lo(INFINITY), hi(-INFINITY);
        for (size_t v = g.vertex_offsets[p]; v < g.vertex_offsets[p] + count; ++v) {
          lo = glm::min(lo, g.positions[v]);
          hi = glm::max(hi, g.positions[v]);
        }
        min = {double(lo.x), double(lo.y), double(lo.z)};
        max = {double(hi.x), double(hi.y), double(hi.z)};
      }
      return glb.addAccessor(view, g.vertex_offsets[p] * element_bytes, type, normalized, count,
                             shape, std::move(min), std::move(max));
    };
    for (size_t p = 0; p < pieces; ++p) {
      out[p].attributes[name] = add(p, g.surface_vertices[p]);
      if (g.surface_vertices[p] < g.vertexCount(p)) {
        out[p].all_attributes[name] = add(p, g.vertexCount(p));
      }
    }
  };
  vertexAccessors("POSITION", glb.addVertexView(floatBytes(g.positions), 12), 12, Component::kFloat,
                  false, "VEC3", true);
  if (!g.normals.empty() && quantize) {  // collision pieces have positions only
    vertexAccessors("NORMAL", glb.addVertexView(snormBytes(g.normals), 4), 4, Component::kByte,
                    true, "VEC3", false);
  } else if (!g.normals.empty()) {
    vertexAccessors("NORMAL", glb.addVertexView(floatBytes(g.normals), 12), 12, Component::kFloat,
                    false, "VEC3", false);
  }
  if (!g.tangents.empty()) {
    if (quantize) {
      vertexAccessors("TANGENT", glb.addVertexView(snormBytes(g.tangents), 4), 4, Component::kByte,
                      true, "VEC4", false);
    } else {
      vertexAccessors("TANGENT", glb.addVertexView(floatBytes(g.tangents), 16), 16,
                      Component::kFloat, false, "VEC4", false);
    }
  }
  if (!g.uvs.empty()) {
    vertexAccessors("TEXCOORD_0", glb.addVertexView(floatBytes(g.uvs), 8), 8, Component::kFloat,
                    false, "VEC2", false);
  }
  if (!g.colours.empty()) {
    if (quantize) {
      vertexAccessors("COLOR_0", glb.addVertexView(unormBytes(g.colours), 4), 4,
                      Component::kUnsignedByte, true, "VEC3", false);
    } else {
      vertexAccessors("COLOR_0", glb.addVertexView(floatBytes(g.colours), 12), 12,
                      Component::kFloat, false, "VEC3", false);
    }
  }
  for (size_t a = 0; a < g.scalars.size(); ++a) {
    vertexAccessors(scalar_names[a].c_str(), glb.addVertexView(floatBytes(g.scalars[a]), 4), 4,
                    Component::kFloat, false, "SCALAR", false);
  }

  // Indices: small pieces in one uint16 view, the others in one uint32 view.
  std::vector<uint8_t> small, large;
  std::vector<size_t> offset(pieces);  // byte offset of the piece's indices in its view
  const auto isSmall = [&](size_t p) { return g.vertexCount(p) <= 65535; };
  for (size_t p = 0; p < pieces; ++p) {
    std::vector<uint8_t>& bytes = isSmall(p) ? small : large;
    offset[p] = bytes.size();
    for (size_t i = g.index_offsets[p]; i < g.index_offsets[p + 1]; ++i) {
      if (isSmall(p)) {
        appendBytes(bytes, uint16_t(g.indices[i]));
      } else {
        appendBytes(bytes, g.indices[i]);
      }
    }
  }
  const int small_view =
      small.empty() ? -1 : glb.addIndexView(std::move(small), Component::kUnsignedShort);
  const int large_view =
      large.empty() ? -1 : glb.addIndexView(std::move(large), Component::kUnsignedInt);
  for (size_t p = 0; p < pieces; ++p) {
    const Component type = isSmall(p) ? Component::kUnsignedShort : Component::kUnsignedInt;
    const int view = isSmall(p) ? small_view : large_view;
    const size_t size = isSmall(p) ? 2 : 4;
    const size_t count = g.index_offsets[p + 1] - g.index_offsets[p];
    out[p].surface = glb.addAccessor(view, offset[p], type, false, g.surface_indices[p], "SCALAR");
    if (count > g.surface_indices[p]) {
      out[p].skirt = glb.addAccessor(view, offset[p] + size * g.surface_indices[p], type, false,
                                     count - g.surface_indices[p], "SCALAR");
    }
  }
  return out;
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
  explicit GltfDocument(const GlbOptions& options) : glb_(options.meshopt), options_(options) {
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

  void write(const std::filesystem::path& path, const PlanetSurface& surface, Json extras,
             bool uses_lod) {
    Group ocean = oceanGroup(surface, autoChunks(surface.mesh->frequency));
    if (ocean.pieceCount() > 0) {  // a planet without water keeps an empty Ocean node
      node(2)["mesh"] = addGroupMesh("Ocean", std::move(ocean), {}, kOceanMaterial);
    }
    if (!extras.empty()) node(0)["extras"] = std::move(extras);
    if (options_.metres_per_unit != 1.0) {
      const double s = 1.0 / options_.metres_per_unit;
      node(0)["scale"] = {s, s, s};
    }

    Json gltf = Json::object();
    gltf["asset"] = {{"version", "2.0"}, {"generator", "planetgen"}};
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
    gltf["scenes"] = Json::array({Json{{"name", "Planet"}, {"nodes", Json::array({0})}}});
    gltf["nodes"] = std::move(nodes_);
    gltf["meshes"] = std::move(meshes_);
    gltf["materials"] = materials();
    glb_.write(path, std::move(gltf));
  }

 private:
  GlbBuilder glb_;
  GlbOptions options_;
  Json nodes_;
  Json meshes_ = Json::array();
};

// Fills node `target` with one level: a mesh of pieces small enough for uint16 indices, or
// chunk children.
void addLevel(GltfDocument& doc, int target, const std::string& name, const LandData& data,
              const PlanetSurface& surface, const GlbOptions& options, int lod) {
  if (options.chunks == 0) {
    doc.node(target)["mesh"] = doc.addGroupMesh(
        name,
        landGroup(surface, data, autoChunks(surface.mesh->frequency), 0.0, true, options.tangents),
        data.scalar_names, kLandMaterial);
    return;
  }
  Group group =
      landGroup(surface, data, options.chunks, options.skirt_depth_m, false, options.tangents);
  const double grid_m = group.grid_m;
  doc.node(target)["children"] =
      doc.addChunkNodes(name, std::move(group), data.scalar_names, lod, kLandMaterial);
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
  const LandData full = landData(surface);
  std::deque<LandData> level_data;
  std::vector<PlanetSurface> level_surfaces;
  for (const LodLevel& level : lods) {
    level_surfaces.push_back(lodSurface(surface, level));
    level_data.push_back(landData(level_surfaces.back()));
  }

  GltfDocument doc(options);
  constexpr int kLand = 1;
  // A JSON text, not an array: assimp 5.2 aborts on nested extras (see flatExtras).
  if (!surface.biome.empty()) doc.node(kLand)["extras"]["biome_legend"] = biomeLegend().dump();
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
      // Outside the scene, as MSFT_lod has it. Godot 3 and Blender 3.4 import such nodes
      // anyway; Godot drops a node whose name ends in "-noimp" (with its children).
      const int node = doc.addNode({{"name", name + "-noimp"}});
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
  if (options.collision != CollisionNames::kNone) addCollision(doc, kLand, surface, options);
  doc.write(path, surface, flatExtras(std::move(extras)), !lods.empty());
}

}  // namespace planet_export
