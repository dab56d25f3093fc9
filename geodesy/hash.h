#pragma once
// Counter-based random numbers: every random value in planetgen is a pure function of
// (seed, stream, index), never a shared generator, so results do not depend on thread count
// or scheduling. Header-only so hot loops inline it.

#include <cstdint>

namespace geodesy {

// SplitMix64 finaliser: a bijective 64-bit mix with good avalanche.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// hash3 in parts, for loops that hold its first arguments fixed:
// hash3(a, b, c) == hashThen(hashThen(hashStart(a), b), c).
constexpr uint64_t hashStart(uint64_t a) {
  return mix64(a);
}
constexpr uint64_t hashThen(uint64_t h, uint64_t x) {
  return mix64(h ^ x);
}

// Hash of a (seed, stream, index) triple. Streams separate independent uses of one seed
// (e.g. droplet spawns vs. droplet directions); pick distinct constants per use.
constexpr uint64_t hash3(uint64_t seed, uint64_t stream, uint64_t index) {
  return hashThen(hashThen(hashStart(seed), stream), index);
}

// Uniform double in [0, 1) from the top 53 bits of a hash.
constexpr double unitFromHash(uint64_t h) {
  return double(h >> 11) * 0x1.0p-53;
}

// A small stream of random numbers for one entity (a droplet, a cloud at a tick).
struct HashStream {
  uint64_t state;
  constexpr HashStream(uint64_t seed, uint64_t stream, uint64_t index)
      : state(hash3(seed, stream, index)) {}
  constexpr uint64_t next() { return state = mix64(state); }
  constexpr double uniform() { return unitFromHash(next()); }
};

}  // namespace geodesy
