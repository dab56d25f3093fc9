#pragma once
// Writers for the engine files: planet.glb (glTF 2.0 binary) and planet.obj + planet.mtl.
// Contract: a writer streams to exactly the path it is given and throws std::runtime_error
// naming that path on failure. Atomicity is the caller's: write to the temporary paths of an
// OutputTransaction (atomic_file.h) and commit.
//
// Both writers emit the same vertex data (surface_buffers.h): land positions in metres,
// normals of the displaced surface, hypsometric/bathymetric vertex colours; and an ocean
// sphere of radius radius_m + sea_level_m built with geodesy::buildIcosphere(ocean_frequency).
// Invalid surfaces (see validateSurface in surface_buffers.h; for writeGlb also extras_json
// that is not a JSON object) throw std::invalid_argument before any file is opened.
// Parallelism: may use the calling thread's oneTBB arena.

#include <filesystem>
#include <string>

#include "export/planet_surface.h"

namespace planet_export {

// glTF 2.0 binary: scene root node "Planet" (extras = extras_json) with children "Land"
// (POSITION, NORMAL, COLOR_0 linear RGB, _ELEVATION, every surface.attributes entry; uint32
// indices; opaque material) and "Ocean" (POSITION, NORMAL; semi-transparent BLEND material).
void writeGlb(const std::filesystem::path& path, const PlanetSurface& surface);
// Writes the OBJ to obj_path and the material library to mtl_path; the OBJ's mtllib line
// names mtl_library_name (the final file name, e.g. "planet.mtl", not the temporary one).
// Objects "Land" and "Ocean", `v x y z r g b` (sRGB colours in [0, 1]), one `vn` per vertex,
// faces `f a//a b//b c//c`. Materials "Land" (white, opaque) and "Ocean" (blue, d 0.6).
void writeObj(const std::filesystem::path& obj_path, const std::filesystem::path& mtl_path,
              const std::string& mtl_library_name, const PlanetSurface& surface);

}  // namespace planet_export
