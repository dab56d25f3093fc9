#pragma once
// Internal to hydrology/ (rivers.cpp; detail/ is not installed): lake outlines and water-surface
// meshes.

#include <vector>

#include "hydrology/rivers.h"

namespace hydrology {

// Fills level, area, volume, depth, outlet, rings and the water surface of every shape
// (routing_lake and endorheic already set). Marching triangles over the faces that touch a
// lake: the lake is where level - surface > 0 on its own vertices; every other vertex is
// outside (at most at the level), so the shoreline crosses each edge from a lake vertex once.
void buildLakeShapes(const RiverInput& input, const FlowRouting& routing,
                     std::vector<LakeShape>& shapes);

}  // namespace hydrology
