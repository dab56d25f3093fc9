#include "erosion/detail/simd.h"

namespace erosion {

bool avx2Available() {
#if PLANETGEN_AVX2_KERNELS
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
#else
  return false;
#endif
}

}  // namespace erosion
