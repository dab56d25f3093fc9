#pragma once
// The planet file's checksum (planet/planet_file.cpp's layout comment): FNV-1a over 64-bit
// little-endian words, then the remaining bytes, folded. Shared with the tile input fuzz
// target, which patches planet files and must keep them valid.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace planet::detail {

inline uint64_t planetFileChecksum(const char* data, size_t n) {
  uint64_t h = 1469598103934665603ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, data + i, 8);
    h = (h ^ word) * 1099511628211ull;
  }
  for (; i < n; ++i) h = (h ^ uint8_t(data[i])) * 1099511628211ull;
  return h ^ (h >> 29);
}

}  // namespace planet::detail
