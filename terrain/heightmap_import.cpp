#include "terrain/heightmap_import.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <string>

#include <png.h>
#include <tbb/parallel_for.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "geodesy/latlon.h"
#include "io/file_writer.h"

namespace terrain {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kMaxInterlacedBytes = size_t(1) << 30;
constexpr png_alloc_size_t kMaxChunkBytes = png_alloc_size_t(64) << 20;

// Everything decodeRows touches lives here, in the caller's frame: libpng reports errors by
// longjmp-ing back into decodeRows, which skips the destructors of decodeRows' own locals, so
// it has none that need one.
struct ReadState {
  std::jmp_buf jump;
  char message[256] = {};
  std::FILE* file = nullptr;
  HeightmapLimits limits;
  png_uint_32 width = 0, height = 0;
  bool over_limit = false;
  bool interlaced_too_large = false;
  // A palette image: its colours as 16-bit luminance, and the first pixel whose index is
  // beyond them (libpng expands such an index to black, which made a flat planet).
  std::vector<uint16_t> palette;
  bool bad_index = false;
  png_uint_32 bad_x = 0, bad_y = 0;
  unsigned bad_value = 0;
  std::vector<uint8_t> rows;
  std::vector<png_bytep> row_pointers;
};

void pngError(png_structp png, png_const_charp message) {
  auto* state = static_cast<ReadState*>(png_get_error_ptr(png));
  std::strncpy(state->message, message, sizeof(state->message) - 1);
  std::longjmp(state->jump, 1);
}

void pngWarning(png_structp, png_const_charp) {}

uint16_t luminance16(double r, double g, double b, double max_value) {
  const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;  // Rec. 709 luma weights
  return uint16_t(std::lround(std::clamp(y * 65535.0 / max_value, 0.0, 65535.0)));
}

// One decoded row (after the transforms: 1 or 3 channels, 8 or 16 bits in host order) to
// 16-bit samples.
void convertRow(const uint8_t* row, int channels, int depth, png_uint_32 width, uint16_t* out) {
  for (png_uint_32 x = 0; x < width; ++x) {
    if (depth == 16) {
      const uint16_t* p = reinterpret_cast<const uint16_t*>(row) + size_t(x) * size_t(channels);
      out[x] = channels == 1 ? p[0] : luminance16(p[0], p[1], p[2], 65535.0);
    } else {
      const uint8_t* p = row + size_t(x) * size_t(channels);
      out[x] = channels == 1 ? uint16_t(p[0] * 257) : luminance16(p[0], p[1], p[2], 255.0);
    }
  }
}

// One row of palette indices (one byte each) to 16-bit samples; false at the first index beyond
// the palette (noted in state).
bool convertPaletteRow(const uint8_t* row, png_uint_32 width, png_uint_32 y, ReadState* state,
                       uint16_t* out) {
  for (png_uint_32 x = 0; x < width; ++x) {
    if (row[x] >= state->palette.size()) {
      state->bad_index = true;
      state->bad_x = x;
      state->bad_y = y;
      state->bad_value = row[x];
      return false;
    }
    out[x] = state->palette[row[x]];
  }
  return true;
}

// Returns nullptr on success (or when over a limit: state->over_limit, or at a palette index
// beyond the palette: state->bad_index), else libpng's message.
const char* decodeRows(ReadState* state, HeightmapImage* out) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, state, pngError, pngWarning);
  if (png == nullptr) return "png_create_read_struct failed";
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return "png_create_info_struct failed";
  }
  if (setjmp(state->jump) != 0) {
    png_destroy_read_struct(&png, &info, nullptr);
    return state->message;
  }
  png_init_io(png, state->file);
  png_set_sig_bytes(png, 8);
  // Our own limits are checked below with a clearer message; libpng's only stop absurd sizes.
  png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
  png_set_chunk_malloc_max(png, kMaxChunkBytes);
  // Only the image is read: every ancillary chunk (text, colour profiles, ...) is skipped
  // unparsed, without a buffer. libpng 1.6.39 otherwise allocates a zTXt chunk's declared
  // length (up to 2 GiB) before it finds the file ends there (a fuzz finding,
  // tests/fuzz/findings/heightmap/ztxt_length_beyond_chunk_limit.png).
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr, -1);
  png_read_info(png, info);
  state->width = png_get_image_width(png, info);
  state->height = png_get_image_height(png, info);
  if (state->width > png_uint_32(state->limits.max_side) ||
      state->height > png_uint_32(state->limits.max_side) ||
      uint64_t(state->width) * state->height > state->limits.max_pixels) {
    state->over_limit = true;
    png_destroy_read_struct(&png, &info, nullptr);
    return nullptr;
  }
  const int colour = png_get_color_type(png, info);
  const bool palette = colour == PNG_COLOR_TYPE_PALETTE;
  if (palette) {
    // Indices are mapped here rather than by libpng, so that one beyond the palette is found.
    png_colorp entries = nullptr;
    int count = 0;
    if (png_get_PLTE(png, info, &entries, &count) != PNG_INFO_PLTE) count = 0;
    for (int i = 0; i < count; ++i)
      state->palette.push_back(
          luminance16(entries[i].red, entries[i].green, entries[i].blue, 255.0));
    if (png_get_bit_depth(png, info) < 8) png_set_packing(png);
  }
  if (colour == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) {
    png_set_expand_gray_1_2_4_to_8(png);
  }
  if (colour & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(png);
  const uint16_t probe = 1;
  if (png_get_bit_depth(png, info) == 16 && *reinterpret_cast<const uint8_t*>(&probe) == 1) {
    png_set_swap(png);  // PNG stores 16-bit samples big-endian
  }
  const int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  const int channels = png_get_channels(png, info);
  const int depth = png_get_bit_depth(png, info);
  out->source_bit_depth = depth;
  out->source_rgb = channels >= 3 || palette;
  const auto convert = [&](const uint8_t* row, png_uint_32 y) {
    uint16_t* samples = &out->samples[size_t(y) * state->width];
    if (!palette) {
      convertRow(row, channels, depth, state->width, samples);
      return true;
    }
    return convertPaletteRow(row, state->width, y, state, samples);
  };
  const size_t rowbytes = png_get_rowbytes(png, info);
  out->width = int(state->width);
  out->height = int(state->height);
  out->samples.resize(size_t(state->width) * state->height);
  if (passes > 1) {
    // Interlaced: every pass revisits the rows, so the whole image must be held.
    if (rowbytes * state->height > kMaxInterlacedBytes) {
      state->interlaced_too_large = true;
      png_destroy_read_struct(&png, &info, nullptr);
      return nullptr;
    }
    state->rows.resize(rowbytes * state->height);
    state->row_pointers.resize(state->height);
    for (png_uint_32 y = 0; y < state->height; ++y) {
      state->row_pointers[y] = state->rows.data() + size_t(y) * rowbytes;
    }
    png_read_image(png, state->row_pointers.data());
    for (png_uint_32 y = 0; y < state->height; ++y) {
      if (!convert(state->row_pointers[y], y)) break;
    }
  } else {
    state->rows.resize(rowbytes);
    for (png_uint_32 y = 0; y < state->height; ++y) {
      png_read_row(png, state->rows.data(), nullptr);
      if (!convert(state->rows.data(), y)) break;
    }
  }
  if (state->bad_index) {
    png_destroy_read_struct(&png, &info, nullptr);
    return nullptr;
  }
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return nullptr;
}

// A 16-bit PNG within the pixel limits is far smaller; a larger file is not a heightmap.
constexpr uint64_t kMaxHeightmapFileBytes = uint64_t(1) << 30;

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

HeightmapImage readHeightmapPng(const std::filesystem::path& path, const HeightmapLimits& limits) {
  const std::string name = path.string();
  const auto fail = [&](const std::string& problem) {
    return std::runtime_error("cannot read heightmap " + name + ": " + problem);
  };
  std::string problem;
  const int fd = io::openInputFile(path, kMaxHeightmapFileBytes, problem);
  if (fd < 0) throw fail("the file " + problem);
  std::unique_ptr<std::FILE, FileCloser> file(::fdopen(fd, "rb"));
  if (!file) {
    ::close(fd);
    throw fail(std::strerror(errno));
  }
  png_byte signature[8] = {};
  const size_t got = std::fread(signature, 1, sizeof(signature), file.get());
  if (got < sizeof(signature) || png_sig_cmp(signature, 0, sizeof(signature)) != 0) {
    throw fail(got == 0 ? "the file is empty" : "not a PNG file (bad signature)");
  }
  ReadState state;
  state.file = file.get();
  state.limits = limits;
  HeightmapImage image;
  if (const char* error = decodeRows(&state, &image)) {
    throw fail(std::string("truncated or corrupt PNG (libpng: ") + error + ")");
  }
  if (state.over_limit) {
    throw fail("its size " + std::to_string(state.width) + " x " + std::to_string(state.height) +
               " exceeds the limits (each side at most " + std::to_string(limits.max_side) +
               ", at most " + std::to_string(limits.max_pixels) + " pixels)");
  }
  if (state.bad_index) {
    throw fail("pixel (" + std::to_string(state.bad_x) + ", " + std::to_string(state.bad_y) +
               ") uses palette index " + std::to_string(state.bad_value) +
               ", beyond its palette of " + std::to_string(state.palette.size()) +
               " colours (a damaged or badly written palette image)");
  }
  if (state.interlaced_too_large) {
    throw fail(
        "an interlaced PNG this large would need more than 1 GiB to decode; save it "
        "without interlacing");
  }
  if (image.width < 2 || image.height < 1) {
    throw fail("an equirectangular heightmap needs at least 2 x 1 pixels");
  }
  return image;
}

std::vector<float> sampleHeightmap(const geodesy::SphereMesh& mesh, const HeightmapImage& image,
                                   const HeightmapRange& range) {
  const int w = image.width, h = image.height;
  const double pi = std::numbers::pi;
  const double scale = (range.max_m - range.min_m) / 65535.0;
  std::vector<float> elevation(mesh.vertexCount());
  tbb::parallel_for(size_t(0), elevation.size(), [&](size_t v) {
    const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(mesh.positions[v]));
    // Continuous pixel coordinates whose integers are pixel centres.
    const double fx = (ll.lon_rad + pi) / (2.0 * pi) * w - 0.5;
    const double fy = std::clamp((0.5 * pi - ll.lat_rad) / pi * h - 0.5, 0.0, double(h - 1));
    const double x_floor = std::floor(fx), y_floor = std::floor(fy);
    const double tx = fx - x_floor, ty = fy - y_floor;
    const int x0 = int(((int64_t(x_floor) % w) + w) % w), x1 = (x0 + 1) % w;
    const int y0 = int(y_floor), y1 = std::min(y0 + 1, h - 1);
    const auto at = [&](int x, int y) {
      return double(image.samples[size_t(y) * size_t(w) + size_t(x)]);
    };
    const double top = at(x0, y0) + (at(x1, y0) - at(x0, y0)) * tx;
    const double bottom = at(x0, y1) + (at(x1, y1) - at(x0, y1)) * tx;
    elevation[v] = float(range.min_m + (top + (bottom - top) * ty) * scale);
  });
  return elevation;
}

ImportedHeightmap importHeightmap(const std::filesystem::path& png_path,
                                  const geodesy::SphereMesh& mesh,
                                  const HeightmapImportOptions& options) {
  const HeightmapImage image = readHeightmapPng(png_path, options.limits);
  ImportedHeightmap result;
  result.range = options.range;
  if (options.use_sidecar) {
    std::filesystem::path sidecar = png_path;
    sidecar.replace_extension(".json");
    if (const std::optional<HeightmapRange> range = readHeightmapSidecar(sidecar)) {
      result.range = *range;
      result.range_from_sidecar = true;
    }
  }
  result.width = image.width;
  result.height = image.height;
  result.elevation_m = sampleHeightmap(mesh, image, result.range);
  return result;
}

std::optional<HeightmapRange> readHeightmapSidecar(const std::filesystem::path& json_path) {
  constexpr uint64_t kMaxSidecarBytes = 1 << 20;  // a sidecar lists a few files
  std::string problem;
  const int fd = io::openInputFile(json_path, kMaxSidecarBytes, problem);
  if (fd < 0 && problem == "does not exist") return std::nullopt;
  if (fd < 0) throw std::runtime_error("heightmap sidecar " + json_path.string() + " " + problem);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw std::runtime_error("heightmap sidecar " + json_path.string() + ": " +
                               std::strerror(error));
    }
    text.append(buffer, size_t(n));
  }
  ::close(fd);
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception& e) {
    throw std::runtime_error("heightmap sidecar " + json_path.string() +
                             " is not valid JSON: " + e.what());
  }
  // Elevations become float metres: a range beyond this bound (10,000 km, far more relief than
  // any planet) would overflow float or lose all precision, so it is refused.
  constexpr double kMaxAbsElevationM = 1e7;
  const auto describe = [&](const HeightmapRange& r) {
    std::ostringstream out;
    out << "heightmap sidecar " << json_path.string() << ": files[] range min_m = " << r.min_m
        << ", max_m = " << r.max_m << " is not allowed; allowed: finite values within +-"
        << kMaxAbsElevationM << " m with min_m <= max_m";
    return out.str();
  };
  if (doc.is_object() && doc.contains("files") && doc["files"].is_array()) {
    for (const Json& entry : doc["files"]) {
      if (entry.is_object() && entry.contains("min_m") && entry["min_m"].is_number() &&
          entry.contains("max_m") && entry["max_m"].is_number()) {
        const HeightmapRange range{entry["min_m"].get<double>(), entry["max_m"].get<double>()};
        const auto inside = [&](double m) {
          return std::isfinite(m) && std::abs(m) <= kMaxAbsElevationM;
        };
        if (!inside(range.min_m) || !inside(range.max_m) || !(range.min_m <= range.max_m)) {
          throw std::runtime_error(describe(range));
        }
        return range;
      }
    }
  }
  throw std::runtime_error("heightmap sidecar " + json_path.string() +
                           " has no files[] entry with numbers min_m and max_m");
}

}  // namespace terrain
