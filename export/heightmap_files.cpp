#include "export/heightmap_files.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <tbb/parallel_for.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "export/detail/map_input.h"
#include "export/equirect_sampler.h"
#include "io/file_writer.h"

namespace planet_export {
namespace {

using Json = nlohmann::ordered_json;

template <typename T>
void putLittleEndian(char* out, T value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  const uint16_t probe = 1;
  const bool little = *reinterpret_cast<const uint8_t*>(&probe) == 1;
  for (size_t i = 0; i < sizeof(T); ++i) out[i] = char(bytes[little ? i : sizeof(T) - 1 - i]);
}

template <typename T>
std::string encodeRaw(const std::vector<T>& pixels) {
  std::string bytes(pixels.size() * sizeof(T), '\0');
  tbb::parallel_for(size_t(0), pixels.size(),
                    [&](size_t i) { putLittleEndian(&bytes[i * sizeof(T)], pixels[i]); });
  return bytes;
}

}  // namespace

HeightmapRange heightmapRange(const PlanetSurface& surface, const HeightmapOptions& options) {
  if (!options.use_data_range) return {options.min_m, options.max_m};
  const auto [lo, hi] = std::minmax_element(surface.elevation_m.begin(), surface.elevation_m.end());
  return {double(*lo), double(*hi)};
}

FloatImage renderElevationMap(const PlanetSurface& surface, int width) {
  checkMapInput("renderElevationMap", surface, width);
  EquirectLocations own;
  const EquirectLocations& where = mapLocations(surface, width, width / 2, own);
  FloatImage image;
  image.width = width;
  image.height = width / 2;
  image.pixels = sampleVertexField(*surface.mesh, where, surface.elevation_m);
  return image;
}

std::string encodeRawU16(const Gray16Image& image) {
  return encodeRaw(image.pixels);
}

std::string encodeRawF32(const FloatImage& image) {
  return encodeRaw(image.pixels);
}

std::string heightmapSidecarJson(const std::vector<HeightmapSidecar>& files) {
  Json list = Json::array();
  for (const HeightmapSidecar& f : files) {
    Json entry = {{"file", f.file},
                  {"encoding", f.encoding},
                  {"projection", f.projection},
                  {"width", f.width},
                  {"height", f.height}};
    if (f.encoding == "raw-float32-le") {
      entry["decode"] = "elevation_m = value";
    } else {
      entry["decode"] = "elevation_m = min_m + value / 65535 * (max_m - min_m)";
    }
    entry["min_m"] = f.range.min_m;
    entry["max_m"] = f.range.max_m;
    entry["radius_m"] = f.radius_m;
    entry["sea_level_m"] = f.sea_level_m;
    list.push_back(std::move(entry));
  }
  Json doc = {
      {"format", "planetgen heightmap sidecar 1"},
      {"units", "metres"},
      {"elevation_reference",
       "elevation_m is height above the sphere of radius_m (sea level is sea_level_m on the same "
       "scale); a surface point lies at (radius_m + elevation_m) * direction"},
      {"equirectangular",
       "row-major from the top-left; pixel (x, y) of W x H is centred at longitude -180 + (x + "
       "0.5) * 360 / W degrees (east to the right) and latitude 90 - (y + 0.5) * 180 / H degrees "
       "(north up)"},
      {"cube_faces",
       "order +X, -X, +Y, -Y, +Z, -Z; OpenGL cube-map convention seen from inside, rows top to "
       "bottom: with s = 2 (x + 0.5) / N - 1 and t = 2 (y + 0.5) / N - 1 the direction is +X: "
       "(1, -t, -s), -X: (-1, -t, s), +Y: (s, 1, t), -Y: (s, -1, -t), +Z: (s, -t, 1), -Z: (-s, "
       "-t, -1)"},
      {"frame", "right-handed, +Y is the north pole, longitude 0 is +X, east is toward -Z"},
      {"files", std::move(list)},
  };
  return doc.dump(2) + "\n";
}

}  // namespace planet_export
