// `planetgen compare`, run as a user runs it: the real binary, real files read back.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <stb_image.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

const fs::path kBinary = fs::path(PLANETGEN_BINARY_DIR) / "planetgen";

// A planet big enough for weather to show: f = 48, large continents, westerlies over them.
const std::string kConfig =
    "[planet]\nseed = 11\nfrequency = 48\n"
    "[terrain]\ncontinent_frequency = 0.7\n"
    "[erosion]\ndroplets = 40000\nbatch_size = 64\n"
    "[weather]\nticks = 300\nepochs = 2\n"
    "[export]\nmap_width = 128\n"
    "[compare]\nglobe_size_px = 96\nglobe_views = 2\n";

int run(const std::string& args) {
  const int status = std::system((kBinary.string() + " " + args + " 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

nlohmann::json readJson(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The folder of the runs that ctest's planet_compare_runs fixture makes once for every case
// (PLANETGEN_COMPARE_RUNS; tests/CMakeLists.txt), or empty when this program runs alone.
fs::path sharedRuns() {
  const char* dir = std::getenv("PLANETGEN_COMPARE_RUNS");
  return dir ? fs::path(dir) : fs::path();
}

// Runs `planetgen compare` on kConfig at the given thread count into dir/out<threads>.
fs::path makeCompareOutput(const fs::path& dir, int threads) {
  fs::create_directories(dir);
  std::ofstream(dir / "compare.toml") << kConfig;
  const fs::path out = dir / ("out" + std::to_string(threads));
  fs::remove_all(out);
  REQUIRE(run("compare --config " + (dir / "compare.toml").string() + " --out " + out.string() +
              " --threads " + std::to_string(threads)) == 0);
  return out;
}

// The compare outputs of one config at the given thread count: under ctest those of the
// fixture (one run per count for all cases: under ASan a run takes 12.5 s of CPU), run alone
// made here once per count.
const fs::path& compareOutput(int threads) {
  static std::map<int, fs::path> outputs;
  if (!outputs.count(threads)) {
    const fs::path shared = sharedRuns();
    if (shared.empty()) {
      outputs[threads] = makeCompareOutput(
          fs::temp_directory_path() / ("planetgen_compare_test_" + std::to_string(::getpid())),
          threads);
    } else {
      const fs::path out = shared / ("out" + std::to_string(threads));
      REQUIRE(fs::exists(out / "metrics.json"));
      outputs[threads] = out;
    }
  }
  return outputs[threads];
}

// metrics.json without what legitimately differs between runs (timings, memory, threads).
nlohmann::json stableMetrics(const fs::path& out) {
  nlohmann::json m = readJson(out / "metrics.json");
  m.erase("timings");
  m.erase("peak_rss_bytes");
  m.erase("threads");
  return m;
}

}  // namespace

// Hidden: ctest's planet_compare_runs fixture, the runs the other cases read.
TEST_CASE("compare: the runs at 1 and 2 threads, once for every case", "[compare][.compare_runs]") {
  const fs::path shared = sharedRuns();
  REQUIRE_FALSE(shared.empty());
  fs::remove_all(shared);
  for (int threads : {1, 2}) makeCompareOutput(shared, threads);
}

TEST_CASE("compare: the two runs share the terrain and the droplet budget", "[compare]") {
  const fs::path& out = compareOutput(2);
  const auto m = readJson(out / "metrics.json");
  CHECK(m["weather"]["droplets"] == 40000);
  CHECK(m["uniform"]["droplets"] == 40000);
  CHECK(m["weather"]["elevation_hash"] != m["uniform"]["elevation_hash"]);
  // generate without erosion gives the same initial terrain as both compare runs started from.
  const fs::path dir = out.parent_path();
  const fs::path gen = dir / "generate";
  REQUIRE(run("generate --config " + (dir / "compare.toml").string() + " --out " + gen.string() +
              " --set erosion.droplets=0 --set erosion.droplets_per_land_vertex=0") == 0);
  const auto summary = readJson(gen / "summary.json");
  CHECK(summary["initial_elevation_hash"] == m["initial_elevation_hash"]);
  for (const char* mode : {"weather", "uniform"}) {
    INFO(mode);
    CHECK(m[mode]["mass_conservation_error"].get<double>() < 1e-5);
    CHECK(m[mode]["latitude_bands"].size() == 18);
  }
  CHECK(m["regions"].size() >= 1);
}

TEST_CASE("compare: valleys follow the rain under weather, not under uniform rain", "[compare]") {
  // The wettest and the driest quarter by the cloud run's rain, within elevation bands: the
  // mean channel depth below the 1-ring (docs/fluvial.md, "Rain and relief"). The steady-state
  // relief removes no amount of rock that could follow the rain, so rain against "the noise
  // minus the result" is not the measure; the depth of the valleys is.
  const auto m = readJson(compareOutput(2) / "metrics.json");
  const double weather =
      m["weather"]["rivers"]["cloud_rain_quarters"]["elevation_matched"]["channel_depth_ratio"];
  const double uniform =
      m["uniform"]["rivers"]["cloud_rain_quarters"]["elevation_matched"]["channel_depth_ratio"];
  INFO("wettest / driest quarter's channel depth: weather " << weather << ", uniform " << uniform);
  CHECK(weather >= 1.5);
  // Not a ratio of a vertex or two: the cloud run's dry quarter holds channels (8 at f = 48).
  CHECK(m["weather"]["rivers"]["cloud_rain_quarters"]["elevation_matched"]["driest"]
         ["channel_vertices"] >= 5);
  CHECK(uniform >= 1.0 / 1.3);
  CHECK(uniform <= 1.3);
  // Under uniform rain the erosion depth does not follow the cloud run's rain either.
  CHECK(std::abs(double(m["uniform"]["rain_erosion_spearman"])) <= 0.1);
}

TEST_CASE("compare: metrics are identical at 1 and 2 threads", "[compare]") {
  CHECK(stableMetrics(compareOutput(1)) == stableMetrics(compareOutput(2)));
}

TEST_CASE("compare: every file is written and every PNG has its stated size", "[compare]") {
  const fs::path& out = compareOutput(2);
  for (const char* name :
       {"weather.glb", "uniform.glb", "initial.glb", "report.html", "metrics.json"})
    CHECK(fs::file_size(out / name) > 0);
  struct Png {
    std::string name;
    int width, height;
  };
  std::vector<Png> pngs;
  for (const char* map : {"relief_initial", "relief_weather", "relief_uniform", "rainfall_weather",
                          "rainfall_uniform", "erosion_weather", "erosion_uniform", "difference"})
    pngs.push_back({std::string(map) + ".png", 128, 64});
  for (const char* run : {"initial", "weather", "uniform"})
    for (int view : {1, 2})
      pngs.push_back({std::string("globe_") + run + "_" + std::to_string(view) + ".png", 96, 96});
  std::ifstream report(out / "report.html");
  const std::string html((std::istreambuf_iterator<char>(report)),
                         std::istreambuf_iterator<char>());
  for (const Png& png : pngs) {
    INFO(png.name);
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load((out / png.name).c_str(), &w, &h, &channels, 3);
    REQUIRE(pixels != nullptr);
    stbi_image_free(pixels);
    CHECK(w == png.width);
    CHECK(h == png.height);
    CHECK(html.find("src=\"" + png.name + "\"") != std::string::npos);
  }
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("rain–erosion Spearman") != std::string::npos);
}
