#include "erosion/detail/publish_lanes.h"

#include <cstdlib>

#if PLANETGEN_AVX2_KERNELS
#include <immintrin.h>
#endif

namespace erosion {

#if PLANETGEN_AVX2_KERNELS

PLANETGEN_AVX2 bool publishBlock4(const int64_t* const* sums, size_t slot_count, size_t begin,
                                  size_t count, double quantum_m, double height_scale,
                                  NodeTable& nodes) {
  // An integer below 2^51 in magnitude becomes a double exactly through the magic number
  // 1.5 * 2^52: its bits plus the magic's bits are the bits of magic + x.
  const __m256d magic = _mm256_set1_pd(6755399441055744.0);
  const __m256i magic_bits = _mm256_castpd_si256(magic);
  const __m256i limit = _mm256_set1_epi64x(int64_t(1) << 51);
  constexpr size_t kMaxBlock = 64;
  __m256d change[kMaxBlock / 4];
  if (count > kMaxBlock) return false;
  for (size_t i = 0; i < count; i += 4) {
    __m256i total = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums[0] + begin + i));
    for (size_t t = 1; t < slot_count; ++t)
      total = _mm256_add_epi64(
          total, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums[t] + begin + i)));
    // |total| < 2^51: total + 2^51 in [0, 2^52), as unsigned below 2^52.
    const __m256i shifted = _mm256_add_epi64(total, limit);
    const __m256i outside =
        _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), shifted),
                        _mm256_cmpgt_epi64(shifted, _mm256_set1_epi64x((int64_t(1) << 52) - 1)));
    if (!_mm256_testz_si256(outside, outside)) return false;
    const __m256d exact =
        _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(total, magic_bits)), magic);
    change[i / 4] = _mm256_mul_pd(exact, _mm256_set1_pd(quantum_m));
  }
  const __m256d scale = _mm256_set1_pd(height_scale);
  for (size_t i = 0; i < count; i += 4) {
    const size_t v = begin + i;
    const __m256d metres =
        _mm256_add_pd(_mm256_cvtps_pd(_mm_loadu_ps(nodes.start_m.data() + v)), change[i / 4]);
    const __m128 h = _mm256_cvtpd_ps(_mm256_mul_pd(metres, scale));
    _mm_storeu_ps(nodes.height.data() + v, h);
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, h);
    for (size_t l = 0; l < 4; ++l) nodes.points[v + l].h = lanes[l];
  }
  return true;
}

#else

bool publishBlock4(const int64_t* const*, size_t, size_t, size_t, double, double, NodeTable&) {
  std::abort();  // callers check avx2Available()
}

#endif

}  // namespace erosion
