#pragma once
// meshoptimizer's codecs as EXT_meshopt_compression stores them (internal to export/).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace planet_export {

// True when planetgen was built with meshoptimizer (Debian libmeshoptimizer-dev).
bool meshoptAvailable();

// Encodes one bufferView: mode "ATTRIBUTES" (element_bytes a multiple of 4, <= 256) with
// meshopt_encodeVertexBuffer, or "TRIANGLES" (element_bytes 2 or 4: uint16 or uint32 indices,
// a multiple of 3 of them) with meshopt_encodeIndexBuffer (index codec version 1). Throws
// std::runtime_error when meshoptimizer is not available.
// Reorders one piece for the codecs (meshoptimizer's vertex cache and vertex fetch
// optimisations): triangles within [0, surface) and within [surface, end) of `indices` are
// reordered separately, so the split stays; then vertices are renumbered in first-use order.
// Returns new_of_old (every old vertex gets a new number; unused ones go last, in order).
// Without meshoptimizer: the identity, indices untouched.
std::vector<uint32_t> meshoptReorder(std::vector<uint32_t>& indices, size_t surface,
                                     size_t vertex_count);

// EXT_meshopt_compression's EXPONENTIAL filter on float32 scalars: each value keeps its
// exponent and `bits` bits of mantissa (relative precision 2^-bits), which the vertex codec
// then packs far better than raw floats. Throws std::runtime_error without meshoptimizer.
std::vector<uint8_t> meshoptFilterExp(std::span<const uint8_t> floats, int bits);

std::vector<uint8_t> meshoptEncode(std::span<const uint8_t> bytes, size_t element_bytes,
                                   const char* mode);

}  // namespace planet_export
