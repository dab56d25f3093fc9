#include "geodesy/large_array.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

#include <tbb/parallel_for.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace geodesy {

void adviseHugePages([[maybe_unused]] void* data, [[maybe_unused]] size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // madvise wants a page-aligned start; round inward to whole 2 MB pages.
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

bool prefaultPages([[maybe_unused]] void* data, [[maybe_unused]] size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  constexpr uintptr_t kPage = uintptr_t(4) << 10, kBlock = uintptr_t(2) << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
  if (end <= begin) return true;
  // Blocks on 2 MB boundaries, so that each huge page is made by one call.
  const uintptr_t first = begin / kBlock, last = (end - 1) / kBlock;
  std::atomic<bool> all{true};
  tbb::parallel_for(first, last + 1, [&](uintptr_t block) {
    const uintptr_t lo = std::max(begin, block * kBlock), hi = std::min(end, (block + 1) * kBlock);
    if (madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE) != 0) all = false;
  });
  return all;
#else
  return false;
#endif
}

}  // namespace geodesy
