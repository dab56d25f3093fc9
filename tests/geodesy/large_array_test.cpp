// Large arrays (geodesy/large_array.h): pages mapped ahead of a serial fill, values as asked.

#include <algorithm>
#include <cstddef>
#include <vector>

#include <catch2/catch.hpp>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "geodesy/large_array.h"

TEST_CASE("large arrays: prefaulted pages are resident and the values as asked", "[geodesy]") {
#if defined(__linux__)
  // 24 MiB of fresh anonymous memory, none of it resident before prefaultPages; where the kernel
  // takes MADV_POPULATE_WRITE every page is resident after it, before a byte is written.
  const size_t page = size_t(sysconf(_SC_PAGESIZE)), bytes = size_t(24) << 20;
  void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(region != MAP_FAILED);
  std::vector<unsigned char> resident(bytes / page);
  const auto residentPages = [&] {
    REQUIRE(mincore(region, bytes, resident.data()) == 0);
    return std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; });
  };
  CHECK(residentPages() == 0);
  if (geodesy::prefaultPages(static_cast<char*>(region) + 100, bytes - 100)) {
    // All but the first page, which the range starts inside of.
    CHECK(residentPages() >= std::ptrdiff_t(resident.size() - 1));
  } else {
    WARN("MADV_POPULATE_WRITE not available: residency not checked");
  }
  munmap(region, bytes);
#endif
  // The arrays made through it (assignLarge's reserve prefaults) hold what was asked.
  const size_t n = size_t(6) << 20;
  std::vector<float> filled;
  geodesy::assignLarge(filled, n, 2.5f);
  CHECK(filled.size() == n);
  CHECK(std::all_of(filled.begin(), filled.end(), [](float x) { return x == 2.5f; }));
}
