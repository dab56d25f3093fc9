// hydrology's priority-flood queue (hydrology/detail/flood_queue.h): it must pop what a binary
// heap on (level, push count) pops, in the same order, for every sequence a flood can make.

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "hydrology/detail/flood_queue.h"

using hydrology::detail::FloodQueue;
using hydrology::detail::orderedBits;

TEST_CASE("flood queue: orderedBits orders floats as the floats", "[hydrology]") {
  const std::vector<float> values = {-std::numeric_limits<float>::infinity(),
                                     -3.4e38f,
                                     -1000.5f,
                                     -1.0f,
                                     -std::numeric_limits<float>::denorm_min(),
                                     0.0f,
                                     std::numeric_limits<float>::denorm_min(),
                                     1e-30f,
                                     0.5f,
                                     1.0f,
                                     8848.25f,
                                     3.4e38f,
                                     std::numeric_limits<float>::infinity()};
  for (size_t i = 1; i < values.size(); ++i) {
    INFO(values[i - 1] << " < " << values[i]);
    CHECK(orderedBits(values[i - 1]) < orderedBits(values[i]));
  }
  CHECK(orderedBits(-0.0f) == orderedBits(0.0f));  // equal floats
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> any(-12000.0f, 12000.0f);
  for (int k = 0; k < 100000; ++k) {
    const float a = any(rng), b = any(rng);
    REQUIRE((a < b) == (orderedBits(a) < orderedBits(b)));
  }
}

TEST_CASE("flood queue: pops what a binary heap on (level, push count) pops, in order",
          "[hydrology]") {
  // A flood's sequence: every level pushed is at or above the last level popped; levels
  // repeat often (flats, lakes at their spill level), -0 and +0 among them.
  for (const uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> rise(0, 3), batch(0, 6), step(0, 40), sign(0, 1);
    FloodQueue queue;
    using Entry = std::tuple<float, uint64_t, uint32_t>;  // level, push count, value
    const auto later = [](const Entry& a, const Entry& b) {
      return std::get<0>(a) > std::get<0>(b) ||
             (std::get<0>(a) == std::get<0>(b) && std::get<1>(a) > std::get<1>(b));
    };
    std::priority_queue<Entry, std::vector<Entry>, decltype(later)> heap(later);
    float level = -5.0f;  // the last level popped
    uint64_t pushes = 0, pops = 0;
    for (int round = 0; round < 20000; ++round) {
      for (int k = batch(rng); k-- > 0;) {
        float pushed = level + 0.25f * float(rise(rng) == 0 ? 0 : step(rng));
        if (pushed == 0.0f && sign(rng)) pushed = -0.0f;
        const auto value = uint32_t(rng());
        queue.push(pushed, value);
        heap.push({pushed, pushes++, value});
      }
      for (int k = batch(rng); k-- > 0 && !heap.empty();) {
        REQUIRE_FALSE(queue.empty());
        REQUIRE(queue.pop() == std::get<2>(heap.top()));
        level = std::get<0>(heap.top());
        heap.pop();
        ++pops;
      }
    }
    while (!heap.empty()) {
      REQUIRE(queue.pop() == std::get<2>(heap.top()));
      heap.pop();
      ++pops;
    }
    CHECK(queue.empty());
    CHECK(pops == pushes);
    CHECK(pushes > 50000);
  }
}

TEST_CASE("flood queue: a level pushed below the last popped is refused", "[hydrology]") {
  FloodQueue queue;
  queue.push(2.0f, 1);
  queue.push(5.0f, 2);
  CHECK(queue.pop() == 1);
  CHECK_THROWS_AS(queue.push(1.5f, 3), std::logic_error);
  queue.push(2.0f, 4);  // the level popped last: allowed, after what is pending at it
  CHECK(queue.pop() == 4);
  CHECK(queue.pop() == 2);
  CHECK(queue.empty());
}
