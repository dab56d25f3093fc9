// Droplet erosion (erosion/) and uniform rain (weather/uniform_rain) on synthetic planets:
// whole calls (volume, determinism, batches, the sea).

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

#include "erosion/droplet_erosion.h"
#include "geodesy/hash.h"
#include "geodesy/sphere_mesh.h"
#include "support/erosion_fixtures.h"
#include "support/erosion_internals.h"
#include "weather/uniform_rain.h"

using namespace erosion_fixtures;

namespace {

// `full` droplets, or a share of them: PLANETGEN_EROSION_DROPLET_DIVISOR=<n> rains full / n
// in the long whole-call tests that use it (CI's asan stage: the same calls and checks on fewer
// droplets; the test stage rains them all).
size_t dropletsOf(size_t full) {
  const char* divisor = std::getenv("PLANETGEN_EROSION_DROPLET_DIVISOR");
  return divisor == nullptr ? full : full / size_t(std::clamp(std::atoi(divisor), 1, 100));
}

}  // namespace

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
  const auto spawns = weather::uniformRain(mesh, h0, 0.0, dropletsOf(100000), 4);
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

TEST_CASE("erosion: channels are left as they are and carry out what reaches them", "[erosion]") {
  const auto& mesh = meshOf(64);
  const auto h0 = rough(mesh, 21);
  const auto spawns = weather::uniformRain(mesh, h0, 0.0, dropletsOf(40000), 4);
  const auto e = hardness(mesh);
  // A scattered mask: one vertex in 40, so that droplets both cross hillslopes and end in it.
  std::vector<uint8_t> channel(mesh.vertexCount(), 0);
  size_t marked = 0;
  for (uint32_t v = 0; v < channel.size(); ++v) {
    channel[v] = h0[v] >= 0.0f && geodesy::hash3(77, v, 0) % 40 == 0;
    marked += channel[v];
  }
  REQUIRE(marked > 100);
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);
  for (double blur : {0.0, 0.5}) {
    auto run = [&](int threads) {
      std::pair<std::vector<float>, erosion::ErosionStats> r{h0, {}};
      std::vector<float> change(h0.size(), 0.0f);
      tbb::task_arena(threads).execute([&] {
        auto input = inputFor(mesh, 0.0);
        input.erodibility = e;
        input.channel = channel;
        erosion::ErosionParams params;
        params.blur = blur;
        r.second = erosion::erodeDroplets(input, spawns, params, r.first, change);
      });
      return r;
    };
    const auto [h, stats] = run(1);
    INFO("blur " << blur << " eroded " << stats.eroded_volume_m3 << " m3, carried out "
                 << stats.carried_out_volume_m3 << " m3");
    size_t changed = 0, channel_changed = 0;
    for (size_t v = 0; v < h.size(); ++v) {
      changed += h[v] != h0[v];
      channel_changed += channel[v] && h[v] != h0[v];
    }
    CHECK(changed > 1000);
    CHECK(channel_changed == 0);
    CHECK(stats.ended_channel > 0);
    CHECK(stats.ended_dried + stats.ended_lifetime + stats.ended_sea + stats.ended_flat +
              stats.ended_channel ==
          stats.droplets);
    // Volume: what was taken was laid down or left with a channel, and the heights say the same.
    CHECK(stats.carried_out_volume_m3 > 0.01 * stats.eroded_volume_m3);
    CHECK(stats.deposited_volume_m3 + stats.carried_out_volume_m3 ==
          Approx(stats.eroded_volume_m3).epsilon(1e-5));
    CHECK(stats.mass_error <= 1e-5);
    const double r = inputFor(mesh, 0.0).radius_m;
    double net_m3 = 0.0;
    for (size_t v = 0; v < h.size(); ++v)
      net_m3 += (double(h[v]) - double(h0[v])) * mesh.vertex_areas[v] * r * r;
    CHECK(-net_m3 == Approx(stats.carried_out_volume_m3).epsilon(1e-4));
    const auto four = run(4);
    CHECK(std::memcmp(four.first.data(), h.data(), h.size() * sizeof(float)) == 0);
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
    // release: the workspace's per-call memory is freed between the calls (as the pipeline
    // does before a fluvial share) and made again by the second.
    auto run = [&](int threads, bool release = false) {
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
        if (release) {
          const size_t held = workspace.memoryBytes();
          workspace.releaseCallMemory();
          CHECK(workspace.memoryBytes() + 20 * mesh.vertexCount() <= held);
        }
        const auto second = erosion::erodeDroplets(input, std::span(spawns).subspan(half), params,
                                                   r.h, r.change, half);
        r.stats.eroded_volume_m3 += second.eroded_volume_m3;
        r.stats.droplet_steps += second.droplet_steps;
        r.stats.ended_sea += second.ended_sea;
      });
      return r;
    };
    const Run one = run(1);
    for (int threads : {2, 4, 4, -2}) {
      const Run other = run(std::abs(threads), threads < 0);
      INFO("threads " << std::abs(threads) << (threads < 0 ? ", released between calls" : ""));
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

TEST_CASE("erosion: bit-identical for 1 and 4 threads with large per-thread buffers", "[erosion]") {
  // At f = 232 a thread's change buffer (8 bytes per vertex) passes the 4 MB from which big
  // arrays are prefaulted in parallel; the buffers are made inside the droplet loop, on each
  // thread's first droplet. A buffer made twice there (a lost one) shows as a different result;
  // the timing that would cause it is not forced, so this guards the large-mesh path the test
  // above (f = 48) does not reach.
  const auto& mesh = meshOf(232);
  REQUIRE(mesh.vertexCount() * sizeof(int64_t) >= size_t(4) << 20);
  const auto h0 = rough(mesh, 8);
  const auto spawns = weather::uniformRain(mesh, h0, 0.0, 4000, 3);
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);
  erosion::ErosionParams params;
  params.batch_size = 500;
  auto run = [&](int threads) {
    std::vector<float> h = h0, change(h0.size(), 0.0f);
    tbb::task_arena(threads).execute(
        [&] { erosion::erodeDroplets(inputFor(mesh, 0.0), spawns, params, h, change, 0); });
    return h;
  };
  const std::vector<float> one = run(1), four = run(4);
  CHECK(std::memcmp(one.data(), four.data(), one.size() * sizeof(float)) == 0);
  CHECK(one != h0);
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
    test_support::workspaceImpl(workspace).prepare(h0, erosion::heightScale(input), e);
    const auto context =
        erosion::makeDropletContext(input, params, test_support::workspaceImpl(workspace));
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
  const auto spawns = weather::uniformRain(mesh, h0, 0.0, dropletsOf(60000), 8);
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
