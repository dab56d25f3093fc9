#pragma once
// sampleSurface for eight droplets at once, one per lane of AVX2 registers: the neighbour
// record and ring of every droplet's anchor are loaded and transposed into structure-of-arrays
// form, and the fan sector, the face, its weights, height and gradient are found for all eight
// with one instruction stream. Every lane does the same IEEE single operations in the same
// order as sampleSurface, so the results are bit-identical to eight sampleSurface calls (test
// "erosion: sampleSurface8 is sampleSurface eight times"). Internal to erosion/.

#include <cstdint>

#include "erosion/lanes.h"
#include "erosion/node_table.h"

namespace erosion {

inline constexpr int kSurfaceLanes = 8;

// Whether this build and this CPU can run sampleSurface8 (x86-64 with AVX2).
bool surfaceLanesAvailable();

// out[l] = sampleSurface(points, links, near[l], p[l]) for l = 0 .. 7. Only where
// surfaceLanesAvailable(). A lane nobody needs must still hold a valid query (any vertex and a
// unit point near it).
void sampleSurface8(const VertexPoint* points, const VertexLinks* links,
                    const uint32_t near[kSurfaceLanes], const Lanes p[kSurfaceLanes],
                    SurfaceSample out[kSurfaceLanes]);

}  // namespace erosion
