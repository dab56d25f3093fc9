#pragma once
// Big per-vertex arrays on transparent huge pages, for geodesy's mesh and erosion's tables
// (one helper for both). A droplet step touches a few lines in each of several arrays far
// apart, and the mesh's first touch is a serial fill, so 4 KB pages cost a TLB miss per line
// and a fault per 4 KB. Hints only: the values are the same either way.

#include <cstddef>
#include <iterator>
#include <vector>

namespace geodesy {

// Per-vertex arrays from this size up go on huge pages, whoever owns them (the mesh, the
// routing, erosion's tables): a flood visits vertices level by level all over the planet and a
// droplet reads several arrays far apart, so on 4 KB pages nearly every visit costs a TLB miss
// in each array it touches (at f = 1024 the flood took 2.3x as long). 4 MB is 1M floats (a
// planet of f = 316); smaller arrays stay on 4 KB pages, where two huge pages would be mostly
// zeroed for nothing.
inline constexpr size_t kHugePageMinBytes = size_t(4) << 20;

// Asks the kernel to back [data, data + bytes) with transparent huge pages when it next
// touches it. A hint only: a no-op off Linux or when huge pages are off.
void adviseHugePages(void* data, size_t bytes);

// Has the kernel map and zero the pages of [data, data + bytes) now, 2 MB at a time on every
// thread (madvise MADV_POPULATE_WRITE), so that a serial fill that follows does not spend its
// time in page faults, zeroing the pages one by one on one thread. A hint only: a no-op off
// Linux or where the kernel predates it (5.14); the values are the same either way. Returns
// whether the kernel took every block.
bool prefaultPages(void* data, size_t bytes);

// When n elements take at least min_bytes and v cannot hold them yet: reserves room for n
// (keeping v's elements), advises huge pages for it and maps them in parallel.
template <typename T>
void reserveLarge(std::vector<T>& v, size_t n, size_t min_bytes = kHugePageMinBytes) {
  if (n * sizeof(T) >= min_bytes && v.capacity() < n) {
    v.reserve(n);
    adviseHugePages(v.data(), n * sizeof(T));
    prefaultPages(v.data(), n * sizeof(T));
  }
}

// v.resize(n), from kHugePageMinBytes up on huge pages (the mesh: at f = 1024 it is 1 GB).
template <typename T>
void resizeLarge(std::vector<T>& v, size_t n) {
  reserveLarge(v, n);
  v.resize(n);
}

// v.assign(first, last), from kHugePageMinBytes up on huge pages (a copy of a per-vertex array).
// The old elements are dropped first, so the reserve does not copy them.
template <typename T, typename It>
void copyLarge(std::vector<T>& v, It first, It last) {
  const auto n = size_t(std::distance(first, last));
  if (v.capacity() < n) std::vector<T>().swap(v);
  reserveLarge(v, n);
  v.assign(first, last);
}

// v.assign(n, value), from kHugePageMinBytes up on huge pages (erosion's per-vertex tables). The
// old elements are dropped first, so the reserve does not copy them.
template <typename T>
void assignLarge(std::vector<T>& v, size_t n, const T& value = T()) {
  if (v.capacity() < n) std::vector<T>().swap(v);
  reserveLarge(v, n);
  v.assign(n, value);
}

}  // namespace geodesy
