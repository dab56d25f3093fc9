#pragma once
// Internal to export/ (gltf_writer.cpp): the Rivers and Lakes nodes of planet.glb.

#include "export/detail/glb_builder.h"
#include "export/water_geometry.h"

namespace planet_export {

// Appends to the glTF JSON, as children of node 0:
//  - node "Rivers": one indexed LINES primitive, each river a connected polyline (POSITION,
//    _DISCHARGE in m^3/s, _WIDTH in m; material "River");
//  - node "Lakes": one triangle primitive (POSITION, NORMAL; the Ocean material, ocean_material).
// Empty geometry gives nodes without a mesh.
void addWaterNodes(GlbBuilder& glb, const WaterGeometry& water, int ocean_material, Json& nodes,
                   Json& meshes, Json& materials);

}  // namespace planet_export
