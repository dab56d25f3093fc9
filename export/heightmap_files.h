#pragma once
// Elevation rasters as files for other tools: raw little-endian samples (.r16, .r32) and the
// sidecar JSON that says how to turn samples back into metres.
//
// Files (names are the caller's; these are the conventions docs/export.md documents):
//   heightmap.png   16-bit grayscale PNG (renderHeightmap), value v -> min_m + v / 65535 *
//                   (max_m - min_m)
//   heightmap.r16   the same samples, raw uint16 little-endian, row-major from the top-left
//   heightmap.r32   elevation in metres as raw float32 little-endian (renderElevationMap)
//   heightmap.json  the sidecar (heightmapSidecarJson), next to the rasters it describes

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "export/image.h"
#include "export/maps.h"
#include "export/planet_surface.h"

namespace planet_export {

// Metres mapped to 0 and 65535 (min_m < max_m, or equal for a flat planet).
struct HeightmapRange {
  double min_m = 0.0;
  double max_m = 0.0;
};

// The range renderHeightmap uses for these options: the data's range, or the options' own.
HeightmapRange heightmapRange(const PlanetSurface& surface, const HeightmapOptions& options);

// Elevation (metres relative to radius_m) interpolated at every pixel centre of a width x
// width / 2 equirectangular map (pixel layout of equirect_sampler.h). Throws
// std::invalid_argument for a surface validateSurface rejects or width < 2. Parallel,
// deterministic.
FloatImage renderElevationMap(const PlanetSurface& surface, int width);

// Raw little-endian bytes, row-major from the top-left, no header.
std::string encodeRawU16(const Gray16Image& image);
std::string encodeRawF32(const FloatImage& image);

// What a sidecar records about one raster file.
struct HeightmapSidecar {
  std::string file;        // the raster's file name, e.g. "heightmap.png"
  std::string encoding;    // "png-gray16", "raw-uint16-le" or "raw-float32-le"
  std::string projection;  // "equirectangular" or "cube-face"
  int width = 0;
  int height = 0;
  HeightmapRange range;  // for uint16 encodings: metres at 0 and 65535
  double radius_m = 0.0;
  double sea_level_m = 0.0;
};

// JSON object text (2-space indented) with the fields above plus units, the decoding formula,
// the pixel-centre convention and the planet frame. `files` may list several rasters sharing
// the range (e.g. the PNG, the .r16 and the .r32 of one map).
std::string heightmapSidecarJson(const std::vector<HeightmapSidecar>& files);

}  // namespace planet_export
