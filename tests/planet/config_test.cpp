// The config (planet/config.h): the shipped configs load, values and overrides land in the
// structs, and bad input names the file, line, key, value and what is allowed.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "planet/config.h"
#include "planet/default_config.h"

using namespace planet;

namespace {

// A file name in the temporary folder, this process's own.
std::filesystem::path tempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("planetgen_test_" + std::to_string(::getpid()) + "_" + name);
}

std::filesystem::path writeTemp(const std::string& name, const std::string& text) {
  const auto path = tempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string configErrorOf(const std::string& toml, std::vector<std::string> overrides = {}) {
  const auto path = writeTemp("config.toml", toml);
  try {
    loadConfig(path, overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("config: the shipped configs load", "[planet][config]") {
  for (const char* name : {"default.toml", "earthlike.toml", "smallworld.toml"}) {
    const Config c = loadConfig(std::filesystem::path(PLANETGEN_SOURCE_DIR) / "configs" / name);
    CHECK(c.planet.frequency >= 64);
  }
}

TEST_CASE("config: values, overrides and JSON dump", "[planet][config]") {
  const auto path = writeTemp("ok.toml",
                              "[planet]\nfrequency = 12\nseed = 5\n[erosion]\n"
                              "inertia = 0.2\n[ocean]\nmode = \"level\"\n");
  const std::vector<std::string> overrides = {"erosion.inertia=0.4", "ocean.mode=fraction",
                                              "planet.radius_m = 1000",
                                              "tiles.erosion_cache_mib=32.5"};
  const Config c = loadConfig(path, overrides);
  CHECK(c.planet.frequency == 12);
  CHECK(c.planet.seed == 5);
  CHECK(c.erosion.inertia == 0.4);
  CHECK(c.ocean.mode == terrain::OceanMode::kFraction);
  CHECK(c.planet.radius_m == 1000.0);
  // Written in MiB, held in bytes.
  CHECK(c.tiles.generator.erosion.cache_bytes == size_t(32.5 * 1048576));
  const auto j = nlohmann::json::parse(configToJson(c));
  CHECK(j["tiles"]["erosion_cache_mib"] == 32.5);
  CHECK(j["erosion"]["inertia"] == 0.4);
  CHECK(j["planet"]["frequency"] == 12);
  CHECK(j.size() >= 5);
}

TEST_CASE("config: bad input names file, line, key, value and what is allowed",
          "[planet][config]") {
  struct Case {
    std::string toml;
    std::vector<std::string> overrides;
    std::vector<std::string> expected;  // substrings of the message
  };
  const std::vector<Case> cases = {
      {"[planet]\nfrequency = 0\n", {}, {":2:", "frequency", "= 0", "[1, 100000]"}},
      {"[planet]\nfrequency = -4\n", {}, {":2:", "frequency", "-4", "integer"}},
      {"[planet]\nfrequency = 2.5\n", {}, {"frequency", "2.5", "integer"}},
      {"[planet]\nradius_m = 0\n", {}, {"radius_m", "[1,"}},
      {"[erosion]\ninertia = 1.5\n", {}, {":2:", "inertia", "1.5", "[0, 1]"}},
      {"[erosion]\ninertia = nan\n", {}, {"inertia", "nan", "finite"}},
      {"[erosion]\ngravity = inf\n", {}, {"gravity", "inf", "finite"}},
      {"[erosion]\ninertia = \"high\"\n", {}, {"inertia", "high", "number"}},
      {"[erosion]\ninertai = 0.1\n", {}, {":2:", "inertai", "did you mean erosion.inertia"}},
      {"[erosoin]\ninertia = 0.1\n", {}, {":1:", "erosoin", "did you mean [erosion]"}},
      {"[export]\nskirts = 100\n", {}, {"skirts", "did you mean export.skirt_depth_m"}},
      {"[erosion]\ndroplets_per_vertex = 2\n",
       {},
       {"did you mean erosion.droplets_per_land_vertex"}},
      {"[tiles]\nerosion_cache_mib = -1\n", {}, {":2:", "erosion_cache_mib", "-1", "MiB in [0,"}},
      {"[ocean]\nmode = \"lava\"\n", {}, {"mode", "lava", "\"fraction\", \"level\""}},
      {"[weather]\nmode = \"storms\"\n", {}, {"mode", "storms", "\"uniform\", \"clouds\""}},
      {"[planet\nfrequency = 3\n", {}, {":1:", "syntax"}},
      {"", {}, {"empty"}},
      {std::string("\x7f"
                   "ELF\0\0\x01",
                   7),
       {},
       {"NUL"}},
      {"[planet]\n", {"erosion.inertia"}, {"--set erosion.inertia", "section.key=value"}},
      {"[planet]\n", {"inertia=0.2"}, {"--set inertia=0.2", "section.key=value"}},
      {"[planet]\n", {"erosion.inertia=abc"}, {"--set", "abc", "[0, 1]"}},
      {"[planet]\n", {"erosion.inertai=0.1"}, {"inertai", "did you mean erosion.inertia"}},
  };
  for (const Case& c : cases) {
    const std::string message = configErrorOf(c.toml, c.overrides);
    INFO("config: " << c.toml << "message: " << message);
    REQUIRE_FALSE(message.empty());
    if (c.overrides.empty())
      CHECK(message.find(tempPath("config.toml").string()) != std::string::npos);
    for (const std::string& e : c.expected) CHECK(message.find(e) != std::string::npos);
  }
  // A missing file is named as such.
  try {
    loadConfig("/nonexistent/planet.toml");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("/nonexistent/planet.toml") != std::string::npos);
    CHECK(std::string(e.what()).find("no such file") != std::string::npos);
  }
}

TEST_CASE("config: Config{} is the default planet of configs/default.toml", "[planet][config]") {
  const Config file =
      loadConfig(std::filesystem::path(PLANETGEN_SOURCE_DIR) / "configs" / "default.toml");
  // configToJson lists every key of the schema, so equal texts mean equal settings.
  CHECK(configToJson(Config{}) == configToJson(file));
  // The copy built into the library is the file.
  CHECK(configToJson(loadConfigText(std::string(defaultConfigText()),
                                    std::string(kDefaultConfigOrigin))) == configToJson(file));
  CHECK(Config{}.heightmap_file.empty());
}

TEST_CASE("config: the fluvial stage's retired keys are refused with what replaced them",
          "[planet][config]") {
  const std::string in_file = configErrorOf("[fluvial]\niterations = 24\n");
  CHECK(in_file.find("[fluvial] iterations is no longer a key") != std::string::npos);
  CHECK(in_file.find("reroutings") != std::string::npos);
  const std::string on_line =
      configErrorOf("[planet]\nseed = 1\n", {"fluvial.uplift_m_per_yr=1e-4"});
  INFO(on_line);
  CHECK(on_line.find("[fluvial] uplift_m_per_yr is no longer a key") != std::string::npos);
  CHECK(on_line.find("uplift pattern") != std::string::npos);
  for (const char* key : {"duration_yr", "coarse_frequency", "fine_iterations", "stream_power_k",
                          "uplift_floor", "deposition", "diffusion_m2_per_yr"})
    CHECK(configErrorOf(std::string("[fluvial]\n") + key + " = 1\n").find("no longer a key") !=
          std::string::npos);
}
