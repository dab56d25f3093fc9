#pragma once
// Writers for the engine files: planet.glb (glTF 2.0 binary) and planet.obj + planet.mtl.
// Contract: a writer streams to exactly the path it is given and throws std::runtime_error
// naming that path on failure. Atomicity is the caller's: write to the temporary paths of an
// OutputTransaction (atomic_file.h) and commit.

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "geodesy/sphere_mesh.h"

namespace planet_export {

// A float per land vertex, written as the custom glTF attribute `name` (e.g. "_ELEVATION").
struct VertexAttribute {
  std::string name;
  std::span<const float> values;
};

struct PlanetSurface {
  const geodesy::SphereMesh* mesh = nullptr;
  std::span<const float> elevation_m;  // one per vertex, metres relative to radius_m
  double radius_m = 6371000.0;
  double sea_level_m = 0.0;  // ocean sphere radius is radius_m + sea_level_m
  // Extra float attributes; _ELEVATION is always written and need not be listed.
  std::vector<VertexAttribute> attributes;
  // JSON object text stored in the root node's extras (seed, frequency, full config).
  std::string extras_json = "{}";
  // Ocean sphere frequency (a coarse icosphere is plenty for a flat surface).
  int ocean_frequency = 32;
};

void writeGlb(const std::filesystem::path& path, const PlanetSurface& surface);
// Writes the OBJ to obj_path and the material library to mtl_path; the OBJ's mtllib line
// names mtl_library_name (the final file name, e.g. "planet.mtl", not the temporary one).
void writeObj(const std::filesystem::path& obj_path, const std::filesystem::path& mtl_path,
              const std::string& mtl_library_name, const PlanetSurface& surface);

}  // namespace planet_export
