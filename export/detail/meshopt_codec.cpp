#include "export/detail/meshopt_codec.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#ifdef PLANETGEN_HAVE_MESHOPT
#include <meshoptimizer.h>
#endif

namespace planet_export {

bool meshoptAvailable() {
#ifdef PLANETGEN_HAVE_MESHOPT
  return true;
#else
  return false;
#endif
}

std::vector<uint8_t> meshoptFilterExp(std::span<const uint8_t> floats, int bits) {
#ifdef PLANETGEN_HAVE_MESHOPT
  std::vector<float> values(floats.size() / 4);
  std::memcpy(values.data(), floats.data(), values.size() * 4);
  std::vector<uint8_t> out(values.size() * 4);
  meshopt_encodeFilterExp(out.data(), values.size(), 4, bits, values.data());
  return out;
#else
  (void)floats, (void)bits;
  throw std::runtime_error("planetgen was built without meshoptimizer");
#endif
}

std::vector<uint32_t> meshoptReorder(std::vector<uint32_t>& indices, size_t surface,
                                     size_t vertex_count) {
  std::vector<uint32_t> new_of_old(vertex_count);
#ifdef PLANETGEN_HAVE_MESHOPT
  for (const auto& [first, end] : {std::pair{size_t(0), surface}, {surface, indices.size()}}) {
    if (end > first) {
      meshopt_optimizeVertexCache(&indices[first], &indices[first], end - first, vertex_count);
    }
  }
  meshopt_optimizeVertexFetchRemap(new_of_old.data(), indices.data(), indices.size(), vertex_count);
  uint32_t next = 0;
  for (uint32_t n : new_of_old) {
    if (n != ~0u) next = std::max(next, n + 1);
  }
  for (uint32_t& n : new_of_old) {
    if (n == ~0u) n = next++;
  }
  for (uint32_t& i : indices) i = new_of_old[i];
#else
  (void)indices;
  (void)surface;
  for (size_t v = 0; v < vertex_count; ++v) new_of_old[v] = uint32_t(v);
#endif
  return new_of_old;
}

std::vector<uint8_t> meshoptEncode(std::span<const uint8_t> bytes, size_t element_bytes,
                                   const char* mode) {
#ifdef PLANETGEN_HAVE_MESHOPT
  const size_t count = bytes.size() / element_bytes;
  std::vector<uint8_t> out;
  const bool triangles = std::strcmp(mode, "TRIANGLES") == 0;
  if (triangles || std::strcmp(mode, "INDICES") == 0) {
    std::vector<uint32_t> indices(count);
    uint32_t vertex_count = 0;
    for (size_t i = 0; i < count; ++i) {
      if (element_bytes == 2) {
        uint16_t v;
        std::memcpy(&v, &bytes[2 * i], 2);
        indices[i] = v;
      } else {
        std::memcpy(&indices[i], &bytes[4 * i], 4);
      }
      vertex_count = std::max(vertex_count, indices[i] + 1);
    }
    meshopt_encodeIndexVersion(1);
    if (triangles) {
      out.resize(meshopt_encodeIndexBufferBound(count, vertex_count));
      out.resize(meshopt_encodeIndexBuffer(out.data(), out.size(), indices.data(), count));
    } else {
      out.resize(meshopt_encodeIndexSequenceBound(count, vertex_count));
      out.resize(meshopt_encodeIndexSequence(out.data(), out.size(), indices.data(), count));
    }
  } else {
    meshopt_encodeVertexVersion(0);
    out.resize(meshopt_encodeVertexBufferBound(count, element_bytes));
    out.resize(
        meshopt_encodeVertexBuffer(out.data(), out.size(), bytes.data(), count, element_bytes));
  }
  return out;
#else
  (void)bytes;
  (void)element_bytes;
  throw std::runtime_error(std::string("EXT_meshopt_compression (") + mode +
                           "): planetgen was built without meshoptimizer "
                           "(install libmeshoptimizer-dev and rebuild)");
#endif
}

}  // namespace planet_export
