#pragma once
// The six faces of a cube map of a planet, for engines that texture a sphere from a cube.
//
// Face order and orientation follow the OpenGL / Vulkan / KTX cube-map convention, each face
// seen from inside the cube, rows stored top to bottom. With s = 2 (x + 0.5) / N - 1 and
// t = 2 (y + 0.5) / N - 1 for pixel (x, y) of an N x N face, the direction is
//   +X: ( 1, -t, -s)   -X: (-1, -t,  s)
//   +Y: ( s,  1,  t)   -Y: ( s, -1, -t)
//   +Z: ( s, -t,  1)   -Z: (-s, -t, -1)
// In the planet frame (+Y north, longitude 0 at +X, east toward -Z) +Y is the north pole face
// and -Y the south pole face.

#include <array>

#include <glm/vec3.hpp>

#include "export/heightmap_files.h"
#include "export/image.h"
#include "export/planet_surface.h"

namespace planet_export {

enum class CubeFace : int { kPosX = 0, kNegX, kPosY, kNegY, kPosZ, kNegZ };
inline constexpr std::array<const char*, 6> kCubeFaceNames = {"px", "nx", "py", "ny", "pz", "nz"};

// Direction (not normalised) of the centre of pixel (x, y) of an N x N face.
glm::dvec3 cubeFaceDirection(CubeFace face, int x, int y, int size);

// 16-bit heightmaps of the six faces, samples round((e - min) / (max - min) * 65535) like
// renderHeightmap, elevation interpolated on the mesh at each pixel centre. size >= 1.
// Throws std::invalid_argument for a surface validateSurface rejects or size < 1. Parallel,
// deterministic.
std::array<Gray16Image, 6> renderCubeHeightmap(const PlanetSurface& surface, int size,
                                               const HeightmapRange& range);

}  // namespace planet_export
