// libFuzzer target for the heightmap reader (terrain/heightmap_import.h).
//
// Input layout: a PNG file, optionally followed by a sidecar. The harness walks the chunks from
// byte 8 and rewrites each complete chunk's CRC, so mutations reach the decoder instead of all
// dying at libpng's CRC check (set PLANETGEN_FUZZ_KEEP_CRC=1 to keep them as they are); the
// bytes after a complete IEND chunk, if any, are written as the sidecar fuzz_input.json next to
// fuzz_input.png. Both go to terrain::importHeightmap with an f = 4 icosphere (162
// vertices, built once) and small limits (so a run is not spent zero-filling 512 MB buffers;
// the limit check is the same code for any values).
//
// Contract checked: a bad file raises std::runtime_error (or std::invalid_argument) whose
// message names the file; an accepted one gives one finite elevation per vertex inside the
// range used. Anything else aborts. PLANETGEN_FUZZ_DUMP=<dir> also copies the files as read
// (after the CRC rewrite) into <dir>, to reproduce a finding with planetgen itself.

#include <tbb/global_control.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "geodesy/sphere_mesh.h"
#include "terrain/heightmap_import.h"

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what_happened, const std::string& detail) {
  std::fprintf(stderr, "heightmap_fuzz: %s: %s\n", what_happened.c_str(), detail.c_str());
  std::abort();
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "planetgen_heightmap_fuzz.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) fail("mkdtemp failed", pattern);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

uint32_t readBigEndian32(const std::string& s, size_t at) {
  return uint32_t(uint8_t(s[at])) << 24 | uint32_t(uint8_t(s[at + 1])) << 16 |
         uint32_t(uint8_t(s[at + 2])) << 8 | uint32_t(uint8_t(s[at + 3]));
}

void writeBigEndian32(std::string& s, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + size_t(i)] = char(uint8_t(v >> (24 - 8 * i)));
}

// Rewrites the CRC of every complete chunk; returns where the PNG ends (after IEND's CRC), or
// the input's size when there is no complete IEND.
size_t fixChunks(std::string& png, bool fix_crc) {
  size_t at = 8;
  while (at + 12 <= png.size()) {
    const uint64_t length = readBigEndian32(png, at);
    if (length > png.size() - at - 12) break;
    const size_t crc_at = at + 8 + size_t(length);
    if (fix_crc) {
      const uLong crc =
          crc32(crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(png.data() + at + 4),
                uInt(length + 4));
      writeBigEndian32(png, crc_at, uint32_t(crc));
    }
    const bool iend = png.compare(at + 4, 4, "IEND") == 0;
    at = crc_at + 4;
    if (iend) return at;
  }
  return png.size();
}

void writeFile(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out) fail("cannot write", path.string());
}

void checkResult(const terrain::ImportedHeightmap& result, const geodesy::SphereMesh& mesh) {
  if (result.elevation_m.size() != mesh.vertexCount()) {
    fail("wrong elevation count", std::to_string(result.elevation_m.size()));
  }
  const double lo = result.range.min_m, hi = result.range.max_m;
  // One float rounding step of slack at either end.
  const double slack = 1e-6 * std::max(std::abs(lo), std::abs(hi)) + 1e-3;
  for (size_t v = 0; v < result.elevation_m.size(); ++v) {
    const float e = result.elevation_m[v];
    if (!std::isfinite(e) || e < lo - slack || e > hi + slack) {
      fail("elevation outside the range used",
           "vertex " + std::to_string(v) + " elevation " + std::to_string(e) + " range [" +
               std::to_string(lo) + ", " + std::to_string(hi) + "] (from " +
               (result.range_from_sidecar ? "the sidecar" : "the defaults") + "), image " +
               std::to_string(result.width) + " x " + std::to_string(result.height));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Sampling 162 vertices needs no worker threads; idle TBB workers would only cost exec/s.
  static tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  static const geodesy::SphereMesh mesh = geodesy::buildIcosphere(4);
  static const TempDir dir;
  static const fs::path png_path = dir.path / "fuzz_input.png";
  static const fs::path sidecar_path = dir.path / "fuzz_input.json";
  static const bool fix_crc = std::getenv("PLANETGEN_FUZZ_KEEP_CRC") == nullptr;
  static const char* dump_dir = std::getenv("PLANETGEN_FUZZ_DUMP");

  std::string png(reinterpret_cast<const char*>(data), size);
  const size_t png_end = fixChunks(png, fix_crc);
  const std::string_view sidecar = std::string_view(png).substr(png_end);
  writeFile(png_path, std::string_view(png).substr(0, png_end));
  std::error_code ec;
  fs::remove(sidecar_path, ec);
  if (!sidecar.empty()) writeFile(sidecar_path, sidecar);
  if (dump_dir != nullptr) {
    fs::copy_file(png_path, fs::path(dump_dir) / png_path.filename(),
                  fs::copy_options::overwrite_existing);
    if (!sidecar.empty()) {
      fs::copy_file(sidecar_path, fs::path(dump_dir) / sidecar_path.filename(),
                    fs::copy_options::overwrite_existing);
    }
  }

  terrain::HeightmapImportOptions options;
  options.limits.max_side = 4096;
  options.limits.max_pixels = uint64_t(1) << 20;
  try {
    checkResult(terrain::importHeightmap(png_path, mesh, options), mesh);
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    if (message.find(png_path.string()) == std::string::npos &&
        message.find(sidecar_path.string()) == std::string::npos) {
      fail(std::string(typeid(e).name()) + " does not name the file", message);
    }
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).empty()) fail("std::invalid_argument without a message", "");
  } catch (const std::exception& e) {
    fail(std::string("importHeightmap threw ") + typeid(e).name(), e.what());
  } catch (...) {
    fail("importHeightmap threw a non-std exception", "");
  }
  return 0;
}
