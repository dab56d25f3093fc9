// The droplet eroder's parts checked alone: brushes, and every SIMD kernel against its plain
// twin, bit for bit.

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

TEST_CASE("erosion: a gathered brush holds every vertex within its radius, large ones too",
          "[erosion]") {
  // Radii up to 12 edges: over 500 vertices, so the walk's visited set grows (rehashes) several
  // times; the brush must be exactly the vertices closer than the radius, each once.
  const auto& mesh = meshOf(64);
  erosion::BrushGatherer gatherer(mesh);
  geodesy::HashStream rng(9, 0, 0);
  const float inv_edge = float(1.0 / mesh.mean_edge_length);
  for (const float radius : {2.0f, 7.0f, 12.0f}) {
    for (int i = 0; i < 20; ++i) {
      const glm::vec3 p = glm::normalize(glm::vec3(
          float(rng.uniform() - 0.5), float(rng.uniform() - 0.5), float(rng.uniform() - 0.5)));
      const auto at = mesh.locate(p);
      gatherer.gather(p, mesh.indices[3 * at.face], radius);
      std::vector<uint32_t> got(gatherer.ids().begin(), gatherer.ids().end());
      std::sort(got.begin(), got.end());
      std::vector<uint32_t> expected;
      for (uint32_t v = 0; v < mesh.vertexCount(); ++v)
        if (radius - glm::length(mesh.positions[v] - p) * inv_edge > 0.0f) expected.push_back(v);
      INFO("radius " << radius);
      CHECK(got == expected);
      if (radius == 12.0f) CHECK(got.size() > 400);
    }
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
  test_support::workspaceImpl(*workspace)
      .prepare(rough(mesh, seed), erosion::heightScale(inputFor(mesh, 0.0)), {});
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
  const erosion::NodeTable& nodes = test_support::workspaceImpl(*workspace).nodes;
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
  const erosion::NodeTable& nodes = test_support::workspaceImpl(*workspace).nodes;
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
      test_support::workspaceImpl(workspace).prepare(h, erosion::heightScale(input), e);
      auto context =
          erosion::makeDropletContext(input, params, test_support::workspaceImpl(workspace));
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
  const double height_scale = 1.0 / 49000.0, quantum_m = 49000.0 / 17592186044416.0;
  // The per-call arrays (start heights among them), as a call makes them.
  test_support::workspaceImpl(workspace).prepare(std::vector<float>(mesh.vertexCount(), 0.0f),
                                                 height_scale, {});
  erosion::NodeTable& nodes = test_support::workspaceImpl(workspace).nodes;
  const size_t n = nodes.points.size();
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
