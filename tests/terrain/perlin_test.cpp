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

TEST_CASE(
    "noise: the double-precision point is the float one where a float holds it, and keeps "
    "its fraction past 2^24",
    "[planet]") {
  const terrain::PerlinNoise noise(77);
  geodesy::HashStream rng(4, 5, 6);
  for (int i = 0; i < 20000; ++i) {
    const glm::vec3 p(float(rng.uniform() * 2e6 - 1e6), float(rng.uniform() * 200 - 100),
                      float(rng.uniform() * 2 - 1));
    REQUIRE(noise.noise(glm::dvec3(p)) == noise.noise(p));
  }
  // The 8-lane double path gives each lane the scalar's bits.
  double x[8], y[8], z[8];
  float out[8];
  for (int l = 0; l < 8; ++l) {
    x[l] = rng.uniform() * 1e9, y[l] = rng.uniform() * 1e3 - 500.0, z[l] = rng.uniform();
  }
  noise.noise8(x, y, z, out);
  for (int l = 0; l < 8; ++l) CHECK(out[l] == noise.noise(glm::dvec3(x[l], y[l], z[l])));
  // At 2^30 cycles (a 1 cm lattice on an Earth-sized planet) a float is whole numbers only, so
  // float noise is 0 there; the double coordinate still moves through the cell.
  const double far = 1073741824.0;
  float lo = 1, hi = -1;
  for (int k = 1; k < 64; ++k) {
    const glm::dvec3 p(far + k / 64.0, -far + 0.3, far + 0.7);
    CHECK(noise.noise(glm::vec3(p)) == 0.0f);
    const float n = noise.noise(p);
    lo = std::min(lo, n), hi = std::max(hi, n);
  }
  CHECK(hi - lo > 0.1f);
}
