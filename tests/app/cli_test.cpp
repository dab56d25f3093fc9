// The planetgen command line, run as a user runs it: real processes, real files.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/support.h"

// Built with ASan or TSan (g++: __SANITIZE_*__, clang: __has_feature): the sanitizers reserve
// terabytes of address space, so an address-space limit (ulimit -v) cannot be set for the
// binary they built.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PLANETGEN_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PLANETGEN_TEST_SANITIZED 1
#endif
#endif
#ifndef PLANETGEN_TEST_SANITIZED
#define PLANETGEN_TEST_SANITIZED 0
#endif

namespace fs = std::filesystem;

namespace {

const fs::path kSource = PLANETGEN_SOURCE_DIR;

using RunResult = test_support::CommandResult;
using test_support::readFile;

RunResult run(const std::string& args) {
  return test_support::runPlanetgen(args);
}

fs::path freshDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("planetgen_cli_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path writeConfig(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Name -> contents of every file in a folder, to prove it was left untouched.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    files[entry.path().filename().string()] = s.str();
  }
  return files;
}

nlohmann::json readJson(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

const std::string kSmallPlanet =
    "[planet]\nseed = 3\nfrequency = 24\n[erosion]\ndroplets = 3000\nbatch_size = 64\n"
    "[export]\nmap_width = 64\n";

// For runs about files and messages, not rain: the cloud simulation costs about the same at any
// frequency (most of a small run's time: 4 of 5 s of CPU under ASan at f = 24).
const std::string kUniformRain = "[weather]\nmode = \"uniform\"\n";

std::string repeated(const std::string& part, int times) {
  std::string text;
  for (int i = 0; i < times; ++i) text += part;
  return text;
}

}  // namespace

TEST_CASE("cli: generate writes the four files and a summary", "[cli]") {
  const fs::path dir = freshDir("generate");
  // kSmallPlanet ends in [export]; the OBJ is off by default.
  const fs::path config = writeConfig(dir, "small.toml", kSmallPlanet + "obj = true\n");
  const fs::path out = dir / "out";
  const RunResult r = run("generate --config " + config.string() + " --out " + out.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* name : {"planet.glb", "planet.obj", "planet.mtl", "summary.json"})
    CHECK(fs::file_size(out / name) > 0);
  const auto summary = readJson(out / "summary.json");
  CHECK(summary["vertices"] == 10 * 24 * 24 + 2);
  CHECK(summary["faces"] == 20 * 24 * 24);
  CHECK(summary["elevation_hash"].get<std::string>().size() == 16);
  CHECK(summary["peak_rss_bytes"].get<uint64_t>() > 0);
  CHECK(summary["timings"].contains("terrain_s"));
  CHECK(summary["timings"].contains("export_s"));
  CHECK(summary["erosion"]["droplets"] == 3000);
  // No temporaries are left behind.
  for (const auto& entry : fs::directory_iterator(out))
    CHECK(entry.path().filename().string().find(".tmp") == std::string::npos);
  // Not a terminal here, so no progress line: only the closing summary.
  CHECK(r.output.rfind("planetgen: wrote ", 0) == 0);
  CHECK(r.output.find('\r') == std::string::npos);
}

TEST_CASE("cli: bench prints the erosion figures, one JSON line each", "[cli]") {
  const RunResult r =
      run("bench --frequency 16 --threads 1 2 --droplets 2000 --no-export --no-tiles");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // figure -> thread counts it was printed for, with a positive value
  std::map<std::string, std::vector<int>> seen;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    CHECK(j["frequency"] == 16);
    CHECK(j["vertices"] == 10 * 16 * 16 + 2);
    if (j["value"].get<double>() > 0.0)
      seen[j["figure"].get<std::string>()].push_back(j["threads"].get<int>());
  }
  for (const char* figure :
       {"erosion_setup_s", "erosion_s", "droplets_per_s", "droplet_steps_per_s",
        "brush_memory_bytes", "erosion_workspace_bytes", "erosion_peak_rss_bytes"})
    CHECK(seen[figure] == std::vector<int>{1, 2});
}

TEST_CASE("cli: the same seed gives the same elevations at 1 and 2 threads", "[cli]") {
  const fs::path dir = freshDir("threads");
  const fs::path config = writeConfig(dir, "small.toml", kSmallPlanet);
  std::vector<std::string> hashes;
  for (int threads : {1, 2}) {
    const fs::path out = dir / ("out" + std::to_string(threads));
    const RunResult r = run("generate --config " + config.string() + " --out " + out.string() +
                            " --threads " + std::to_string(threads));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto summary = readJson(out / "summary.json");
    hashes.push_back(summary["elevation_hash"]);
    CHECK(summary["threads"] == threads);
  }
  CHECK(hashes[0] == hashes[1]);
  // --seed overrides the config and changes the planet.
  const fs::path out = dir / "seeded";
  REQUIRE(run("generate --config " + config.string() + " --out " + out.string() + " --seed 4")
              .exit_code == 0);
  CHECK(readJson(out / "summary.json")["elevation_hash"] != hashes[0]);
}

// The outputs are written concurrently; every file's bytes must still be the same at
// any thread count (summary.json aside: it holds timings, peak memory and the thread count).
TEST_CASE("cli: every output file is byte-identical at 1, 2 and 4 threads", "[cli]") {
  const fs::path dir = freshDir("bytes_threads");
  const fs::path config = writeConfig(
      dir, "small.toml",
      "[planet]\nseed = 5\nfrequency = 24\n[erosion]\ndroplets = 3000\nbatch_size = 64\n"
      "[export]\nmap_width = 128\nobj = true\nlods = 2\nlod_files = true\ncube_size = 16\n");
  std::vector<std::map<std::string, std::string>> runs;
  for (int threads : {1, 2, 4}) {
    const fs::path out = dir / ("out" + std::to_string(threads));
    const RunResult r = run("generate --config " + config.string() + " --out " + out.string() +
                            " --threads " + std::to_string(threads));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    runs.push_back(snapshot(out));
    runs.back().erase("summary.json");
    // Every kind of output is there, so the comparison covers each writer.
    for (const char* name :
         {"planet.glb", "planet_lod1.glb", "planet_lod2.glb", "planet.obj", "relief.png",
          "erosion.png", "globe.png", "heightmap.png", "heightmap.r16", "heightmap.r32",
          "cube_px.png", "biome.png", "normals.png"}) {
      INFO(name);
      CHECK(runs.back().count(name) == 1);
    }
  }
  for (size_t i = 1; i < runs.size(); ++i) {
    REQUIRE(runs[i].size() == runs[0].size());
    for (const auto& [name, bytes] : runs[0]) {
      INFO(name << " at run " << i);
      CHECK(runs[i].at(name) == bytes);
    }
  }
}

// bench times every stage of a run and every export output on its own.
TEST_CASE("cli: bench prints every pipeline stage and export output, and memory per vertex",
          "[cli]") {
  const RunResult r = run(
      "bench --frequency 16 --threads 2 --droplets 0 --no-export --no-fluvial --tiles-region-km 0");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, double> value;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    value[j["figure"].get<std::string>()] = j["value"].get<double>();
  }
  size_t stages = 0, outputs = 0;
  for (const auto& [figure, v] : value) {
    INFO(figure);
    if (figure.rfind("stage_", 0) == 0) ++stages;
    if (figure.rfind("export_", 0) == 0) ++outputs;
    if (figure.rfind("stage_", 0) == 0 || figure.rfind("export_", 0) == 0) CHECK(v > 0.0);
  }
  // The default config's stages and outputs, each present and positive.
  for (const char* figure : {"stage_icosphere_s",
                             "stage_terrain_s",
                             "stage_ocean_s",
                             "stage_weather_s",
                             "stage_erosion_s",
                             "stage_export_s",
                             "stage_total_s",
                             "export_equirect_grid_s",
                             "export_planet.glb_s",
                             "export_relief.png_s",
                             "export_relief_before.png_s",
                             "export_erosion.png_s",
                             "export_rainfall.png_s",
                             "export_globe.png_s",
                             "export_heightmap.png_s",
                             "export_heightmap.r32_s",
                             "export_heightmap.json_s",
                             "export_biome.png_s",
                             "export_biome_legend.png_s",
                             "export_normals.png_s",
                             "pipeline_peak_rss_bytes",
                             "pipeline_peak_rss_bytes_per_vertex"}) {
    INFO(figure);
    REQUIRE(value.count(figure) == 1);
    CHECK(value[figure] > 0.0);
  }
  CHECK(stages >= 7);
  CHECK(outputs >= 13);
  // The tile figures (the other bench tests skip them with --no-tiles).
  for (const char* figure :
       {"tile_generator_s", "tile_s", "tile_eroded_s", "tile_eroded_cached_s",
        "tile_droplet_steps_per_s", "tile_droplet_steps_r3_per_s", "grid_droplet_steps_per_s"}) {
    INFO(figure);
    REQUIRE(value.count(figure) == 1);
    CHECK(value[figure] > 0.0);
  }
  // Each stage's peak memory per vertex (above the memory before the run: may be 0 for a
  // stage that allocates nothing new).
  for (const auto& [figure, v] : value) {
    if (figure.rfind("stage_", 0) != 0 || figure == "stage_total_s") continue;
    const std::string stage = figure.substr(6, figure.size() - 8);
    INFO(stage);
    REQUIRE(value.count("pipeline_" + stage + "_peak_rss_bytes_per_vertex") == 1);
    CHECK(value["pipeline_" + stage + "_peak_rss_bytes_per_vertex"] >= 0.0);
  }
}

// Bad input: exit code, message, and an output folder left exactly as it was.
// A new case is one row.
TEST_CASE("cli: bad input exits 2, names the problem and leaves the output folder alone", "[cli]") {
  struct Case {
    std::string name;
    std::string config_text;  // written to bad.toml unless empty and config_arg is given
    std::string extra_args;
    int exit_code;
    std::vector<std::string> expected;  // substrings of the message
  };
  const std::vector<Case> cases = {
      {"syntax", "[planet\nfrequency = 3\n", "", 2, {"bad.toml:1", "syntax"}},
      {"wrong type",
       "[planet]\nfrequency = \"big\"\n",
       "",
       2,
       {"bad.toml:2", "frequency", "integer"}},
      {"frequency 0", "[planet]\nfrequency = 0\n", "", 2, {"bad.toml:2", "frequency = 0"}},
      {"frequency negative", "[planet]\nfrequency = -5\n", "", 2, {"frequency = -5"}},
      {"radius 0", "[planet]\nradius_m = 0.0\n", "", 2, {"radius_m", "[1,"}},
      {"probability > 1", "[erosion]\ninertia = 1.01\n", "", 2, {"inertia", "[0, 1]"}},
      {"nan", "[erosion]\ncapacity = nan\n", "", 2, {"capacity", "finite"}},
      {"inf", "[erosion]\ngravity = -inf\n", "", 2, {"gravity", "finite"}},
      {"unknown key", "[erosion]\ninertai = 0.1\n", "", 2, {"inertai", "did you mean"}},
      {"empty", "", "", 2, {"bad.toml", "empty"}},
      {"array of tables", "[[erosion]]\ninertia = 0.1\n", "", 2, {"bad.toml:1", "write [erosion]"}},
      // A tester's 64 KB file: toml++ parsed the dotted key recursively and the stack ran out
      // (SIGSEGV).
      {"a key of 32,000 parts",
       "[" + repeated("a.", 32000) + "a]\n",
       "",
       2,
       {"bad.toml:1", "dotted parts"}},
      {"a dotted key of 32,000 parts",
       "a" + repeated(".a", 32000) + " = 1\n",
       "",
       2,
       {"bad.toml:1", "dotted parts"}},
      // A helper's trial: settings that fail together were blamed on the file alone when one
      // of them came from --set.
      {"joint, from --set",
       "[planet]\nfrequency = 64\n",
       "--set export.chunks=3",
       2,
       {"bad.toml with --set export.chunks=3:", "chunks = 3"}},
      {"joint radius, from --set",
       "[planet]\nfrequency = 8\n",
       "--set planet.radius_m=1000",
       2,
       {"bad.toml with --set planet.radius_m=1000:", "radius_m = 1000"}},
      {"binary", std::string("\x89PNG\r\n\x1a\n\0\0\0", 11), "", 2, {"bad.toml"}},
      {"missing file", "-", "", 2, {"missing.toml", "no such file"}},
      {"bad --set",
       "[planet]\nfrequency = 8\n",
       "--set erosion.inertia",
       2,
       {"--set", "section.key=value"}},
      {"--set value",
       "[planet]\nfrequency = 8\n",
       "--set erosion.inertia=2",
       2,
       {"--set", "[0, 1]"}},
      {"threads 0", "[planet]\nfrequency = 8\n", "--threads 0", 2, {"--threads 0", "[1, 1024]"}},
      {"threads -3", "[planet]\nfrequency = 8\n", "--threads -3", 2, {"--threads -3"}},
      {"seed negative", "[planet]\nfrequency = 8\n", "--seed -1", 2, {"--seed -1"}},
      {"units", "[export]\nunits = \"mi\"\n", "", 2, {"bad.toml:2", "units", "\"km\""}},
      {"collision",
       "[export]\ncollision = \"unity\"\n",
       "",
       2,
       {"bad.toml:2", "collision", "\"godot\""}},
      // Seeds of 2^63 and more, and "", are refused, not clamped: a seed past 2^63 - 1 would go
      // into a recorded config that cannot be read back.
      {"seed 2^64",
       "[planet]\nfrequency = 8\n",
       "--seed 18446744073709551616",
       2,
       {"--seed 18446744073709551616", "9223372036854775807]"}},
      {"seed 2^63",
       "[planet]\nfrequency = 8\n",
       "--seed 9223372036854775808",
       2,
       {"--seed 9223372036854775808", "9223372036854775807]"}},
      {"seed empty", "[planet]\nfrequency = 8\n", "--seed ''", 2, {"--seed ''"}},
      {"seed plus", "[planet]\nfrequency = 8\n", "--seed +5", 2, {"--seed +5"}},
      {"seed fraction", "[planet]\nfrequency = 8\n", "--seed 1.5", 2, {"--seed 1.5"}},
      {"too large",
       "[planet]\nfrequency = 100000\n",
       "",
       3,
       {"frequency = 100000", "the largest that fits"}},
      // A tester's trial: 1e-400 parsed to 0, which means "no cap", and the run went ahead.
      {"underflow to 0",
       "[limits]\nmemory_cap_gib = 1e-400\n",
       "",
       2,
       {"bad.toml:2", "memory_cap_gib = 1e-400", "too close to 0"}},
      {"underflow to 0, --set",
       "[planet]\nfrequency = 8\n",
       "--set limits.memory_cap_gib=1e-400",
       2,
       {"--set limits.memory_cap_gib=1e-400", "too close to 0"}},
      {"underflow to a subnormal",
       "[limits]\nmemory_cap_gib = 1.5e-310\n",
       "",
       2,
       {"memory_cap_gib = 1.5e-310", "too close to 0"}},
      // The config file has a size limit, like heightmaps and sidecars (1 MiB and a byte).
      {"config over 1 MiB",
       "# " + std::string((1 << 20) - 2, 'x') + "\n",
       "",
       2,
       {"bad.toml", "larger than 1048576 bytes"}},
      // A tester's trial: a 100,000-character value was echoed twice in full (200 KB on
      // stderr), one ending in a carriage return garbled the line.
      {"long --set value",
       "[planet]\nfrequency = 8\n",
       "--set planet.seed=" + std::string(100000, 'a'),
       2,
       {"--set planet.seed=aaaa", "(100012 bytes)", "(100000 bytes)"}},
      {"--set value ending in a carriage return",
       "[planet]\nfrequency = 8\n",
       "--set \"$(printf 'planet.frequency=8\\r')\"",
       2,
       {"frequency = 8\\r is not allowed"}},
      {"long --threads",
       "[planet]\nfrequency = 8\n",
       "--threads " + std::string(100000, '7'),
       2,
       {"--threads 7777", "(100000 bytes)"}},
  };
  for (const Case& c : cases) {
    const fs::path dir = freshDir("bad");
    const fs::path out = dir / "out";
    fs::create_directories(out);
    std::ofstream(out / "planet.glb") << "previous run";
    const auto before = snapshot(out);
    const fs::path config =
        c.config_text == "-" ? dir / "missing.toml" : writeConfig(dir, "bad.toml", c.config_text);
    const RunResult r =
        run("generate --config " + config.string() + " --out " + out.string() + " " + c.extra_args);
    INFO("case: " << c.name << "\noutput: " << r.output);
    CHECK(r.exit_code == c.exit_code);
    for (const std::string& e : c.expected) CHECK(r.output.find(e) != std::string::npos);
    CHECK(r.output.find("error:") != std::string::npos);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') <= 3);  // one paragraph
    CHECK(r.output.size() < 1500);                                   // values cut short
    CHECK(r.output.find('\r') == std::string::npos);                 // control characters escaped
    // No message names a function of the code ("serveViewer: ...").
    CHECK_FALSE(std::regex_search(r.output, std::regex("\\b[a-z]+[A-Z][A-Za-z]*(\\(\\))?:")));
    CHECK(snapshot(out) == before);
  }
}

namespace {

// Triangles and vertices of the meshes the default scene draws under the node "Land" of a
// .glb (walked as an importer without MSFT_lod does), from its JSON chunk.
struct LandCounts {
  size_t triangles = 0;
  size_t vertices = 0;
};
LandCounts landCounts(const fs::path& glb) {
  std::ifstream in(glb, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() >= 20);
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  const nlohmann::json j = nlohmann::json::parse(bytes.substr(20, length));
  LandCounts counts;
  std::vector<int> seen_positions;
  std::function<void(int, bool)> walk = [&](int index, bool land) {
    const nlohmann::json& node = j["nodes"][size_t(index)];
    land = land || node["name"] == "Land";
    if (land && node.contains("mesh")) {
      for (const nlohmann::json& p : j["meshes"][node["mesh"].get<size_t>()]["primitives"]) {
        counts.triangles += j["accessors"][p["indices"].get<size_t>()]["count"].get<size_t>() / 3;
        const int position = p["attributes"]["POSITION"];
        if (std::find(seen_positions.begin(), seen_positions.end(), position) ==
            seen_positions.end()) {
          seen_positions.push_back(position);
          counts.vertices += j["accessors"][size_t(position)]["count"].get<size_t>();
        }
      }
    }
    if (node.contains("children")) {
      for (int child : node["children"]) walk(child, land);
    }
  };
  for (int root : j["scenes"][0]["nodes"]) walk(root, false);
  return counts;
}

}  // namespace

TEST_CASE("cli: planet_lodN.glb holds level N, planet.glb shows level 0", "[cli]") {
  constexpr size_t f = 32;
  for (int lods = 1; lods <= 4; ++lods) {
    INFO("lods = " << lods);
    const fs::path dir = freshDir("lods");
    const fs::path config =
        writeConfig(dir, "lods.toml",
                    "[planet]\nseed = 3\nfrequency = 32\n[erosion]\ndroplets = 1000\n[export]\n"
                    "maps = false\nheightmaps = false\nlod_files = true\nlods = " +
                        std::to_string(lods) + "\n" + kUniformRain);
    const fs::path out = dir / "out";
    const RunResult r = run("generate --config " + config.string() + " --out " + out.string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const LandCounts full = landCounts(out / "planet.glb");
    CHECK(full.triangles == 20 * f * f);
    for (int n = 1; n <= lods; ++n) {
      INFO("planet_lod" << n << ".glb");
      const fs::path file = out / ("planet_lod" + std::to_string(n) + ".glb");
      REQUIRE(fs::exists(file));
      const LandCounts level = landCounts(file);
      const size_t fn = f >> n;
      CHECK(level.triangles == 20 * fn * fn);
      // 10 fn^2 + 2 mesh vertices, plus copies along the texture seam and at the poles.
      CHECK(level.vertices >= 10 * fn * fn + 2);
      CHECK(level.vertices <= 10 * fn * fn + 2 + 4 * fn + 32);
    }
    CHECK_FALSE(fs::exists(out / ("planet_lod" + std::to_string(lods + 1) + ".glb")));
    CHECK_FALSE(fs::exists(out / "planet_lod0.glb"));
  }
}

// A bad --out must fail before any work, and bench must report out-of-range values, not abort.
TEST_CASE("cli: --out, --seed and bench arguments are checked before any work", "[cli]") {
  const fs::path dir = freshDir("args");
  const fs::path config = writeConfig(dir, "ok.toml", "[planet]\nfrequency = 8\n" + kUniformRain);
  std::ofstream(dir / "file") << "keep me";
  fs::create_symlink(dir / "nowhere", dir / "dangling");
  struct Case {
    std::string args;
    int exit_code;
    std::string expected;
  };
  const std::string gen = "generate --config " + config.string() + " --out ";
  const std::vector<Case> cases = {
      {gen + (dir / "file").string(), 2, "exists and is not a folder"},
      {gen + (dir / "dangling").string(), 2, "dangling symbolic link"},
      {gen + "/", 2, "root folder"},
      {gen + (dir / "file" / "sub").string(), 2, "not a folder"},
      // A tester's trial: these failed after all the work (exit 1, naming the staging folder).
      {gen + "/proc/planetgen_out", 2, "--out /proc/planetgen_out cannot be written"},
      {gen + (dir / std::string(240, 'n')).string(), 2, "name too long"},
      {"bench --droplets -1", 2, "--droplets"},
      {"bench --droplets 1e11", 2, "--droplets"},
      {"bench --frequency 0", 2, "--frequency"},
      {"bench --threads 0", 2, "--threads 0"},
      // The window cache allows what [tiles] erosion_cache_mib allows.
      {"bench --tiles-cache-mib 65537", 2, "--tiles-cache-mib"},
      // Windows C = 256 / 2^s steps apart: 0 to 6, cores of 4 steps or more.
      {"bench --tiles-window-subdivision 7", 2, "--tiles-window-subdivision"},
      // A folder without planet.glb was served, to a page that could only fail to load it; the
      // message names both things the viewer shows, a planet and a tiles folder.
      {"view " + dir.string() + " --port 0", 2,
       dir.string() + " has no planet.glb (a planet) and no tileset.json (tiles)"},
  };
  for (const Case& c : cases) {
    const RunResult r = run(c.args);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == c.exit_code);
    CHECK(r.output.find(c.expected) != std::string::npos);
    CHECK(r.output.find("error:") != std::string::npos);
  }
  CHECK(readFile(dir / "file") == "keep me");
  // The largest seed works, and the same seed from a config file gives the same planet.
  const RunResult ok = run(gen + (dir / "out").string() + " --seed 9223372036854775807");
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  const nlohmann::json summary = nlohmann::json::parse(readFile(dir / "out" / "summary.json"));
  CHECK(summary["seed"].get<uint64_t>() == 9223372036854775807ull);
  const fs::path same = writeConfig(
      dir, "seed.toml", "[planet]\nfrequency = 8\nseed = 9223372036854775807\n" + kUniformRain);
  const RunResult again =
      run("generate --config " + same.string() + " --out " + (dir / "again").string());
  INFO(again.output);
  CHECK(again.exit_code == 0);
  CHECK(nlohmann::json::parse(readFile(dir / "again" / "summary.json"))["elevation_hash"] ==
        summary["elevation_hash"]);
}

// Values each key accepts but that fail together, and inputs that are not regular files, would
// be found late (exit 1, an internal message, or a hang). Each is refused up front
// with exit 2, naming the file or option, the key, the value and what is allowed.
TEST_CASE("cli: joint constraints and input files are checked before any work", "[cli]") {
  const fs::path dir = freshDir("joint");
  const fs::path config = writeConfig(dir, "p.toml", "[planet]\nfrequency = 8\n");
  std::ofstream(dir / "map.png") << "not read: the checks come first";
  REQUIRE(::mkfifo((dir / "fifo.png").c_str(), 0600) == 0);
  fs::create_directories(dir / "folder.png");
  fs::create_directories(dir / "zero");
  std::ofstream(dir / "zero" / "map.png") << "x";
  fs::create_symlink("/dev/zero", dir / "zero" / "map.json");
  fs::create_directories(dir / "wide");
  std::ofstream(dir / "wide" / "map.png") << "x";
  std::ofstream(dir / "wide" / "map.json") << R"({"files": [{"min_m": -1e7, "max_m": 1e7}]})";
  struct Case {
    std::string args;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"--set planet.radius_m=1000", {"p.toml", "radius_m = 1000", "at least 38280 m"}},
      {"--set planet.radius_m=0.001", {"radius_m = 0.001", "[1, 1e+09]"}},
      // The key's own range, as the reference states it (it used to be a check of the run).
      {"--set weather.mode=clouds --set weather.moisture_capacity=1e-310",
       {"moisture_capacity = 1e-310", "[1e-06, 1000]"}},
      {"--set weather.mode=clouds --set weather.spawn_rate=1000 --set weather.ticks=100000",
       {"p.toml", "spawn_rate = 1000", "at most 1e+09"}},
      {"--heightmap " + (dir / "fifo.png").string(), {"fifo.png", "not a regular file"}},
      {"--heightmap " + (dir / "folder.png").string(), {"folder.png", "is a folder"}},
      {"--heightmap " + (dir / "missing.png").string(), {"missing.png", "does not exist"}},
      {"--heightmap " + (dir / "zero" / "map.png").string(), {"map.json", "not a regular file"}},
      {"--heightmap " + (dir / "wide" / "map.png").string(),
       {"p.toml", "radius_m", "1e+07", "map.json"}},
      // A tester's trial: the config's range swapped made an upside-down terrain (the
      // sidecar's was refused), and epochs past ticks printed "11.000000" and "[1, ticks]".
      {"--heightmap " + (dir / "map.png").string() +
           " --set terrain.heightmap_min_m=8000 --set terrain.heightmap_max_m=-8000",
       {"p.toml with --set", "heightmap_min_m = 8000", "heightmap_max_m = -8000"}},
      {"--set weather.ticks=10 --set weather.epochs=11",
       {"epochs = 11 is not allowed", "here [1, 10]"}},
  };
  for (const Case& c : cases) {
    const fs::path out = dir / "out";
    const RunResult r =
        run("generate --config " + config.string() + " --out " + out.string() + " " + c.args);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    for (const std::string& e : c.expected) CHECK(r.output.find(e) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
  // compare on a planet without land: nothing to compare (it failed late, naming an internal
  // function).
  const RunResult sea = run("compare --config " + config.string() + " --out " +
                            (dir / "out").string() + " --set ocean.fraction=1");
  INFO(sea.output);
  CHECK(sea.exit_code == 2);
  CHECK(sea.output.find("fraction = 1 leaves no land") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out"));
  // The smallest allowed values work.
  for (const std::string args : {"--set planet.radius_m=38280",
                                 "--set weather.mode=clouds --set weather.moisture_capacity=1e-6 "
                                 "--set weather.dry_moisture=0 --set weather.ticks=40"}) {
    const RunResult r = run("generate --config " + config.string() + " --out " +
                            (dir / "ok").string() + " " + args);
    INFO(args << "\n" << r.output);
    CHECK(r.exit_code == 0);
  }
}

// A tester's trial: a 2 GiB config file (comment lines) under a 2.5 GiB address-space limit
// aborted with std::bad_alloc (exit 134): the file was read whole before anything was
// checked. It is refused by its size now, before a byte is read.
TEST_CASE("cli: a 2 GiB config is refused by its size, even with little address space", "[cli]") {
  const fs::path dir = freshDir("big_config");
  const fs::path config = dir / "big.toml";
  {
    std::ofstream(config) << "# a sparse file: the rest reads as NUL bytes\n";
    fs::resize_file(config, uint64_t(2) << 30);
  }
  const std::string args =
      "generate --config " + config.string() + " --out " + (dir / "out").string();
  const std::string limit = PLANETGEN_TEST_SANITIZED ? "" : "ulimit -v 2500000; ";
  const RunResult r = test_support::run(
      limit + "exec " + test_support::quoted(fs::path(PLANETGEN_BINARY_DIR) / "planetgen") + " " +
      args);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(config.string() + ": cannot read config file: it is larger than 1048576 "
                                        "bytes") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

// A tester's trial: `config --print-reference > FILE` on a full disk left an empty file and
// exited 0; --print-default, --print-reference and bench writing to /dev/full or a closed
// stdout said nothing. Every command's output is checked: a failed write is exit 1, said so.
TEST_CASE("cli: output that cannot be written is an error, not exit 0", "[cli]") {
  const fs::path dir = freshDir("output_lost");
  const fs::path config = writeConfig(dir, "small.toml", kSmallPlanet + kUniformRain);
  const std::string planetgen = test_support::quoted(fs::path(PLANETGEN_BINARY_DIR) / "planetgen");
  const std::vector<std::string> commands = {
      "config --print-default",
      "config --print-reference",
      "--version",
      "--help",
      "bench --frequency 8 --threads 1 --droplets 100 --no-export --no-fluvial --no-pipeline "
      "--no-tiles",
      "generate --config " + config.string() + " --out " + (dir / "out").string(),
  };
  for (const std::string& command : commands) {
    // A full disk (/dev/full: every write fails with ENOSPC) and a closed descriptor.
    for (const auto& [redirect, error] :
         {std::pair<std::string, std::string>{"> /dev/full", "No space left"},
          {">&-", "Bad file descriptor"}}) {
      const RunResult r = test_support::run("(" + planetgen + " " + command + " " + redirect + ")");
      INFO(command << " " << redirect << ": " << r.output);
      CHECK(r.exit_code == 1);
      CHECK(r.output.find("planetgen: error: cannot write to standard output: " + error) !=
            std::string::npos);
    }
    // And the same command with its output going somewhere: exit 0.
    CHECK(test_support::run(planetgen + " " + command + " > /dev/null").exit_code == 0);
  }
  // The run itself was written: the summary is what failed.
  CHECK(fs::exists(dir / "out" / "planet.glb"));
  fs::remove_all(dir);
}

// A tester's trial: `view` on a missing folder said "serveViewer: ... is not a folder".
TEST_CASE("cli: view names what is wrong with its folder in the user's words", "[cli]") {
  const fs::path dir = freshDir("view");
  std::ofstream(dir / "file") << "x";
  for (const auto& [folder, problem] :
       {std::pair<fs::path, std::string>{dir / "missing", "does not exist"},
        {dir / "file", "is not a folder"}}) {
    const RunResult r = run("view " + folder.string() + " --port 0");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(folder.string() + " " + problem) != std::string::npos);
    CHECK(r.output.find("serveViewer") == std::string::npos);
  }
  fs::remove_all(dir);
}

// A tester's trial: f = 256 with 1000 droplets per land vertex ran out of memory and the message
// said to try a smaller frequency; the frequency was not what cost the memory. Here the run is
// given too little address space for its droplets (the estimate, which counts the machine's
// memory, lets it start).
TEST_CASE("cli: out of memory names the knob that costs the most", "[cli]") {
  if (PLANETGEN_TEST_SANITIZED) {
    WARN("skipped: no address-space limit under a sanitizer");
    return;
  }
  const fs::path dir = freshDir("oom");
  const fs::path config = writeConfig(
      dir, "many.toml",
      // Uniform rain keeps every droplet's spawn in memory (clouds rain them as they go).
      "[planet]\nfrequency = 48\n[weather]\nmode = \"uniform\"\n[erosion]\ndroplets = 0\n"
      "droplets_per_land_vertex = 1000\n[export]\nmap_width = 64\n");
  const RunResult r = test_support::run(
      "ulimit -v 300000; exec " +
      test_support::quoted(fs::path(PLANETGEN_BINARY_DIR) / "planetgen") + " generate --config " +
      config.string() + " --out " + (dir / "out").string());
  INFO(r.output);
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("out of memory") != std::string::npos);
  CHECK(r.output.find("lower [erosion] droplets_per_land_vertex") != std::string::npos);
  CHECK(r.output.find("droplets_per_land_vertex = 1000 (about") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

// No input ends in an uncaught exception: with less and less address space a run fails here or
// there, and each time with a message and exit 1 (a failed step, such as a thread that could
// not start) or 3 (out of memory), never an abort (134) or a crash.
TEST_CASE("cli: a run short of memory anywhere fails with a message, never an abort", "[cli]") {
  if (PLANETGEN_TEST_SANITIZED) {
    WARN("skipped: no address-space limit under a sanitizer");
    return;
  }
  const fs::path dir = freshDir("short_of_memory");
  const fs::path config = writeConfig(dir, "small.toml", kSmallPlanet);
  int failed = 0;
  for (const int kib : {16000, 24000, 40000, 64000, 96000, 160000}) {
    const RunResult r = test_support::run(
        "ulimit -v " + std::to_string(kib) + "; exec " +
        test_support::quoted(fs::path(PLANETGEN_BINARY_DIR) / "planetgen") + " generate -q " +
        "--config " + config.string() + " --out " + (dir / "out").string());
    INFO(kib << " KiB: exit " << r.exit_code << ": " << r.output);
    CHECK((r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 3));
    if (r.exit_code != 0) {
      ++failed;
      CHECK(r.output.rfind("planetgen: error: ", 0) == 0);
    }
  }
  CHECK(failed > 0);  // the limits did bite
  fs::remove_all(dir);
}
