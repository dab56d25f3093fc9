#pragma once
// erosion/'s AVX2 kernels (surface_lanes, brush_lanes) are built into a plain x86-64 binary and
// chosen at run time. Internal to erosion/.
//
// PLANETGEN_AVX2_KERNELS is 1 where the compiler can build them (x86-64 GCC or Clang), and
// PLANETGEN_AVX2 marks a function compiled for AVX2: without FMA, as a fused product would
// round differently from the scalar code the kernels match bit for bit. An attribute per
// function, which GCC and Clang both read (Clang ignores GCC's target pragma).

#if defined(__x86_64__) && defined(__GNUC__)
#define PLANETGEN_AVX2_KERNELS 1
#define PLANETGEN_AVX2 __attribute__((target("avx2")))
#endif

namespace erosion {

// Whether the AVX2 kernels run here: this build has them and the CPU has AVX2.
bool avx2Available();

}  // namespace erosion
