#pragma once
// Vertex normals of a displaced sphere, shared by the engine writers and the map shading.

#include <span>
#include <vector>

#include <glm/vec3.hpp>

#include "geodesy/sphere_mesh.h"

namespace planet_export {

// Unit normals of the surface whose vertex v sits at
// (radius_m + exaggeration * elevation_m[v]) * normalize(mesh.positions[v]).
// Area-weighted: each face adds its un-normalised cross product (twice its area) to its three
// corners, in face order, in double; the sum is normalised and cast with toUnitFloat. A vertex
// whose faces cancel out gets its radial direction. elevation_m has one value per vertex.
// Every vertex's sum adds its faces in face order, so the result is the same at any thread
// count: on buildIcosphere's numbering the base faces' interior vertices are summed in
// parallel (on the caller's arena) and the edge vertices' on one thread over the faces that
// touch them; any other numbering takes one pass over all faces.
std::vector<glm::vec3> displacedVertexNormals(const geodesy::SphereMesh& mesh,
                                              std::span<const float> elevation_m, double radius_m,
                                              double exaggeration = 1.0);

// A non-zero direction as a float vector whose length, computed in double, is within 1e-6
// of 1 (normalised in double, cast, and re-normalised if the cast drifted).
glm::vec3 toUnitFloat(const glm::dvec3& direction);

}  // namespace planet_export
