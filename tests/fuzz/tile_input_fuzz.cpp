// libFuzzer target: what a program that makes tiles reads from outside, a planet file
// (planetgen::loadPlanet) and tile requests (tile id, spacing, direction, tile edge) to the
// tile generator (tiles/tile_generator.h).
//
// A real planet file is made once at start-up (generate and savePlanet at f = 2). The input is
//   bytes 0-51   a tile request, little-endian (zero-padded if the input is shorter):
//                base face u32, level u32, index u64, tile edge i32, spacing (m) f64,
//                direction x, y, z f64
//   byte 52      flags: bit 0 recomputes the file's checksum after the patches (so a patch
//                reaches the parser behind it), bit 1 cuts the file at bytes 53-54 (u16,
//                modulo its length + 1)
//   the rest     patches to the planet file: a u16 offset (modulo the file's length + 1), a u8
//                length n and n bytes, written over the file there (extending it at its end).
// The patched file is loaded; the tile requests then go to a generator of the loaded planet,
// or of the start-up planet if the file was refused. Anything but these aborts:
//  - loadPlanet succeeds or throws ConfigError naming the file;
//  - the generator is made or refuses its planet or tile edge with std::invalid_argument;
//  - levelForSpacing, tileAt and generate answer or throw std::invalid_argument; a level is one
//    of the layout's, a tile id from tileAt passes the layout's check, and a tile has the
//    (T + 1)(T + 2) / 2 vertices of its edge in every array, with finite heights and positions
//    when the planet's elevations are within 10,000 km.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include <unistd.h>

#include "planet/detail/planet_file_checksum.h"
#include "planet/planetgen.h"
#include "terrain/terrain.h"
#include "tiles/tile_generator.h"

namespace fs = std::filesystem;

namespace {

constexpr size_t kRequestBytes = 52;
constexpr size_t kHeaderBytes = 55;
constexpr int kLargestFuzzedEdge = 64;  // tiles of at most 2,145 vertices: many runs a second

[[noreturn]] void fail(const std::string& what_happened, const std::string& detail) {
  std::fprintf(stderr, "tile_input_fuzz: %s: %s\n", what_happened.c_str(), detail.c_str());
  std::abort();
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "planetgen_tile_input_fuzz.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) fail("mkdtemp failed", pattern);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string readBytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

uint64_t checksum(const char* data, size_t n) {
  return planet::detail::planetFileChecksum(data, n);
}

struct Start {
  TempDir dir;
  planetgen::Planet planet;
  std::string file_bytes;
  Start() {
    planetgen::Config config = planetgen::defaultConfig();
    config.planet.frequency = 2;
    config.weather.mode = planet::RainMode::kUniform;
    planet = planetgen::generate(config);
    const fs::path file = dir.path / "start.planet";
    planetgen::savePlanet(planet, file);
    file_bytes = readBytes(file);
    if (file_bytes.size() < 24) fail("savePlanet wrote a short file", file.string());
  }
};

template <typename T>
T take(std::string_view input, size_t at) {
  T value{};
  if (at < input.size())
    std::memcpy(&value, input.data() + at, std::min(sizeof value, input.size() - at));
  return value;
}

template <typename Call>
bool answersOrRefuses(const char* what, Call&& call) {
  try {
    call();
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  } catch (const std::exception& e) {
    fail(std::string(what) + " threw " + typeid(e).name() + " (not std::invalid_argument)",
         e.what());
  } catch (...) {
    fail(std::string(what) + " threw a non-std exception", "");
  }
}

void requestTiles(const planetgen::Planet& planet, std::string_view input) {
  const tiles::TileId id{take<uint32_t>(input, 0), take<uint32_t>(input, 4),
                         take<uint64_t>(input, 8)};
  int edge = take<int32_t>(input, 16);
  // Edges the layout accepts are folded into small ones; the others are passed on as they are,
  // to be refused.
  if (edge > kLargestFuzzedEdge && edge <= tiles::kMaxTileEdge)
    edge = 2 + edge % (kLargestFuzzedEdge - 1);
  const double spacing_m = take<double>(input, 20);
  const glm::dvec3 direction{take<double>(input, 28), take<double>(input, 36),
                             take<double>(input, 44)};

  const planet::Config& config = planet.config();
  tiles::TilePlanet tile_planet;
  tile_planet.frequency = planet.frequency();
  tile_planet.radius_m = planet.radiusM();
  tile_planet.sea_level_m = planet.seaLevelM();
  tile_planet.elevation_m = planet.elevationM();
  tile_planet.spectrum = {terrain::detailNoiseSeed(config.planet.seed), config.terrain.frequency,
                          config.terrain.lacunarity, config.terrain.persistence};
  bool plausible = true;
  for (float e : tile_planet.elevation_m) plausible = plausible && std::fabs(e) < 1e7f;

  tiles::TileParams params;
  params.tile_edge = edge;
  std::unique_ptr<tiles::TileGenerator> generator;
  if (!answersOrRefuses("TileGenerator", [&] {
        generator = std::make_unique<tiles::TileGenerator>(tile_planet, params);
      }))
    return;
  const tiles::TileLayout& layout = generator->layout();
  answersOrRefuses("levelForSpacing", [&] {
    const int level = layout.levelForSpacing(spacing_m, tile_planet.radius_m);
    if (level < 0 || level > layout.deepestLevel())
      fail("levelForSpacing gave a level the layout does not have", std::to_string(level));
  });
  answersOrRefuses("tileAt", [&] {
    const tiles::TileId at = generator->tileAt(direction, int(id.level % 64));
    try {
      layout.check(at);
    } catch (const std::invalid_argument& e) {
      fail("tileAt gave a tile that does not exist", e.what());
    }
  });
  answersOrRefuses("generate", [&] {
    const tiles::TileMesh mesh = generator->generate(id);
    const size_t t = size_t(layout.tileEdge());
    const size_t n = (t + 1) * (t + 2) / 2;
    if (mesh.vertexCount() != n || mesh.positions_m.size() != n || mesh.normals.size() != n ||
        mesh.parent_height_m.size() != n || mesh.lattice_ids.size() != n)
      fail("a tile's arrays do not hold its vertices", std::to_string(mesh.vertexCount()));
    if (!plausible) return;
    for (size_t v = 0; v < n; ++v) {
      if (!std::isfinite(mesh.height_m[v]) || !std::isfinite(mesh.positions_m[v].x) ||
          !std::isfinite(mesh.positions_m[v].y) || !std::isfinite(mesh.positions_m[v].z))
        fail("a tile of a planet with finite elevations has a value that is not finite",
             "vertex " + std::to_string(v));
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Start start;
  static const fs::path file = start.dir.path / "fuzz.planet";
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  std::string bytes = start.file_bytes;
  const uint8_t flags = take<uint8_t>(input, kRequestBytes);
  for (size_t at = kHeaderBytes; at + 3 <= input.size();) {
    const size_t offset = take<uint16_t>(input, at) % (bytes.size() + 1);
    const size_t n = std::min<size_t>(take<uint8_t>(input, at + 2), input.size() - at - 3);
    if (offset + n > bytes.size()) bytes.resize(offset + n);
    bytes.replace(offset, n, input.substr(at + 3, n));
    at += 3 + n;
  }
  if (flags & 2) bytes.resize(take<uint16_t>(input, kRequestBytes + 1) % (bytes.size() + 1));
  if ((flags & 1) && bytes.size() >= 8) {
    const uint64_t sum = checksum(bytes.data(), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
  }
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) fail("cannot write", file.string());
  }

  planetgen::Planet loaded;
  bool read = false;
  try {
    loaded = planetgen::loadPlanet(file);
    read = true;
  } catch (const planetgen::ConfigError& e) {
    if (std::string(e.what()).find("planet file " + file.string()) == std::string::npos)
      fail("loadPlanet's error does not name the file", e.what());
  } catch (const std::exception& e) {
    fail(std::string("loadPlanet threw ") + typeid(e).name() + " (not ConfigError)", e.what());
  } catch (...) {
    fail("loadPlanet threw a non-std exception", "");
  }
  requestTiles(read ? loaded : start.planet, input);
  return 0;
}
