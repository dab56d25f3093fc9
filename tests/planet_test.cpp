// planet/: noise, terrain, ocean level, config loading.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>

#include <tbb/task_arena.h>
#include <nlohmann/json.hpp>

#include "geodesy/hash.h"
#include "geodesy/latlon.h"
#include "geodesy/sphere_mesh.h"
#include "planet/config.h"
#include "planet/memory_estimate.h"
#include "planet/run_stats.h"
#include "terrain/ocean.h"
#include "terrain/perlin.h"
#include "terrain/terrain.h"

using namespace planet;

namespace {

float interpolate(const geodesy::SphereMesh& mesh, const std::vector<float>& field,
                  const glm::vec3& p) {
  const geodesy::SurfacePoint sp = mesh.locate(p);
  const uint32_t* f = &mesh.indices[3 * sp.face];
  return sp.bary.x * field[f[0]] + sp.bary.y * field[f[1]] + sp.bary.z * field[f[2]];
}

std::filesystem::path writeTemp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("planetgen_test_" + name);
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

TEST_CASE("noise: values stay in [-1, 1] and vanish on the lattice", "[planet]") {
  const terrain::PerlinNoise noise(123);
  geodesy::HashStream rng(1, 2, 3);
  float lo = 1, hi = -1;
  for (int i = 0; i < 200000; ++i) {
    const glm::vec3 p(float(rng.uniform() * 200 - 100), float(rng.uniform() * 200 - 100),
                      float(rng.uniform() * 200 - 100));
    const float n = noise.noise(p);
    REQUIRE(std::isfinite(n));
    lo = std::min(lo, n), hi = std::max(hi, n);
  }
  CHECK(lo >= -1.0f);
  CHECK(hi <= 1.0f);
  // A real gradient noise spreads: not a constant, not tiny.
  CHECK(hi - lo > 1.0f);
  CHECK(noise.noise(glm::vec3(3, -7, 11)) == 0.0f);
  const terrain::FbmParams params{8, 1.7f, 2.0f, 0.5f};
  for (int i = 0; i < 10000; ++i) {
    const glm::vec3 p(float(rng.uniform() * 4 - 2), float(rng.uniform() * 4 - 2),
                      float(rng.uniform() * 4 - 2));
    const float f = fbm(noise, p, params);
    const float r = terrain::ridgedFbm(noise, p, params);
    REQUIRE(std::abs(f) <= 1.0f);
    REQUIRE(r >= 0.0f);
    REQUIRE(r <= 1.0f);
  }
}

TEST_CASE("noise: deterministic for a seed, different across seeds", "[planet]") {
  const terrain::PerlinNoise a(42), b(42), c(43);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const glm::vec3 p(0.37f * i, -0.11f * i + 0.5f, 0.05f * i + 0.25f);
    REQUIRE(a.noise(p) == b.noise(p));
    differ += a.noise(p) != c.noise(p);
  }
  CHECK(differ > 900);
}

TEST_CASE("terrain: vertex elevations are the continuous terrain at the vertex", "[planet]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(16);
  const terrain::TerrainParams params;
  const auto elevation = terrain::generateElevation(mesh.positions, 9, params);
  const terrain::Terrain terrain(9, params);
  for (size_t v = 0; v < mesh.vertexCount(); ++v)
    REQUIRE(elevation[v] == terrain.elevationAt(mesh.positions[v]));
}

TEST_CASE("terrain: same continents at f = 64 and f = 256", "[planet]") {
  const terrain::TerrainParams params;
  const geodesy::SphereMesh coarse = geodesy::buildIcosphere(64);
  const geodesy::SphereMesh fine = geodesy::buildIcosphere(256);
  const auto h64 = terrain::generateElevation(coarse.positions, 5, params);
  const auto h256 = terrain::generateElevation(fine.positions, 5, params);
  const terrain::Terrain terrain(5, params);

  // Fixed lat/lon points, spread over the whole sphere.
  std::vector<double> a, b;
  double err64 = 0, diff = 0;
  int same_side = 0;
  const int n = 4000;
  geodesy::HashStream rng(77, 1, 0);
  for (int i = 0; i < n; ++i) {
    const double lat = std::asin(2 * rng.uniform() - 1), lon = (2 * rng.uniform() - 1) * M_PI;
    const glm::vec3 p(geodesy::latLonToUnit({lat, lon}));
    const double x = interpolate(coarse, h64, p), y = interpolate(fine, h256, p);
    a.push_back(x), b.push_back(y);
    err64 += std::abs(x - terrain.elevationAt(p));
    diff += std::abs(x - y);
    same_side += (x > 0) == (y > 0);
  }
  auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  };
  const double ma = mean(a), mb = mean(b);
  double sab = 0, saa = 0, sbb = 0;
  for (int i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb), saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  const double correlation = sab / std::sqrt(saa * sbb);
  INFO("correlation " << correlation << ", mean |h64-h256| " << diff / n
                      << " m, mean interpolation error of f=64 " << err64 / n << " m");
  CHECK(correlation > 0.97);
  // The two meshes differ by no more than the coarse mesh's own interpolation error
  // (plus 10 % for the fine mesh's smaller error).
  CHECK(diff / n <= 1.1 * err64 / n + 1.0);
  CHECK(same_side >= int(0.95 * n));
}

TEST_CASE("terrain: bit-identical at 1, 2 and 4 threads", "[planet]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(32);
  std::vector<std::vector<float>> runs;
  for (int threads : {1, 2, 4}) {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      runs.push_back(terrain::generateElevation(mesh.positions, 3, terrain::TerrainParams{}));
    });
  }
  CHECK(runs[0] == runs[1]);
  CHECK(runs[0] == runs[2]);
}

TEST_CASE("ocean: area-weighted quantile puts the asked fraction under water", "[planet]") {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(48);
  const auto elevation = terrain::generateElevation(mesh.positions, 11, terrain::TerrainParams{});
  for (double fraction : {0.0, 0.3, 0.65, 0.9}) {
    const double level = terrain::areaWeightedQuantile(elevation, mesh.vertex_areas, fraction);
    double under = 0, total = 0;
    for (size_t v = 0; v < elevation.size(); ++v) {
      total += mesh.vertex_areas[v];
      if (elevation[v] < level) under += mesh.vertex_areas[v];
    }
    // Under water is below the level; the vertex at the level tips it over the fraction.
    CHECK(under / total <= fraction + 1e-9);
    CHECK(under / total >= fraction - 1e-3);
  }
  // Unequal areas matter: a field that is high exactly where areas are large.
  std::vector<float> e = {0, 1, 2, 3};
  std::vector<float> areas = {1, 1, 1, 5};
  CHECK(terrain::areaWeightedQuantile(e, areas, 0.5) == 3.0);
}

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
                                              "planet.radius_m = 1000"};
  const Config c = loadConfig(path, overrides);
  CHECK(c.planet.frequency == 12);
  CHECK(c.planet.seed == 5);
  CHECK(c.erosion.inertia == 0.4);
  CHECK(c.ocean.mode == "fraction");
  CHECK(c.planet.radius_m == 1000.0);
  const auto j = nlohmann::json::parse(configToJson(c));
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
      {"[planet]\nradius_m = 0\n", {}, {"radius_m", "(0,"}},
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
      {"[ocean]\nmode = \"lava\"\n", {}, {"mode", "lava", "\"fraction\", \"level\""}},
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
    if (c.overrides.empty()) CHECK(message.find("planetgen_test_config.toml") != std::string::npos);
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

TEST_CASE("memory estimate: absurd frequencies are refused with a fitting one", "[planet]") {
  Config c;
  c.planet.frequency = 100000;
  c.limits.memory_cap_gib = 8;
  const MemoryEstimate e = estimateMemory(c);
  CHECK(e.required_bytes > e.available_bytes);
  CHECK(e.largest_fitting_frequency > 100);
  CHECK(e.largest_fitting_frequency < 100000);
  c.planet.frequency = e.largest_fitting_frequency;
  CHECK(estimateMemory(c).required_bytes <= e.available_bytes);
}

TEST_CASE("run stats: each stage's peak memory is its own, the run's peak the highest",
          "[planet]") {
  planet::StageTimer timer;
  if (!timer.trackMemory()) {
    WARN("the peak RSS cannot be reset here (/proc/self/clear_refs): nothing to check");
    return;
  }
  constexpr size_t kBig = size_t(256) << 20;
  timer.start("big");
  {
    std::vector<char> block(kBig);
    std::memset(block.data(), 1, block.size());  // resident, whatever the allocator did
    volatile char sink = block[kBig / 2];
    (void)sink;
  }  // freed: a 256 MB block goes back to the system
  timer.start("small");
  {
    std::vector<char> block(size_t(1) << 20, 1);
    volatile char sink = block[12];
    (void)sink;
  }
  timer.stop();
  const auto& peaks = timer.stagePeaks();
  REQUIRE(peaks.size() == 2);
  CHECK(peaks[0].first == "big");
  CHECK(peaks[1].first == "small");
  // Without the reset at the boundary, "small" would report big's peak.
  CHECK(peaks[0].second >= peaks[1].second + kBig * 3 / 4);
  CHECK(timer.peakRss() >= peaks[0].second);
  // A stage run twice keeps its higher peak.
  timer.start("small");
  timer.stop();
  REQUIRE(timer.stagePeaks().size() == 2);
  CHECK(timer.stagePeaks()[1].second >= peaks[1].second);
}
