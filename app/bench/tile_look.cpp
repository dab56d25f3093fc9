// tile_look: a real planet's tiles, timed and drawn. Generates the planet of a config (or reads
// it back from --cache), builds the tile generator, picks the steepest mountain slope, times one
// tile at the level of --spacing-m, and writes hillshades (no vertical exaggeration) for
// docs/tiles.md:
//   tile_<spacing>m.png          the tile with its detail
//   tile_<spacing>m_smooth.png   the same tile, planet surface only
//   block_<spacing>m.png         the tile and the tiles around it
//   region_<s>m_linear_xN.png    a tile ~25 planet spacings across, barycentric interpolation
//                                of the planet, heights exaggerated N times (creases)
//   region_<s>m_ct_xN.png        the same, the generator's Clough-Tocher surface (none)
//   region_<s>m_detail.png       the generator's tile there, with detail, no exaggeration
//   erosion_<s>m_off.png, erosion_<s>m_on.png  (--erosion 1) a block of 4 x 4 tile pairs
//                                around the tile, without and with the tiles' erosion (the
//                                planet's rivers entering the windows; uniform rain when the
//                                planet comes from --cache, which keeps no rain)
//   erosion_<s>m_tile_flow.png, erosion_<s>m_flow.png  (--erosion 1) the eroded tile and block,
//                                blue where they drain 10^3 cells or more, red from 10^6.5
//
//   tile_look --config configs/earthlike.toml --out DIR [--cache FILE] [--spacing-m 30]
//             [--threads 2] [--repeat 5] [--hurst 0.7] [--region-exaggeration 10]
//             [--erosion 0|1] [--relief 1|0] [--halo 12] [--bump-fraction 0.62]
//             [--droplets-per-point 0.3] [--runoff-m 20]
//             [--rain planet|uniform] [--pictures 0|1] [--levels A,B,C]
//             [--lat DEG --lon DEG]  (the spot to look at; default the steepest slope)
//   --range-tiles N [--uniform-planet 1]  (--erosion 1) gully density of the range's wettest
//                                quarter of N tiles against the driest's, under the planet's
//                                rain, uniform rain, and on the planet made under uniform rain
//   levels_A_B_C.png             (--erosion 1 --levels A,B,C) the tile's middle at three levels,
//                                eroded, side by side, each outlining the next one's tile

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include <tbb/global_control.h>
#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

#include "export/png_io.h"
#include "export/top_down_view.h"
#include "geodesy/lattice_numbering.h"
#include "geodesy/sphere_mesh.h"
#include "hydrology/flow_routing.h"
#include "planet/config.h"
#include "planet/pipeline.h"
#include "terrain/terrain.h"
#include "tiles/lattice_point.h"
#include "tiles/planet_triangle.h"
#include "tiles/tile_generator.h"

namespace {

// A picture into its folder, made on the first picture (a run without pictures leaves none).
void writePicture(const std::filesystem::path& path, const planet_export::RgbImage& image) {
  std::filesystem::create_directories(path.parent_path());
  planet_export::writePngRgb8(path, image);
}

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A tile's vertex (u, v) in TileMesh order: rows v = 0..T, row v holding u = 0..T - v.
size_t tileVertex(uint32_t t, int u, int v) {
  return size_t(v) * (t + 1) - size_t(v) * (v ? v - 1 : 0) / 2 + size_t(u);
}

struct CachedPlanet {
  int frequency = 0;
  std::vector<float> elevation, water;
  std::vector<float> rainfall;     // empty when the cache holds none
  std::vector<uint32_t> receiver;  // where each vertex drains; not cached (empty when read)
};

// The planet of a config, generated and eroded, routed once (its lakes' water levels and where
// each vertex drains).
CachedPlanet makePlanet(const planet::Config& config) {
  planet::StageTimer timer;
  const auto quiet = [](const std::string&) {};
  planet::PlanetState state = planet::buildPlanet(config, timer, quiet);
  planet::erodePlanet(state, config, timer, quiet);
  hydrology::FlowRouting routing =
      hydrology::routeFlow(*state.mesh, state.elevation_m, state.sea_level_m);
  CachedPlanet out;
  out.frequency = config.planet.frequency;
  out.elevation = state.elevation_m;
  out.water = std::move(routing.water_level_m);
  out.rainfall = state.rainfall;
  out.receiver = std::move(routing.receiver);
  return out;
}

bool readCache(const std::filesystem::path& path, int frequency, CachedPlanet& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  int32_t f = 0;
  uint64_t n = 0;
  in.read(reinterpret_cast<char*>(&f), sizeof(f));
  in.read(reinterpret_cast<char*>(&n), sizeof(n));
  if (f != frequency || n != 10ull * f * f + 2) return false;
  out.frequency = f;
  out.elevation.resize(n);
  out.water.resize(n);
  in.read(reinterpret_cast<char*>(out.elevation.data()), std::streamsize(n * sizeof(float)));
  in.read(reinterpret_cast<char*>(out.water.data()), std::streamsize(n * sizeof(float)));
  if (!in) return false;
  std::vector<float> rain(n);
  if (in.read(reinterpret_cast<char*>(rain.data()), std::streamsize(n * sizeof(float))))
    out.rainfall = std::move(rain);
  return true;
}

void writeCache(const std::filesystem::path& path, const CachedPlanet& planet) {
  std::ofstream out(path, std::ios::binary);
  const int32_t f = planet.frequency;
  const uint64_t n = planet.elevation.size();
  out.write(reinterpret_cast<const char*>(&f), sizeof(f));
  out.write(reinterpret_cast<const char*>(&n), sizeof(n));
  out.write(reinterpret_cast<const char*>(planet.elevation.data()),
            std::streamsize(n * sizeof(float)));
  out.write(reinterpret_cast<const char*>(planet.water.data()), std::streamsize(n * sizeof(float)));
  if (planet.rainfall.size() == n) {
    out.write(reinterpret_cast<const char*>(planet.rainfall.data()),
              std::streamsize(n * sizeof(float)));
  }
}

// Hillshade of a triangle mesh seen from above its centre (export/top_down_view.h), at most
// size pixels a side. outline: points drawn as a closed red polyline over the shading (for
// example a finer tile's corners).
planet_export::RgbImage hillshade(const std::vector<glm::dvec3>& position,
                                  const std::vector<glm::dvec3>& normal,
                                  const std::vector<uint32_t>& indices, int size,
                                  const std::vector<glm::dvec3>& outline = {}) {
  const planet_export::TopDownView view = planet_export::fitTopDown(position, size);
  planet_export::RgbImage image = planet_export::hillshadeTopDown(view, position, normal, indices);
  const auto pixel = [&](const glm::dvec3& p) {
    const glm::dvec3 d = p - view.centre;
    return glm::dvec2((glm::dot(d, view.east) - view.left_m) * view.pixels_per_m,
                      (view.top_m - glm::dot(d, view.north)) * view.pixels_per_m);
  };
  for (size_t k = 0; k < outline.size(); ++k) {
    const glm::dvec2 a = pixel(outline[k]), b = pixel(outline[(k + 1) % outline.size()]);
    const int steps = int(std::ceil(std::max(std::abs(b.x - a.x), std::abs(b.y - a.y)))) + 1;
    for (int q = 0; q <= steps; ++q) {
      const glm::dvec2 at = a + (b - a) * (double(q) / steps);
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if (int(at.x) + dx >= 0 && int(at.x) + dx < image.width && int(at.y) + dy >= 0 &&
              int(at.y) + dy < image.height)
            image.set(int(at.x) + dx, int(at.y) + dy, {0.85f, 0.1f, 0.1f});
    }
  }
  return image;
}

// A hillshade tinted blue where the flow mask drains 10^3 cells or more (darker with more) and
// red from 10^6.5 cells (about a planet river's threshold at f = 512, T = 256): where the
// planet's rivers and the tiles' own valleys run. `cells`: drainage area in lattice cells.
planet_export::RgbImage flowHillshade(const std::vector<glm::dvec3>& position,
                                      const std::vector<glm::dvec3>& normal,
                                      const std::vector<float>& cells,
                                      const std::vector<uint32_t>& indices, int size) {
  const planet_export::TopDownView view = planet_export::fitTopDown(position, size);
  planet_export::RgbImage image = planet_export::hillshadeTopDown(view, position, normal, indices);
  std::vector<float> decades(cells.size());
  for (size_t v = 0; v < cells.size(); ++v)
    decades[v] = float(std::log10(std::max(1.0, double(cells[v]))));
  // Decades carried in the red channel (8 bits over 0..8 decades); green marks no triangle.
  const planet_export::RgbImage flow =
      planet_export::valuesTopDown(view, position, decades, indices, [](double c) {
        return planet_export::Rgb{float(c / 8.0), 0, 0};
      });
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const planet_export::Rgb f = flow.get(x, y);
      const double c = f.r * 8.0;
      if (f.g > 0.5f || c < 3.0) continue;
      const float depth = float(std::min(1.0, (c - 3.0) / 3.0));
      const float shade = image.get(x, y).r;
      image.set(x, y,
                c >= 6.5 ? planet_export::Rgb{0.9f, 0.1f, 0.1f}
                         : planet_export::Rgb{shade * (0.35f - 0.3f * depth),
                                              shade * (0.55f - 0.3f * depth), 0.95f});
    }
  return image;
}

// The same place at three levels, side by side (each panel 640 pixels, hillshades without
// exaggeration): the tiles at levels[0..2] that hold `where`, each panel outlining the next
// one's tile.
void drawLevels(const tiles::TileGenerator& generator, double radius_m, const glm::dvec3& where,
                const std::array<int, 3>& levels, const std::filesystem::path& path) {
  constexpr int kPanel = 640;
  planet_export::RgbImage image(3 * kPanel + 2 * 8, kPanel);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) image.set(x, y, {1.0f, 1.0f, 1.0f});
  std::array<tiles::TileMesh, 3> meshes;
  for (int k = 0; k < 3; ++k)
    meshes[size_t(k)] = generator.generate(generator.tileAt(where, levels[size_t(k)]));
  for (int k = 0; k < 3; ++k) {
    const tiles::TileMesh& m = meshes[size_t(k)];
    std::vector<glm::dvec3> p(m.vertexCount()), n(m.vertexCount());
    for (size_t v = 0; v < m.vertexCount(); ++v)
      p[v] = m.position(v), n[v] = glm::dvec3(m.normals[v]);
    std::vector<glm::dvec3> outline;
    if (k < 2) {
      const tiles::TileMesh& next = meshes[size_t(k) + 1];
      const size_t t = generator.layout().tileEdge();
      // The corners of the next tile's lattice: vertices 0, T and the last of its rows.
      for (size_t v : {size_t(0), t, (t + 1) * (t + 2) / 2 - 1})
        outline.push_back(next.position(v));
    }
    const planet_export::RgbImage panel = hillshade(p, n, m.topology->indices, kPanel, outline);
    for (int y = 0; y < panel.height; ++y)
      for (int x = 0; x < panel.width; ++x) image.set(k * (kPanel + 8) + x, y, panel.get(x, y));
    const double spacing_m = generator.layout().levelSpacingRad(levels[size_t(k)]) * radius_m;
    size_t water = 0;
    for (float w : m.masks.water) water += w > 0.5f ? 1 : 0;
    const auto [lo, hi] = std::minmax_element(m.height_m.begin(), m.height_m.end());
    std::printf(
        "%s panel %d: level %d, %.1f m spacing, tile edge %.1f km, heights %.0f .. %.0f m, "
        "water %.1f %% of the vertices\n",
        path.filename().c_str(), k + 1, levels[size_t(k)], spacing_m,
        spacing_m * double(generator.layout().tileEdge()) / 1000.0, *lo, *hi,
        m.masks.water.empty() ? 0.0 : 100.0 * double(water) / double(m.masks.water.size()));
  }
  writePicture(path, image);
}

// Per-vertex normals of a tile grid from its own positions (ring of lattice neighbours inside
// the tile; one-sided at the tile's edges): for surfaces the generator did not make.
std::vector<glm::dvec3> gridNormals(const std::vector<glm::dvec3>& position, uint32_t t) {
  auto index = [&](int u, int v) { return tileVertex(t, u, v); };
  std::vector<glm::dvec3> normal(position.size());
  for (int v = 0; v <= int(t); ++v) {
    for (int u = 0; u + v <= int(t); ++u) {
      const glm::dvec3& p = position[index(u, v)];
      glm::dvec3 n(0.0);
      for (int k = 0; k < 6; ++k) {
        const int u1 = u + tiles::kLatticeSteps[k][0], v1 = v + tiles::kLatticeSteps[k][1];
        const int u2 = u + tiles::kLatticeSteps[(k + 1) % 6][0],
                  v2 = v + tiles::kLatticeSteps[(k + 1) % 6][1];
        auto inside = [&](int uu, int vv) { return uu >= 0 && vv >= 0 && uu + vv <= int(t); };
        if (!inside(u1, v1) || !inside(u2, v2)) continue;
        n += glm::cross(position[index(u1, v1)] - p, position[index(u2, v2)] - p);
      }
      normal[index(u, v)] = glm::normalize(n);
    }
  }
  return normal;
}

std::string arg(int argc, char** argv, const char* name, const std::string& fallback) {
  for (int k = 1; k + 1 < argc; ++k)
    if (std::strcmp(argv[k], name) == 0) return argv[k + 1];
  return fallback;
}

// Draws a block of 4 x 4 tile pairs (the rhombus of 4 x 4 tile slots from the tile's own) as
// one hillshade, 1024 pixels; with a flow_path, also its flowHillshade (cell_m2: a lattice
// cell's area).
void drawBlock(const tiles::TileGenerator& generator, const tiles::TileId& id,
               const std::filesystem::path& path, const std::filesystem::path& flow_path = {},
               double cell_m2 = 1.0) {
  const uint64_t n = uint64_t(1) << id.level;
  const tiles::TileSlot slot = tiles::slotOf(n, id.index);
  std::vector<glm::dvec3> p, nn;
  std::vector<float> cells;
  std::vector<uint32_t> indices;
  for (uint64_t dj = 0; dj < 4; ++dj) {
    for (uint64_t di = 0; di < 4; ++di) {
      for (bool down : {false, true}) {
        const uint64_t i = slot.i + di, j = slot.j + dj;
        if (i + j + (down ? 1 : 0) >= n) continue;
        const tiles::TileMesh m =
            generator.generate({id.base, id.level, tiles::slotIndex(n, {i, j, down})});
        const uint32_t first = uint32_t(p.size());
        for (size_t v = 0; v < m.vertexCount(); ++v) {
          p.push_back(m.position(v));
          nn.push_back(glm::dvec3(m.normals[v]));
          if (!m.masks.flow_m2.empty()) cells.push_back(float(m.masks.flow_m2[v] / cell_m2));
        }
        for (uint32_t k : m.topology->indices) indices.push_back(first + k);
      }
    }
  }
  writePicture(path, hillshade(p, nn, indices, 1024));
  if (!flow_path.empty() && cells.size() == p.size())
    writePicture(flow_path, flowHillshade(p, nn, cells, indices, 1024));
}

// Mean |second difference| across the lattice lines of the 4T x 4T rhombus drawBlock draws,
// on tile edges and inside tiles (lines on the planet's own edges left out of both): how
// strongly a hillshade shows a line. Prints both and their ratio.
void lineContrast(const tiles::TileGenerator& generator, const tiles::TileId& id, int f,
                  const char* what) {
  const tiles::TileLayout& layout = generator.layout();
  const int64_t t = layout.tileEdge(), n = 4 * t;
  const tiles::TileSlot slot = tiles::slotOf(uint64_t(1) << id.level, id.index);
  const int64_t i0 = int64_t(slot.i) * t, j0 = int64_t(slot.j) * t;
  const int64_t planet_step = int64_t(layout.levelFrequency(int(id.level))) / f;
  std::vector<tiles::LatticePoint> points;
  for (int64_t j = -1; j <= n + 1; ++j)
    for (int64_t i = -1; i <= n + 1; ++i)
      points.push_back({id.base, uint32_t(i0 + i), uint32_t(j0 + j)});
  const std::vector<float> h = generator.heights(int(id.level), points);
  const int64_t w = n + 3;
  auto at = [&](int64_t i, int64_t j) { return double(h[size_t((j + 1) * w + (i + 1))]); };
  double sum[2] = {0, 0};
  size_t count[2] = {0, 0};
  for (int64_t j = 0; j <= n; ++j) {
    for (int64_t i = 0; i <= n; ++i) {
      const double across[3] = {at(i + 1, j) - 2 * at(i, j) + at(i - 1, j),
                                at(i, j + 1) - 2 * at(i, j) + at(i, j - 1),
                                at(i + 1, j + 1) - 2 * at(i, j) + at(i - 1, j - 1)};
      const int64_t line[3] = {i0 + i, j0 + j, i0 + j0 + i + j};
      for (int d = 0; d < 3; ++d) {
        if (line[d] % planet_step == 0) continue;
        const int k = line[d] % t == 0 ? 0 : 1;
        sum[k] += std::abs(across[d]), ++count[k];
      }
    }
  }
  const double edges = sum[0] / double(count[0]), inside = sum[1] / double(count[1]);
  std::printf("%s: slope change across tile edges %.3f m, inside tiles %.3f m, ratio %.3f\n", what,
              edges, inside, edges / inside);
}

// Slope-area exponent: medians of slope in bins of 0.2 decades of area from 10 cells up holding
// 30 points or more, least squares in log-log; (exponent, R^2, bins).
std::tuple<double, double, size_t> slopeArea(const std::vector<double>& area,
                                             const std::vector<double>& slope, double cell,
                                             double min_cells = 10.0) {
  std::vector<std::vector<double>> bins(64);
  for (size_t k = 0; k < area.size(); ++k) {
    if (!(area[k] >= min_cells * cell) || !(slope[k] > 0.0)) continue;
    const int b = int(std::floor(std::log10(area[k] / (min_cells * cell)) / 0.2));
    if (b >= 0 && b < 64) bins[size_t(b)].push_back(slope[k]);
  }
  std::vector<double> lx, ly;
  for (size_t b = 0; b < bins.size(); ++b) {
    if (bins[b].size() < 30) continue;
    std::sort(bins[b].begin(), bins[b].end());
    lx.push_back(std::log10(min_cells * cell) + 0.2 * (double(b) + 0.5));
    ly.push_back(std::log10(bins[b][bins[b].size() / 2]));
  }
  double theta = 0.0, r2 = 0.0;
  if (lx.size() >= 3) {
    double mx = 0, my = 0;
    for (size_t k = 0; k < lx.size(); ++k) mx += lx[k], my += ly[k];
    mx /= double(lx.size()), my /= double(lx.size());
    double sxx = 0, sxy = 0, syy = 0;
    for (size_t k = 0; k < lx.size(); ++k) {
      sxx += (lx[k] - mx) * (lx[k] - mx), sxy += (lx[k] - mx) * (ly[k] - my);
      syy += (ly[k] - my) * (ly[k] - my);
    }
    theta = -sxy / sxx, r2 = sxy * sxy / (sxx * syy);
  }
  std::printf("  bins log10(A / cell), log10(S):");
  for (size_t k = 0; k < lx.size(); ++k) std::printf(" %.1f:%.2f", lx[k] - std::log10(cell), ly[k]);
  std::printf("\n");
  return {theta, r2, lx.size()};
}

// Slope-area as a DEM's reader finds it, independent of the generator's masks: the 4 x 4
// block's heights on its lattice rhombus, depressions filled by a priority flood from the
// rhombus's border (each point at least 1 mm over the one it was reached from, Barnes et al.
// 2014), each point draining to its steepest lower neighbour on the filled surface, areas
// accumulated from the highest point down; slope = the ground's fall to that neighbour over
// the spacing, at points not under a filled depression.
void demSlopeArea(const tiles::TileGenerator& generator, const tiles::TileId& id, double cell,
                  double spacing_m) {
  const tiles::TileLayout& layout = generator.layout();
  const int64_t t = layout.tileEdge(), n = 4 * t, w = n + 1;
  const tiles::TileSlot slot = tiles::slotOf(uint64_t(1) << id.level, id.index);
  const int64_t i0 = int64_t(slot.i) * t, j0 = int64_t(slot.j) * t;
  std::vector<tiles::LatticePoint> points;
  for (int64_t j = 0; j <= n; ++j)
    for (int64_t i = 0; i <= n; ++i)
      points.push_back({id.base, uint32_t(i0 + i), uint32_t(j0 + j)});
  const std::vector<float> h = generator.heights(int(id.level), points);
  const size_t count = h.size();
  std::vector<double> filled(count, 0.0);
  std::vector<uint8_t> seen(count, 0);
  using Entry = std::pair<double, size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (int64_t j = 0; j <= n; ++j) {
    for (int64_t i = 0; i <= n; ++i) {
      if (i > 0 && j > 0 && i < n && j < n) continue;
      const size_t c = size_t(j * w + i);
      filled[c] = h[c], seen[c] = 1;
      queue.push({filled[c], c});
    }
  }
  while (!queue.empty()) {
    const auto [level, c] = queue.top();
    queue.pop();
    const int64_t i = int64_t(c) % w, j = int64_t(c) / w;
    for (const auto& st : tiles::kLatticeSteps) {
      const int64_t a = i + st[0], b = j + st[1];
      if (a < 0 || b < 0 || a > n || b > n) continue;
      const size_t m = size_t(b * w + a);
      if (seen[m]) continue;
      seen[m] = 1;
      filled[m] = std::max(double(h[m]), level + 1e-3);
      queue.push({filled[m], m});
    }
  }
  std::vector<size_t> order(count), receiver(count);
  for (size_t c = 0; c < count; ++c) order[c] = c;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return filled[a] > filled[b]; });
  std::vector<double> area(count, cell);
  for (const size_t c : order) {
    const int64_t i = int64_t(c) % w, j = int64_t(c) / w;
    size_t best = c;
    for (const auto& st : tiles::kLatticeSteps) {
      const int64_t a = i + st[0], b = j + st[1];
      if (a < 0 || b < 0 || a > n || b > n) continue;
      const size_t m = size_t(b * w + a);
      if (filled[m] < filled[best]) best = m;
    }
    receiver[c] = best;
    if (best != c) area[best] += area[c];
  }
  std::vector<double> a_in, s_in;
  for (size_t c = 0; c < count; ++c) {
    if (receiver[c] == c || filled[c] > double(h[c])) continue;
    a_in.push_back(area[c]);
    s_in.push_back((double(h[c]) - double(h[receiver[c]])) / spacing_m);
  }
  for (const double min_cells : {10.0, 50.0}) {
    const auto [theta, r2, bins] = slopeArea(a_in, s_in, cell, min_cells);
    std::printf(
        "slope-area of the block's heights routed anew (filled, steepest descent), %.0f cells "
        "and more: exponent %.3f (R^2 %.3f, %zu bins)\n",
        min_cells, theta, r2, bins);
  }
}

double spacingMOf(const tiles::TileGenerator& generator, const tiles::TileId& id) {
  return generator.layout().levelSpacingRad(int(id.level)) * generator.radiusM();
}

// Realism of the eroded 4 x 4 block (32 tiles, every vertex of each): the slope-area exponent
// (slope from the normals against the masks' drainage area, medians in bins of 0.2 decades
// from 10 cells up holding 30 vertices or more, least squares in log-log), the Spearman rank
// correlation of the depth worn with drainage area, and the change's extremes.
void realism(const tiles::TileGenerator& eroded, const tiles::TileGenerator& plain,
             const tiles::TileId& id) {
  const uint64_t n = uint64_t(1) << id.level;
  const tiles::TileSlot slot = tiles::slotOf(n, id.index);
  std::vector<double> area, slope, wear, change, d6_area, d6_slope;
  double cell = 0.0;
  for (uint64_t dj = 0; dj < 4; ++dj) {
    for (uint64_t di = 0; di < 4; ++di) {
      for (bool down : {false, true}) {
        const uint64_t i = slot.i + di, j = slot.j + dj;
        if (i + j + (down ? 1 : 0) >= n) continue;
        const tiles::TileId t{id.base, id.level, tiles::slotIndex(n, {i, j, down})};
        const tiles::TileMesh m = eroded.generate(t);
        const tiles::TileMesh b = plain.generate(t);
        const double s = spacingMOf(eroded, id);
        cell = 0.8660254037844386 * s * s;
        // The steepest descent to a lattice neighbour (the D8 slope of slope-area plots, on
        // the lattice's six neighbours), inner vertices only.
        const int te = int(eroded.layout().tileEdge());
        auto index = [&](int u, int v) { return tileVertex(uint32_t(te), u, v); };
        for (int v = 1; v < te; ++v) {
          for (int u = 1; u + v < te; ++u) {
            const size_t c = index(u, v);
            double drop = 0.0;
            for (const auto& st : tiles::kLatticeSteps)
              drop = std::max(
                  drop, double(m.height_m[c]) - double(m.height_m[index(u + st[0], v + st[1])]));
            d6_area.push_back(m.masks.flow_m2[c]);
            d6_slope.push_back(drop / s);
          }
        }
        for (size_t v = 0; v < m.vertexCount(); ++v) {
          const glm::dvec3 up = glm::normalize(m.position(v));
          const double c = std::min(1.0, glm::dot(up, glm::dvec3(m.normals[v])));
          area.push_back(m.masks.flow_m2[v]);
          slope.push_back(std::tan(std::acos(c)));
          wear.push_back(m.masks.wear_m[v]);
          change.push_back(double(m.height_m[v]) - double(b.height_m[v]));
        }
      }
    }
  }
  // Slope-area.
  const auto [theta, r2, bin_count] = slopeArea(area, slope, cell);
  const auto [theta6, r26, bin_count6] = slopeArea(d6_area, d6_slope, cell);
  std::printf("slope-area, steepest descent to a neighbour: exponent %.3f (R^2 %.3f, %zu bins)\n",
              theta6, r26, bin_count6);
  // The planet's definition: channels of 50 cells or more, steepest descent.
  const auto [theta50, r250, bin_count50] = slopeArea(d6_area, d6_slope, cell, 50.0);
  std::printf(
      "slope-area, steepest descent, 50 cells and more: exponent %.3f (R^2 %.3f, %zu bins)\n",
      theta50, r250, bin_count50);
  // Spearman of wear against area (average ranks for ties).
  auto ranks = [](const std::vector<double>& x) {
    std::vector<size_t> order(x.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
    std::vector<double> r(x.size());
    for (size_t k = 0; k < order.size();) {
      size_t e = k;
      while (e + 1 < order.size() && x[order[e + 1]] == x[order[k]]) ++e;
      for (size_t q = k; q <= e; ++q) r[order[q]] = 0.5 * double(k + e);
      k = e + 1;
    }
    return r;
  };
  const std::vector<double> ra = ranks(area), rw = ranks(wear);
  double ma = 0, mw = 0;
  for (size_t k = 0; k < ra.size(); ++k) ma += ra[k], mw += rw[k];
  ma /= double(ra.size()), mw /= double(rw.size());
  double saa = 0, sww = 0, saw = 0;
  for (size_t k = 0; k < ra.size(); ++k) {
    saa += (ra[k] - ma) * (ra[k] - ma), sww += (rw[k] - mw) * (rw[k] - mw);
    saw += (ra[k] - ma) * (rw[k] - mw);
  }
  std::sort(change.begin(), change.end());
  double rms = 0.0;
  for (double c : change) rms += c * c;
  std::printf(
      "realism (4 x 4 block, %zu vertices): slope-area exponent %.3f (R^2 %.3f, %zu bins); "
      "Spearman(wear, area) %.3f; change m: min %.2f, 1%% %.2f, median %.3f, 99%% %.2f, max "
      "%.2f, rms %.2f\n",
      area.size(), theta, r2, bin_count, saw / std::sqrt(saa * sww), change.front(),
      change[change.size() / 100], change[change.size() / 2], change[change.size() * 99 / 100],
      change.back(), std::sqrt(rms / double(change.size())));
}

// Gullies of a tile: for each of its inner vertices (all six lattice neighbours in the tile),
// in lattice order, 1 when its drainage area is at least min_cells lattice cells and it lies at
// least depth_m below the mean of its six neighbours: a point in a channel cut into the ground.
std::vector<uint8_t> gullyFlags(const tiles::TileMesh& m, uint32_t t, double cell_m2,
                                double min_cells, double depth_m) {
  auto index = [&](int u, int v) { return tileVertex(t, u, v); };
  std::vector<uint8_t> flags;
  for (int v = 1; v < int(t); ++v) {
    for (int u = 1; u + v < int(t); ++u) {
      const size_t c = index(u, v);
      double ring = 0.0;
      for (const auto& s : tiles::kLatticeSteps)
        ring += double(m.height_m[index(u + s[0], v + s[1])]);
      flags.push_back(double(m.masks.flow_m2[c]) >= min_cells * cell_m2 &&
                      ring / 6.0 - double(m.height_m[c]) >= depth_m);
    }
  }
  return flags;
}

// The share of flags set (0 for none).
double shareSet(const std::vector<uint8_t>& flags) {
  return flags.empty() ? 0.0
                       : double(std::count(flags.begin(), flags.end(), 1)) / double(flags.size());
}

// Slope (rise over run, from the normal) of each inner vertex of a tile, in gullyFlags' order.
std::vector<float> innerSlopes(const tiles::TileMesh& m, uint32_t t) {
  auto index = [&](int u, int v) { return tileVertex(t, u, v); };
  std::vector<float> slope;
  for (int v = 1; v < int(t); ++v) {
    for (int u = 1; u + v < int(t); ++u) {
      const size_t c = index(u, v);
      const double cosine =
          std::min(1.0, glm::dot(glm::normalize(m.position(c)), glm::dvec3(m.normals[c])));
      slope.push_back(float(std::tan(std::acos(cosine))));
    }
  }
  return slope;
}

// Gully density of the wettest quarter of tiles against the driest's, at matched ground: the
// inner vertices of both quarters binned by the slope of the tiles without erosion (deciles of
// the pooled slopes), each quarter's density per bin weighted by the bin's share of the pooled
// vertices (direct standardisation), so ground that is steeper on one side does not count as
// rain. `wet`, `dry`: the tiles of each quarter (gully flags and plain slopes, per vertex).
double slopeMatchedRatio(const std::vector<std::vector<uint8_t>>& wet_flags,
                         const std::vector<std::vector<float>>& wet_slopes,
                         const std::vector<std::vector<uint8_t>>& dry_flags,
                         const std::vector<std::vector<float>>& dry_slopes) {
  std::vector<float> pooled;
  for (const auto* side : {&wet_slopes, &dry_slopes})
    for (const auto& tile : *side) pooled.insert(pooled.end(), tile.begin(), tile.end());
  if (pooled.empty()) return 0.0;
  std::sort(pooled.begin(), pooled.end());
  constexpr int kBins = 10;
  std::array<float, kBins - 1> edges;
  for (int b = 1; b < kBins; ++b) edges[b - 1] = pooled[pooled.size() * size_t(b) / kBins];
  auto bin = [&](float slope) {
    return int(std::upper_bound(edges.begin(), edges.end(), slope) - edges.begin());
  };
  std::array<double, kBins> wet_n{}, wet_g{}, dry_n{}, dry_g{};
  auto tally = [&](const auto& flags, const auto& slopes, auto& n, auto& g) {
    for (size_t t = 0; t < flags.size(); ++t)
      for (size_t k = 0; k < flags[t].size(); ++k) {
        const int b = bin(slopes[t][k]);
        n[b] += 1.0, g[b] += flags[t][k];
      }
  };
  tally(wet_flags, wet_slopes, wet_n, wet_g);
  tally(dry_flags, dry_slopes, dry_n, dry_g);
  double wet = 0.0, dry = 0.0;
  for (int b = 0; b < kBins; ++b) {
    if (wet_n[b] == 0.0 || dry_n[b] == 0.0) continue;  // a slope one side does not have
    const double weight = wet_n[b] + dry_n[b];
    wet += weight * wet_g[b] / wet_n[b];
    dry += weight * dry_g[b] / dry_n[b];
  }
  return dry > 0.0 ? wet / dry : 0.0;
}

// The tiles' erosion on the tile: its cost (its own level's windows not cached, then cached),
// and the 4 x 4 block without and with it.
void erosionPictures(const tiles::TilePlanet& plain_planet, const tiles::TileParams& plain_params,
                     const CachedPlanet& cached, const tiles::TileId& id, double spacing_m,
                     int argc, char** argv, const std::filesystem::path& out_dir) {
  const geodesy::SphereMesh mesh = geodesy::buildIcosphere(cached.frequency);
  const hydrology::FlowRouting routing = hydrology::routeFlow(mesh, cached.elevation, 0.0);
  tiles::TilePlanet planet = plain_planet;
  planet.receiver = routing.receiver;
  planet.rainfall = cached.rainfall;
  tiles::TileParams params = plain_params;
  params.erosion.enabled = true;
  params.erosion.halo = std::stoi(arg(argc, argv, "--halo", std::to_string(params.erosion.halo)));
  params.erosion.window_subdivision = std::stoi(
      arg(argc, argv, "--window-subdivision", std::to_string(params.erosion.window_subdivision)));
  if (const std::string bump = arg(argc, argv, "--bump-fraction", ""); !bump.empty())
    params.erosion.bump_fraction = std::stod(bump);
  params.erosion.droplets_per_point = std::stod(arg(argc, argv, "--droplets-per-point", "0.3"));
  params.erosion.runoff_m = std::stod(arg(argc, argv, "--runoff-m", "20"));
  erosion::LatticeDropletParams& d = params.erosion.droplets;
  d.inertia = std::stod(arg(argc, argv, "--inertia", std::to_string(d.inertia)));
  d.capacity_s_per_m = std::stod(arg(argc, argv, "--capacity", std::to_string(d.capacity_s_per_m)));
  d.erosion_per_m = std::stod(arg(argc, argv, "--erosion-per-m", std::to_string(d.erosion_per_m)));
  d.deposition_per_m =
      std::stod(arg(argc, argv, "--deposition-per-m", std::to_string(d.deposition_per_m)));
  d.flow_exponent = std::stod(arg(argc, argv, "--flow-exponent", std::to_string(d.flow_exponent)));
  d.max_flow_cells =
      std::stod(arg(argc, argv, "--max-flow-cells", std::to_string(d.max_flow_cells)));
  d.radius = std::stod(arg(argc, argv, "--radius", std::to_string(d.radius)));
  d.max_length_m = std::stod(arg(argc, argv, "--max-length-m", std::to_string(d.max_length_m)));
  erosion::StreamPowerParams& sp = params.erosion.stream_power;
  sp.incision = std::stod(arg(argc, argv, "--incision", std::to_string(sp.incision)));
  sp.keep_mean = std::stoi(arg(argc, argv, "--keep-mean", "0")) != 0;
  sp.max_factor = std::stod(arg(argc, argv, "--max-factor", std::to_string(sp.max_factor)));
  params.erosion.hillslope.diffusion_steps = std::stoi(arg(
      argc, argv, "--diffusion-steps", std::to_string(params.erosion.hillslope.diffusion_steps)));
  erosion::SteadyStateParams& ss = params.erosion.steady_state;
  ss.enabled = std::stoi(arg(argc, argv, "--steady-state", "0")) != 0;
  params.erosion.droplet_masks = std::stoi(arg(argc, argv, "--droplet-masks", "1")) != 0;
  params.erosion.droplets_reach_bump =
      std::stoi(arg(argc, argv, "--reach-bump", params.erosion.droplets_reach_bump ? "1" : "0")) !=
      0;
  if (arg(argc, argv, "--steady-mode", "carve") == "lay") ss.mode = erosion::SteadyStateMode::kLay;
  if (arg(argc, argv, "--steady-mode", "carve") == "hang")
    ss.mode = erosion::SteadyStateMode::kHang;
  ss.channel_cells =
      std::stod(arg(argc, argv, "--hang-channel-cells", std::to_string(ss.channel_cells)));
  ss.steepness_m = std::stod(arg(argc, argv, "--steepness-m", std::to_string(ss.steepness_m)));
  ss.reach_steps = std::stoi(arg(argc, argv, "--reach-steps", std::to_string(ss.reach_steps)));
  d.channel_cells = std::stod(arg(argc, argv, "--channel-cells", std::to_string(d.channel_cells)));
  ss.passes = std::stoi(arg(argc, argv, "--passes", std::to_string(ss.passes)));
  ss.max_slope = std::stod(arg(argc, argv, "--max-slope", std::to_string(ss.max_slope)));
  ss.concavity = std::stod(arg(argc, argv, "--concavity", std::to_string(ss.concavity)));
  params.erosion.relief =
      std::stoi(arg(argc, argv, "--relief", params.erosion.relief ? "1" : "0")) != 0;
  params.erosion.max_spacing_m =
      std::stod(arg(argc, argv, "--max-spacing-m", std::to_string(params.erosion.max_spacing_m)));
  params.erosion.relief_max_spacing_m = std::stod(arg(
      argc, argv, "--relief-max-spacing-m", std::to_string(params.erosion.relief_max_spacing_m)));
  params.erosion.relief_smoothing = std::stoi(
      arg(argc, argv, "--relief-smoothing", std::to_string(params.erosion.relief_smoothing)));
  params.erosion.receiver_jitter = std::stod(
      arg(argc, argv, "--receiver-jitter", std::to_string(params.erosion.receiver_jitter)));
  params.erosion.relief_low_pass_edges = std::stod(arg(
      argc, argv, "--relief-low-pass-edges", std::to_string(params.erosion.relief_low_pass_edges)));
  params.erosion.relief_amplitude = std::stod(
      arg(argc, argv, "--relief-amplitude", std::to_string(params.erosion.relief_amplitude)));
  erosion::SteadyStateParams& rs = params.erosion.relief_steady_state;
  rs.steepness_m =
      std::stod(arg(argc, argv, "--relief-steepness-m", std::to_string(rs.steepness_m)));
  rs.channel_cells =
      std::stod(arg(argc, argv, "--relief-channel-cells", std::to_string(rs.channel_cells)));
  rs.reach_steps =
      std::stoi(arg(argc, argv, "--relief-reach-steps", std::to_string(rs.reach_steps)));
  rs.max_slope = std::stod(arg(argc, argv, "--relief-max-slope", std::to_string(rs.max_slope)));
  rs.spread_exponent =
      std::stod(arg(argc, argv, "--relief-spread", std::to_string(rs.spread_exponent)));
  rs.concavity = std::stod(arg(argc, argv, "--relief-concavity", std::to_string(rs.concavity)));
  if (arg(argc, argv, "--rain", "planet") == "uniform")
    params.erosion.rain = tiles::TileRain::kUniform;
  if (cached.rainfall.empty()) std::printf("the planet has no rain: uniform rain\n");
  const tiles::TileGenerator plain(plain_planet, plain_params);
  const tiles::TileGenerator eroded(planet, params);
  auto t0 = Clock::now();
  const tiles::TileMesh first = eroded.generate(id);
  const double uncached = secondsSince(t0);
  t0 = Clock::now();
  (void)eroded.generate(id);
  const double cached_s = secondsSince(t0);
  double worn = 0.0, laid = 0.0, change = 0.0;
  const tiles::TileMesh before = plain.generate(id);
  for (size_t v = 0; v < first.vertexCount(); ++v) {
    worn = std::max(worn, double(first.masks.wear_m[v]));
    laid = std::max(laid, double(first.masks.deposition_m[v]));
    const double d = double(first.height_m[v]) - double(before.height_m[v]);
    change += d * d;
  }
  std::printf(
      "eroded tile: %.2f s with nothing cached (every level's windows made), %.3f s again "
      "(cached); most worn %.1f m, most laid %.1f m, change rms %.2f m\n",
      uncached, cached_s, worn, laid, std::sqrt(change / double(first.vertexCount())));
  realism(eroded, plain, id);
  demSlopeArea(eroded, id, 0.8660254037844386 * std::pow(spacingMOf(eroded, id), 2),
               spacingMOf(eroded, id));
  const tiles::TileLayout& layout = eroded.layout();
  // --levels A,B,C: the tile's middle at three levels, eroded (levels_A_B_C.png).
  if (const std::string levels = arg(argc, argv, "--levels", ""); !levels.empty()) {
    std::array<int, 3> l{};
    if (std::sscanf(levels.c_str(), "%d,%d,%d", &l[0], &l[1], &l[2]) == 3) {
      const size_t t = size_t(layout.tileEdge());
      const glm::dvec3 middle =
          glm::normalize(first.position((t / 3) * (t + 1) - (t / 3) * (t / 3 - 1) / 2 + t / 3));
      char name[64];
      std::snprintf(name, sizeof(name), "levels_%d_%d_%d.png", l[0], l[1], l[2]);
      drawLevels(eroded, plain_planet.radius_m, middle, l, out_dir / name);
    }
  }
  const double cell_m2 = 0.8660254037844386 *
                         std::pow(layout.levelSpacingRad(int(id.level)) * plain_planet.radius_m, 2);
  const double gully_cells = std::stod(arg(argc, argv, "--gully-cells", "20"));
  const double gully_depth_m = std::stod(arg(argc, argv, "--gully-depth-m", "0.5"));
  std::printf("gully density of the tile (area >= %.0f cells, >= %.2f m below its ring): %.4f\n",
              gully_cells, gully_depth_m,
              shareSet(gullyFlags(first, uint32_t(layout.tileEdge()), cell_m2, gully_cells,
                                  gully_depth_m)));
  // Consistency: the eroded surface's mean over the planet triangles inside the block against
  // the planet's surface (no detail), over the planet's local relief there.
  {
    const tiles::TileGenerator smooth(plain_planet, {256, {false}, {}});
    const geodesy::LatticeNumbering numbering(cached.frequency);
    const int64_t t = layout.tileEdge();
    const int64_t m = int64_t(layout.levelFrequency(int(id.level))) / cached.frequency;
    const tiles::TileSlot slot = tiles::slotOf(uint64_t(1) << id.level, id.index);
    const int64_t i0 = int64_t(slot.i) * t, j0 = int64_t(slot.j) * t;
    double worst = 0.0, worst_plain = 0.0;
    int count = 0;
    for (int64_t pj = (j0 + m - 1) / m; (pj + 1) * m <= j0 + 4 * t; ++pj) {
      for (int64_t pi = (i0 + m - 1) / m; (pi + 1) * m <= i0 + 4 * t; ++pi) {
        if (pi + pj + 1 >= cached.frequency) continue;
        const tiles::TriangleSamples samples = tiles::planetTriangleSamples(
            layout, int(id.level), id.base, uint32_t(pi), uint32_t(pj), 64);
        const std::vector<float> e = eroded.heights(int(id.level), samples.points);
        const std::vector<float> d = plain.heights(int(id.level), samples.points);
        const std::vector<float> s0 = smooth.heights(int(id.level), samples.points);
        const double relief =
            tiles::localRelief(numbering, cached.elevation, id.base, uint32_t(pi), uint32_t(pj));
        worst = std::max(worst, std::abs(tiles::differenceMoments(samples, e, s0).mean) / relief);
        worst_plain =
            std::max(worst_plain, std::abs(tiles::differenceMoments(samples, d, s0).mean) / relief);
        ++count;
      }
    }
    std::printf(
        "consistency over %d planet triangles in the block: worst |mean - planet| / relief %.4f "
        "eroded, %.4f with detail only\n",
        count, worst, worst_plain);
  }
  // Weather: gully density over tiles spread along the range around the spot (the steepest
  // land above 500 m within 8 planet spacings), the wettest quarter against the driest.
  const int range_tiles = std::stoi(arg(argc, argv, "--range-tiles", "0"));
  if (range_tiles > 0 && !cached.rainfall.empty()) {
    const geodesy::LatticeNumbering numbering(cached.frequency);
    const int64_t m = int64_t(layout.levelFrequency(int(id.level))) / cached.frequency;
    const tiles::LatticePoint spot = layout.vertexPoint(id, 0, 0);
    const int64_t si = int64_t(spot.i) / m, sj = int64_t(spot.j) / m;
    struct Candidate {
      double relief, rain;
      glm::dvec3 where;
    };
    std::vector<Candidate> candidates;
    const auto f = uint64_t(cached.frequency);
    for (int64_t dj = -8; dj <= 8; dj += 2) {
      for (int64_t di = -8; di <= 8; di += 2) {
        const int64_t i = si + di, j = sj + dj;
        if (i < 1 || j < 1 || i + j + 2 >= cached.frequency) continue;
        auto h = [&](int64_t a, int64_t b) {
          return double(cached.elevation[numbering.vertex(id.base, uint32_t(a), uint32_t(b))]);
        };
        if (h(i, j) < 500.0) continue;
        const double relief =
            std::abs(h(i + 1, j) - h(i - 1, j)) + std::abs(h(i, j + 1) - h(i, j - 1));
        const double rain = cached.rainfall[numbering.vertex(id.base, uint32_t(i), uint32_t(j))];
        const glm::dvec3 where =
            glm::normalize(geodesy::latticePosition(geodesy::Spacing::kSineWeights, f, id.base,
                                                    uint32_t(i), uint32_t(j)) +
                           geodesy::latticePosition(geodesy::Spacing::kSineWeights, f, id.base,
                                                    uint32_t(i + 1), uint32_t(j)) +
                           geodesy::latticePosition(geodesy::Spacing::kSineWeights, f, id.base,
                                                    uint32_t(i), uint32_t(j + 1)));
        candidates.push_back({relief, rain, where});
      }
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.relief > b.relief; });
    if (candidates.size() > size_t(range_tiles)) candidates.resize(size_t(range_tiles));
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.rain < b.rain; });
    const size_t q = std::max<size_t>(1, candidates.size() / 4);
    // The ground the quarters stand on: the plain tiles' mean slope (rise over run, from the
    // normals), which the droplets' capacity follows whatever the rain.
    const uint32_t t = uint32_t(layout.tileEdge());
    std::vector<std::vector<float>> plain_slopes;  // per candidate, per inner vertex
    {
      const tiles::TileGenerator g(plain_planet, plain_params);
      std::vector<double> mean_slope;
      for (const Candidate& c : candidates) {
        const tiles::TileMesh tm = g.generate(g.tileAt(c.where, int(id.level)));
        double sum = 0.0;
        for (size_t v = 0; v < tm.vertexCount(); ++v) {
          const double cosine =
              std::min(1.0, glm::dot(glm::normalize(tm.position(v)), glm::dvec3(tm.normals[v])));
          sum += std::tan(std::acos(cosine));
        }
        mean_slope.push_back(sum / double(tm.vertexCount()));
        plain_slopes.push_back(innerSlopes(tm, t));
      }
      double dry = 0.0, wet = 0.0;
      for (size_t k = 0; k < q; ++k)
        dry += mean_slope[k], wet += mean_slope[mean_slope.size() - 1 - k];
      std::printf(
          "plain ground over the range tiles: mean slope driest quarter %.4f, wettest %.4f, "
          "ratio %.2f\n",
          dry / double(q), wet / double(q), wet / dry);
    }
    // One run: the candidates' tiles made by g, their gully density's wettest quarter against
    // the driest, as they are and at matched ground (slopes: g's tiles without erosion).
    auto rainRun = [&](const tiles::TileGenerator& g, const std::vector<std::vector<float>>& slopes,
                       const char* what) {
      std::vector<double> density;
      std::vector<std::vector<uint8_t>> flags;
      for (const Candidate& c : candidates) {
        const tiles::TileMesh tm = g.generate(g.tileAt(c.where, int(id.level)));
        flags.push_back(gullyFlags(tm, t, cell_m2, gully_cells, gully_depth_m));
        density.push_back(shareSet(flags.back()));
      }
      double dry = 0.0, wet = 0.0;
      for (size_t k = 0; k < q; ++k) dry += density[k], wet += density[density.size() - 1 - k];
      const auto quarter = std::ptrdiff_t(q);
      const double matched = slopeMatchedRatio(
          {flags.end() - quarter, flags.end()}, {slopes.end() - quarter, slopes.end()},
          {flags.begin(), flags.begin() + quarter}, {slopes.begin(), slopes.begin() + quarter});
      std::printf(
          "gully density over %zu range tiles, %s: driest quarter %.4f (rain %.3g), "
          "wettest %.4f (rain %.3g), ratio %.2f; at matched ground slope %.2f\n",
          candidates.size(), what, dry / double(q), candidates.front().rain, wet / double(q),
          candidates.back().rain, dry > 0.0 ? wet / dry : 0.0, matched);
      std::fflush(stdout);
    };
    for (const tiles::TileRain mode : {tiles::TileRain::kPlanet, tiles::TileRain::kUniform}) {
      tiles::TileParams p = params;
      p.erosion.rain = mode;
      rainRun(tiles::TileGenerator(planet, p), plain_slopes,
              mode == tiles::TileRain::kPlanet ? "planet rain" : "uniform rain");
    }
    // --uniform-planet 1: compare's uniform side, as `planetgen compare` makes it: the planet
    // made again from the same config under uniform rain ([weather] mode), its tiles eroded
    // under its own (uniform) rain; the quarters stay the cloud planet's wettest and driest.
    if (std::stoi(arg(argc, argv, "--uniform-planet", "0")) != 0) {
      planet::Config config = planet::loadConfig(arg(argc, argv, "--config", ""));
      config.weather.mode = planet::RainMode::kUniform;
      const CachedPlanet made = makePlanet(config);
      tiles::TilePlanet uniform_plain = plain_planet;
      uniform_plain.elevation_m = made.elevation;
      uniform_plain.water_level_m = made.water;
      tiles::TilePlanet uniform_planet = uniform_plain;
      uniform_planet.receiver = made.receiver;
      uniform_planet.rainfall = made.rainfall;
      std::vector<std::vector<float>> uniform_slopes;
      const tiles::TileGenerator g(uniform_plain, plain_params);
      for (const Candidate& c : candidates)
        uniform_slopes.push_back(innerSlopes(g.generate(g.tileAt(c.where, int(id.level))), t));
      rainRun(tiles::TileGenerator(uniform_planet, params), uniform_slopes,
              "the planet made under uniform rain");
    }
  }
  char name[64];
  auto drawTile = [&](const tiles::TileMesh& m, const char* what) {
    std::vector<glm::dvec3> p(m.vertexCount()), n(m.vertexCount());
    for (size_t v = 0; v < m.vertexCount(); ++v)
      p[v] = m.position(v), n[v] = glm::dvec3(m.normals[v]);
    std::snprintf(name, sizeof(name), "erosion_%.0fm_tile_%s.png", spacing_m, what);
    writePicture(out_dir / name, hillshade(p, n, m.topology->indices, 768));
  };
  drawTile(before, "off");
  drawTile(first, "on");
  {
    std::vector<glm::dvec3> p(first.vertexCount()), n(first.vertexCount());
    std::vector<float> cells(first.vertexCount());
    for (size_t v = 0; v < first.vertexCount(); ++v) {
      p[v] = first.position(v), n[v] = glm::dvec3(first.normals[v]);
      cells[v] = float(double(first.masks.flow_m2[v]) / cell_m2);
    }
    std::snprintf(name, sizeof(name), "erosion_%.0fm_tile_flow.png", spacing_m);
    writePicture(out_dir / name, flowHillshade(p, n, cells, first.topology->indices, 768));
  }
  std::snprintf(name, sizeof(name), "erosion_%.0fm_off.png", spacing_m);
  drawBlock(plain, id, out_dir / name);
  t0 = Clock::now();
  std::snprintf(name, sizeof(name), "erosion_%.0fm_on.png", spacing_m);
  char flow_name[64];
  std::snprintf(flow_name, sizeof(flow_name), "erosion_%.0fm_flow.png", spacing_m);
  drawBlock(eroded, id, out_dir / name, out_dir / flow_name, cell_m2);
  std::printf("eroded 4 x 4 block (32 tiles) drawn in %.1f s\n", secondsSince(t0));
  lineContrast(plain, id, cached.frequency, "4 x 4 block, erosion off");
  lineContrast(eroded, id, cached.frequency, "4 x 4 block, erosion on");
}

}  // namespace

int run(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows when stdout is a file
  const std::string config_path = arg(argc, argv, "--config", "configs/earthlike.toml");
  const std::filesystem::path out_dir = arg(argc, argv, "--out", "tile_look");
  const std::string cache = arg(argc, argv, "--cache", "");
  const double spacing_m = std::stod(arg(argc, argv, "--spacing-m", "30"));
  const int threads = std::stoi(arg(argc, argv, "--threads", "2"));
  const int repeat = std::stoi(arg(argc, argv, "--repeat", "5"));
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, size_t(threads));

  const planet::Config config = planet::loadConfig(config_path);
  const int f = config.planet.frequency;
  CachedPlanet cached;
  if (cache.empty() || !readCache(cache, f, cached)) {
    const auto t0 = Clock::now();
    cached = makePlanet(config);
    std::printf("planet f = %d made in %.1f s\n", f, secondsSince(t0));
    if (!cache.empty()) writeCache(cache, cached);
  }

  tiles::TilePlanet planet;
  planet.frequency = f;
  planet.radius_m = config.planet.radius_m;
  planet.sea_level_m = 0.0;
  planet.elevation_m = cached.elevation;
  planet.water_level_m = cached.water;
  planet.spectrum = {terrain::detailNoiseSeed(config.planet.seed), config.terrain.frequency,
                     config.terrain.lacunarity, config.terrain.persistence};
  auto t0 = Clock::now();
  tiles::TileParams params;
  params.detail.hurst = std::stod(arg(argc, argv, "--hurst", "0.7"));
  const tiles::TileGenerator generator(planet, params);
  std::printf("generator built in %.3f s (T = %d)\n", secondsSince(t0),
              generator.layout().tileEdge());
  const tiles::TileGenerator smooth(planet, {256, {false}, {}});

  // The steepest land: the vertex with the largest relief over its ring, above 500 m.
  const geodesy::LatticeNumbering numbering(f);
  double best = -1.0;
  glm::dvec3 where(1, 0, 0);
  for (uint32_t base = 0; base < 20; ++base) {
    for (uint32_t j = 1; j + 1 < uint32_t(f); ++j) {
      for (uint32_t i = 1; i + j < uint32_t(f); ++i) {
        const float h = cached.elevation[numbering.vertex(base, i, j)];
        if (h < 500.0f) continue;
        const float a = cached.elevation[numbering.vertex(base, i + 1, j)];
        const float b = cached.elevation[numbering.vertex(base, i - 1, j)];
        const float c = cached.elevation[numbering.vertex(base, i, j + 1)];
        const float d = cached.elevation[numbering.vertex(base, i, j - 1)];
        const double relief = std::abs(a - b) + std::abs(c - d);
        if (relief > best) {
          best = relief;
          // The middle of the planet triangle (i, j), (i + 1, j), (i, j + 1): as far from the
          // planet's vertices (where the detail is pinned to the planet) as can be.
          where =
              geodesy::latticePosition(geodesy::Spacing::kSineWeights, uint64_t(f), base, i, j) +
              geodesy::latticePosition(geodesy::Spacing::kSineWeights, uint64_t(f), base, i + 1,
                                       j) +
              geodesy::latticePosition(geodesy::Spacing::kSineWeights, uint64_t(f), base, i, j + 1);
          where = glm::normalize(where);
        }
      }
    }
  }
  std::printf("steepest slope at lat %.3f lon %.3f (relief over 2 steps %.0f m)\n",
              std::asin(where.y) * 180 / M_PI, std::atan2(-where.z, where.x) * 180 / M_PI, best);
  // --lat/--lon: look there instead (degrees, as the spot above is printed).
  if (const std::string lat = arg(argc, argv, "--lat", ""); !lat.empty()) {
    const double phi = std::stod(lat) * M_PI / 180.0;
    const double lambda = std::stod(arg(argc, argv, "--lon", "0")) * M_PI / 180.0;
    where = {std::cos(phi) * std::cos(lambda), std::sin(phi), -std::cos(phi) * std::sin(lambda)};
    std::printf("looking at lat %.3f lon %.3f instead\n", std::stod(lat), lambda * 180.0 / M_PI);
  }

  const tiles::TileLayout& layout = generator.layout();
  const int level = layout.levelForSpacing(spacing_m, planet.radius_m);
  const tiles::TileId id = generator.tileAt(where, level);
  std::vector<double> times;
  tiles::TileMesh mesh;
  for (int r = 0; r < repeat; ++r) {
    t0 = Clock::now();
    mesh = generator.generate(id);
    times.push_back(secondsSince(t0));
  }
  std::sort(times.begin(), times.end());
  std::printf(
      "tile level %d (%.1f m spacing, %zu vertices): median %.1f ms, min %.1f ms on %d threads\n",
      level, layout.levelSpacingRad(level) * planet.radius_m, mesh.vertexCount(),
      1000 * times[times.size() / 2], 1000 * times[0], threads);

  if (std::stoi(arg(argc, argv, "--pictures", "1")) == 0) {
    if (std::stoi(arg(argc, argv, "--erosion", "0")) != 0)
      erosionPictures(planet, params, cached, id, spacing_m, argc, argv, out_dir);
    return 0;
  }
  auto draw = [&](const tiles::TileMesh& m, const std::string& name) {
    std::vector<glm::dvec3> p(m.vertexCount()), n(m.vertexCount());
    float lo = 1e30f, hi = -1e30f;
    for (size_t v = 0; v < m.vertexCount(); ++v) {
      p[v] = m.position(v), n[v] = glm::dvec3(m.normals[v]);
      lo = std::min(lo, m.height_m[v]), hi = std::max(hi, m.height_m[v]);
    }
    writePicture(out_dir / name, hillshade(p, n, m.topology->indices, 768));
    std::printf("%s: heights %.0f .. %.0f m\n", name.c_str(), lo, hi);
  };
  // How rough: slopes from the normals, and the detail against the planet surface alone.
  auto slopes = [&](const tiles::TileMesh& m) {
    std::vector<double> deg(m.vertexCount());
    for (size_t v = 0; v < m.vertexCount(); ++v) {
      const glm::dvec3 up = glm::normalize(m.position(v));
      deg[v] = std::acos(std::min(1.0, glm::dot(up, glm::dvec3(m.normals[v])))) * 180.0 / M_PI;
    }
    std::sort(deg.begin(), deg.end());
    return std::array<double, 3>{deg[deg.size() / 2], deg[deg.size() * 9 / 10], deg.back()};
  };
  const tiles::TileMesh plain = smooth.generate(id);
  double square = 0.0;
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const double d = double(mesh.height_m[v]) - double(plain.height_m[v]);
    square += d * d;
  }
  const auto with_detail = slopes(mesh), without = slopes(plain);
  std::printf(
      "slope (deg) median / 90%% / max: %.1f / %.1f / %.1f with detail, %.1f / %.1f / %.1f "
      "without; detail rms %.1f m\n",
      with_detail[0], with_detail[1], with_detail[2], without[0], without[1], without[2],
      std::sqrt(square / double(mesh.vertexCount())));
  char name[64];
  std::snprintf(name, sizeof(name), "tile_%.0fm.png", spacing_m);
  draw(mesh, name);
  std::snprintf(name, sizeof(name), "tile_%.0fm_smooth.png", spacing_m);
  draw(plain, name);

  // The detail's mean over planet triangles near the spot, at the 30 m level's lattice:
  // 36 triangles, |mean| against the local relief (the planet's range over the corners and
  // their rings).
  {
    const tiles::LatticePoint spot = layout.vertexPoint(id, 0, 0);
    const uint64_t m = layout.levelFrequency(level) / uint64_t(f);
    const uint32_t si = uint32_t(spot.i / m), sj = uint32_t(spot.j / m);
    double worst = 0.0, rms_sum = 0.0, relief_sum = 0.0;
    int count = 0;
    const uint32_t q = 64;  // sample points per planet edge (the 30 m level has m of them)
    for (uint32_t dj = 0; dj < 6; ++dj) {
      for (uint32_t di = 0; di < 6; ++di) {
        const uint32_t pi = si + di - 3, pj = sj + dj - 3;
        if (pi + pj + 1 >= uint32_t(f)) continue;
        const tiles::TriangleSamples samples =
            tiles::planetTriangleSamples(layout, level, spot.base, pi, pj, q);
        const std::vector<float> detailed = generator.heights(level, samples.points);
        const std::vector<float> plain_h = smooth.heights(level, samples.points);
        const tiles::TriangleMoments moments = tiles::differenceMoments(samples, detailed, plain_h);
        const double relief = tiles::localRelief(numbering, cached.elevation, spot.base, pi, pj);
        worst = std::max(worst, std::abs(moments.mean) / relief);
        rms_sum += moments.rms;
        relief_sum += relief;
        ++count;
      }
    }
    std::printf("detail over %d planet triangles: worst |mean| / relief %.4f, rms / relief %.3f\n",
                count, worst, rms_sum / relief_sum);
  }

  // Seams: the tile and the tiles around it (its neighbours and theirs) in one picture.
  {
    std::vector<tiles::TileId> block{id};
    for (const auto& a : layout.neighbours(id)) {
      block.push_back(a.id);
      for (const auto& b : layout.neighbours(a.id)) block.push_back(b.id);
    }
    std::sort(block.begin(), block.end(), [](const tiles::TileId& a, const tiles::TileId& b) {
      return tiles::packTileId(a) < tiles::packTileId(b);
    });
    block.erase(std::unique(block.begin(), block.end()), block.end());
    std::vector<glm::dvec3> p, n;
    std::vector<uint32_t> indices;
    for (const tiles::TileId& b : block) {
      const tiles::TileMesh m = generator.generate(b);
      const uint32_t first = uint32_t(p.size());
      for (size_t v = 0; v < m.vertexCount(); ++v) {
        p.push_back(m.position(v));
        n.push_back(glm::dvec3(m.normals[v]));
      }
      for (uint32_t k : m.topology->indices) indices.push_back(first + k);
    }
    std::snprintf(name, sizeof(name), "block_%.0fm.png", spacing_m);
    writePicture(out_dir / name, hillshade(p, n, indices, 1024));
    std::printf("%s: %zu tiles\n", name, block.size());
  }

  // A region about 25 planet spacings across, planet surface only: barycentric interpolation
  // of the planet's vertices against the generator's Clough-Tocher surface, both shaded from
  // the same lattice normals with heights exaggerated (the planet's slopes at 14 km are a few
  // degrees: the creases are there without it, but faint).
  int region_level = 0;
  while (region_level < layout.deepestLevel() &&
         layout.levelFrequency(region_level) < uint64_t(f) * layout.tileEdge() / 25)
    ++region_level;
  const tiles::TileId region = generator.tileAt(where, region_level);
  const double region_spacing = layout.levelSpacingRad(region_level) * planet.radius_m;
  const double exaggeration = std::stod(arg(argc, argv, "--region-exaggeration", "10"));
  const tiles::TileMesh ct = smooth.generate(region);
  const uint64_t frequency = layout.levelFrequency(region_level), m = frequency / uint64_t(f);
  const uint32_t t = uint32_t(layout.tileEdge());
  std::vector<glm::dvec3> linear_p(ct.vertexCount()), ct_p(ct.vertexCount());
  for (uint32_t v = 0; v <= t; ++v) {
    for (uint32_t u = 0; u + v <= t; ++u) {
      const tiles::LatticePoint q = layout.vertexPoint(region, u, v);
      const uint32_t i = uint32_t(q.i / m), j = uint32_t(q.j / m);
      const double fi = double(q.i % m) / m, fj = double(q.j % m) / m;
      auto h = [&](uint32_t a, uint32_t b) {
        return double(cached.elevation[numbering.vertex(q.base, a, b)]);
      };
      double height;
      if (fi + fj <= 1.0) {
        height = (1 - fi - fj) * h(i, j) + (fi > 0 ? fi * h(i + 1, j) : 0.0) +
                 (fj > 0 ? fj * h(i, j + 1) : 0.0);
      } else {
        height = (1 - fj) * h(i + 1, j) + (fi + fj - 1) * h(i + 1, j + 1) + (1 - fi) * h(i, j + 1);
      }
      const size_t k = tileVertex(t, int(u), int(v));
      linear_p[k] = generator.surfacePosition(region_level, q, float(exaggeration * height));
      ct_p[k] = generator.surfacePosition(region_level, q, float(exaggeration * ct.height_m[k]));
    }
  }
  std::snprintf(name, sizeof(name), "region_%.0fm_linear_x%.0f.png", region_spacing, exaggeration);
  writePicture(out_dir / name,
               hillshade(linear_p, gridNormals(linear_p, t), ct.topology->indices, 768));
  std::snprintf(name, sizeof(name), "region_%.0fm_ct_x%.0f.png", region_spacing, exaggeration);
  writePicture(out_dir / name, hillshade(ct_p, gridNormals(ct_p, t), ct.topology->indices, 768));
  std::snprintf(name, sizeof(name), "region_%.0fm_detail.png", region_spacing);
  draw(generator.generate(region), name);
  if (std::stoi(arg(argc, argv, "--erosion", "0")) != 0)
    erosionPictures(planet, params, cached, id, spacing_m, argc, argv, out_dir);
  return 0;
}

// A bad flag (a value the library refuses, a file that cannot be read): its message and exit 2.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tile_look: %s\n", e.what());
    return 2;
  }
}
