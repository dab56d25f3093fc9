// 3D Perlin noise and its fBm (terrain/perlin.h): bounded, zero on the integer lattice,
// deterministic per seed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "geodesy/hash.h"
#include "terrain/perlin.h"

TEST_CASE("noise: values stay in [-1, 1] and vanish on the lattice", "[planet]") {
  const terrain::PerlinNoise noise(123);
  geodesy::HashStream rng(1, 2, 3);
  float lo = 1, hi = -1;
  for (int i = 0; i < 200000; ++i) {
    const glm::vec3 p(float(rng.uniform() * 200 - 100), float(rng.uniform() * 200 - 100),
                      float(rng.uniform() * 200 - 100));
    const float n = noise.noise(p);
    REQUIRE(std::isfinite(n));
    lo = std::min(lo, n), hi = std::max(hi, n);
  }
  CHECK(lo >= -1.0f);
  CHECK(hi <= 1.0f);
  // A real gradient noise spreads: not a constant, not tiny.
  CHECK(hi - lo > 1.0f);
  CHECK(noise.noise(glm::vec3(3, -7, 11)) == 0.0f);
  const terrain::FbmParams params{8, 1.7f, 2.0f, 0.5f};
  for (int i = 0; i < 10000; ++i) {
    const glm::vec3 p(float(rng.uniform() * 4 - 2), float(rng.uniform() * 4 - 2),
                      float(rng.uniform() * 4 - 2));
    const float f = fbm(noise, p, params);
    const float r = terrain::ridgedFbm(noise, p, params);
    REQUIRE(std::abs(f) <= 1.0f);
    REQUIRE(r >= 0.0f);
    REQUIRE(r <= 1.0f);
  }
}

TEST_CASE("noise: deterministic for a seed, different across seeds", "[planet]") {
  const terrain::PerlinNoise a(42), b(42), c(43);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const glm::vec3 p(0.37f * i, -0.11f * i + 0.5f, 0.05f * i + 0.25f);
    REQUIRE(a.noise(p) == b.noise(p));
    differ += a.noise(p) != c.noise(p);
  }
  CHECK(differ > 900);
}
