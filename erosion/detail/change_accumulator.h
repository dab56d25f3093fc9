#pragma once
// One thread's share of the height changes of a call's droplets, in fixed point.
//
// Integer addition is associative, so the sum over threads of these arrays does not depend on
// which thread ran which droplet: this is what makes erosion bit-identical for any thread count
// (see docs/erosion.md, "Parallel and deterministic"). Internal to erosion/.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "erosion/detail/simd.h"
#if PLANETGEN_SSE2
#include <emmintrin.h>
#endif

#include "geodesy/large_array.h"

namespace erosion {

class ChangeAccumulator {
 public:
  // Quanta per normalised height unit (one mean edge length of height, see droplet.h).
  // 2^44 resolves 6e-14 edge lengths and holds +-5e5 edge lengths of change.
  static constexpr double kScale = 17592186044416.0;  // 2^44
  // Changes are tracked by blocks of 2^kBlockShift consecutive vertices: marking a block is one
  // byte store, and publishing a block is a short contiguous sweep.
  static constexpr int kBlockShift = 5;
  static constexpr size_t kBlock = size_t(1) << kBlockShift;

  // Holds `padding` entries more than vertices (for blocks of a brush run that reach past the
  // last vertex; they only ever receive zeros).
  explicit ChangeAccumulator(size_t vertex_count, size_t padding = 0) {
    geodesy::assignLarge(sum_, vertex_count + padding, int64_t(0));
    dirty_.assign((vertex_count >> kBlockShift) + 1, 0);
  }

  // A droplet's handle on the buffer: raw pointers, kept in registers by copying the handle
  // into the hot loop (byte stores could alias its fields otherwise).
  class Writer {
   public:
    explicit Writer(ChangeAccumulator& a) : sum_(a.sum_.data()), dirty_(a.dirty_.data()) {}
    // Prefetches vertex v's sum for an add.
    void prefetch(uint32_t v) const { __builtin_prefetch(sum_ + v, 1); }
    // Adds dh (normalised height) to vertex v, rounded to the nearest quantum (truncation would
    // lose up to a quantum per add, always toward zero, and bias the volume balance).
    void add(uint32_t v, float dh) {
      sum_[v] += quantise(dh);
      dirty_[v >> kBlockShift] = 1;
    }
    // For a run of at most kBlock consecutive vertices: add without marking, then mark the
    // run (two blocks at most) once.
    void addUnmarked(uint32_t v, float dh) { sum_[v] += quantise(dh); }
#if PLANETGEN_SSE2
    // addUnmarked for vertices v .. v + 3 (dh in normalised height): the same sums as four
    // addUnmarked calls. Rounds through double: adding 1.5 * 2^52 leaves the nearest integer
    // (ties to even) in the low mantissa bits, which integer arithmetic reads off; exact below
    // 2^51 quanta. Larger changes (thousands of edge lengths: a tiny f, a huge relief) go one
    // lane at a time.
    void addUnmarked4(uint32_t v, __m128 dh) {
      const __m128 q = _mm_mul_ps(dh, _mm_set1_ps(float(kScale)));
      const __m128 magnitude = _mm_andnot_ps(_mm_set1_ps(-0.0f), q);
      if (__builtin_expect(
              _mm_movemask_ps(_mm_cmpgt_ps(magnitude, _mm_set1_ps(kMaxLaneQuanta))) != 0, 0)) {
        alignas(16) float lanes[4];
        _mm_store_ps(lanes, dh);
        for (uint32_t l = 0; l < 4; ++l) addUnmarked(v + l, lanes[l]);
        return;
      }
      const __m128d magic = _mm_set1_pd(6755399441055744.0);  // 1.5 * 2^52
      const __m128i magic_bits = _mm_castpd_si128(magic);
      const __m128i lo =
          _mm_sub_epi64(_mm_castpd_si128(_mm_add_pd(_mm_cvtps_pd(q), magic)), magic_bits);
      const __m128i hi = _mm_sub_epi64(
          _mm_castpd_si128(_mm_add_pd(_mm_cvtps_pd(_mm_movehl_ps(q, q)), magic)), magic_bits);
      __m128i* at = reinterpret_cast<__m128i*>(sum_ + v);
      _mm_storeu_si128(at, _mm_add_epi64(_mm_loadu_si128(at), lo));
      _mm_storeu_si128(at + 1, _mm_add_epi64(_mm_loadu_si128(at + 1), hi));
    }
#endif
    // The raw arrays, for brush_lanes' AVX2 kernel.
    int64_t* sumData() const {
      return sum_;
    }
    uint8_t* dirtyData() const {
      return dirty_;
    }
    void markRun(uint32_t first, uint32_t last) {
      ChangeAccumulator::markRun(dirty_, first, last);
    }

   private:
    int64_t* sum_;
    uint8_t* dirty_;
  };

  // Marks the blocks of vertices first .. last changed.
  static void markRun(uint8_t* dirty, uint32_t first, uint32_t last) {
    for (uint32_t block = first >> kBlockShift; block <= last >> kBlockShift; ++block)
      dirty[block] = 1;
  }

  // The largest |quanta| addUnmarked4 rounds four at a time (2^50; exact below 2^51).
  static constexpr float kMaxLaneQuanta = 1125899906842624.0f;

  // dh in quanta, rounded to the nearest (ties to even, the default rounding mode).
  static int64_t quantise(float dh) {
#if PLANETGEN_SSE2
    return _mm_cvtss_si64(_mm_set_ss(dh * float(kScale)));
#else
    return std::llrint(dh * float(kScale));
#endif
  }

  // Fixed-point total of this thread for vertex v since the call began.
  int64_t sum(uint32_t v) const {
    return sum_[v];
  }
  const int64_t* sums() const {
    return sum_.data();
  }
  void clear(uint32_t v) {
    sum_[v] = 0;
  }
  // Whether a block of vertices changed since the last call, which clears it.
  uint8_t takeDirty(size_t block) {
    const uint8_t d = dirty_[block];
    dirty_[block] = 0;
    return d;
  }

  size_t memoryBytes() const {
    return sum_.capacity() * sizeof(int64_t) + dirty_.capacity();
  }

 private:
  std::vector<int64_t> sum_;
  std::vector<uint8_t> dirty_;
};

}  // namespace erosion
