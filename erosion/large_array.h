#pragma once
// Big per-vertex arrays on transparent huge pages. A droplet step touches a few lines in each
// of several arrays far apart, so 4 KB pages would cost a TLB miss per line. Internal to
// erosion/.

#include <cstddef>
#include <vector>

namespace erosion {

// Asks the kernel to back [data, data + bytes) with transparent huge pages when it next
// touches it. A hint only: a no-op off Linux or when huge pages are off.
void adviseHugePages(void* data, size_t bytes);

// v.assign(n, value), with the memory advised for huge pages before its first touch when it
// is large.
template <typename T>
void assignLarge(std::vector<T>& v, size_t n, const T& value = T()) {
  if (n * sizeof(T) >= (size_t(4) << 20) && v.capacity() < n) {
    std::vector<T>().swap(v);
    v.reserve(n);
    adviseHugePages(v.data(), n * sizeof(T));
  }
  v.assign(n, value);
}

}  // namespace erosion
