// Droplet erosion (erosion/) and uniform rain (weather/uniform_rain) on synthetic planets.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <catch2/catch.hpp>
#include <glm/geometric.hpp>

#include "erosion/brush.h"
#include "erosion/brush_lanes.h"
#include "erosion/change_accumulator.h"
#include "erosion/droplet.h"
#include "erosion/droplet_erosion.h"
#include "erosion/droplet_trace.h"
#include "erosion/node_table.h"
#include "erosion/publish_lanes.h"
#include "erosion/surface_lanes.h"
#include "geodesy/hash.h"
#include "geodesy/sphere_mesh.h"
#include "weather/uniform_rain.h"

namespace {

constexpr double kRadiusM = 6371000.0;

const geodesy::SphereMesh& meshOf(int frequency) {
  static std::vector<std::pair<int, geodesy::SphereMesh>> cache;
  for (auto& [f, mesh] : cache)
    if (f == frequency) return mesh;
  cache.emplace_back(frequency, geodesy::buildIcosphere(frequency));
  return cache.back().second;
}

// Metres for a dimensionless slope s (rise per edge length) along the unit vector axis.
std::vector<float> tilted(const geodesy::SphereMesh& mesh, glm::vec3 axis, double slope) {
  std::vector<float> h(mesh.vertexCount());
  for (size_t v = 0; v < h.size(); ++v)
    h[v] = float(slope * kRadiusM * glm::dot(mesh.positions[v], axis));
  return h;
}

// A rough, fBm-like planet: a few octaves of plane waves, about +-3 km.
std::vector<float> rough(const geodesy::SphereMesh& mesh, uint64_t seed) {
  std::vector<float> h(mesh.vertexCount(), 0.0f);
  geodesy::HashStream rng(seed, 1, 0);
  double amplitude = 1500.0, frequency = 2.0;
  for (int octave = 0; octave < 5; ++octave, amplitude *= 0.5, frequency *= 2.0) {
    for (int i = 0; i < 4; ++i) {
      const glm::vec3 k =
          glm::normalize(glm::vec3(float(rng.uniform() - 0.5), float(rng.uniform() - 0.5),
                                   float(rng.uniform() - 0.5))) *
          float(frequency);
      const float phase = float(6.2831853 * rng.uniform());
      for (size_t v = 0; v < h.size(); ++v)
        h[v] += float(amplitude * std::sin(glm::dot(k, mesh.positions[v]) + phase));
    }
  }
  return h;
}

float heightAt(const geodesy::SphereMesh& mesh, std::span<const float> h,
               const geodesy::SurfacePoint& at) {
  const uint32_t* c = &mesh.indices[3 * size_t(at.face)];
  return h[c[0]] * at.bary.x + h[c[1]] * at.bary.y + h[c[2]] * at.bary.z;
}

geodesy::DropletSpawn spawnAt(const geodesy::SphereMesh& mesh, glm::vec3 p) {
  geodesy::DropletSpawn s;
  s.point = mesh.locate(glm::normalize(p));
  return s;
}

erosion::ErosionInput inputFor(const geodesy::SphereMesh& mesh, double sea_level_m = -1e9) {
  erosion::ErosionInput input;
  input.mesh = &mesh;
  input.radius_m = kRadiusM;
  input.sea_level_m = sea_level_m;
  input.seed = 7;
  return input;
}

std::vector<float> hardness(const geodesy::SphereMesh& mesh) {
  std::vector<float> e(mesh.vertexCount());
  for (size_t v = 0; v < e.size(); ++v)
    e[v] = 0.4f + 0.6f * (0.5f + 0.5f * std::sin(3.0f * mesh.positions[v].x + 1.0f));
  return e;
}

double massError(const geodesy::SphereMesh& mesh, std::span<const float> before,
                 std::span<const float> after) {
  double net = 0.0, gross = 0.0;
  for (size_t v = 0; v < before.size(); ++v) {
    const double dv = (double(after[v]) - double(before[v])) * mesh.vertex_areas[v];
    net += dv;
    gross += std::abs(dv);
  }
  return gross > 0.0 ? std::abs(net) / gross : 0.0;
}

}  // namespace

TEST_CASE("erosion: a droplet on a tilted surface moves downhill and speeds up", "[erosion]") {
  const auto& mesh = meshOf(32);
  const glm::vec3 up = glm::normalize(glm::vec3(0.3f, 1.0f, -0.2f));
  const auto h = tilted(mesh, up, 0.05);
  // On the great circle where the tilt is steepest.
  const glm::vec3 start = glm::normalize(glm::cross(up, glm::vec3(0.0f, 0.0f, 1.0f)));
  erosion::ErosionParams params;
  params.max_lifetime = 20;
  const auto trace = erosion::traceDroplet(inputFor(mesh), spawnAt(mesh, start), params, h, 3);
  REQUIRE(trace.steps.size() == 21);
  CHECK(trace.end == erosion::DropletEnd::kLifetime);
  for (size_t i = 1; i < trace.steps.size(); ++i) {
    const auto& a = trace.steps[i - 1];
    const auto& b = trace.steps[i];
    CHECK(b.height_m < a.height_m);
    CHECK(b.speed > a.speed);
    CHECK(glm::dot(b.position - a.position, up) < 0.0f);
    // One mean edge length per step.
    CHECK(glm::length(b.position - a.position) == Approx(mesh.mean_edge_length).epsilon(0.01));
  }
  // Straight down the slope: the path stays close to the steepest great circle.
  const glm::vec3 across = glm::normalize(glm::cross(up, start));
  CHECK(std::abs(glm::dot(trace.steps.back().position, across)) < 2 * mesh.mean_edge_length);
}

TEST_CASE("erosion: a droplet in a bowl ends at the bottom", "[erosion]") {
  const auto& mesh = meshOf(32);
  const glm::vec3 bottom = glm::normalize(glm::vec3(0.5f, -0.2f, 0.8f));
  std::vector<float> h(mesh.vertexCount());
  for (size_t v = 0; v < h.size(); ++v)
    h[v] = float(0.05 * kRadiusM * (1.0 - glm::dot(mesh.positions[v], bottom)) * 20.0);
  erosion::ErosionParams params;
  params.max_lifetime = 200;
  for (int k = 0; k < 8; ++k) {
    const float a = float(k) * 0.785f;
    const glm::vec3 side = glm::normalize(glm::cross(bottom, glm::vec3(0, 1, 0)));
    const glm::vec3 other = glm::cross(bottom, side);
    const glm::vec3 start = bottom + 0.25f * (std::cos(a) * side + std::sin(a) * other);
    const auto trace =
        erosion::traceDroplet(inputFor(mesh), spawnAt(mesh, start), params, h, uint64_t(k));
    INFO("start " << k << " steps " << trace.steps.size());
    // Steps are one edge long whatever the speed, so it would rock about the bottom; it is
    // trapped there instead once it comes back near a vertex it passed.
    CHECK(trace.end == erosion::DropletEnd::kFlat);
    REQUIRE(trace.steps.size() >= 3);
    CHECK(trace.steps.size() < 60);
    // It went downhill first: 0.25 rad from the bottom is about 5 edge lengths at f = 32.
    CHECK(trace.steps[1].height_m < trace.steps[0].height_m);
    CHECK(glm::length(glm::normalize(trace.steps.back().position) - bottom) <
          2.0f * float(mesh.mean_edge_length));
  }
}

TEST_CASE("erosion: a droplet on flat ground stops", "[erosion]") {
  const auto& mesh = meshOf(16);
  const std::vector<float> h(mesh.vertexCount(), 100.0f);
  erosion::ErosionParams params;
  params.inertia = 0.0;
  const auto trace =
      erosion::traceDroplet(inputFor(mesh, 0.0), spawnAt(mesh, {1, 2, 3}), params, h, 0);
  CHECK(trace.end == erosion::DropletEnd::kFlat);
  CHECK(trace.steps.size() == 2);  // one random step, then stalled again
}

TEST_CASE("erosion: erosion never digs below the next position", "[erosion]") {
  const auto& mesh = meshOf(32);
  const auto h = rough(mesh, 11);
  erosion::ErosionParams params;
  params.erosion = 1.0;
  params.capacity = 1000.0;
  params.min_slope = 1.0;
  params.max_lifetime = 60;
  const auto input = inputFor(mesh);
  const auto spawns = weather::uniformRain(mesh, h, -1e9, 200, 5);
  int eroding_steps = 0;
  for (size_t i = 0; i < spawns.size(); ++i) {
    const auto trace = erosion::traceDroplet(input, spawns[i], params, h, i);
    for (const auto& s : trace.steps) {
      if (s.eroded <= 0.0f) continue;
      ++eroding_steps;
      CHECK(s.eroded <= -s.height_change);
    }
  }
  CHECK(eroding_steps > 1000);

  // One step on the real terrain: the old position ends no lower than the new one was.
  params.max_lifetime = 1;
  params.radius = 1.0;
  int checked = 0;
  for (size_t i = 0; i < 50; ++i) {
    const auto trace = erosion::traceDroplet(input, spawns[i], params, h, i);
    if (trace.steps.size() < 2 || trace.steps[1].eroded <= 0.0f) continue;
    std::vector<float> after = h, change;
    erosion::erodeDroplets(input, std::span(&spawns[i], 1), params, after, change, i);
    const float h_old_after = heightAt(mesh, after, spawns[i].point);
    CHECK(h_old_after >= trace.steps[1].height_m - 1e-3f);
    for (size_t v = 0; v < h.size(); ++v) {
      const float dug = (h[v] - after[v]) / float(mesh.mean_edge_length * kRadiusM);
      CHECK(dug <= -trace.steps[1].height_change * 1.0001f + 1e-7f);
    }
    ++checked;
  }
  CHECK(checked > 20);
}

TEST_CASE("erosion: no NaN or Inf with random parameters", "[erosion]") {
  const auto& mesh = meshOf(24);
  const auto h0 = rough(mesh, 3);
  const auto spawns = weather::uniformRain(mesh, h0, 0.0, 10000, 9);
  REQUIRE(spawns.size() == 10000);
  const auto e = hardness(mesh);
  std::vector<float> h = h0, change(h.size(), 0.0f);
  geodesy::HashStream rng(1234, 0, 0);
  // Uniform in [lo, hi], or log-uniform for ranges spanning decades, so both ends get drawn.
  auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * rng.uniform(); };
  auto logUniform = [&](double lo, double hi) { return lo * std::pow(hi / lo, rng.uniform()); };
  for (size_t group = 0; group < 50; ++group) {
    // The ranges [erosion] keys allow (docs/config.md).
    erosion::ErosionParams p;
    p.inertia = uniform(0.0, 1.0);
    p.capacity = logUniform(1e-3, 1000.0);
    p.min_slope = group % 5 == 0 ? 0.0 : logUniform(1e-4, 10.0);
    p.deposition = uniform(0.0, 1.0);
    p.erosion = uniform(0.0, 1.0);
    p.evaporation = uniform(0.0, 0.999);
    p.gravity = logUniform(1e-3, 1000.0);
    p.radius = uniform(1.0, 8.0);
    p.max_lifetime = 1 + int(logUniform(1.0, 1000.0));
    p.initial_water = logUniform(1e-3, 1000.0);
    p.initial_speed = group % 7 == 0 ? 0.0 : logUniform(1e-3, 1000.0);
    p.blur = uniform(0.0, 1.0);
    p.batch_size = int(logUniform(1.0, 1000.0));
    auto input = inputFor(mesh, 0.0);
    if (group % 2) input.erodibility = e;
    const auto stats = erosion::erodeDroplets(input, std::span(spawns).subspan(group * 200, 200), p,
                                              h, change, group * 200);
    INFO("group " << group);
    REQUIRE(std::isfinite(stats.eroded_volume_m3));
    REQUIRE(std::isfinite(stats.deposited_volume_m3));
    REQUIRE(std::isfinite(stats.mass_error));
    REQUIRE(stats.ended_dried + stats.ended_lifetime + stats.ended_sea + stats.ended_flat == 200);
  }
  for (size_t v = 0; v < h.size(); ++v) {
    REQUIRE(std::isfinite(h[v]));
    REQUIRE(std::isfinite(change[v]));
  }
}

TEST_CASE("erosion: volume is conserved on unequal dual areas", "[erosion]") {
  const auto& mesh = meshOf(64);
  const auto h0 = rough(mesh, 21);
  const auto spawns = weather::uniformRain(mesh, h0, 0.0, 100000, 4);
  const auto e = hardness(mesh);
  for (double blur : {0.0, 0.5}) {
    std::vector<float> h = h0, change(h.size(), 0.0f);
    auto input = inputFor(mesh, 0.0);
    input.erodibility = e;
    erosion::ErosionParams params;
    params.blur = blur;
    const auto stats = erosion::erodeDroplets(input, spawns, params, h, change);
    INFO("blur " << blur << " eroded " << stats.eroded_volume_m3 << " m3");
    CHECK(stats.droplets == spawns.size());
    CHECK(stats.eroded_volume_m3 > 0.0);
    CHECK(stats.deposited_volume_m3 == Approx(stats.eroded_volume_m3).epsilon(1e-5));
    CHECK(stats.mass_error <= 1e-5);
    CHECK(massError(mesh, h0, h) <= 1e-5);
    CHECK(massError(mesh, std::vector<float>(h.size(), 0.0f), change) <= 1e-5);
    CHECK(stats.ended_sea > 0);
    CHECK(stats.ended_dried + stats.ended_lifetime + stats.ended_sea + stats.ended_flat ==
          stats.droplets);
  }
}

TEST_CASE("erosion: bit-identical for 1, 2 and 4 threads", "[erosion]") {
  const auto& mesh = meshOf(48);
  const auto h0 = rough(mesh, 8);
  // PLANETGEN_EROSION_THREAD_DROPLETS=<n> rains n droplets instead of 30000 (CI's tsan stage:
  // still many batches of 500 per call, a quarter of the time).
  int droplets = 30000;
  if (const char* count = std::getenv("PLANETGEN_EROSION_THREAD_DROPLETS"))
    droplets = std::clamp(std::atoi(count), 2000, 30000);
  const auto spawns = weather::uniformRain(mesh, h0, 0.0, droplets, 2);
  const auto e = hardness(mesh);
  // Let 4 threads really run, even on a 2-core machine.
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);
  for (auto mode : {erosion::BrushMode::kLattice, erosion::BrushMode::kPrecomputed,
                    erosion::BrushMode::kGathered}) {
    erosion::ErosionParams params;
    params.batch_size = 500;
    params.blur = 0.3;
    struct Run {
      std::vector<float> h, change;
      erosion::ErosionStats stats;
    };
    auto run = [&](int threads) {
      Run r{h0, std::vector<float>(h0.size(), 0.0f), {}};
      tbb::task_arena(threads).execute([&] {
        erosion::ErosionWorkspace workspace(mesh, params.radius, mode);
        auto input = inputFor(mesh, 0.0);
        input.erodibility = e;
        input.workspace = &workspace;
        // Two calls through one workspace, as weather epochs do.
        const size_t half = spawns.size() / 2;
        r.stats =
            erosion::erodeDroplets(input, std::span(spawns).first(half), params, r.h, r.change, 0);
        const auto second = erosion::erodeDroplets(input, std::span(spawns).subspan(half), params,
                                                   r.h, r.change, half);
        r.stats.eroded_volume_m3 += second.eroded_volume_m3;
        r.stats.droplet_steps += second.droplet_steps;
        r.stats.ended_sea += second.ended_sea;
      });
      return r;
    };
    const Run one = run(1);
    for (int threads : {2, 4, 4}) {
      const Run other = run(threads);
      INFO("threads " << threads);
      CHECK(std::memcmp(one.h.data(), other.h.data(), one.h.size() * sizeof(float)) == 0);
      CHECK(std::memcmp(one.change.data(), other.change.data(),
                        one.change.size() * sizeof(float)) == 0);
      CHECK(one.stats.eroded_volume_m3 == other.stats.eroded_volume_m3);
      CHECK(one.stats.mass_error == other.stats.mass_error);
      CHECK(one.stats.droplet_steps == other.stats.droplet_steps);
      CHECK(one.stats.ended_sea == other.stats.ended_sea);
    }
    CHECK(one.stats.eroded_volume_m3 > 0.0);
  }
}

TEST_CASE("erosion: droplets in flight give the result of droplets one by one", "[erosion]") {
  // runDroplets steps several droplets in turn; each must end as it would alone (runDroplet):
  // same outcome, same fixed-point changes, for any number in flight. The terrain has a sea
  // (fans and end deposits), some droplets spawn in it (they end at once, also in a row and
  // last), some on a plateau (random directions by droplet id), and the order is shuffled as
  // the driver's sort by face does.
  const auto& mesh = meshOf(48);
  auto h0 = rough(mesh, 11);
  // A flat plateau, where droplets take random directions from their ids' streams.
  for (size_t v = 0; v < h0.size(); ++v)
    if (mesh.positions[v].z > 0.85f) h0[v] = 400.0f;
  auto spawns = weather::uniformRain(mesh, h0, 0.0, 3000, 5);
  std::vector<uint32_t> wet;
  for (uint32_t v = 0; v < h0.size() && wet.size() < 60; v += 7)
    if (h0[v] < -100.0f) wet.push_back(v);
  REQUIRE(wet.size() == 60);
  for (size_t k = 0; k < wet.size(); ++k) {
    const size_t at = k < 50 ? k * 53 : spawns.size();  // 10 in a row at the end
    spawns.insert(spawns.begin() + at, spawnAt(mesh, mesh.positions[wet[k]]));
  }
  std::vector<uint32_t> order(spawns.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = uint32_t(i);
  geodesy::HashStream shuffle(3, 4, 5);
  for (size_t i = order.size() - 1; i > 0; --i)
    std::swap(order[i], order[size_t(shuffle.uniform() * double(i + 1))]);
  std::rotate(order.begin(), std::find(order.begin(), order.end(), uint32_t(spawns.size() - 10)),
              order.end());  // a wet spawn first
  constexpr uint64_t kFirstId = 100;
  const auto e = hardness(mesh);
  for (auto mode : {erosion::BrushMode::kLattice, erosion::BrushMode::kGathered}) {
    INFO("brush mode " << int(mode));
    erosion::ErosionParams params;
    erosion::ErosionWorkspace workspace(mesh, params.radius, mode);
    auto input = inputFor(mesh, 0.0);
    input.erodibility = e;
    workspace.impl().prepare(h0, erosion::heightScale(input), e);
    const auto context = erosion::makeDropletContext(input, params, workspace.impl());
    struct Run {
      std::vector<erosion::DropletOutcome> outcomes;
      std::vector<int64_t> sums;
    };
    // in_flight 0: runDroplet, one droplet after another in `order`.
    auto run = [&](size_t in_flight) {
      erosion::ChangeAccumulator changes(mesh.vertexCount(), erosion::kBrushPadding);
      std::unique_ptr<erosion::BrushGatherer> gatherer;
      std::vector<erosion::VisitedSet> visited(std::max<size_t>(in_flight, 1));
      Run r{std::vector<erosion::DropletOutcome>(spawns.size()), {}};
      if (in_flight == 0) {
        for (uint32_t i : order)
          r.outcomes[i] = erosion::runDroplet(context, {&changes, &gatherer, &visited[0]},
                                              spawns[i], kFirstId + i, nullptr);
      } else {
        erosion::runDroplets(context, {&changes, &gatherer, nullptr}, visited, spawns, order,
                             kFirstId, r.outcomes);
      }
      r.sums.assign(changes.sums(), changes.sums() + mesh.vertexCount());
      return r;
    };
    const Run alone = run(0);
    size_t sea = 0, spawned_wet = 0, changed = 0;
    for (const auto& o : alone.outcomes) {
      sea += o.end == erosion::DropletEnd::kSea;
      spawned_wet += o.end == erosion::DropletEnd::kSea && o.steps == 0;
    }
    for (int64_t q : alone.sums) changed += q != 0;
    CHECK(sea > 100);  // fans were laid
    CHECK(spawned_wet == wet.size());
    CHECK(changed > mesh.vertexCount() / 10);
    // Eight in flight run in lockstep with locateStep8 where the CPU has AVX2, sixteen as two
    // lockstep groups taking turns.
    for (size_t in_flight : {size_t(1), size_t(3), size_t(4), size_t(8), size_t(16)}) {
      INFO("in flight " << in_flight);
      const Run other = run(in_flight);
      CHECK(alone.sums == other.sums);
      size_t same = 0;
      for (size_t i = 0; i < spawns.size(); ++i) {
        const auto &a = alone.outcomes[i], &b = other.outcomes[i];
        same += a.eroded == b.eroded && a.deposited == b.deposited && a.steps == b.steps &&
                a.end == b.end;
      }
      CHECK(same == spawns.size());
    }
  }
}

TEST_CASE("erosion: the trap-test set remembers every vertex of a droplet's life", "[erosion]") {
  // Droplets of up to 1000 steps (max_lifetime's limit): the first VisitedSet::kRecent vertices
  // go to its list, the rest to its table. Each droplet inserts as the trap test does (the
  // vertex it was nearest to a step ago, which may repeat the last one) and asks for others;
  // the answers must be a plain set's. Many droplets reuse one set, as a worker's lanes do.
  erosion::VisitedSet visited;
  geodesy::HashStream rng(21, 0, 0);
  size_t asked = 0, found = 0, long_lives = 0;
  for (int droplet = 0; droplet < 400; ++droplet) {
    visited.begin();
    std::vector<uint32_t> inserted;
    const int life = droplet % 4 == 0 ? 1000 : int(100 * rng.uniform());
    long_lives += life > int(erosion::VisitedSet::kRecent);
    uint32_t last = 0;
    for (int step = 0; step < life; ++step) {
      // Vertices from a small range, so that questions often hit.
      const uint32_t v = rng.uniform() < 0.3 && step > 0 ? last : uint32_t(rng.uniform() * 3000);
      visited.insert(v);
      inserted.push_back(v);
      last = v;
      const uint32_t q = rng.uniform() < 0.5
                             ? inserted[size_t(rng.uniform() * double(inserted.size()))]
                             : uint32_t(rng.uniform() * 3000);
      const bool expected = std::find(inserted.begin(), inserted.end(), q) != inserted.end();
      REQUIRE(visited.contains(q) == expected);
      ++asked;
      found += expected;
    }
  }
  CHECK(long_lives > 50);
  CHECK(found > asked / 3);
  CHECK(found < asked);
}

TEST_CASE("erosion: brush weights of every vertex sum to 1", "[erosion]") {
  const auto& mesh = meshOf(32);
  for (double radius : {1.0, 3.0, 5.5}) {
    const auto brushes = erosion::buildVertexBrushes(mesh, radius);
    REQUIRE(brushes.offsets.size() == mesh.vertexCount() + 1);
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      double sum = 0.0;
      bool has_centre = false;
      for (uint32_t k = brushes.offsets[v]; k < brushes.offsets[v + 1]; ++k) {
        REQUIRE(brushes.weights[k] > 0.0f);
        sum += brushes.weights[k];
        has_centre |= brushes.ids[k] == v;
      }
      REQUIRE(has_centre);
      REQUIRE(sum == Approx(1.0).epsilon(1e-5));
    }
    // Every vertex within the radius is in the brush (brute force on a sample).
    for (size_t v = 0; v < mesh.vertexCount(); v += 97) {
      size_t inside = 0;
      for (size_t u = 0; u < mesh.vertexCount(); ++u)
        inside += glm::length(mesh.positions[u] - mesh.positions[v]) <
                  float(radius * mesh.mean_edge_length) * 0.9999f;
      const size_t count = brushes.offsets[v + 1] - brushes.offsets[v];
      CHECK(count >= inside);
      CHECK(count <= inside + 6);
    }
  }
  // The lattice brush: weights sum to 1 and fall with lattice distance; its vertices, walked
  // through the neighbour lists, are distinct and lie within the radius (in edge lengths, up
  // to the mesh's spread of edge lengths).
  for (double radius : {1.0, 3.0, 5.5, 8.0}) {
    const auto lattice = erosion::makeLatticeBrush(radius);
    REQUIRE(lattice.entries.size() <= erosion::kMaxLatticeBrush);
    double sum = 0.0;
    for (const auto& e : lattice.entries) sum += e.weight;
    CHECK(sum == Approx(1.0).epsilon(1e-6));
    CHECK(lattice.entries[0].weight >= lattice.entries.back().weight);
    const auto nodes = erosion::buildNodeTable(mesh, lattice.rings + 1);
    std::vector<uint32_t> ids(lattice.entries.size());
    size_t regular = 0;
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      if (nodes.links[v].irregularBrush()) continue;
      ++regular;
      erosion::latticeBrushIds(nodes.links.data(), lattice, uint32_t(v), ids.data());
      std::vector<uint32_t> sorted = ids;
      std::sort(sorted.begin(), sorted.end());
      REQUIRE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
      for (uint32_t id : ids)
        REQUIRE(glm::length(mesh.positions[id] - mesh.positions[v]) <
                float(1.2 * radius * mesh.mean_edge_length));
    }
    CHECK(regular > mesh.vertexCount() / 2);
  }

  // On the fly, around points that are not vertices.
  erosion::BrushGatherer gatherer(mesh);
  geodesy::HashStream rng(5, 0, 0);
  for (int i = 0; i < 200; ++i) {
    const glm::vec3 p = glm::normalize(glm::vec3(
        float(rng.uniform() - 0.5), float(rng.uniform() - 0.5), float(rng.uniform() - 0.5)));
    const auto at = mesh.locate(p);
    const size_t n = gatherer.gather(p, mesh.indices[3 * at.face], 3.0f);
    double sum = 0.0;
    for (float w : gatherer.weights()) sum += w;
    CHECK(n >= 19);
    CHECK(sum == Approx(1.0).epsilon(1e-5));
  }
}

TEST_CASE("erosion: the row brush is the lattice brush, read as runs of ids", "[erosion]") {
  const auto& mesh = meshOf(64);
  for (double radius : {1.0, 3.0, 5.5, 8.0}) {
    const auto lattice = erosion::makeLatticeBrush(radius);
    REQUIRE(lattice.row_weights.size() == lattice.entries.size());
    size_t padded = 0;
    for (const auto& row : lattice.rows) {
      CHECK(row.count > 0);
      CHECK(row.first_padded == padded);
      padded += (row.count + erosion::kBrushPadding - 1) / erosion::kBrushPadding *
                erosion::kBrushPadding;
    }
    REQUIRE(lattice.padded_weights.size() == padded);
    auto nodes = erosion::buildNodeTable(mesh, lattice.rings + 1);
    erosion::markRowBrushes(nodes, lattice);
    std::vector<uint32_t> walked(lattice.entries.size()), rows(lattice.entries.size());
    size_t row_vertices = 0, regular = 0;
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      const auto& links = nodes.links[v];
      if (links.irregularBrush()) {
        REQUIRE_FALSE(links.rowBrush());
        continue;
      }
      ++regular;
      if (!links.rowBrush()) continue;
      ++row_vertices;
      erosion::latticeBrushIds(nodes.links.data(), lattice, uint32_t(v), walked.data());
      erosion::rowBrushIds(nodes.links.data(), lattice, uint32_t(v), rows.data());
      // The same vertices with the same weights, in another order.
      std::vector<std::pair<uint32_t, float>> a, b;
      for (size_t e = 0; e < walked.size(); ++e) {
        a.emplace_back(walked[e], lattice.weights[e]);
        b.emplace_back(rows[e], lattice.row_weights[e]);
      }
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      REQUIRE(a == b);
    }
    // Everything but the bands along the base edges (about 2 * rings + 1 wide) reads rows.
    const double inner = double(64 - 3 * (lattice.rings + 1)) / 64.0;
    CHECK(double(row_vertices) >= 0.8 * inner * inner * double(regular));
  }
}

namespace {

// A workspace on `mesh` whose node table holds rough heights (sea level 0), for the locate.
std::unique_ptr<erosion::ErosionWorkspace> roughWorkspace(const geodesy::SphereMesh& mesh,
                                                          uint64_t seed) {
  auto workspace =
      std::make_unique<erosion::ErosionWorkspace>(mesh, erosion::ErosionParams{}.radius);
  workspace->impl().prepare(rough(mesh, seed), erosion::heightScale(inputFor(mesh, 0.0)), {});
  return workspace;
}

// The unit tangent at the unit point x at `angle` from a fixed frame.
glm::vec3 tangentAt(glm::vec3 x, float angle) {
  const glm::vec3 axis = std::abs(x.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
  const glm::vec3 t1 = glm::normalize(glm::cross(x, axis)), t2 = glm::cross(x, t1);
  return std::cos(angle) * t1 + std::sin(angle) * t2;
}

// Whether this CPU runs the AVX2 kernels; if not, says that `what` goes untested here.
bool avx2Here(const char* what) {
  if (!erosion::avx2Available()) WARN("no AVX2 here: " << what << " is not used and not tested");
  return erosion::avx2Available();
}

// The same face, weights, height and gradient, bit for bit.
void requireSameSample(const erosion::SurfaceSample& one, const erosion::SurfaceSample& other) {
  const glm::vec3 g1 = one.gradient.vec3(), g2 = other.gradient.vec3();
  REQUIRE(std::equal(one.v, one.v + 3, other.v));
  REQUIRE(std::memcmp(&one.bary, &other.bary, sizeof(one.bary)) == 0);
  REQUIRE(std::memcmp(&one.h, &other.h, sizeof(float)) == 0);
  REQUIRE(std::memcmp(&g1, &g2, sizeof(g1)) == 0);
}

}  // namespace

TEST_CASE("erosion: sampleSurface8 is sampleSurface eight times", "[erosion]") {
  if (!avx2Here("sampleSurface8")) return;
  // Rough heights; queries from every kind of anchor (the twelve five-valent vertices
  // included) to points up to three edges away (several fans), on vertices and on edges.
  const auto& mesh = meshOf(24);
  const auto workspace = roughWorkspace(mesh, 7);
  const erosion::NodeTable& nodes = workspace->impl().nodes;
  const float edge = float(mesh.mean_edge_length);
  geodesy::HashStream rng(8, 1, 2);
  size_t checked = 0, far = 0;
  for (int round = 0; round < 4000; ++round) {
    uint32_t near[erosion::kSurfaceLanes];
    erosion::Lanes p[erosion::kSurfaceLanes];
    for (int l = 0; l < erosion::kSurfaceLanes; ++l) {
      const uint32_t u =
          round < 12 ? uint32_t(round) : uint32_t(rng.uniform() * double(mesh.vertexCount()));
      const glm::vec3 x = mesh.positions[u];
      glm::vec3 q;
      switch (round % 4) {
        case 0:  // a vertex of the ring, or the anchor itself
          q = mesh.positions[mesh.neighbours[mesh.neighbour_offsets[u] + l % 5]];
          if (l == 7) q = x;
          break;
        case 1:  // the middle of an edge
          q = 0.5f * (x + mesh.positions[mesh.neighbours[mesh.neighbour_offsets[u] + l % 5]]);
          break;
        default: {  // up to three edges away
          const float angle = float(6.283185307179586 * rng.uniform());
          const float reach = float(3.0 * rng.uniform()) * edge;
          q = x + reach * tangentAt(x, angle);
          far += reach > 1.5f * edge;
        }
      }
      near[l] = u;
      p[l] = erosion::Lanes::of(glm::normalize(q));
    }
    erosion::SurfaceSample lanes[erosion::kSurfaceLanes];
    erosion::sampleSurface8(nodes.points.data(), nodes.links.data(), near, p, lanes);
    for (int l = 0; l < erosion::kSurfaceLanes; ++l) {
      INFO("round " << round << " lane " << l);
      requireSameSample(
          erosion::sampleSurface(nodes.points.data(), nodes.links.data(), near[l], p[l]), lanes[l]);
      ++checked;
    }
  }
  CHECK(checked == 32000);
  CHECK(far > 5000);
}

TEST_CASE("erosion: locateStep8 lanes move on alone and end as sampleSurface", "[erosion]") {
  if (!avx2Here("locateStep8")) return;
  // Each lane takes a new query as soon as its last one is found, as runDroplets' lanes do, so
  // the lanes of one call are at different moves of their searches. Points up to twelve edges
  // away: a search of more than kLocateMoves moves keeps its last fan, clamped, and the lane's
  // move count must carry that limit from call to call.
  const auto& mesh = meshOf(24);
  const auto workspace = roughWorkspace(mesh, 11);
  const erosion::NodeTable& nodes = workspace->impl().nodes;
  const float edge = float(mesh.mean_edge_length);
  geodesy::HashStream rng(9, 4, 1);
  auto query = [&](uint32_t& start, erosion::Lanes& p) {
    start = uint32_t(rng.uniform() * double(mesh.vertexCount()));
    const glm::vec3 x = mesh.positions[start];
    const float angle = float(6.283185307179586 * rng.uniform());
    const float reach = float(rng.uniform() < 0.9 ? 2.0 * rng.uniform() : 12.0 * rng.uniform());
    p = erosion::Lanes::of(glm::normalize(x + reach * edge * tangentAt(x, angle)));
  };
  uint32_t start[erosion::kSurfaceLanes], near[erosion::kSurfaceLanes];
  uint8_t moves[erosion::kSurfaceLanes] = {};
  erosion::Lanes p[erosion::kSurfaceLanes];
  for (int l = 0; l < erosion::kSurfaceLanes; ++l) query(start[l], p[l]), near[l] = start[l];
  size_t answered = 0, moved_on = 0, clamped = 0, mixed_calls = 0;
  while (answered < 20000) {
    erosion::SurfaceSample out[erosion::kSurfaceLanes];
    bool fresh = false, searching = false;
    for (int l = 0; l < erosion::kSurfaceLanes; ++l) (moves[l] ? searching : fresh) = true;
    mixed_calls += fresh && searching;
    const uint32_t found =
        erosion::locateStep8(nodes.points.data(), nodes.links.data(), near, moves, p, out);
    for (int l = 0; l < erosion::kSurfaceLanes; ++l) {
      if (!(found >> l & 1u)) {
        ++moved_on;
        REQUIRE(moves[l] <= erosion::kLocateMoves);
        continue;
      }
      INFO("query " << answered << " lane " << l << " moves " << int(moves[l]));
      requireSameSample(
          erosion::sampleSurface(nodes.points.data(), nodes.links.data(), start[l], p[l]), out[l]);
      clamped += moves[l] == erosion::kLocateMoves;
      ++answered;
      query(start[l], p[l]);
      near[l] = start[l];
      moves[l] = 0;
    }
  }
  CHECK(moved_on > 2000);
  CHECK(mixed_calls > 1000);
  CHECK(clamped > 0);
}

TEST_CASE("erosion: the eight-lane row brush erodes and deposits as the four-lane one",
          "[erosion]") {
  if (!avx2Here("the eight-lane row brush")) return;
  // The same droplets with the row brush's erosion and last deposit (spreadOnLand) done four
  // (or one) and eight lanes at a time: every droplet's outcome, every vertex's fixed-point
  // change and, droplet by droplet, every block's changed mark equal (a block marked but
  // unchanged is published again, which turns a -0 m vertex into +0 m). Rows of up to 17
  // vertices (radius 8: three eight-lane blocks), and a planet of radius 10 m, where heights are
  // thousands of edge lengths and some changes too large for the lanes' rounding (one lane at a
  // time instead), yet every sum within the fixed-point range.
  const auto& mesh = meshOf(32);
  const auto h = rough(mesh, 5);
  const auto e = hardness(mesh);
  const auto spawns = weather::uniformRain(mesh, h, 0.0, 1500, 9);
  for (double planet_radius : {kRadiusM, 10.0}) {
    for (double radius : {1.0, 3.0, 5.5, 8.0}) {
      INFO("planet radius " << planet_radius << " brush radius " << radius);
      erosion::ErosionParams params;
      params.radius = radius;
      erosion::ErosionWorkspace workspace(mesh, radius);
      auto input = inputFor(mesh, 0.0);
      input.radius_m = planet_radius;
      input.erodibility = e;
      workspace.impl().prepare(h, erosion::heightScale(input), e);
      auto context = erosion::makeDropletContext(input, params, workspace.impl());
      auto run = [&](bool lanes) {
        context.brush_lanes = lanes;
        erosion::ChangeAccumulator changes(mesh.vertexCount(), erosion::kBrushPadding);
        std::unique_ptr<erosion::BrushGatherer> gatherer;
        erosion::VisitedSet visited;
        std::vector<erosion::DropletOutcome> outcomes;
        std::vector<uint8_t> marked;  // droplet by droplet
        for (size_t i = 0; i < spawns.size(); ++i) {
          outcomes.push_back(
              erosion::runDroplet(context, {&changes, &gatherer, &visited}, spawns[i], i, nullptr));
          for (size_t block = 0; block <= mesh.vertexCount() / erosion::ChangeAccumulator::kBlock;
               ++block)
            marked.push_back(changes.takeDirty(block));
        }
        return std::make_tuple(
            outcomes, std::vector<int64_t>(changes.sums(), changes.sums() + mesh.vertexCount()),
            marked);
      };
      const auto four = run(false), eight = run(true);
      size_t same = 0, eroded = 0;
      for (size_t i = 0; i < spawns.size(); ++i) {
        const auto &a = std::get<0>(four)[i], &b = std::get<0>(eight)[i];
        same += std::memcmp(&a.eroded, &b.eroded, sizeof(float)) == 0 &&
                std::memcmp(&a.deposited, &b.deposited, sizeof(float)) == 0 && a.steps == b.steps &&
                a.end == b.end;
        eroded += a.eroded > 0.0f;
      }
      CHECK(same == spawns.size());
      CHECK(eroded > spawns.size() / 2);
      CHECK(std::get<1>(four) == std::get<1>(eight));
      CHECK(std::get<2>(four) == std::get<2>(eight));
      int64_t largest = 0;
      for (int64_t q : std::get<1>(four)) largest = std::max(largest, q < 0 ? -q : q);
      CHECK(largest < (int64_t(1) << 60));
    }
  }
}

TEST_CASE("erosion: the four-lane publish gives the scalar publish's heights", "[erosion]") {
  if (!avx2Here("the four-lane publish")) return;
  // Blocks of 32 vertices summed over one to three threads' fixed-point changes, from a quantum
  // to past 2^51 quanta (where the lanes' exact conversion ends and the block is left to the
  // scalar loop): every height bit for bit as the scalar publish's.
  const auto& mesh = meshOf(8);
  erosion::ErosionWorkspace workspace(mesh, 3.0);
  erosion::NodeTable& nodes = workspace.impl().nodes;
  const size_t n = nodes.points.size();
  const double height_scale = 1.0 / 49000.0, quantum_m = 49000.0 / 17592186044416.0;
  geodesy::HashStream rng(31, 0, 0);
  std::vector<std::vector<int64_t>> sums(3, std::vector<int64_t>(n));
  size_t published = 0, refused = 0;
  for (int round = 0; round < 300; ++round) {
    for (size_t v = 0; v < n; ++v) nodes.start_m[v] = float(8000.0 * (rng.uniform() - 0.5));
    const double top = std::pow(2.0, 10.0 + 44.0 * rng.uniform());  // up to 2^54 quanta
    for (auto& slot : sums)
      for (int64_t& q : slot) q = int64_t((rng.uniform() - 0.5) * top);
    const size_t slots = 1 + size_t(round % 3);
    const int64_t* pointers[3] = {sums[0].data(), sums[1].data(), sums[2].data()};
    for (size_t begin = 0; begin + 32 <= n; begin += 32) {
      for (size_t v = begin; v < begin + 32; ++v) nodes.setHeight(v, -1.0f);
      if (!erosion::publishBlock4(pointers, slots, begin, 32, quantum_m, height_scale, nodes)) {
        ++refused;
        for (size_t v = begin; v < begin + 32; ++v) REQUIRE(nodes.height[v] == -1.0f);
        continue;
      }
      ++published;
      for (size_t v = begin; v < begin + 32; ++v) {
        int64_t total = 0;
        for (size_t t = 0; t < slots; ++t) total += sums[t][v];
        const double metres = double(nodes.start_m[v]) + double(total) * quantum_m;
        const float expected = float(metres * height_scale);
        INFO("round " << round << " vertex " << v << " quanta " << total);
        REQUIRE(std::memcmp(&nodes.height[v], &expected, sizeof(float)) == 0);
        REQUIRE(std::memcmp(&nodes.points[v].h, &expected, sizeof(float)) == 0);
      }
    }
  }
  CHECK(published > 1000);
  CHECK(refused > 100);
}

TEST_CASE("erosion: four-lane change adds round as the one-lane add", "[erosion]") {
#if PLANETGEN_SSE2
  erosion::ChangeAccumulator lanes(64, erosion::kBrushPadding), single(64, erosion::kBrushPadding);
  erosion::ChangeAccumulator::Writer four(lanes), one(single);
  geodesy::HashStream rng(17, 0, 0);
  const float scale = float(erosion::ChangeAccumulator::kScale);
  for (int i = 0; i < 4000; ++i) {
    alignas(16) float dh[4];
    for (float& x : dh) {
      // Magnitudes from quanta (ties at .5 included) to the largest a lane takes.
      const double magnitude = std::pow(2.0, -44.0 + 49.0 * rng.uniform());
      x = float((rng.uniform() < 0.5 ? -1.0 : 1.0) * magnitude);
      if (i % 7 == 0) x = (std::floor(x * scale) + 0.5f) / scale;
    }
    const uint32_t v = uint32_t(rng.uniform() * 60.0);
    four.addUnmarked4(v, _mm_load_ps(dh));
    for (uint32_t l = 0; l < 4; ++l) one.addUnmarked(v + l, dh[l]);
  }
  for (uint32_t v = 0; v < 64; ++v) REQUIRE(lanes.sum(v) == single.sum(v));
#else
  SUCCEED("no SSE2: the four-lane add is not built");
#endif
}

TEST_CASE("erosion: batched statistics match batch size 1", "[erosion]") {
  const auto& mesh = meshOf(64);
  const auto h0 = rough(mesh, 31);
  const auto spawns = weather::uniformRain(mesh, h0, 0.0, 20000, 6);
  auto input = inputFor(mesh, 0.0);
  erosion::ErosionWorkspace workspace(mesh, 3.0);
  input.workspace = &workspace;
  auto eroded = [&](int batch) {
    erosion::ErosionParams params;
    params.batch_size = batch;
    std::vector<float> h = h0, change;
    return erosion::erodeDroplets(input, spawns, params, h, change);
  };
  const auto sequential = eroded(1);
  // The automatic batch size, 0.4 % of the vertices (160 here, 2560 at f = 256).
  REQUIRE(erosion::batchSize(erosion::ErosionParams{}, mesh.vertexCount()) == 160);
  for (int batch : {64, 0}) {
    const auto batched = eroded(batch);
    INFO("batch " << batch << " eroded " << batched.eroded_volume_m3 << " vs "
                  << sequential.eroded_volume_m3);
    CHECK(batched.eroded_volume_m3 == Approx(sequential.eroded_volume_m3).epsilon(0.05));
    CHECK(batched.mean_steps == Approx(sequential.mean_steps).epsilon(0.05));
  }
}

TEST_CASE("erosion: uniform rain lands only on land and is deterministic", "[erosion]") {
  const auto& mesh = meshOf(32);
  const auto h = rough(mesh, 17);
  const double sea = 300.0;
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);
  std::vector<geodesy::DropletSpawn> one, two;
  tbb::task_arena(1).execute([&] { one = weather::uniformRain(mesh, h, sea, 20000, 3); });
  tbb::task_arena(4).execute([&] { two = weather::uniformRain(mesh, h, sea, 20000, 3); });
  REQUIRE(one.size() == 20000);
  REQUIRE(two.size() == one.size());
  CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(one[0])) == 0);
  for (const auto& s : one) {
    REQUIRE(heightAt(mesh, h, s.point) >= sea - 1e-3);
    REQUIRE(s.water == 1.0f);
  }
  // Uniform by area: the share of droplets per land face follows the land area.
  size_t north = 0;
  for (const auto& s : one) north += mesh.positions[mesh.indices[3 * s.point.face]].y > 0.0f;
  double land_north = 0.0, land = 0.0;
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    if (h[v] < sea) continue;
    land += mesh.vertex_areas[v];
    if (mesh.positions[v].y > 0.0f) land_north += mesh.vertex_areas[v];
  }
  CHECK(double(north) / double(one.size()) == Approx(land_north / land).margin(0.03));
  // A drowned planet gets no rain.
  CHECK(weather::uniformRain(mesh, h, 1e9, 100, 3).empty());
}

TEST_CASE("erosion: the sea is the base level and the coastline stays", "[erosion]") {
  const auto& mesh = meshOf(64);
  const auto h0 = rough(mesh, 41);
  const auto spawns = weather::uniformRain(mesh, h0, 0.0, 60000, 8);
  auto input = inputFor(mesh, 0.0);
  size_t land_before = 0;
  for (float h : h0) land_before += h >= 0.0f;
  for (double water : {erosion::ErosionParams{}.initial_water, 1.0}) {
    erosion::ErosionParams params;
    params.initial_water = water;
    params.batch_size = 1;  // every droplet sees the heights the one before left
    std::vector<float> h = h0, change;
    const auto stats = erosion::erodeDroplets(input, spawns, params, h, change);
    size_t sunk = 0, land_after = 0;
    double deepest = 0.0;
    double raised_sea_floor = 0.0;  // largest rise of a vertex that started under the sea
    for (size_t v = 0; v < h.size(); ++v) {
      land_after += h[v] >= 0.0f;
      // The brush never takes land below the sea level (to within the fixed-point rounding).
      if (h0[v] >= 0.0f && h[v] < -1e-3f) {
        ++sunk;
        deepest = std::min(deepest, double(h[v]));
      }
      if (h0[v] < 0.0f) raised_sea_floor = std::max(raised_sea_floor, double(h[v] - h0[v]));
    }
    INFO("initial_water " << water << ": land vertices " << land_before << " -> " << land_after
                          << ", eroded " << stats.eroded_volume_m3 << " m3, deepest sunk "
                          << deepest << " m");
    CHECK(stats.eroded_volume_m3 > 0.0);
    CHECK(sunk == 0);
    CHECK(raised_sea_floor > 0.0);  // the sediment did reach the sea floor
    // Sea vertices are filled toward the sea level but only a few cross it, where the shelf in
    // front of a river mouth is full and a delta grows.
    CHECK(std::abs(double(land_after) - double(land_before)) <= 0.02 * double(land_before));
    CHECK(stats.mass_error <= 1e-5);
  }
}

TEST_CASE("erosion: sediment reaching the sea settles as a fan on the sea floor", "[erosion]") {
  const auto& mesh = meshOf(64);
  const glm::vec3 up = glm::normalize(glm::vec3(0.3f, 1.0f, -0.2f));
  const auto h0 = tilted(mesh, up, 0.05);  // sea level 0 on the great circle across the tilt
  // Ten edge lengths uphill of the coast, on the steepest line.
  const glm::vec3 coast = glm::normalize(glm::cross(up, glm::vec3(0.0f, 0.0f, 1.0f)));
  const float a = 10.0f * float(mesh.mean_edge_length);
  const auto spawn = spawnAt(mesh, std::cos(a) * coast + std::sin(a) * up);
  erosion::ErosionParams params;
  params.initial_water = 1.0;  // a heavy load, so the fan is long
  const auto input = inputFor(mesh, 0.0);
  const auto trace = erosion::traceDroplet(input, spawn, params, h0);
  CHECK(trace.end == erosion::DropletEnd::kSea);
  size_t fan_steps = 0;
  for (const auto& step : trace.steps) fan_steps += step.height_m < 0.0f && step.deposited > 0.0f;
  INFO("steps " << trace.steps.size() << ", fan steps with a deposit " << fan_steps);
  CHECK(fan_steps >= 3);
  // The same droplet through the driver: the load lands on several sea-floor vertices, none of
  // which rises to the sea level.
  std::vector<float> h = h0, change(h0.size(), 0.0f);
  const std::vector<geodesy::DropletSpawn> one{spawn};
  const auto stats = erosion::erodeDroplets(input, one, params, h, change);
  size_t raised = 0;
  double offshore = 0.0;
  for (size_t v = 0; v < h.size(); ++v) {
    if (h0[v] >= 0.0f || change[v] <= 0.0f) continue;
    ++raised;
    offshore += double(change[v]) * mesh.vertex_areas[v] * kRadiusM * kRadiusM;
    CHECK(h[v] < 0.0f);
  }
  INFO("eroded " << stats.eroded_volume_m3 << " m3, offshore " << offshore << " m3");
  CHECK(raised >= 5);
  CHECK(offshore > 0.5 * stats.eroded_volume_m3);
}
