#pragma once
// Writers for the engine files: planet.glb (glTF 2.0 binary) and planet.obj + planet.mtl.
// Contract: a writer streams to exactly the path it is given and throws std::runtime_error
// naming that path on failure. Atomicity is the caller's: write to the temporary paths of an
// OutputTransaction (atomic_file.h) and commit.
//
// Both writers emit the same vertex data (surface_buffers.h): land positions in metres,
// normals of the displaced surface, hypsometric/bathymetric vertex colours; and an ocean made
// of the land triangles with a corner below sea level, moved out to sea level (engine_pieces.h).
// Invalid surfaces (see validateSurface in surface_buffers.h; for writeGlb also extras_json
// that is not a JSON object) throw std::invalid_argument before any file is opened.
// Parallelism: may use the calling thread's oneTBB arena.

#include <filesystem>
#include <span>
#include <string>

#include "export/lod_levels.h"
#include "export/planet_surface.h"

namespace planet_export {

// glTF 2.0 binary: scene root node "Planet" (extras = extras_json) with children "Land"
// (POSITION, NORMAL, COLOR_0 linear RGB, _ELEVATION, every surface.attributes entry; uint32
// indices; opaque material) and "Ocean" (POSITION, NORMAL; semi-transparent BLEND material).
void writeGlb(const std::filesystem::path& path, const PlanetSurface& surface);

// Names of the optional collision meshes, after the engines' import conventions.
enum class CollisionNames {
  kNone,    // no collision meshes
  kGodot,   // "<chunk>-colonly": Godot makes a static body and drops the mesh
  kUnreal,  // "UCX_<chunk>_00": Unreal's convex collision prefix
};

// How planet.glb cuts and levels the land ([export] chunks, skirt_depth_m, lods).
struct GlbOptions {
  // k >= 1: the land of every level is cut into 20 k^2 chunks (chunks.h), each a node with
  // its own translation and local POSITIONs (chunk_frames.h); k must divide the frequency of
  // every level. 0: one Land mesh.
  int chunks = 0;
  // > 0 (with chunks): skirts of this depth in metres, as a second primitive of each chunk
  // mesh. 0: none.
  double skirt_depth_m = 0.0;
  // n >= 1: levels of detail 0 .. n (lod_levels.h; frequency f / 2^i, f divisible by 2^n).
  int lods = 0;
  // KHR_mesh_quantization: NORMAL and TANGENT as normalized bytes, COLOR_0 as normalized
  // unsigned bytes. POSITION, TEXCOORD_0 and the custom attributes stay float32 (positions
  // keep 1/16 m to 0.5 m steps, texture coordinates 1e-7).
  bool quantize = false;
  // EXT_meshopt_compression (required) on every bufferView; needs meshoptAvailable().
  bool meshopt = false;
  // TANGENT on the land (for normal maps on TEXCOORD_0).
  bool tangents = false;
  // Length of one file unit in metres: the Planet node is scaled by 1 / metres_per_unit
  // (1000: kilometres). Vertex data and custom attributes stay in metres.
  double metres_per_unit = 1.0;
  // Collision meshes (positions and triangles only) per chunk from a coarser level: f / 4, or
  // the coarsest of f / 2 and f that the chunks divide.
  CollisionNames collision = CollisionNames::kNone;
};

// Empty if the options suit a mesh of this frequency, else the message the writers would
// throw (for a config check before any work is done).
std::string glbOptionsProblem(int frequency, const GlbOptions& options);

// planet.glb with options. Scene graph, node and mesh names:
//   Planet (extras = extras_json)
//   +- Land            one mesh (chunks = 0, lods = 0), or the parent of:
//   |  +- Land_C0000 .. chunk nodes (chunks = k, lods = 0), translation = chunk frame; or
//   |  +- Land_LOD0    (lods = n) the full level: a mesh, or chunk nodes Land_LOD0_C0000 ..;
//   |                  extensions.MSFT_lod.ids = the nodes Land_LOD1 .. Land_LODn, which are
//   |                  not in the scene (MSFT_lod: importers without the extension show LOD0)
//   +- Ocean
// Every land primitive has POSITION, NORMAL, COLOR_0, _ELEVATION, _BIOME (if surface.biome),
// then surface.attributes; chunk meshes have a second primitive for the skirt. Land's extras
// hold the biome legend when biomes are given; chunk nodes' extras hold {chunk, lod}.
// Throws std::invalid_argument (glbOptionsProblem, validateSurface) before opening the file.
void writeGlb(const std::filesystem::path& path, const PlanetSurface& surface,
              const GlbOptions& options);
// The same with levels already built by buildLodLevels(surface, options.lods), e.g. because
// they are also written to files of their own (writeGlb(path, lodSurface(surface, level),
// {.chunks, .skirt_depth_m})).
void writeGlb(const std::filesystem::path& path, const PlanetSurface& surface,
              std::span<const LodLevel> lods, const GlbOptions& options);
// Writes the OBJ to obj_path and the material library to mtl_path; the OBJ's mtllib line
// names mtl_library_name (the final file name, e.g. "planet.mtl", not the temporary one).
// Objects "Land" and "Ocean", `v x y z r g b` (sRGB colours in [0, 1]), one `vn` per vertex,
// faces `f a//a b//b c//c`. Materials "Land" (white, opaque) and "Ocean" (blue, d 0.6).
void writeObj(const std::filesystem::path& obj_path, const std::filesystem::path& mtl_path,
              const std::string& mtl_library_name, const PlanetSurface& surface);

}  // namespace planet_export
