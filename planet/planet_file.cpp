// The planet file (savePlanet, loadPlanet in planetgen.h). Layout, little-endian:
//   bytes 0-7    magic "PLNTGEN\x1a"
//   bytes 8-11   format, uint32 (kFormat)
//   bytes 12-15  header length H, uint32 (at most kMaxHeaderBytes)
//   H bytes      header: JSON text with the planetgen version, the full config, the scalars
//                and statistics of planet::PlanetState, and the list of arrays (name, offset
//                from the file's start, count of float32): the pipeline's per-vertex fields
//                and the water surface (Planet::waterLevelM)
//   zero padding to a multiple of 16, then the arrays (float32), each padded likewise
//   8 bytes      checksum, uint64, of every byte before it (FNV-1a over 64-bit words)
// The icosphere is not stored: it is a function of the frequency (rebuilt on demand).

#include <bit>
#include <cerrno>
#include <cstring>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/file_writer.h"
#include "planet/detail/planet_file_checksum.h"
#include "planet/detail/planet_impl.h"
#include "planet/detail/stats_fields.h"
#include "planetgen_version.h"

namespace planetgen {
namespace {

using Json = nlohmann::json;

static_assert(std::endian::native == std::endian::little, "the planet file is little-endian");

constexpr char kMagic[8] = {'P', 'L', 'N', 'T', 'G', 'E', 'N', '\x1a'};
constexpr uint32_t kFormat = 2;
constexpr uint32_t kMaxHeaderBytes = 1u << 20;
constexpr size_t kAlign = 16;
// 10 f^2 + 2 vertices at the largest frequency times the arrays, with room.
constexpr uint64_t kMaxFileBytes = uint64_t(64) << 30;

uint64_t checksum(const char* data, size_t n) {
  return planet::detail::planetFileChecksum(data, n);
}

void pad(std::string& bytes) {
  bytes.resize((bytes.size() + kAlign - 1) / kAlign * kAlign, '\0');
}

// The per-vertex arrays a planet file holds, in file order: the pipeline's, then the water
// surface (lake levels), which the tiles need and the pipeline does not keep.
struct ArrayRef {
  const char* name;
  std::vector<float> planet::PlanetState::*member;  // null: Planet::Impl::water_level_m
  bool required;                                    // one value per vertex; else that or none
};
constexpr ArrayRef kArrays[] = {
    {"elevation_m", &planet::PlanetState::elevation_m, true},
    {"initial_elevation_m", &planet::PlanetState::initial_elevation_m, true},
    {"change_m", &planet::PlanetState::change_m, true},
    {"rainfall", &planet::PlanetState::rainfall, false},
    {"droplet_density", &planet::PlanetState::droplet_density, false},
    {"water_level_m", nullptr, true},
};

std::vector<float>& arrayOf(planet::PlanetState& state, std::vector<float>& water_level,
                            const ArrayRef& a) {
  return a.member ? state.*a.member : water_level;
}

// The config as TOML from its JSON form ({"section": {"key": value}}), for loadConfigText.
std::string tomlOf(const Json& config) {
  std::string out;
  for (const auto& [section, keys] : config.items()) {
    out += "[" + section + "]\n";
    for (const auto& [key, value] : keys.items()) out += key + " = " + value.dump() + "\n";
  }
  return out;
}

// The first key whose value differs between two configs' JSON forms, as "section.key = a, not b".
std::string firstDifference(const Json& file, const Json& expected) {
  for (const auto& [section, keys] : expected.items()) {
    for (const auto& [key, value] : keys.items()) {
      const Json& other = file.contains(section) && file[section].contains(key) ? file[section][key]
                                                                                : Json(nullptr);
      if (other != value)
        return section + "." + key + " = " + other.dump() + " in the file, " + value.dump() +
               " expected";
    }
  }
  return "";
}

std::string readWhole(const std::filesystem::path& file) {
  std::string problem;
  const int fd = io::openInputFile(file, kMaxFileBytes, problem);
  if (fd < 0) throw ConfigError("planet file " + file.string() + " " + problem);
  std::string bytes;
  char buffer[1 << 16];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw ConfigError("planet file " + file.string() + ": " + std::strerror(error));
    }
    bytes.append(buffer, size_t(n));
  }
  ::close(fd);
  return bytes;
}

}  // namespace

void savePlanet(const Planet& planet, const std::filesystem::path& file) {
  Planet::Impl& impl = *planet.impl_;
  impl.waterLevel();  // routed now if this planet was generated in this process
  const planet::PlanetState& s = impl.state;
  Json header;
  header["generator"] = "planetgen";
  header["version"] = planetgen::kVersion;
  header["format"] = kFormat;
  header["config"] = Json::parse(planet::configToJson(planet.config()));
  header["heightmap_file"] = planet.config().heightmap_file;
  header["vertices"] = s.elevation_m.size();
  header["sea_level_m"] = s.sea_level_m;
  header["land_vertices"] = s.land_vertices;
  header["rain_mode"] = s.rain_mode ? planet::rainModeName(*s.rain_mode) : "";
  header["pit_fill_m3"] = s.pit_fill_m3;
  header["erosion"] = planet::statsJson(s.erosion_stats);
  header["fluvial"] = planet::statsJson(s.fluvial_stats);
  header["weather"] = planet::statsJson(s.weather_stats);
  // Offsets depend on the header's length, which depends on the offsets' digits: lay the
  // arrays out after a header padded to a fixed budget of room for them.
  Json arrays = Json::array();
  for (const ArrayRef& a : kArrays)
    arrays.push_back({{"name", a.name},
                      {"offset", 0},
                      {"count", arrayOf(impl.state, impl.water_level_m, a).size()}});
  header["arrays"] = arrays;
  const size_t room = header.dump().size() + 32 * std::size(kArrays);
  size_t offset = (16 + room + kAlign - 1) / kAlign * kAlign;
  for (size_t i = 0; i < std::size(kArrays); ++i) {
    header["arrays"][i]["offset"] = offset;
    offset +=
        (arrayOf(impl.state, impl.water_level_m, kArrays[i]).size() * sizeof(float) + kAlign - 1) /
        kAlign * kAlign;
  }
  std::string text = header.dump();
  text.resize(room, ' ');  // JSON allows trailing white space
  std::string bytes(kMagic, sizeof kMagic);
  const uint32_t words[2] = {kFormat, uint32_t(text.size())};
  bytes.append(reinterpret_cast<const char*>(words), sizeof words);
  bytes += text;
  for (const ArrayRef& a : kArrays) {
    pad(bytes);
    const std::vector<float>& v = arrayOf(impl.state, impl.water_level_m, a);
    bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  pad(bytes);
  const uint64_t sum = checksum(bytes.data(), bytes.size());
  bytes.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  io::writeFileAtomic(file, bytes);
}

Planet loadPlanet(const std::filesystem::path& file) {
  const std::string bytes = readWhole(file);
  const std::string name = "planet file " + file.string();
  if (bytes.size() < 24 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw ConfigError(name + " is not a planet file (savePlanet writes them)");
  uint32_t format = 0, header_bytes = 0;
  std::memcpy(&format, bytes.data() + 8, 4);
  std::memcpy(&header_bytes, bytes.data() + 12, 4);
  if (format != kFormat) {
    throw ConfigError(name + " has format " + std::to_string(format) + "; planetgen " +
                      planetgen::kVersion + " reads format " + std::to_string(kFormat) +
                      ": make the planet again with this version");
  }
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  if (checksum(bytes.data(), bytes.size() - 8) != stored)
    throw ConfigError(name + " is truncated or corrupt (its checksum does not match)");
  if (header_bytes > kMaxHeaderBytes || 16 + size_t(header_bytes) > bytes.size() - 8)
    throw ConfigError(name + " is corrupt (its header length is out of range)");

  Planet result;
  Planet::Impl& p = *result.impl_;
  try {
    const Json h = Json::parse(bytes.substr(16, header_bytes));
    const std::string version = h.at("version").get<std::string>();
    if (version != planetgen::kVersion) {
      throw ConfigError(name + " was written by planetgen " + version + "; this is planetgen " +
                        planetgen::kVersion + ": make the planet again with this version");
    }
    p.config = planet::loadConfigText(tomlOf(h.at("config")), name);
    if (Json::parse(planet::configToJson(p.config)) != h.at("config"))
      throw ConfigError(name + " is corrupt (its config does not read back)");
    p.config.heightmap_file = h.at("heightmap_file").get<std::string>();
    const uint64_t f = uint64_t(p.config.planet.frequency);
    const uint64_t vertices = h.at("vertices").get<uint64_t>();
    if (vertices != 10 * f * f + 2)
      throw ConfigError(name + " is corrupt (" + std::to_string(vertices) +
                        " vertices for frequency " + std::to_string(f) + ")");
    planet::PlanetState& s = p.state;
    h.at("sea_level_m").get_to(s.sea_level_m);
    h.at("land_vertices").get_to(s.land_vertices);
    const std::string rain = h.at("rain_mode").get<std::string>();
    if (rain == "clouds") s.rain_mode = planet::RainMode::kClouds;
    if (rain == "uniform") s.rain_mode = planet::RainMode::kUniform;
    h.at("pit_fill_m3").get_to(s.pit_fill_m3);
    s.erosion_stats = planet::statsOf<erosion::ErosionStats>(h.at("erosion"));
    s.fluvial_stats = planet::statsOf<erosion::FluvialStats>(h.at("fluvial"));
    s.weather_stats = planet::statsOf<weather::WeatherStats>(h.at("weather"));
    const Json& arrays = h.at("arrays");
    if (!arrays.is_array() || arrays.size() != std::size(kArrays))
      throw ConfigError(name + " is corrupt (its array list)");
    for (size_t i = 0; i < std::size(kArrays); ++i) {
      const Json& a = arrays[i];
      const uint64_t offset = a.at("offset").get<uint64_t>(), count = a.at("count").get<uint64_t>();
      const bool per_vertex =
          kArrays[i].required ? count == vertices : (count == vertices || count == 0);
      if (a.at("name").get<std::string>() != kArrays[i].name || !per_vertex ||
          offset % kAlign != 0 || offset < 16 + uint64_t(header_bytes) ||
          offset > bytes.size() - 8 || count > (bytes.size() - 8 - offset) / sizeof(float))
        throw ConfigError(name + " is corrupt (array " + std::to_string(i) + ")");
      std::vector<float>& v = arrayOf(p.state, p.water_level_m, kArrays[i]);
      v.resize(count);
      // An empty array's data() may be null, which memcpy must not get even for 0 bytes.
      if (count != 0) std::memcpy(v.data(), bytes.data() + offset, count * sizeof(float));
    }
  } catch (const Json::exception& e) {
    throw ConfigError(name + " is corrupt (its header: " + e.what() + ")");
  }
  return result;
}

Planet loadPlanet(const std::filesystem::path& file, const Config& expected) {
  Planet planet = loadPlanet(file);
  const Json has = Json::parse(planet::configToJson(planet.config()));
  const Json wants = Json::parse(planet::configToJson(expected));
  if (has != wants) {
    throw ConfigError("planet file " + file.string() + " was made from other settings: " +
                      firstDifference(has, wants) + "; make the planet again from this config");
  }
  return planet;
}

}  // namespace planetgen
