#pragma once
// Beyer 2015 §5.3, eq. 5.10 on the icosphere: the change map is blurred with the mesh
// neighbours and blended with itself, map = b * blurred + (1 - b) * map.

#include <cstdint>
#include <span>

#include "geodesy/sphere_mesh.h"

namespace erosion {

// One pass of a volume-preserving neighbour average: vertex i exchanges
// min(A_i, A_j) / 7 * (c_j - c_i) of volume with each neighbour j (A = dual area), so
// sum(c * A) is unchanged; on equal areas it is the mean over the closed one-ring.
// Then blends with factor b in [0,1]. change has one entry per vertex, in place.
// Vertices flagged in `channel` (one per vertex; null = none) exchange nothing.
// Parallel in the caller's oneTBB arena; the result does not depend on the thread count.
void blendBlurredChange(const geodesy::SphereMesh& mesh, double b, std::span<double> change,
                        const uint8_t* channel = nullptr);

}  // namespace erosion
