// One droplet followed step by step (erosion::traceDroplet) on synthetic planets, and the
// trap test's memory of where a droplet has been.

#include <algorithm>
#include <cmath>
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
