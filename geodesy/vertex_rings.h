#pragma once
// Vertex rings: a vertex's neighbours in counter-clockwise order and its dual area, found by
// turning around the vertex through SphereMesh::faceAcross. Internal to geodesy. The builder uses
// the walk for the corners and base-edge vertices, whose faces lie in several base faces;
// interior vertices take a faster path straight from the lattice (icosphere.cpp).

#include <cstdint>
#include <vector>

#include "geodesy/sphere_mesh.h"

namespace geodesy {

// Area (steradians) of the spherical triangle over each face. Needs positions and indices.
// Parallel; each entry is written by one task, so the result does not depend on threads.
std::vector<float> sphericalFaceAreas(const SphereMesh& mesh);

// Writes the neighbours of v into mesh.neighbours from mesh.neighbour_offsets[v] on, and
// mesh.vertex_areas[v] = a third of the areas of the faces around v, summed in ring order.
// (face, corner) is any face corner at v; the ring starts there. Needs indices,
// faceAcross and neighbour_offsets; safe to call for different v concurrently.
void fillVertexRing(SphereMesh& mesh, const std::vector<float>& face_areas, uint32_t v,
                    uint32_t face, int corner);

}  // namespace geodesy
