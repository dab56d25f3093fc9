// Tests of heightmap import (export/heightmap_import): the PNG reader, sampling, round trips
// and clear errors for bad files.

#include <algorithm>
#include <array>
#include <cmath>
#include <csetjmp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <png.h>
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "export/biome_palette.h"
#include "export/cube_map.h"
#include "export/equirect_sampler.h"
#include "export/heightmap_files.h"
#include "export/maps.h"
#include "export/png_io.h"
#include "export/surface_maps.h"
#include "geodesy/latlon.h"
#include "geodesy/sphere_mesh.h"
#include "support/export_maps_planet.h"
#include "support/support.h"
#include "terrain/heightmap_import.h"
#include "weather/biomes.h"

namespace fs = std::filesystem;
using namespace planet_export;

using namespace export_maps_fixtures;

namespace {

// Encodes an 8/16-bit gray or RGB PNG with libpng (optionally interlaced), for reader tests.
std::string encodePng(int width, int height, int depth, int colour_type, bool interlaced,
                      const std::vector<uint8_t>& raw_big_endian_rows) {
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  REQUIRE(setjmp(png_jmpbuf(png)) == 0);
  png_set_write_fn(
      png, &out,
      [](png_structp p, png_bytep data, png_size_t size) {
        static_cast<std::string*>(png_get_io_ptr(p))->append(reinterpret_cast<char*>(data), size);
      },
      nullptr);
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), depth, colour_type,
               interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const size_t rowbytes = raw_big_endian_rows.size() / size_t(height);
  std::vector<png_bytep> rows(static_cast<size_t>(height));
  for (int y = 0; y < height; ++y) {
    rows[size_t(y)] = const_cast<png_bytep>(raw_big_endian_rows.data() + size_t(y) * rowbytes);
  }
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

// A palette PNG (bit depth 8, or 4) with `palette` grey colours and these indices; libpng's own
// check of the indices is off, so that indices beyond the palette can be written.
std::string encodePalettePng(int width, int height, int depth, const std::vector<uint8_t>& palette,
                             const std::vector<uint8_t>& indices) {
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  REQUIRE(setjmp(png_jmpbuf(png)) == 0);
  png_set_write_fn(
      png, &out,
      [](png_structp p, png_bytep data, png_size_t size) {
        static_cast<std::string*>(png_get_io_ptr(p))->append(reinterpret_cast<char*>(data), size);
      },
      nullptr);
  png_set_check_for_invalid_index(png, -1);
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), depth, PNG_COLOR_TYPE_PALETTE,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  std::vector<png_color> colours;
  for (uint8_t grey : palette) colours.push_back({grey, grey, grey});
  png_set_PLTE(png, info, colours.data(), int(colours.size()));
  png_write_info(png, info);
  const int per_byte = 8 / depth;
  const size_t rowbytes = (size_t(width) + size_t(per_byte) - 1) / size_t(per_byte);
  std::vector<uint8_t> row(rowbytes);
  for (int y = 0; y < height; ++y) {
    std::fill(row.begin(), row.end(), 0);
    for (int x = 0; x < width; ++x) {
      const int shift = 8 - depth * (x % per_byte + 1);
      row[size_t(x / per_byte)] |= uint8_t(indices[size_t(y * width + x)] << shift);
    }
    png_write_row(png, row.data());
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

uint32_t crc32(const std::string& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::string bigEndian32(uint32_t v) {
  return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

// A PNG whose IHDR (with a valid CRC) claims the given size, followed by a tiny IDAT.
std::string pngWithHeader(uint32_t width, uint32_t height) {
  std::string ihdr =
      "IHDR" + bigEndian32(width) + bigEndian32(height) + std::string("\x10\x00\x00\x00\x00", 5);
  std::string png = "\x89PNG\r\n\x1a\n";
  png += bigEndian32(13) + ihdr + bigEndian32(crc32(ihdr));
  const std::string idat = std::string("IDAT") + std::string("\x78\x9c\x03\x00\x00\x00\x00\x01", 8);
  png += bigEndian32(8) + idat + bigEndian32(crc32(idat));
  return png;
}

}  // namespace

TEST_CASE("import: every decoded heightmap pixel maps back to the elevation at its lat/lon",
          "[export][import]") {
  TempDir dir;
  TestPlanet planet(24);
  HeightmapOptions options;
  options.width = 512;
  const HeightmapRange range = heightmapRange(planet.surface, options);
  writePngGray16(dir.path / "heightmap.png", renderHeightmap(planet.surface, options));
  const terrain::HeightmapImage image = terrain::readHeightmapPng(dir.path / "heightmap.png");
  REQUIRE((image.width == 512 && image.height == 256 && image.source_bit_depth == 16));
  const double quantum = (range.max_m - range.min_m) / 65535.0;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const glm::dvec3 d = equirectDirection(x, y, image.width, image.height);
      const double e = interpolate(planet.mesh, planet.mesh.locate(glm::vec3(d)),
                                   std::span<const float>(planet.elevation));
      const double decoded = range.min_m + image.samples[size_t(y) * 512 + size_t(x)] * quantum;
      REQUIRE(std::abs(decoded - e) <= 0.5 * quantum + 1e-3);
    }
  }
}

TEST_CASE("import: our heightmap, imported onto the same mesh, gives back its elevations",
          "[export][import]") {
  // Export at a resolution well above the mesh (about 20 pixels per edge), import at the same
  // mesh's vertices, compare with the original elevations. Bilinear interpolation of pixels
  // near a vertex cannot give back the vertex value exactly where the surface bends there, so
  // each vertex's bound is the quantisation plus the largest difference between the vertex
  // and the mesh surface at the four pixel centres used (measured independently with locate),
  // and the typical error must be far below that.
  TempDir dir;
  TestPlanet planet(24);
  HeightmapOptions options;
  options.width = 4096;
  const HeightmapRange range = heightmapRange(planet.surface, options);
  writePngGray16(dir.path / "heightmap.png", renderHeightmap(planet.surface, options));
  HeightmapSidecar sidecar{"heightmap.png", "png-gray16", "equirectangular", 4096, 2048, range,
                           kRadius,         0.0};
  writeFile(dir.path / "heightmap.json", heightmapSidecarJson({sidecar}));

  terrain::HeightmapImportOptions import_options;
  import_options.range = {0.0, 1.0};  // wrong on purpose: the sidecar must win
  const terrain::ImportedHeightmap imported =
      terrain::importHeightmap(dir.path / "heightmap.png", planet.mesh, import_options);
  CHECK(imported.range_from_sidecar);
  CHECK((imported.range.min_m == range.min_m && imported.range.max_m == range.max_m));
  REQUIRE(imported.elevation_m.size() == planet.mesh.vertexCount());

  const double quantum = (range.max_m - range.min_m) / 65535.0;
  const int w = 4096, h = 2048;
  std::vector<double> errors;
  double worst_excess = -1e300;
  for (size_t v = 0; v < planet.mesh.vertexCount(); ++v) {
    const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(planet.mesh.positions[v]));
    const double fx = (ll.lon_rad + kPi) / (2 * kPi) * w - 0.5;
    const double fy = std::clamp((0.5 * kPi - ll.lat_rad) / kPi * h - 0.5, 0.0, double(h - 1));
    double spread = 0.0;
    for (int dx = 0; dx < 2; ++dx) {
      for (int dy = 0; dy < 2; ++dy) {
        const int x = int(((int64_t(std::floor(fx)) + dx) % w + w) % w);
        const int y = std::min(int(std::floor(fy)) + dy, h - 1);
        const double e =
            interpolate(planet.mesh, planet.mesh.locate(glm::vec3(equirectDirection(x, y, w, h))),
                        std::span<const float>(planet.elevation));
        spread = std::max(spread, std::abs(e - planet.elevation[v]));
      }
    }
    const double error = std::abs(double(imported.elevation_m[v]) - planet.elevation[v]);
    errors.push_back(error);
    worst_excess = std::max(worst_excess, error - (quantum + spread + 1e-3));
  }
  INFO("worst excess over the per-vertex bound: " << worst_excess << " m");
  CHECK(worst_excess <= 0.0);
  std::sort(errors.begin(), errors.end());
  const double median = errors[errors.size() / 2];
  WARN("import round trip at f = 24 from a 4096 x 2048 map: median error "
       << median << " m, max " << errors.back() << " m, quantum " << quantum << " m, relief "
       << range.max_m - range.min_m << " m");
  CHECK(median < 0.01 * (range.max_m - range.min_m));

  // Re-export the imported elevations: the heightmap comes out as before, within quantisation
  // plus the import error.
  std::vector<float> reimported = imported.elevation_m;
  PlanetSurface again = planet.surface;
  again.elevation_m = reimported;
  HeightmapOptions fixed = options;
  fixed.width = 256;
  fixed.use_data_range = false;
  fixed.min_m = range.min_m;
  fixed.max_m = range.max_m;
  const Gray16Image before = renderHeightmap(planet.surface, fixed);
  const Gray16Image after = renderHeightmap(again, fixed);
  const double worst_vertex = errors.back();
  for (size_t i = 0; i < before.pixels.size(); ++i) {
    REQUIRE(std::abs(int(before.pixels[i]) - int(after.pixels[i])) * quantum <=
            worst_vertex + quantum);
  }
}

TEST_CASE("import: PNG variants decode to 16-bit luminance", "[export][import]") {
  TempDir dir;
  SECTION("8-bit gray scales by 257") {
    writeFile(dir.path / "g8.png",
              encodePng(4, 2, 8, PNG_COLOR_TYPE_GRAY, false, {0, 1, 128, 255, 10, 20, 30, 40}));
    const terrain::HeightmapImage image = terrain::readHeightmapPng(dir.path / "g8.png");
    CHECK(image.source_bit_depth == 8);
    CHECK(image.samples ==
          std::vector<uint16_t>{0, 257, 128 * 257, 65535, 2570, 5140, 7710, 10280});
  }
  SECTION("16-bit gray keeps its values, also interlaced") {
    std::vector<uint8_t> rows;
    std::vector<uint16_t> expected;
    for (int i = 0; i < 9 * 7; ++i) {
      const uint16_t v = uint16_t(i * 1000 + 7);
      expected.push_back(v);
      rows.push_back(uint8_t(v >> 8));
      rows.push_back(uint8_t(v));
    }
    for (bool interlaced : {false, true}) {
      writeFile(dir.path / "g16.png", encodePng(9, 7, 16, PNG_COLOR_TYPE_GRAY, interlaced, rows));
      const terrain::HeightmapImage image = terrain::readHeightmapPng(dir.path / "g16.png");
      CHECK(image.samples == expected);
    }
  }
  SECTION("RGB becomes Rec. 709 luminance") {
    writeFile(dir.path / "rgb.png",
              encodePng(3, 1, 8, PNG_COLOR_TYPE_RGB, false, {255, 0, 0, 0, 255, 0, 255, 255, 255}));
    const terrain::HeightmapImage image = terrain::readHeightmapPng(dir.path / "rgb.png");
    CHECK(image.source_rgb);
    CHECK(image.samples[0] == uint16_t(std::lround(0.2126 * 65535)));
    CHECK(image.samples[1] == uint16_t(std::lround(0.7152 * 65535)));
    CHECK(image.samples[2] == 65535);
  }
  SECTION("a palette image maps each index to its colour's luminance") {
    writeFile(dir.path / "p8.png", encodePalettePng(3, 1, 8, {0, 255, 51}, {2, 0, 1}));
    CHECK(terrain::readHeightmapPng(dir.path / "p8.png").samples ==
          std::vector<uint16_t>{51 * 257, 0, 65535});
    writeFile(dir.path / "p4.png", encodePalettePng(3, 1, 4, {0, 255, 51}, {1, 2, 1}));
    CHECK(terrain::readHeightmapPng(dir.path / "p4.png").samples ==
          std::vector<uint16_t>{65535, 51 * 257, 65535});
  }
  SECTION("sampling wraps in longitude and reads the right pixel") {
    // 4 x 2 map: the vertex at longitude 0 on the equator sits between columns 1 and 2.
    writeFile(dir.path / "m.png",
              encodePng(4, 2, 8, PNG_COLOR_TYPE_GRAY, false, {0, 100, 200, 0, 0, 100, 200, 0}));
    const geodesy::SphereMesh mesh = geodesy::buildIcosphere(4);
    const std::vector<float> e = terrain::sampleHeightmap(
        mesh, terrain::readHeightmapPng(dir.path / "m.png"), {0.0, 65535.0});
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(mesh.positions[v]));
      if (std::abs(ll.lat_rad) < 1e-6 && std::abs(ll.lon_rad) < 1e-6) {
        CHECK(e[v] == Approx(150.0 * 257));
      }
      if (std::abs(ll.lat_rad) < 1e-6 && std::abs(std::abs(ll.lon_rad) - kPi) < 1e-6) {
        CHECK(e[v] == Approx(0.0).margin(1e-3));  // between columns 3 and 0 (wrapped)
      }
    }
  }
}

TEST_CASE("import: bad files give clear errors naming the file", "[export][import]") {
  TempDir dir;
  const auto message = [](const fs::path& path, const terrain::HeightmapLimits& limits = {}) {
    try {
      terrain::readHeightmapPng(path, limits);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const fs::path missing = dir.path / "missing.png";
  CHECK_THAT(message(missing),
             Catch::Contains(missing.string()) && Catch::Contains("does not exist"));
  // A FIFO must not hang the read, nor a folder read as an empty file.
  REQUIRE(::mkfifo((dir.path / "fifo.png").c_str(), 0600) == 0);
  CHECK_THAT(message(dir.path / "fifo.png"),
             Catch::Contains("fifo.png") && Catch::Contains("not a regular file"));
  fs::create_directories(dir.path / "folder.png");
  CHECK_THAT(message(dir.path / "folder.png"),
             Catch::Contains("folder.png") && Catch::Contains("is a folder"));
  writeFile(dir.path / "empty.png", "");
  CHECK_THAT(message(dir.path / "empty.png"), Catch::Contains("empty"));
  writeFile(dir.path / "text.png", "this is not a picture at all");
  CHECK_THAT(message(dir.path / "text.png"),
             Catch::Contains("text.png") && Catch::Contains("not a PNG"));

  std::vector<uint8_t> rows(64 * 32 * 2);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = uint8_t(i * 37);
  const std::string good = encodePng(64, 32, 16, PNG_COLOR_TYPE_GRAY, false, rows);
  writeFile(dir.path / "truncated.png", good.substr(0, good.size() / 2));
  CHECK_THAT(message(dir.path / "truncated.png"),
             Catch::Contains("truncated.png") && Catch::Contains("truncated or corrupt"));
  std::string corrupt = good;
  corrupt[corrupt.size() / 2] = char(corrupt[corrupt.size() / 2] ^ 0x55);  // inside IDAT: CRC
  writeFile(dir.path / "corrupt.png", corrupt);
  CHECK_THAT(message(dir.path / "corrupt.png"),
             Catch::Contains("corrupt.png") && Catch::Contains("truncated or corrupt"));

  // A tester's trial: a palette image whose pixels use indices beyond its palette was read as
  // black there (a flat planet).
  std::vector<uint8_t> indices(8 * 4, 1);
  indices[13] = 200;  // pixel (5, 1); the palette has 2 colours
  writeFile(dir.path / "palette.png", encodePalettePng(8, 4, 8, {10, 250}, indices));
  CHECK_THAT(message(dir.path / "palette.png"),
             Catch::Contains("palette.png") && Catch::Contains("pixel (5, 1)") &&
                 Catch::Contains("palette index 200") && Catch::Contains("palette of 2 colours"));
  indices[13] = 2;  // just past the end, in a 4-bit image
  writeFile(dir.path / "palette4.png", encodePalettePng(8, 4, 4, {10, 250}, indices));
  CHECK_THAT(message(dir.path / "palette4.png"), Catch::Contains("palette index 2,"));
  indices[13] = 1;
  writeFile(dir.path / "palette_ok.png", encodePalettePng(8, 4, 4, {10, 250}, indices));
  CHECK(message(dir.path / "palette_ok.png") == "no error");

  writeFile(dir.path / "huge.png", pngWithHeader(100000, 100000));
  CHECK_THAT(message(dir.path / "huge.png"), Catch::Contains("huge.png") &&
                                                 Catch::Contains("100000 x 100000") &&
                                                 Catch::Contains("exceeds the limits"));
  writeFile(dir.path / "many.png", pngWithHeader(30000, 30000));  // sides fine, 9e8 pixels
  CHECK_THAT(message(dir.path / "many.png"), Catch::Contains("exceeds the limits"));
  writeFile(dir.path / "small_limit.png", good);
  CHECK_THAT(message(dir.path / "small_limit.png", {.max_side = 16, .max_pixels = 1 << 20}),
             Catch::Contains("64 x 32"));
  CHECK(message(dir.path / "small_limit.png") == "no error");
}

TEST_CASE("import: the fuzz findings are refused with clear errors", "[export][import]") {
  TempDir dir;
  // A zTXt chunk that declares 1 GiB in a 45-byte file: refused as truncated, not allocated
  // (the fuzz stage replays the file under a 512 MB malloc limit).
  const fs::path ztxt = dir.path / "ztxt.png";
  fs::copy_file(fs::path(PLANETGEN_SOURCE_DIR) /
                    "tests/fuzz/findings/heightmap/ztxt_length_beyond_chunk_limit.png",
                ztxt);
  std::string ztxt_message = "no error";
  try {
    terrain::readHeightmapPng(ztxt);
  } catch (const std::runtime_error& e) {
    ztxt_message = e.what();
  }
  CHECK_THAT(ztxt_message, Catch::Contains(ztxt.string()) && Catch::Contains("truncated"));

  // A sidecar range beyond float (1e39 m) would turn every elevation into inf.
  TestPlanet planet(4);
  std::vector<uint8_t> rows(8 * 4 * 2, 0x80);
  writeFile(dir.path / "range.png", encodePng(8, 4, 16, PNG_COLOR_TYPE_GRAY, false, rows));
  const auto sidecarMessage = [&](const std::string& min_m, const std::string& max_m) {
    writeFile(dir.path / "range.json",
              R"({"files": [{"min_m": )" + min_m + R"(, "max_m": )" + max_m + "}]}");
    try {
      terrain::importHeightmap(dir.path / "range.png", planet.mesh, {});
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(sidecarMessage("0", "1e39"), Catch::Contains("range.json") &&
                                              Catch::Contains("1e+39") &&
                                              Catch::Contains("allowed: finite values"));
  CHECK_THAT(sidecarMessage("-2e7", "0"), Catch::Contains("-2e+07"));
  CHECK_THAT(sidecarMessage("5", "-5"), Catch::Contains("min_m <= max_m"));
  CHECK(sidecarMessage("-8000", "9000") == "no error");
}

// The maps and heightmaps of one size share one located grid (PlanetSurface::equirect).
