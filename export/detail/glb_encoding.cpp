#include "export/detail/glb_encoding.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>

#include <tbb/parallel_for.h>
#include <glm/common.hpp>

#include "export/colour_ramps.h"
#include "export/detail/meshopt_codec.h"

namespace planet_export {
namespace {

// Renumbers the vertices and reorders the triangles of every piece for meshopt's codecs
// (meshoptReorder); the geometry is unchanged. Reorders the group's indices and returns, per
// group vertex, its new place in its piece, which permute applies to each vertex array.
std::vector<uint32_t> reorderForCompression(Group& g) {
  std::vector<uint32_t> new_of_old(g.vertex_offsets.back());
  for (size_t p = 0; p < g.pieceCount(); ++p) {
    std::vector<uint32_t> indices(g.indices.begin() + std::ptrdiff_t(g.index_offsets[p]),
                                  g.indices.begin() + std::ptrdiff_t(g.index_offsets[p + 1]));
    const std::vector<uint32_t> piece_new_of_old =
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
    std::copy(piece_new_of_old.begin(), piece_new_of_old.end(),
              new_of_old.begin() + std::ptrdiff_t(g.vertex_offsets[p]));
  }
  return new_of_old;
}

// Moves each vertex of a group's array to its place of reorderForCompression.
template <typename T>
void permute(std::vector<T>& values, const Group& g, const std::vector<uint32_t>& new_of_old) {
  if (values.empty()) return;
  for (size_t p = 0; p < g.pieceCount(); ++p) {
    const size_t first = g.vertex_offsets[p];
    const std::vector old(values.begin() + std::ptrdiff_t(first),
                          values.begin() + std::ptrdiff_t(g.vertex_offsets[p + 1]));
    for (size_t v = 0; v < old.size(); ++v) values[first + new_of_old[first + v]] = old[v];
  }
}

// Unit vectors as normalized signed bytes (KHR_mesh_quantization), 4 bytes per element: x, y,
// z and w (0 for VEC3, whose fourth byte is padding). Parallel; the same bytes at any thread
// count.
template <typename Vec>
std::vector<uint8_t> snormBytes(const std::vector<Vec>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  tbb::parallel_for(size_t(0), values.size(), [&](size_t i) {
    for (int k = 0; k < 4; ++k) {
      const float x = k < Vec::length() ? values[i][k] : 0.0f;
      bytes[4 * i + size_t(k)] =
          uint8_t(int8_t(roundHalfAway(std::clamp(x, -1.0f, 1.0f) * 127.0f)));
    }
  });
  return bytes;
}

// Linear colours as normalized unsigned bytes, RGB plus a padding byte. Parallel.
std::vector<uint8_t> unormBytes(const std::vector<glm::vec3>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  tbb::parallel_for(size_t(0), values.size(), [&](size_t i) {
    for (int k = 0; k < 3; ++k) {
      bytes[4 * i + size_t(k)] =
          uint8_t(roundHalfAway(std::clamp(values[i][k], 0.0f, 1.0f) * 255.0f));
    }
  });
  return bytes;
}

// Frees an array once its bytes are in a view: the group and the file's bytes are not held
// twice (the glb writer's peak memory).
template <typename T>
void release(std::vector<T>& values) {
  std::vector<T>().swap(values);
}

}  // namespace

Json skirtAttributes(const PieceAccessors& p) {
  return p.all_attributes.is_null() ? p.attributes : p.all_attributes;
}

// Writes a group's arrays as views (one per attribute, one per index size) and one accessor set
// per piece. Quantized: NORMAL and TANGENT as normalized bytes, COLOR_0 as normalized unsigned
// bytes; POSITION, TEXCOORD_0 and the custom attributes stay float. Indices are uint16 for
// pieces of at most 65,535 vertices (65,535 itself is the restart value glTF forbids).
constexpr int kScalarMantissaBits = 16;

std::vector<PieceAccessors> encodeGroup(GlbBuilder& glb, Group& g,
                                        const std::vector<std::string>& scalar_names,
                                        bool quantize) {
  const std::vector<uint32_t> new_of_old =
      glb.compressed() ? reorderForCompression(g) : std::vector<uint32_t>();
  // A vertex array made now if the group makes them on demand (Group::make), then put in the
  // compressed order.
  const auto make = [&]<typename T>(std::vector<T>& values, VertexArray array, size_t a = 0) {
    if (g.make) g.make(g, array, a);
    if (!new_of_old.empty()) permute(values, g, new_of_old);
  };
  const size_t pieces = g.pieceCount();
  // Indices: small pieces in one uint16 view, the others in one uint32 view; each piece's
  // place found first, then the pieces converted in parallel. Converted first, so the group's
  // uint32 indices are not held while its vertex arrays are made; written last.
  const auto isSmall = [&](size_t p) { return g.vertexCount(p) <= 65535; };
  std::vector<size_t> offset(pieces);  // byte offset of the piece's indices in its view
  size_t small_bytes = 0, large_bytes = 0;
  for (size_t p = 0; p < pieces; ++p) {
    size_t& end = isSmall(p) ? small_bytes : large_bytes;
    offset[p] = end;
    end += (isSmall(p) ? 2 : 4) * (g.index_offsets[p + 1] - g.index_offsets[p]);
  }
  std::vector<uint8_t> small(small_bytes), large(large_bytes);
  tbb::parallel_for(size_t(0), pieces, [&](size_t p) {
    uint8_t* out = (isSmall(p) ? small : large).data() + offset[p];
    for (size_t i = g.index_offsets[p]; i < g.index_offsets[p + 1]; ++i) {
      if (isSmall(p)) {
        const uint16_t index = uint16_t(g.indices[i]);
        std::memcpy(out, &index, 2);
        out += 2;
      } else {
        std::memcpy(out, &g.indices[i], 4);
        out += 4;
      }
    }
  });
  release(g.indices);

  make(g.positions, VertexArray::kPositions);
  std::vector<PieceAccessors> out(pieces);
  // POSITION's min and max per piece (over its surface vertices, and over all of them when the
  // skirt adds some), taken before the positions move into their view.
  std::vector<std::pair<Json, Json>> surface_bounds(pieces), all_bounds(pieces);
  for (size_t p = 0; p < pieces; ++p) {
    const glm::vec3* first = g.positions.data() + g.vertex_offsets[p];
    surface_bounds[p] = positionBounds(first, g.surface_vertices[p]);
    if (g.surface_vertices[p] < g.vertexCount(p)) {
      all_bounds[p] = positionBounds(first, g.vertexCount(p));
    }
  }
  // Per piece an accessor over the surface vertices, and one over all if the skirt adds some.
  const auto vertexAccessors = [&](const char* name, int view, size_t element_bytes, Component type,
                                   bool normalized, const char* shape, bool bounds) {
    const auto add = [&](size_t p, bool all) {
      const auto& [min, max] = all ? all_bounds[p] : surface_bounds[p];
      return glb.addAccessor(view, g.vertex_offsets[p] * element_bytes, type, normalized,
                             all ? g.vertexCount(p) : g.surface_vertices[p], shape,
                             bounds ? min : Json(), bounds ? max : Json());
    };
    for (size_t p = 0; p < pieces; ++p) {
      out[p].attributes[name] = add(p, false);
      if (g.surface_vertices[p] < g.vertexCount(p)) out[p].all_attributes[name] = add(p, true);
    }
  };
  // Float arrays move into their views whole (ViewBytes: no copy); quantized ones are
  // converted, then freed.
  vertexAccessors("POSITION", glb.addVertexView(ViewBytes(std::move(g.positions)), 12), 12,
                  Component::kFloat, false, "VEC3", true);
  release(g.positions);
  make(g.normals, VertexArray::kNormals);
  if (!g.normals.empty() && quantize) {  // collision pieces have positions only
    vertexAccessors("NORMAL", glb.addVertexView(snormBytes(g.normals), 4), 4, Component::kByte,
                    true, "VEC3", false);
  } else if (!g.normals.empty()) {
    vertexAccessors("NORMAL", glb.addVertexView(ViewBytes(std::move(g.normals)), 12), 12,
                    Component::kFloat, false, "VEC3", false);
  }
  release(g.normals);
  make(g.tangents, VertexArray::kTangents);
  if (!g.tangents.empty()) {
    if (quantize) {
      vertexAccessors("TANGENT", glb.addVertexView(snormBytes(g.tangents), 4), 4, Component::kByte,
                      true, "VEC4", false);
    } else {
      vertexAccessors("TANGENT", glb.addVertexView(ViewBytes(std::move(g.tangents)), 16), 16,
                      Component::kFloat, false, "VEC4", false);
    }
  }
  release(g.tangents);
  make(g.uvs, VertexArray::kUvs);
  if (!g.uvs.empty()) {
    vertexAccessors("TEXCOORD_0", glb.addVertexView(ViewBytes(std::move(g.uvs)), 8), 8,
                    Component::kFloat, false, "VEC2", false);
  }
  release(g.uvs);
  make(g.colours, VertexArray::kColours);
  if (!g.colours.empty()) {
    if (quantize) {
      vertexAccessors("COLOR_0", glb.addVertexView(unormBytes(g.colours), 4), 4,
                      Component::kUnsignedByte, true, "VEC3", false);
    } else {
      vertexAccessors("COLOR_0", glb.addVertexView(ViewBytes(std::move(g.colours)), 12), 12,
                      Component::kFloat, false, "VEC3", false);
    }
  }
  release(g.colours);
  for (size_t a = 0; a < g.scalars.size(); ++a) {
    make(g.scalars[a], VertexArray::kScalar, a);
    // 16 mantissa bits: 0.06 m of 4 km, far below what the custom fields mean.
    vertexAccessors(scalar_names[a].c_str(),
                    glb.addScalarFloatView(ViewBytes(std::move(g.scalars[a])), kScalarMantissaBits),
                    4, Component::kFloat, false, "SCALAR", false);
    release(g.scalars[a]);
  }
  g.make = nullptr;  // frees what it held to make the arrays

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

}  // namespace planet_export
