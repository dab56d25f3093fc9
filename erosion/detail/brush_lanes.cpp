#include "erosion/detail/brush_lanes.h"

#include <cstdlib>

#include "erosion/detail/change_accumulator.h"
#include "erosion/detail/simd.h"

#if PLANETGEN_AVX2_KERNELS
#include <immintrin.h>
#endif

namespace erosion {

#if PLANETGEN_AVX2_KERNELS

// Every function below is compiled for AVX2 (simd.h) and only called where avx2Available().
namespace {

// Four quanta (below 2^51 in magnitude) rounded to the nearest integers, as
// ChangeAccumulator::Writer::addUnmarked4 does: adding 1.5 * 2^52 leaves them in the low bits.
PLANETGEN_AVX2 inline __m256i roundedQuanta(__m128 q) {
  const __m256d magic = _mm256_set1_pd(6755399441055744.0);  // 1.5 * 2^52
  return _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(_mm256_cvtps_pd(q), magic)),
                          _mm256_castpd_si256(magic));
}

// sums[id + l] += dh_l rounded to the nearest quantum, each half as addUnmarked4; a half with a
// change of 2^50 quanta or more goes one lane at a time.
PLANETGEN_AVX2 inline void addUnmarked8(int64_t* sums, uint32_t id, __m256 dh) {
  const __m256 q = _mm256_mul_ps(dh, _mm256_set1_ps(float(ChangeAccumulator::kScale)));
  const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), q);
  const int large = _mm256_movemask_ps(
      _mm256_cmp_ps(magnitude, _mm256_set1_ps(ChangeAccumulator::kMaxLaneQuanta), _CMP_GT_OQ));
  const __m128 halves[2] = {_mm256_castps256_ps128(q), _mm256_extractf128_ps(q, 1)};
  __m256i* at = reinterpret_cast<__m256i*>(sums + id);
  for (int half = 0; half < 2; ++half) {
    if (__builtin_expect(large >> (4 * half) & 0xf, 0)) {
      alignas(32) float lanes[8];
      _mm256_store_ps(lanes, dh);
      for (int l = 4 * half; l < 4 * half + 4; ++l)
        sums[id + l] += ChangeAccumulator::quantise(lanes[l]);
      continue;
    }
    _mm256_storeu_si256(
        at + half, _mm256_add_epi64(_mm256_loadu_si256(at + half), roundedQuanta(halves[half])));
  }
}

}  // namespace

PLANETGEN_AVX2 float takeRowBrush8(const RowBrushTarget& t, const LatticeBrush& brush,
                                   const RowBrushFrame& frame, float amount) {
  const __m256 sea = _mm256_set1_ps(t.sea_level), share = _mm256_set1_ps(t.base_level_share);
  const __m256 amount8 = _mm256_set1_ps(amount), zero = _mm256_setzero_ps();
  __m128 volume = _mm_setzero_ps();
  for (const LatticeBrush::Row& row : brush.rows) {
    const uint32_t first = frame.first(row);
    const float* w = brush.padded_weights.data() + row.first_padded;
    for (uint32_t k = 0; k < row.count; k += 8) {
      const uint32_t id = first + k;
      const __m256 above = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(t.height + id), sea), share);
      const __m256 wanted = _mm256_mul_ps(
          amount8, _mm256_mul_ps(_mm256_loadu_ps(w + k), _mm256_loadu_ps(t.erodibility + id)));
      const __m256 take = _mm256_min_ps(wanted, _mm256_max_ps(above, zero));
      const __m256 taken = _mm256_mul_ps(take, _mm256_loadu_ps(t.area + id));
      // The four-lane code's order: this block's first four, then its next four.
      volume = _mm_add_ps(volume, _mm256_castps256_ps128(taken));
      volume = _mm_add_ps(volume, _mm256_extractf128_ps(taken, 1));
      addUnmarked8(t.sums, id, _mm256_sub_ps(zero, take));
    }
    ChangeAccumulator::markRun(t.dirty, first, first + row.count - 1);
  }
  alignas(16) float sums[4];
  _mm_store_ps(sums, volume);
  return (sums[0] + sums[1]) + (sums[2] + sums[3]);
}

PLANETGEN_AVX2 float spreadRowBrush8(const RowBrushTarget& t, const LatticeBrush& brush,
                                     const RowBrushFrame& frame, float volume, bool capped) {
  const __m256 sea = _mm256_set1_ps(t.sea_level), zero = _mm256_setzero_ps();
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  // The lanes of a block that belong to its row.
  auto inRow = [&](const LatticeBrush::Row& row, uint32_t k) PLANETGEN_AVX2 {
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(int(row.count - k)), lane));
  };
  // The land weight, added vertex by vertex (a sea vertex and a padding lane add +0, which
  // leaves the sum as it is), and the highest vertex, sea or land.
  float land = 0.0f;
  __m256 ceiling = sea;
  for (const LatticeBrush::Row& row : brush.rows) {
    const uint32_t first = frame.first(row);
    const float* w = brush.padded_weights.data() + row.first_padded;
    for (uint32_t k = 0; k < row.count; k += 8) {
      const __m256 h = _mm256_loadu_ps(t.height + first + k);
      const __m256 valid = inRow(row, k);
      // std::max(ceiling, h): ceiling where h is not larger (a NaN h included).
      ceiling = _mm256_blendv_ps(ceiling, _mm256_max_ps(h, ceiling), valid);
      alignas(32) float weights[8];
      _mm256_store_ps(weights,
                      _mm256_and_ps(_mm256_loadu_ps(w + k), _mm256_cmp_ps(h, sea, _CMP_GE_OQ)));
      const uint32_t n = row.count - k < 8 ? row.count - k : 8;
      for (uint32_t l = 0; l < n; ++l) land += weights[l];
    }
  }
  if (!(land > 0.0f)) return 0.0f;
  alignas(32) float highest[8];
  _mm256_store_ps(highest, ceiling);
  float top = t.sea_level;
  for (float h : highest) top = top < h ? h : top;
  const __m256 top8 = _mm256_set1_ps(top), scale = _mm256_set1_ps(volume / land);
  float laid = 0.0f;
  for (const LatticeBrush::Row& row : brush.rows) {
    const uint32_t first = frame.first(row);
    const float* w = brush.padded_weights.data() + row.first_padded;
    for (uint32_t k = 0; k < row.count; k += 8) {
      const uint32_t id = first + k;
      const __m256 h = _mm256_loadu_ps(t.height + id);
      const __m256 inv_area = _mm256_loadu_ps(t.inv_area + id);
      __m256 share = _mm256_mul_ps(scale, _mm256_loadu_ps(w + k));
      // std::min(share, room): the room where it is smaller.
      if (capped) share = _mm256_min_ps(_mm256_div_ps(_mm256_sub_ps(top8, h), inv_area), share);
      // The scalar loop's vertices: in the row, not below the sea (!(h < sea)), a share > 0.
      const __m256 given =
          _mm256_and_ps(_mm256_and_ps(inRow(row, k), _mm256_cmp_ps(h, sea, _CMP_NLT_UQ)),
                        _mm256_cmp_ps(share, zero, _CMP_GT_OQ));
      const __m256 laid8 = _mm256_and_ps(share, given);
      addUnmarked8(t.sums, id, _mm256_mul_ps(laid8, inv_area));
      // Marked as the scalar loop's adds mark: the blocks of the vertices given a share.
      if (const unsigned mask = unsigned(_mm256_movemask_ps(given)))
        ChangeAccumulator::markRun(t.dirty, id + __builtin_ctz(mask),
                                   id + 31 - __builtin_clz(mask));
      alignas(32) float shares[8];
      _mm256_store_ps(shares, laid8);
      const uint32_t n = row.count - k < 8 ? row.count - k : 8;
      for (uint32_t l = 0; l < n; ++l) laid += shares[l];
    }
  }
  return laid;
}

#else

float takeRowBrush8(const RowBrushTarget&, const LatticeBrush&, const RowBrushFrame&, float) {
  std::abort();  // callers check avx2Available()
}

float spreadRowBrush8(const RowBrushTarget&, const LatticeBrush&, const RowBrushFrame&, float,
                      bool) {
  std::abort();
}

#endif

}  // namespace erosion
