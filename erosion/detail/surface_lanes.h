#pragma once
// sampleSurface for eight droplets at once, one per lane of AVX2 registers: the neighbour
// record and ring of every droplet's anchor are loaded and transposed into structure-of-arrays
// form, and the fan sector, the face, its weights, height and gradient are found for all eight
// with one instruction stream. Every lane does the same IEEE single operations in the same
// order as sampleSurface, so the results are bit-identical to eight sampleSurface calls (test
// "erosion: sampleSurface8 is sampleSurface eight times"). Internal to erosion/.

#include <cstdint>

#include "erosion/detail/lanes.h"
#include "erosion/detail/node_table.h"
#include "erosion/detail/simd.h"

namespace erosion {

inline constexpr int kSurfaceLanes = 8;

// One move of sampleSurface's search in each of eight lanes. Lane l looks for p[l] in the fan
// around near[l], the anchor its search has reached after moves[l] moves (0: a new query,
// near[l] the vertex sampleSurface would start from). Where p[l] lies in that fan, or the search
// may move no more (kLocateMoves), out[l] is what sampleSurface returns and bit l of the result
// is set; elsewhere near[l] becomes the far corner the search moves on to, moves[l] grows by one
// and out[l] is left as it was. So a lane whose point lies past its fan's rim need not hold up
// the other seven: it calls again with the new anchor once its record has been fetched (see
// runDroplets). Only where avx2Available(). Every lane must hold a valid query (a lane
// nobody needs may repeat another's).
uint32_t locateStep8(const VertexPoint* points, const VertexLinks* links,
                     uint32_t near[kSurfaceLanes], uint8_t moves[kSurfaceLanes],
                     const Lanes p[kSurfaceLanes], SurfaceSample out[kSurfaceLanes]);

// out[l] = sampleSurface(points, links, near[l], p[l]) for l = 0 .. 7: locateStep8 until every
// lane has found its face. Only where avx2Available(). A lane nobody needs must still
// hold a valid query (any vertex and a unit point near it).
void sampleSurface8(const VertexPoint* points, const VertexLinks* links,
                    const uint32_t near[kSurfaceLanes], const Lanes p[kSurfaceLanes],
                    SurfaceSample out[kSurfaceLanes]);

}  // namespace erosion
