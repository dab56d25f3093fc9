#pragma once
// Sizing the mesh's big arrays. Internal to geodesy.

#include <cstddef>
#include <vector>

namespace geodesy {

// Asks the kernel to back [data, data + bytes) with transparent huge pages when it next
// touches it. A hint only: a no-op off Linux or when huge pages are off.
void adviseHugePages(void* data, size_t bytes);

// v.resize(n), but for large n first reserves the memory untouched and advises huge pages, so
// that the first touch (the zero fill resize does, serially) faults 2 MB at a time instead of
// 4 KB: at f = 1024 the mesh is 1 GB and 4 KB faults took about 0.5 s of the build.
template <typename T>
void resizeLarge(std::vector<T>& v, size_t n) {
  if (n * sizeof(T) >= (size_t(32) << 20) && v.capacity() < n) {
    v.reserve(n);
    adviseHugePages(v.data(), n * sizeof(T));
  }
  v.resize(n);
}

}  // namespace geodesy
