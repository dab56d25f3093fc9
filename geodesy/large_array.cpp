#include "geodesy/large_array.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
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
  constexpr uintptr_t kBlock = uintptr_t(2) << 20;
  const auto kPage = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
  if (end <= begin) return true;
  // Blocks on 2 MB boundaries, so that each huge page is made by one call.
  const uintptr_t first = begin / kBlock, last = (end - 1) / kBlock;
  std::atomic<bool> all{true};
  // Isolated: callers may be inside a parallel loop's body (erosion makes a thread's change
  // buffer on its first droplet), and a thread waiting here must not be handed another task of
  // that loop, which would re-enter the caller half-way.
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(first, last + 1, [&](uintptr_t block) {
      const uintptr_t lo = std::max(begin, block * kBlock);
      const uintptr_t hi = std::min(end, (block + 1) * kBlock);
      if (madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE) != 0) all = false;
    });
  });
  return all;
#else
  return false;
#endif
}

}  // namespace geodesy
