#pragma once
// The one place erosion/ chooses its instruction sets. Every SIMD kernel sits beside its plain
// C++ twin and gives bit-identical results (tests/erosion_kernels_test.cpp compares them); CMake's
// PLANETGEN_SIMD=OFF defines PLANETGEN_NO_SIMD, which turns every kernel off here, so the plain
// paths are built and tested on x86-64 too (.ci/run's nosimd stage). Internal to erosion/.
//
// PLANETGEN_SSE2 is 1 where the four-lane kernels (lanes.h, node_table.h, visited_set.h,
// change_accumulator.h, droplet.cpp) are built: x86-64, whose baseline has SSE2.
// PLANETGEN_AVX2_KERNELS is 1 where the eight-lane kernels (surface_lanes, brush_lanes,
// publish_lanes) are built into a plain x86-64 binary, to be chosen at run time by
// avx2Available(); PLANETGEN_AVX2 marks a function compiled for AVX2: without FMA, as a fused
// product would round differently from the scalar code the kernels match bit for bit. An
// attribute per function, which GCC and Clang both read (Clang ignores GCC's target pragma).

#if !defined(PLANETGEN_NO_SIMD) && defined(__x86_64__) && defined(__SSE2__)
#define PLANETGEN_SSE2 1
#else
#define PLANETGEN_SSE2 0
#endif

#if !defined(PLANETGEN_NO_SIMD) && defined(__x86_64__) && defined(__GNUC__)
#define PLANETGEN_AVX2_KERNELS 1
#define PLANETGEN_AVX2 __attribute__((target("avx2")))
#else
#define PLANETGEN_AVX2_KERNELS 0
#endif

namespace erosion {

// Whether the AVX2 kernels run here: this build has them and the CPU has AVX2.
bool avx2Available();

}  // namespace erosion
