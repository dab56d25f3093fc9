#pragma once
// The triangle sets the engine file is made of ("pieces"), with the per-vertex data engines
// need beyond the planet's own: equirectangular texture coordinates and tangents, and the
// ocean surface built on the land mesh.
//
// A piece is a list of source vertices (an index into some per-vertex arrays: a chunk's
// arrays, or the full mesh) plus local triangles. Texture coordinates follow the maps
// (equirect_sampler.h): u = (lon + pi) / 2 pi, v = (pi/2 - lat) / pi, so (0, 0) is the
// top-left pixel corner as glTF expects. A triangle that straddles longitude +-180 degrees
// gets copies of its western vertices with u + 1 (the texture repeats in u), so no triangle
// spans more than half the texture; a vertex at a pole, where longitude is undefined, gets one
// copy per triangle with the mean u of the triangle's other corners.

#include <cstdint>
#include <span>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "export/detail/piece_ids.h"
#include "export/planet_surface.h"
#include "geodesy/sphere_mesh.h"

namespace planet_export {

// Mesh vertex v of `surface` in the planet frame, in double: its unit direction times radius_m
// plus its elevation, lowered by `drop` metres (skirt bottoms). The land positions of every
// engine file (the glb's chunks and whole-mesh piece, the OBJ), so they hold the same numbers.
inline glm::dvec3 landPosition(const PlanetSurface& surface, uint32_t v, double drop = 0.0) {
  return (surface.radius_m + double(surface.elevation_m[v]) - drop) *
         glm::normalize(glm::dvec3(surface.mesh->positions[v]));
}

struct Piece {
  std::vector<uint32_t> source;  // per piece vertex: the vertex it copies
  std::vector<glm::vec2> uv;     // per piece vertex
  std::vector<uint32_t> indices;
  uint32_t surface_indices = 0;  // the first ones; the rest (skirts) form a second primitive
};

// Equirectangular (u, v) of a direction (any length > 0), u in [0, 1), v in [0, 1].
glm::dvec2 equirectUv(const glm::dvec3& direction);

// Splits the seam and the poles of a triangle set. directions[s] is the direction of source
// vertex s (unit or not); indices are 3 per triangle into it; the first surface_indices form
// the surface. The result's source lists every input vertex in order (source[i] = i for
// i < directions.size()), then the copies.
Piece splitSeam(std::span<const glm::vec3> directions, std::span<const uint32_t> indices,
                uint32_t surface_indices);

// glTF TANGENT (xyz unit, w = handedness) for a vertex with this unit normal at this direction:
// the east direction (where u grows) made orthogonal to the normal; w such that the bitangent
// cross(normal, xyz) * w points north, "up" in the image as glTF's normalTexture convention
// has it (+X right, +Y up), which is how normals.png stores east and north.
glm::vec4 equirectTangent(const glm::vec3& normal, const glm::vec3& direction);

// The ocean on a land mesh: those of `faces` that have a corner below sea level
// (elevation_m[v] < sea_level_m). vertices: the mesh vertices they use, ascending. Every
// underwater vertex's triangles are all included, so the ocean surface over it is the fan of
// the same triangles at sea-level radius: above the land vertex, which lies on the same ray
// at a smaller radius.
// distinct: scratch (piece_ids.h), one per thread.
struct OceanCover {
  std::vector<uint32_t> vertices;
  std::vector<uint32_t> faces;  // mesh face ids, ascending
};
OceanCover oceanCover(const geodesy::SphereMesh& mesh, std::span<const float> elevation_m,
                      double sea_level_m, std::span<const uint32_t> faces, DistinctIds& distinct);

// The cover as a mesh at `radius_m`: positions (radius * unit direction), radial unit normals,
// and 3 indices per triangle into them, same winding as the land. local: scratch (piece_ids.h),
// one per thread.
struct OceanMesh {
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<uint32_t> indices;
};
OceanMesh oceanMesh(const geodesy::SphereMesh& mesh, const OceanCover& cover, double radius_m,
                    LocalIds& local);
// The same in parts, written into a piece's share of a group: the positions and the normals of
// a cover's vertices (arrays of vertices.size(); an empty one is not written), and its
// 3 cover.faces.size() indices.
void writeOceanVertices(const geodesy::SphereMesh& mesh, std::span<const uint32_t> vertices,
                        double radius_m, std::span<glm::vec3> positions,
                        std::span<glm::vec3> normals);
void writeOceanIndices(const geodesy::SphereMesh& mesh, const OceanCover& cover, LocalIds& local,
                       std::span<uint32_t> indices);

// Radius of the ocean surface: radius_m + sea_level_m plus two float32 steps at that radius
// (1 m for an Earth-sized planet), so that rounding the written positions can never lift a
// land vertex below sea level over the water.
double oceanRadius(double radius_m, double sea_level_m);

}  // namespace planet_export
