#pragma once
// Local frames for chunks, chosen so that chunks which share a vertex reconstruct exactly the
// same world position from their own translation and local position.
//
// A glTF chunk node stores a translation T (JSON number) and float32 local positions L. The
// engine computes world = T + L, in float32 (most engines) or float64 (three.js on the CPU,
// Unreal's large world coordinates, Godot's double builds). Rounding the true position
// separately in each chunk would give shared border vertices slightly different world
// positions: cracks. Instead every vertex first gets one canonical world position W, a
// multiple of a power-of-two grid g, and:
//   - T is a multiple of g (and of a power of two coarse enough that T is a float32),
//   - L = W - T is a multiple of g with |L| <= 2^24 g, so float32 holds it exactly.
// Then T + L equals W exactly in float64, and float32 addition of the two floats rounds the
// exact sum W, so it gives float(W) in every chunk: bit-identical either way.
//
// g is the smallest power of two for which the largest chunk fits, so precision follows the
// chunk size: about 1/16 m for 20 * 8^2 chunks of an Earth-sized planet, against the 0.5 m
// steps of float32 world positions at 6371 km.

#include <span>
#include <vector>

#include <glm/vec3.hpp>

namespace planet_export {

struct Box {
  glm::dvec3 lo;
  glm::dvec3 hi;
};

struct ChunkFrames {
  double grid_m = 0.0;                   // g: every canonical world position is a multiple
  std::vector<glm::dvec3> translations;  // per chunk: multiples of g, exact as float32
};

// Frames for chunks with these world-space bounds (metres, lo <= hi, finite, not empty).
ChunkFrames chooseChunkFrames(std::span<const Box> chunk_bounds);

// The canonical world position: each component rounded to the nearest multiple of grid_m.
glm::dvec3 snapToGrid(const glm::dvec3& world_m, double grid_m);

// float(snapToGrid(world_m) - translation): exact for a translation and grid from
// chooseChunkFrames and a point inside that chunk's bounds.
glm::vec3 localPosition(const glm::dvec3& world_m, const glm::dvec3& translation, double grid_m);

}  // namespace planet_export
