#pragma once
// Heightmap import: elevations for a mesh from an equirectangular PNG (our own heightmap.png,
// or one made elsewhere), so a planet can start from a given map instead of noise.

#include <cstdint>
#include <filesystem>
#include <vector>

#include <optional>
#include "geodesy/sphere_mesh.h"

namespace terrain {

// Metres mapped to 0 and 65535 (min_m < max_m, or equal for a flat planet).
struct HeightmapRange {
  double min_m = 0.0;
  double max_m = 0.0;
};

// Refused before any pixel memory is allocated.
struct HeightmapLimits {
  int max_side = 32768;                     // width and height
  uint64_t max_pixels = uint64_t(1) << 28;  // width * height
};

// A decoded heightmap: one 16-bit sample per pixel, row-major from the top-left; value / 65535
// is the height between the range's ends. 8-bit images are scaled by 257 (so 255 -> 65535
// exactly); RGB(A) images become Rec. 709 luminance 0.2126 R + 0.7152 G + 0.0722 B of the
// stored values; alpha is ignored; palette and low bit depths are expanded (a palette image
// whose pixels use an index beyond its palette is refused).
struct HeightmapImage {
  int width = 0;
  int height = 0;
  int source_bit_depth = 0;  // 8 or 16 after expansion
  bool source_rgb = false;
  std::vector<uint16_t> samples;
};

// Reads a PNG file with libpng. The header is checked against limits before any pixel memory
// is allocated. Throws std::runtime_error whose message names the file and the problem:
// cannot open, not a PNG, size over the limits, truncated or corrupt data (libpng's message),
// a palette index beyond the palette (naming the pixel).
HeightmapImage readHeightmapPng(const std::filesystem::path& path,
                                const HeightmapLimits& limits = {});

// Elevation (metres) at every mesh vertex: the image bilinearly interpolated at the vertex's
// latitude and longitude (pixel centres as in equirect_sampler.h; wraps in longitude, clamps
// at the poles' half-pixel rows), mapped from 0..65535 to [range.min_m, range.max_m].
// Parallel, deterministic.
std::vector<float> sampleHeightmap(const geodesy::SphereMesh& mesh, const HeightmapImage& image,
                                   const HeightmapRange& range);

struct HeightmapImportOptions {
  // Used when no sidecar is found (or use_sidecar is false).
  HeightmapRange range{-8000.0, 8000.0};
  // Look for the sidecar next to the PNG: the same path with the extension ".json"
  // (heightmap.png -> heightmap.json), as written by heightmapSidecarJson.
  bool use_sidecar = true;
  HeightmapLimits limits;
};

struct ImportedHeightmap {
  std::vector<float> elevation_m;  // one per mesh vertex
  HeightmapRange range;            // the range used
  bool range_from_sidecar = false;
  int width = 0;
  int height = 0;
};

// The range recorded in a sidecar written by planet_export::heightmapSidecarJson (the first entry
// with min_m and max_m), or nullopt if the file does not exist. Throws std::runtime_error naming
// the file if it exists but is not such a JSON document.
std::optional<HeightmapRange> readHeightmapSidecar(const std::filesystem::path& json_path);

// readHeightmapPng + readHeightmapSidecar + sampleHeightmap. Throws std::runtime_error naming
// the file on any read problem.
ImportedHeightmap importHeightmap(const std::filesystem::path& png_path,
                                  const geodesy::SphereMesh& mesh,
                                  const HeightmapImportOptions& options = {});

}  // namespace terrain
