#include "tiles/detail/erosion_model.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "erosion/lattice_droplets.h"
#include "erosion/lattice_patch.h"
#include "erosion/window_stream_power.h"
#include "geodesy/hash.h"
#include "geodesy/icosahedron.h"
#include "geodesy/lattice_numbering.h"
#include "tiles/detail/butterfly.h"
#include "tiles/detail/erosion_window.h"
#include "tiles/detail/level_sampler.h"
#include "tiles/detail/river_course.h"
#include "tiles/detail/window_chart.h"

namespace tiles::detail {
namespace {

// Streams of the windows' random numbers: geodesy::hash3(seed, stream + level, point id).
constexpr uint64_t kDropletSeedStream = 0x74696c6544726f70ull;  // "tileDrop"
constexpr uint64_t kRoutingSeedStream = 0x74696c65526f7574ull;  // "tileRout"
// A hexagon's inradius over its radius, sqrt(3) / 2.
constexpr double kInradius = 0.8660254037844386;

template <typename Body>
void parallelFor(size_t n, size_t grain, const Body& body) {
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, grain),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t k = r.begin(); k != r.end(); ++k) body(k);
                    });
}

// A window point on a planet river's course: the river's drainage area there and the floor the
// channel lies below (the planet's heights at the edge's ends, interpolated along it).
struct RiverCell {
  uint32_t cell = 0;
  float area_m2 = 0.0f;
  float floor_m = 0.0f;
};

int64_t hexDistance(int64_t x, int64_t y) {
  return std::max({std::abs(x), std::abs(y), std::abs(x + y)});
}

// A point of a level in the planet triangle that holds it: the triangle's corners (planet
// vertex ids) and the point's barycentric weights (0 for a corner it does not need).
struct PlanetPlace {
  uint32_t vertex[3] = {0, 0, 0};
  double weight[3] = {0.0, 0.0, 0.0};

  double interpolate(std::span<const float> values) const {
    double sum = 0.0;
    for (int k = 0; k < 3; ++k) {
      if (weight[k] != 0.0) sum += weight[k] * double(values[vertex[k]]);
    }
    return sum;
  }
};

PlanetPlace placeOnPlanet(const geodesy::LatticeNumbering& numbering, uint64_t frequency,
                          const LatticePoint& p) {
  const uint64_t m = frequency / numbering.frequency();
  const uint32_t i = uint32_t(p.i / m), j = uint32_t(p.j / m);
  const uint64_t ri = p.i - uint64_t(i) * m, rj = p.j - uint64_t(j) * m;
  const double inv = 1.0 / double(m);
  PlanetPlace out;
  uint32_t ci[3], cj[3];
  if (ri + rj <= m) {
    ci[0] = i, cj[0] = j, ci[1] = i + 1, cj[1] = j, ci[2] = i, cj[2] = j + 1;
    out.weight[0] = double(m - ri - rj) * inv, out.weight[1] = double(ri) * inv;
    out.weight[2] = double(rj) * inv;
  } else {
    ci[0] = i + 1, cj[0] = j, ci[1] = i + 1, cj[1] = j + 1, ci[2] = i, cj[2] = j + 1;
    out.weight[0] = double(m - rj) * inv, out.weight[1] = double(ri + rj - m) * inv;
    out.weight[2] = double(m - ri) * inv;
  }
  for (int k = 0; k < 3; ++k) {
    if (out.weight[k] != 0.0) out.vertex[k] = numbering.vertex(p.base, ci[k], cj[k]);
  }
  return out;
}

// Whether a point of the surface at height_m lies under a planet lake: one of the corners of
// its planet triangle holds a lake (its water level over its elevation by more than 0.5 m) whose
// level is above the point. The lake's surface is flat at its level; interpolating the water
// level across the triangle instead would tilt it up the slope to the next corner and drown
// every hollow of the detail on the way (85 % of a 14 km tile beside a lake on earthlike).
bool underLake(const PlanetPlace& place, std::span<const float> water_level_m,
               std::span<const float> elevation_m, float height_m) {
  if (water_level_m.empty()) return false;
  for (int k = 0; k < 3; ++k) {
    if (place.weight[k] == 0.0) continue;
    const double level = water_level_m[place.vertex[k]];
    if (level > double(elevation_m[place.vertex[k]]) + 0.5 && level > double(height_m)) return true;
  }
  return false;
}

// Spacing weights of a window's coordinates, computed once per value: the only ones
// latticePosition asks for at the window's points but those on base edges.
class WeightTable {
 public:
  WeightTable(geodesy::Spacing spacing, uint64_t frequency, std::span<const LatticePoint> points)
      : spacing_(spacing), frequency_(frequency) {
    // Per base face, the range of each of the three weights.
    std::unordered_map<uint32_t, std::array<std::pair<uint64_t, uint64_t>, 3>> ranges;
    for (const LatticePoint& p : points) {
      const uint64_t a[3] = {frequency - p.i - p.j, p.i, p.j};
      auto [it, inserted] = ranges.try_emplace(p.base);
      for (int k = 0; k < 3; ++k) {
        auto& r = it->second[k];
        if (inserted) r = {a[k], a[k]};
        r.first = std::min(r.first, a[k]), r.second = std::max(r.second, a[k]);
      }
    }
    for (const auto& [base, three] : ranges) {
      for (const auto& [lo, hi] : three) {
        Range r{lo, {}};
        for (uint64_t k = lo; k <= hi; ++k)
          r.g.push_back(geodesy::spacingWeight(spacing, k, frequency));
        ranges_.push_back(std::move(r));
      }
    }
  }
  double operator()(uint64_t k) const {
    for (const Range& r : ranges_) {
      if (k >= r.lo && k - r.lo < r.g.size()) return r.g[k - r.lo];
    }
    return geodesy::spacingWeight(spacing_, k, frequency_);
  }

 private:
  struct Range {
    uint64_t lo = 0;
    std::vector<double> g;
  };
  geodesy::Spacing spacing_;
  uint64_t frequency_;
  std::vector<Range> ranges_;
};

// The partition of unity's bump: (1 - r^2 / R^2)^3 inside R, 0 outside; C2 where it ends.
// r2 is r^2 / R^2.
double bump(double r2) {
  if (r2 >= 1.0) return 0.0;
  const double u = 1.0 - r2;
  return u * u * u;
}

// The window centres that can hold canonical point p of frequency F inside their bump's
// radius `reach` (in lattice steps): the corners of the window-lattice triangle (spacing
// `core`) that holds p and the three corners across its edges, named in p's face's chart and
// kept when that flat distance is below reach (with a margin: near an icosahedron corner the
// window's own chart decides). A centre beyond a corner of p's face is left out.
int windowCandidates(uint64_t frequency, uint32_t core, double reach, const LatticePoint& p,
                     LatticePoint* centres) {
  const int64_t c = core;
  const int64_t i = int64_t(p.i) / c, j = int64_t(p.j) / c;
  const int64_t ri = int64_t(p.i) - i * c, rj = int64_t(p.j) - j * c;
  int64_t cand[6][2];
  if (ri + rj <= c) {
    const int64_t up[6][2] = {{i, j},         {i + 1, j},     {i, j + 1},
                              {i + 1, j + 1}, {i + 1, j - 1}, {i - 1, j + 1}};
    std::copy(&up[0][0], &up[0][0] + 12, &cand[0][0]);
  } else {
    const int64_t down[6][2] = {{i + 1, j}, {i + 1, j + 1}, {i, j + 1},
                                {i, j},     {i + 2, j},     {i, j + 2}};
    std::copy(&down[0][0], &down[0][0] + 12, &cand[0][0]);
  }
  const int64_t f = int64_t(frequency);
  const double limit = 1.1 * reach * 1.1 * reach;
  int count = 0;
  for (const auto& q : cand) {
    const int64_t qi = q[0] * c, qj = q[1] * c;
    const double dx = double(int64_t(p.i) - qi), dy = double(int64_t(p.j) - qj);
    if (erosion::latticeSquaredLength(dx, dy) >= limit) continue;
    const int64_t a[3] = {f - qi - qj, qi, qj};
    const int negative = (a[0] < 0) + (a[1] < 0) + (a[2] < 0);
    if (negative > 1) continue;
    if (negative == 1) {
      const int k = a[0] < 0 ? 0 : (a[1] < 0 ? 1 : 2);
      // Across edge (k + 1) % 3 of the face; beyond the adjacent face too: left out.
      const int e = (k + 1) % 3;
      const geodesy::Icosahedron& ico = geodesy::icosahedron();
      const std::array<int64_t, 3> b =
          acrossBaseEdge({a[0], a[1], a[2]}, e, ico.adjacent_edge[p.base][e]);
      if (b[0] < 0 || b[1] < 0 || b[2] < 0) continue;
    }
    centres[count++] = pointInChart(frequency, p.base, qi, qj);
  }
  return count;
}

// No more relief than the ground had: scales a relief level's change down, if need be, so
// that its rms over the window's points is at most `amplitude` times that of the ground's own
// relief at the same scales (its part below the same low pass of `low_pass` steps). Hung from
// channels far apart, gentle ground climbed a long way; one factor per window keeps the hung
// profile's shape.
void boundRelief(const erosion::LatticePatch& patch, std::span<const uint32_t> held,
                 std::span<const float> ground_m, uint32_t low_pass, double amplitude,
                 std::span<float> change) {
  std::vector<float> ground(change.size(), 0.0f);
  for (const uint32_t c : held) ground[c] = ground_m[c];
  erosion::subtractLowPass(patch, low_pass, ground);
  double ground2 = 0.0, change2 = 0.0;
  for (const uint32_t c : held) {
    ground2 += double(ground[c]) * double(ground[c]);
    change2 += double(change[c]) * double(change[c]);
  }
  const double limit = amplitude * std::sqrt(ground2), rms = std::sqrt(change2);
  if (!(rms > limit)) return;
  const double scale = limit / rms;
  for (const uint32_t c : held) change[c] = float(double(change[c]) * scale);
}

// The low pass of a relief level whose planet edge spans steps_per_edge lattice steps: the
// radius, in steps, of the box whose mean its change loses.
uint32_t reliefLowPass(uint64_t steps_per_edge, double low_pass_edges) {
  return uint32_t(double(steps_per_edge) * low_pass_edges);
}

// A relief level's ground (TileErosionParams::relief): the hung steady state on `flow` (the
// routing of `in`), hung from the planet's rivers, which keep their floors as channels; the
// part of its change that varies over more than relief_low_pass_edges of a planet edge
// (steps_per_edge lattice steps) taken away, the rest smoothed and bounded by the ground's own
// relief. h holds `in` on entry, the relief on return; flow gets the rivers' areas on their
// lines.
void layRelief(const erosion::LatticePatch& patch, std::span<const uint32_t> held,
               std::span<const RiverCell> river_line, const TileErosionParams& params,
               uint64_t steps_per_edge, std::span<const float> in, erosion::PatchFlow& flow,
               std::vector<float>& h) {
  // The planet's rivers are channels that keep their floor: the relief's valley sides hang from
  // them, so they stay the valleys' bottoms (the channels below are carved in them).
  const double channel_m2 = params.relief_steady_state.channel_cells * erosion::cellAreaM2(patch);
  for (const RiverCell& river : river_line) {
    flow.area_m2[river.cell] =
        std::max({flow.area_m2[river.cell], river.area_m2, float(channel_m2)});
    h[river.cell] = std::min(h[river.cell], river.floor_m);
  }
  erosion::steadyState(patch, flow, params.relief_steady_state, in, h);
  // The change at the planet's scale taken away: the planet's surface stays the mean the tiles
  // keep. The box is at least 2 steps wide on a relief level (reliefLowPass).
  const uint32_t low_pass = reliefLowPass(steps_per_edge, params.relief_low_pass_edges);
  std::vector<float> change(h.size(), 0.0f);
  for (const uint32_t c : held) change[c] = h[c] - in[c];
  erosion::subtractLowPass(patch, low_pass, change);
  // Its ridges and valleys run along this level's lattice, whose lines hold every tile edge of
  // the finer levels: smoothed (x <- (x + ring mean) / 2, relief_smoothing times), the tile
  // edges' contrast on the rough test planet goes from 1.34 to 0.98 times that inside.
  const erosion::HillslopeParams smoothing{
      .diffusion = 1.0 / 12.0, .diffusion_steps = params.relief_smoothing, .talus_steps = 0};
  erosion::relaxHillslopes(patch, flow.outlet, smoothing, change);
  if (params.relief_amplitude > 0.0)
    boundRelief(patch, held, in, low_pass, params.relief_amplitude, change);
  for (const uint32_t c : held) h[c] = in[c] + change[c];
  for (const erosion::CellCopy& copy : patch.copies) h[copy.cell] = h[copy.owner];
}

}  // namespace

ErosionModel::ErosionModel(const SurfaceModel& surface, const TilePlanet& planet,
                           const TileErosionParams& params)
    : surface_(surface),
      params_(params),
      drainage_(planetDrainage(planet.elevation_m, planet.sea_level_m, planet.rainfall,
                               planet.receiver, planet.radius_m,
                               params.rain == TileRain::kUniform)),
      water_level_m_(planet.water_level_m.begin(), planet.water_level_m.end()),
      sea_level_m_(planet.sea_level_m),
      seed_(planet.spectrum.noise_seed),
      cache_(params.cache_bytes) {
  const size_t vertices = planet.elevation_m.size();
  if (!planet.rainfall.empty() && planet.rainfall.size() != vertices) {
    throw std::invalid_argument("planet rainfall has " + std::to_string(planet.rainfall.size()) +
                                " values; allowed: none or one per vertex (" +
                                std::to_string(vertices) + ")");
  }
  if (!planet.receiver.empty() && planet.receiver.size() != vertices) {
    throw std::invalid_argument("planet receivers have " + std::to_string(planet.receiver.size()) +
                                " values; allowed: none or one per vertex (" +
                                std::to_string(vertices) + ")");
  }
  const TileLayout& layout = surface.layout;
  const uint32_t t = uint32_t(layout.tileEdge());
  if (params.window_subdivision < 0 || (t >> params.window_subdivision) < 2 ||
      (t % (1u << params.window_subdivision)) != 0) {
    throw std::invalid_argument(
        "tile erosion window_subdivision " + std::to_string(params.window_subdivision) +
        " does not divide the tile edge " + std::to_string(t) + " into cores of 2 steps or more");
  }
  if (!(params.min_spacing_m > 0.0) || !(params.max_spacing_m >= params.min_spacing_m)) {
    throw std::invalid_argument(
        "tile erosion spacings min " + std::to_string(params.min_spacing_m) + " m, max " +
        std::to_string(params.max_spacing_m) + " m; allowed: 0 < min <= max");
  }
  if (params.relief && !(params.relief_max_spacing_m >= params.max_spacing_m &&
                         std::isfinite(params.relief_max_spacing_m))) {
    throw std::invalid_argument("tile erosion relief_max_spacing_m " +
                                std::to_string(params.relief_max_spacing_m) +
                                " m; allowed: max_spacing_m (" +
                                std::to_string(params.max_spacing_m) + " m) or more, finite");
  }
  if (params.relief &&
      !(params.relief_amplitude >= 0.0 && std::isfinite(params.relief_amplitude))) {
    throw std::invalid_argument("tile erosion relief_amplitude " +
                                std::to_string(params.relief_amplitude) +
                                "; allowed: 0 (no bound) or more, finite");
  }
  if (params.relief &&
      !(params.relief_low_pass_edges > 0.0 && params.relief_low_pass_edges <= 1.0)) {
    throw std::invalid_argument("tile erosion relief_low_pass_edges " +
                                std::to_string(params.relief_low_pass_edges) +
                                "; allowed: over 0, at most 1 (planet edges)");
  }
  if (params.halo < 4 || params.halo > 4096) {
    throw std::invalid_argument("tile erosion halo " + std::to_string(params.halo) +
                                " is out of range; allowed: 4 to 4096 lattice steps");
  }
  // A relief point hangs from a channel at most reach_steps down its path, else from the
  // ground there: within the halo, a point of a window's bump hangs from its own path, never
  // from the window's rim (whose hang the blend would keep as a rise inside each window).
  if (const int reach = params.relief_steady_state.reach_steps;
      params.relief && (reach < 1 || reach > params.halo)) {
    throw std::invalid_argument("tile erosion relief reach_steps " + std::to_string(reach) +
                                " with a halo of " + std::to_string(params.halo) +
                                " lattice steps; allowed: 1 to the halo");
  }
  if (!(params.bump_fraction > 0.6 && params.bump_fraction <= kInradius)) {
    throw std::invalid_argument("tile erosion bump_fraction " +
                                std::to_string(params.bump_fraction) +
                                " is out of range; allowed: over 0.6, at most sqrt(3)/2 = 0.866");
  }
  core_ = t >> params.window_subdivision;
  halo_ = uint32_t(params.halo);
  // bump_fraction C, but at least one step inside the core's inradius (cores under 4 steps:
  // the inradius itself; every point must stay within C / sqrt(3) of some centre).
  bump_radius_ = params.bump_fraction * double(core_);
  if (core_ >= 4) bump_radius_ = std::min(bump_radius_, kInradius * double(core_) - 1.0);
  // The disk one step beyond the bump, plus the halo; in chart offsets it reaches its radius
  // over sqrt(3)/2 along x, y and x + y.
  window_disk_radius_ = bump_radius_ + (core_ >= 4 ? 1.0 : 0.0) + double(halo_);
  window_radius_ = uint32_t(std::ceil(window_disk_radius_ / kInradius - 1e-9));
  disk_ = WindowDisk(1.0 / (bumpRadius() * bumpRadius()));
  river_area_m2_ = params.river_cells * drainage_.cell_m2;
  // Erosion starts one level below the planet's own (the planet eroded at its own spacing) and
  // where a window fits well inside a base face, with the planet's vertices near it in reach.
  // A relief level's low pass must be 2 steps or more: a box of 1 step keeps only the level's
  // lattice-scale texture, and the change of valleys wider than it moved the mean ground of the
  // small world's planet triangles by 0.07 of their relief (0.045 without that level).
  const auto spacingM = [&](int level) { return layout.levelSpacingRad(level) * surface.radius_m; };
  const auto reliefTooCoarse = [&](int level) {
    const uint64_t steps_per_edge = layout.levelFrequency(level) / surface.numbering.frequency();
    return spacingM(level) > params.max_spacing_m &&
           reliefLowPass(steps_per_edge, params.relief_low_pass_edges) < 2;
  };
  first_level_ = layout.planetLevel() + 1;
  while (first_level_ <= layout.deepestLevel() &&
         (2 * (uint64_t(window_radius_) + 2) >= layout.levelFrequency(first_level_) ||
          spacingM(first_level_) >
              (params.relief ? params.relief_max_spacing_m : params.max_spacing_m) ||
          (params.relief && reliefTooCoarse(first_level_))))
    ++first_level_;
  last_level_ = first_level_ - 1;
  while (last_level_ + 1 <= layout.deepestLevel() &&
         layout.levelSpacingRad(last_level_ + 1) * surface.radius_m >= params.min_spacing_m)
    ++last_level_;
}

ErosionModel::~ErosionModel() = default;

WindowDisk::WindowDisk(double inv_r2) {
  // In chart offsets a disk of radius R reaches 2 R / sqrt(3) along x and along y.
  reach_ = int64_t(std::ceil(1.1547005383792517 / std::sqrt(inv_r2))) + 1;
  for (int64_t y = -reach_; y <= reach_; ++y) {
    int64_t low = 1, high = 0;
    for (int64_t x = -reach_ - 1; x <= reach_ + 1; ++x) {
      if (!holds(inv_r2, x, y)) continue;
      if (low > high) low = x;
      high = x;
    }
    low_.push_back(low), high_.push_back(high), start_.push_back(size_);
    size_ += size_t(std::max<int64_t>(0, high - low + 1));
  }
}

int ErosionModel::windowsAt(int level, const LatticePoint& p, CandidateWindow* out) const {
  const TileLayout& layout = surface_.layout;
  const uint64_t f = layout.levelFrequency(level);
  LatticePoint centres[6];
  const int count = windowCandidates(f, core_, bumpRadius(), p, centres);
  for (int k = 0; k < count; ++k) {
    out[k].centre = centres[k];
    out[k].key = {uint32_t(level), layout.latticeId(level, centres[k])};
  }
  std::sort(out, out + count,
            [](const CandidateWindow& a, const CandidateWindow& b) { return a.key < b.key; });
  return int(std::unique(out, out + count,
                         [](const CandidateWindow& a, const CandidateWindow& b) {
                           return a.key == b.key;
                         }) -
             out);
}

std::shared_ptr<const WindowResult> ErosionModel::window(int level,
                                                         const LatticePoint& centre) const {
  const WindowKey key{uint32_t(level), surface_.layout.latticeId(level, centre)};
  return cache_.get(key, [&] { return makeWindow(level, centre); });
}

void ErosionModel::sample(int level, std::span<const LatticePoint> points,
                          std::span<PointErosion> out) const {
  assert(points.size() == out.size());
  std::fill(out.begin(), out.end(), PointErosion{});
  if (!erodes(level)) return;
  if (level <= last_level_) return sampleLevel(level, points, out);

  // Finer than the last eroded level: its change and masks, linear over its triangles (what
  // the parent-edge mean gives, level after level).
  const TileLayout& layout = surface_.layout;
  const uint64_t f = layout.levelFrequency(level), coarse_f = layout.levelFrequency(last_level_);
  const uint64_t m = f / coarse_f;
  std::vector<LatticePoint> corners;
  struct Place {
    int count = 0;
    uint32_t corner[3] = {0, 0, 0};
    double weight[3] = {0.0, 0.0, 0.0};
  };
  std::vector<Place> places(points.size());
  const double inv = 1.0 / double(m);
  for (size_t k = 0; k < points.size(); ++k) {
    const LatticePoint& p = points[k];
    const uint64_t i = p.i / m, j = p.j / m, ri = p.i - i * m, rj = p.j - j * m;
    uint64_t ci[3], cj[3];
    double w[3];
    if (ri + rj <= m) {
      ci[0] = i, cj[0] = j, ci[1] = i + 1, cj[1] = j, ci[2] = i, cj[2] = j + 1;
      w[0] = double(m - ri - rj) * inv, w[1] = double(ri) * inv, w[2] = double(rj) * inv;
    } else {
      ci[0] = i + 1, cj[0] = j, ci[1] = i + 1, cj[1] = j + 1, ci[2] = i, cj[2] = j + 1;
      w[0] = double(m - rj) * inv, w[1] = double(ri + rj - m) * inv, w[2] = double(m - ri) * inv;
    }
    Place& place = places[k];
    for (int c = 0; c < 3; ++c) {
      // A corner of weight 0 may lie past the face's edge: it is left out.
      if (w[c] == 0.0) continue;
      place.weight[place.count] = w[c];
      place.corner[place.count] = uint32_t(corners.size());
      ++place.count;
      corners.push_back(canonicalPoint(coarse_f, {p.base, uint32_t(ci[c]), uint32_t(cj[c])}));
    }
  }
  std::vector<PointErosion> at(corners.size());
  sampleLevel(last_level_, corners, at);
  parallelFor(points.size(), 256, [&](size_t k) {
    double sum[5] = {0, 0, 0, 0, 0};
    for (int c = 0; c < places[k].count; ++c) {
      const double w = places[k].weight[c];
      const PointErosion& e = at[places[k].corner[c]];
      sum[0] += w * e.change_m, sum[1] += w * e.flow_m2, sum[2] += w * e.wear_m;
      sum[3] += w * e.deposition_m, sum[4] += w * e.water;
    }
    out[k] = {float(sum[0]), float(sum[1]), float(sum[2]), float(sum[3]), float(sum[4])};
  });
}

ErosionModel::Blend ErosionModel::blendOf(int level, std::span<const LatticePoint> points) const {
  // A chunk of points at a time (for every point of a tile at once, the candidates and six
  // term slots a point would be about 300 bytes a point, the largest part of a bake's memory): the
  // candidate windows at each point; the distinct ones, numbered as first met (neighbouring
  // points mostly have the same ones, so each is first looked for where the point before had
  // its candidate of the same rank); then each one's bump at the point, from the point's offset
  // in the window's own chart (the chart the window keeps: the same offsets, the same weights),
  // packed. A candidate whose bump is 0 at every point is left out: it would add nothing but
  // its cost.
  constexpr size_t kChunk = 4096;
  const size_t chunk = std::min(points.size(), kChunk);
  std::vector<CandidateWindow> candidates_at(chunk * kMostWindows);
  std::vector<uint32_t> candidate_of(chunk * kMostWindows);
  std::vector<Term> slots(chunk * kMostWindows);
  std::vector<uint8_t> counts(chunk);
  std::vector<std::pair<WindowKey, LatticePoint>> candidates;
  std::vector<WindowChart> charts;
  const uint64_t f = surface_.layout.levelFrequency(level);
  const double inv_r2 = 1.0 / (bumpRadius() * bumpRadius());
  Blend blend;
  blend.first.assign(points.size() + 1, 0);
  blend.terms.reserve(2 * points.size());
  size_t recent[kMostWindows] = {};
  for (size_t first = 0; first < points.size(); first += kChunk) {
    const size_t count = std::min(kChunk, points.size() - first);
    parallelFor(count, 256, [&](size_t k) {
      counts[k] = uint8_t(windowsAt(level, points[first + k], &candidates_at[kMostWindows * k]));
    });
    for (size_t k = 0; k < count; ++k) {
      for (int w = 0; w < counts[k]; ++w) {
        const CandidateWindow& ww = candidates_at[kMostWindows * k + w];
        if (recent[w] >= candidates.size() || candidates[recent[w]].first != ww.key) {
          const auto it =
              std::find_if(candidates.begin(), candidates.end(),
                           [&](const auto& candidate) { return candidate.first == ww.key; });
          recent[w] = size_t(it - candidates.begin());
          if (it == candidates.end()) {
            candidates.push_back({ww.key, ww.centre});
            charts.emplace_back(f, ww.centre, core_);
          }
        }
        candidate_of[kMostWindows * k + w] = uint32_t(recent[w]);
      }
    }
    parallelFor(count, 256, [&](size_t k) {
      const LatticePoint& p = points[first + k];
      int held = 0;
      for (int w = 0; w < counts[k]; ++w) {
        const uint32_t index = candidate_of[kMostWindows * k + w];
        int64_t x = 0, y = 0;
        if (!charts[index].offsetOf(p, core_, x, y)) continue;
        const double weight = bump(erosion::latticeSquaredLength(double(x), double(y)) * inv_r2);
        if (weight == 0.0) continue;
        slots[kMostWindows * k + held++] = {index, uint32_t(disk_.index(x, y)), weight};
      }
      counts[k] = uint8_t(held);
    });
    for (size_t k = 0; k < count; ++k) {
      blend.terms.insert(blend.terms.end(), slots.begin() + ptrdiff_t(kMostWindows * k),
                         slots.begin() + ptrdiff_t(kMostWindows * k + counts[k]));
      blend.first[first + k + 1] = uint32_t(blend.terms.size());
    }
  }
  // Only the windows with weight, renumbered in key order.
  std::vector<uint32_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return candidates[a].first < candidates[b].first; });
  std::vector<uint32_t> renumber(candidates.size(), 0);
  for (const Term& term : blend.terms) renumber[term.window] = 1;
  for (const uint32_t w : order) {
    if (!renumber[w]) continue;
    renumber[w] = uint32_t(blend.windows.size());
    blend.windows.push_back(candidates[w]);
  }
  for (Term& term : blend.terms) term.window = renumber[term.window];
  return blend;
}

std::vector<LatticePoint> ErosionModel::parentPoints(int level, const LatticePoint& centre,
                                                     std::vector<int32_t>* index) const {
  const uint64_t f = surface_.layout.levelFrequency(level);
  const uint32_t radius = window_radius_;
  const WindowChart chart(f, centre, radius);
  const int64_t ci = centre.i, cj = centre.j;
  const int64_t reach = int64_t(radius) + 1;
  const uint32_t pw = uint32_t(2 * reach + 1);
  if (index) index->assign(size_t(pw) * pw, -1);
  std::vector<LatticePoint> parents;
  for (int64_t y = -reach; y <= reach; ++y) {
    for (int64_t x = -reach; x <= reach; ++x) {
      if (((ci + x) & 1) || ((cj + y) & 1) || !inWindow(x, y, 1.0)) continue;
      const std::optional<LatticePoint> p = chart.unfold(x, y);
      if (!p) continue;
      if (index) (*index)[size_t(y + reach) * pw + size_t(x + reach)] = int32_t(parents.size());
      parents.push_back(canonicalPoint(f / 2, {p->base, p->i / 2, p->j / 2}));
    }
  }
  return parents;
}

struct ErosionModel::SharedSurface {
  // A window in the shared chart: its centre's offset, and its own chart's unit steps there
  // (columns of m: a turn by whole sixths where the window's centre lies in another base face
  // than the shared chart's, whose axes turn across the face edge).
  struct Place {
    int64_t x = 0, y = 0;
    int64_t m[2][2] = {{1, 0}, {0, 1}};
  };

  SharedSurface(WindowChart chart_, int64_t reach_, std::vector<Place> places_)
      : chart(chart_), reach(reach_), places(std::move(places_)) {}

  WindowChart chart;
  int64_t reach = 0;                 // grid: chart offsets with |x|, |y| <= reach
  std::vector<Place> places;         // per centre
  std::vector<int32_t> index;        // per grid offset: its point's position, or -1
  std::vector<LatticePoint> points;  // canonical
  std::vector<float> heights;

  // The shared height at offset (wx, wy) of window `window`'s own chart if the point there is
  // p, else null.
  const float* at(size_t window, int64_t wx, int64_t wy, const LatticePoint& p) const {
    const Place& w = places[window];
    const int64_t x = w.x + w.m[0][0] * wx + w.m[0][1] * wy;
    const int64_t y = w.y + w.m[1][0] * wx + w.m[1][1] * wy;
    if (std::abs(x) > reach || std::abs(y) > reach) return nullptr;
    const int32_t k = index[size_t(y + reach) * size_t(2 * reach + 1) + size_t(x + reach)];
    return k >= 0 && points[size_t(k)] == p ? &heights[size_t(k)] : nullptr;
  }
};

std::vector<std::shared_ptr<const WindowResult>> ErosionModel::makeWindows(
    int level, std::span<const std::pair<WindowKey, LatticePoint>> windows) const {
  std::vector<std::shared_ptr<const WindowResult>> out(windows.size());
  std::vector<size_t> missing;
  for (size_t k = 0; k < windows.size(); ++k) {
    out[k] = cache_.find(windows[k].first);
    if (!out[k]) missing.push_back(k);
  }
  // The coarser level's windows that the missing ones read, made first, all of them side by
  // side: made inside each window, two threads would make the same coarser window at once
  // (the cache does not wait for a window being made; 19 of a tile's 12 coarser windows were
  // made so). They stay held until this level's windows are made.
  std::vector<std::shared_ptr<const WindowResult>> coarser;
  if (!missing.empty() && level - 1 >= first_level_) {
    std::vector<std::vector<LatticePoint>> parents(missing.size());
    parallelFor(missing.size(), 1, [&](size_t k) {
      parents[k] = parentPoints(level, windows[missing[k]].second, nullptr);
    });
    std::vector<LatticePoint> all;
    for (const auto& p : parents) all.insert(all.end(), p.begin(), p.end());
    parents.clear();
    tbb::parallel_sort(all.begin(), all.end(), pointLess);  // a total order: any sort's bits
    all.erase(std::unique(all.begin(), all.end()), all.end());
    // Only the windows of the blend are needed: its terms go before they are made.
    const std::vector<std::pair<WindowKey, LatticePoint>> read = blendOf(level - 1, all).windows;
    all = {};
    coarser = makeWindows(level - 1, read);
  }
  // The surface before erosion of their points, each point once (a point lies in about two
  // windows of a level: with the defaults a window's disk holds 31 k points, and the window
  // lattice has one window per C^2 = 16 k points).
  std::vector<LatticePoint> centres(missing.size());
  for (size_t k = 0; k < missing.size(); ++k) centres[k] = windows[missing[k]].second;
  const std::unique_ptr<const SharedSurface> shared =
      missing.size() > 1 ? sharedSurface(level, centres) : nullptr;
  parallelFor(missing.size(), 1, [&](size_t k) {
    // Named, not bound: clang before 16 does not capture structured bindings in lambdas.
    const WindowKey& key = windows[missing[k]].first;
    const LatticePoint& centre = windows[missing[k]].second;
    out[missing[k]] = cache_.get(key, [&] {
      return shared ? makeWindow(level, centre, shared.get(), k) : makeWindow(level, centre);
    });
  });
  return out;
}

std::unique_ptr<const ErosionModel::SharedSurface> ErosionModel::sharedSurface(
    int level, std::span<const LatticePoint> centres) const {
  const TileLayout& layout = surface_.layout;
  const uint64_t f = layout.levelFrequency(level);
  const uint32_t radius = window_radius_;
  // The centres' offsets in a chart around the first; one that chart does not hold, or a chart
  // too large for the level, and every window makes its own surface. A window's point takes the
  // shared height only where the shared chart names the same point (around an icosahedron
  // corner the two charts may differ): every height is the one the window would make.
  const uint32_t search = 4 * radius;
  if (2 * uint64_t(search + radius) >= f) return nullptr;
  const WindowChart probe(f, centres[0], search);
  std::vector<SharedSurface::Place> places(centres.size());
  int64_t far = 0;
  for (size_t k = 0; k < centres.size(); ++k) {
    SharedSurface::Place& w = places[k];
    if (!probe.offsetOf(centres[k], search, w.x, w.y)) return nullptr;
    far = std::max(far, hexDistance(w.x, w.y));
    // The window's unit steps in the shared chart; where they are not one step each (a corner
    // between), the axes stay as they are and the points' check below finds the differences.
    const WindowChart own(f, centres[k], 1);
    int64_t m[2][2];
    bool steps = true;
    for (int axis = 0; axis < 2 && steps; ++axis) {
      const std::optional<LatticePoint> p = own.unfold(axis == 0 ? 1 : 0, axis == 0 ? 0 : 1);
      int64_t x = 0, y = 0;
      steps = p && probe.offsetOf(*p, search, x, y) && hexDistance(x - w.x, y - w.y) == 1;
      m[0][axis] = x - w.x, m[1][axis] = y - w.y;
    }
    if (steps) std::copy(&m[0][0], &m[0][0] + 4, &w.m[0][0]);
  }
  const int64_t reach = far + int64_t(radius);
  auto out = std::make_unique<SharedSurface>(WindowChart(f, centres[0], uint32_t(reach)), reach,
                                             std::move(places));
  const size_t width = size_t(2 * reach + 1);
  out->index.assign(width * width, -1);
  // A window's disk is the same set of offsets in the shared chart (its axes turned by whole
  // sixths keep lengths).
  for (const SharedSurface::Place& w : out->places) {
    const int64_t cx = w.x, cy = w.y;
    for (int64_t y = -int64_t(radius); y <= int64_t(radius); ++y) {
      for (int64_t x = -int64_t(radius); x <= int64_t(radius); ++x) {
        if (inWindow(x, y)) out->index[size_t(cy + y + reach) * width + size_t(cx + x + reach)] = 0;
      }
    }
  }
  std::vector<size_t> cells;
  for (size_t c = 0; c < out->index.size(); ++c) {
    if (out->index[c] == 0) cells.push_back(c);
  }
  std::vector<uint8_t> held(cells.size(), 0);
  out->points.resize(cells.size());
  parallelFor(cells.size(), 4096, [&](size_t k) {
    const int64_t x = int64_t(cells[k] % width) - reach, y = int64_t(cells[k] / width) - reach;
    const std::optional<LatticePoint> p = out->chart.unfold(x, y);
    if (!p) return;
    out->points[k] = canonicalPoint(f, *p);
    held[k] = 1;
  });
  std::vector<LatticePoint> points;
  points.reserve(cells.size());
  for (size_t k = 0; k < cells.size(); ++k) {
    out->index[cells[k]] = held[k] ? int32_t(points.size()) : -1;
    if (held[k]) points.push_back(out->points[k]);
  }
  out->points = std::move(points);
  out->heights.assign(out->points.size(), 0.0f);
  surfaceHeights(level, out->points, out->heights);
  return out;
}

void ErosionModel::surfaceHeights(int level, std::span<const LatticePoint> points,
                                  std::span<float> out) const {
  if (points.empty()) return;
  const uint64_t f = surface_.layout.levelFrequency(level);
  const LevelSampler sampler(surface_, level, points);
  const WeightTable table(surface_.spacing, f, points);
  constexpr size_t kBlock = 256;
  parallelFor((points.size() + kBlock - 1) / kBlock, 1, [&](size_t block) {
    const size_t first = block * kBlock, count = std::min(kBlock, points.size() - first);
    glm::dvec3 units[kBlock];
    double heights[kBlock];
    for (size_t k = 0; k < count; ++k) {
      const LatticePoint& p = points[first + k];
      units[k] = geodesy::latticePosition(table, f, p.base, p.i, p.j);
    }
    sampler.heights(points.subspan(first, count), std::span(units, count), heights);
    for (size_t k = 0; k < count; ++k) out[first + k] = float(heights[k]);
  });
}

void ErosionModel::sampleLevel(int level, std::span<const LatticePoint> points,
                               std::span<PointErosion> out) const {
  const Blend blend = blendOf(level, points);
  const std::vector<std::shared_ptr<const WindowResult>> windows =
      makeWindows(level, blend.windows);
  // The normalised sum in key order.
  parallelFor(points.size(), 256, [&](size_t k) {
    double sum[5] = {0, 0, 0, 0, 0};
    double total = 0.0;
    for (uint32_t t = blend.first[k]; t < blend.first[k + 1]; ++t) {
      const Term& term = blend.terms[t];
      assert(term.cell < windows[term.window]->change_m.size());
      const WindowResult& win = *windows[term.window];
      const size_t c = term.cell;
      const double weight = term.weight;
      total += weight;
      sum[0] += weight * win.change_m[c], sum[1] += weight * win.flow_m2[c];
      sum[2] += weight * win.wear_m[c], sum[3] += weight * win.deposition_m[c];
      sum[4] += weight * (win.water[c] ? 1.0 : 0.0);
    }
    assert(total > 0.0);
    const double inv = total > 0.0 ? 1.0 / total : 0.0;
    out[k] = {float(sum[0] * inv), float(sum[1] * inv), float(sum[2] * inv), float(sum[3] * inv),
              float(sum[4] * inv)};
  });
}

WindowResult ErosionModel::makeWindow(int level, const LatticePoint& centre,
                                      const SharedSurface* shared, size_t shared_window) const {
  const TileLayout& layout = surface_.layout;
  const uint64_t f = layout.levelFrequency(level);
  const uint32_t radius = window_radius_;
  const WindowChart chart(f, centre, radius);

  // The patch: chart offsets (x, y) at cell (y + radius + 1) * width + (x + radius + 1).
  const uint32_t width = 2 * radius + 3;
  const size_t n = size_t(width) * width;
  auto cellOf = [&](int64_t x, int64_t y) {
    return size_t(y + radius + 1) * width + size_t(x + radius + 1);
  };
  std::vector<erosion::PatchCell> cells(n, erosion::PatchCell::kNone);
  std::vector<LatticePoint> point(n);  // canonical
  std::vector<uint32_t> held;          // the cells that hold a point, in cell order
  for (int64_t y = -int64_t(radius); y <= int64_t(radius); ++y) {
    for (int64_t x = -int64_t(radius); x <= int64_t(radius); ++x) {
      if (!inWindow(x, y)) continue;
      const std::optional<LatticePoint> p = chart.unfold(x, y);
      if (!p) continue;
      const size_t c = cellOf(x, y);
      point[c] = canonicalPoint(f, *p);
      // The disk's rim: a point with a neighbour outside it.
      bool rim = false;
      for (int d = 0; d < 6 && !rim; ++d)
        rim = !inWindow(x + kLatticeSteps[d][0], y + kLatticeSteps[d][1]);
      cells[c] = rim ? erosion::PatchCell::kEdge : erosion::PatchCell::kInterior;
      held.push_back(uint32_t(c));
    }
  }
  // Around a corner the chart holds the points of the gap's two rays twice: the later cells
  // become copies of the earlier.
  std::vector<erosion::CellCopy> copies;
  if (chart.corner() >= 0) {
    std::unordered_map<uint64_t, uint32_t> first;
    std::vector<uint32_t> owners;
    for (const uint32_t c : held) {
      const auto [it, inserted] = first.try_emplace(layout.latticeId(level, point[c]), c);
      if (inserted) {
        owners.push_back(c);
        continue;
      }
      copies.push_back({c, it->second});
      // A point on the window's edge through one copy stays an edge point.
      if (cells[c] == erosion::PatchCell::kEdge) cells[it->second] = erosion::PatchCell::kEdge;
      cells[c] = erosion::PatchCell::kCopy;
    }
    held = std::move(owners);
  }
  erosion::LatticePatch patch;
  patch.width = width;
  patch.rows = width;
  patch.spacing_m = layout.levelSpacingRad(level) * surface_.radius_m;
  patch.cells = cells;
  patch.copies = copies;
  const bool relief_level = params_.relief && patch.spacing_m > params_.max_spacing_m;

  // The surface before erosion at this level: the generator's own heights of the points (those
  // of the shared surface where it holds them).
  std::vector<float> base(n, 0.0f);
  {
    std::vector<uint32_t> own;  // the cells whose heights are made here
    for (const uint32_t c : held) {
      const int64_t x = int64_t(c % width) - int64_t(radius + 1);
      const int64_t y = int64_t(c / width) - int64_t(radius + 1);
      const float* h = shared ? shared->at(shared_window, x, y, point[c]) : nullptr;
      if (h)
        base[c] = *h;
      else
        own.push_back(c);
    }
    std::vector<LatticePoint> points(own.size());
    for (size_t k = 0; k < own.size(); ++k) points[k] = point[own[k]];
    std::vector<float> heights(own.size());
    surfaceHeights(level, points, heights);
    for (size_t k = 0; k < own.size(); ++k) base[own[k]] = heights[k];
  }

  // What the coarser levels did here: their change at the even points (the parent level's
  // points), the parent edge's mean between them.
  std::vector<float> in(n, 0.0f), carried_wear(n, 0.0f), carried_deposit(n, 0.0f),
      carried_change(n, 0.0f);
  if (level - 1 >= first_level_) {
    const int64_t ci = centre.i, cj = centre.j;
    const int64_t reach = int64_t(radius) + 1;
    const uint32_t pw = uint32_t(2 * reach + 1);
    std::vector<int32_t> parent_index;
    const std::vector<LatticePoint> parents = parentPoints(level, centre, &parent_index);
    std::vector<PointErosion> coarse(parents.size());
    sample(level - 1, parents, coarse);
    auto at = [&](int64_t x, int64_t y) -> const PointErosion* {
      if (hexDistance(x, y) > reach) return nullptr;
      const int32_t k = parent_index[size_t(y + reach) * pw + size_t(x + reach)];
      return k < 0 ? nullptr : &coarse[size_t(k)];
    };
    for (int64_t y = -int64_t(radius); y <= int64_t(radius); ++y) {
      for (int64_t x = -int64_t(radius); x <= int64_t(radius); ++x) {
        const size_t c = cellOf(x, y);
        if (cells[c] == erosion::PatchCell::kNone) continue;
        const bool odd_i = (ci + x) & 1, odd_j = (cj + y) & 1;
        const PointErosion* a = nullptr;
        const PointErosion* b = nullptr;
        if (!odd_i && !odd_j) {
          a = at(x, y);
        } else {
          const int64_t sx = odd_i ? 1 : 0, sy = odd_i && odd_j ? -1 : (odd_j ? 1 : 0);
          a = at(x + sx, y + sy), b = at(x - sx, y - sy);
          if (!a) a = b, b = nullptr;
        }
        if (!a) continue;
        const double half = b ? 0.5 : 1.0;
        auto mean = [&](float PointErosion::*field) {
          return float(half * (double(a->*field) + (b ? double(b->*field) : 0.0)));
        };
        carried_change[c] = mean(&PointErosion::change_m);
        if (b && params_.relief) {
          // a = here + e, b = here - e: the edge from a in direction -e.
          const int64_t ex = odd_i ? 1 : 0, ey = odd_i && odd_j ? -1 : (odd_j ? 1 : 0);
          int k = 0;
          while (kLatticeSteps[k][0] != -ex || kLatticeSteps[k][1] != -ey) ++k;
          const auto change = [&](int64_t px, int64_t py) -> std::optional<double> {
            const PointErosion* e = at(px, py);
            return e ? std::optional<double>(double(e->change_m)) : std::nullopt;
          };
          if (const std::optional<double> v = butterflyMidpoint(change, x + ex, y + ey, k, 2))
            carried_change[c] = float(*v);
        }
        carried_wear[c] = mean(&PointErosion::wear_m);
        carried_deposit[c] = mean(&PointErosion::deposition_m);
      }
    }
  }
  for (const erosion::CellCopy& copy : copies) base[copy.cell] = base[copy.owner];
  for (size_t c = 0; c < n; ++c) in[c] = base[c] + carried_change[c];

  // Rain, base level (sea, the planet's lakes) and the points' ids and seeds.
  std::vector<float> rain(n, 0.0f), droplets(n, 0.0f);
  std::vector<uint8_t> base_level(n, 0);
  std::vector<uint64_t> ids(n, 0), seeds(n, 0);
  const geodesy::LatticeNumbering& numbering = surface_.numbering;
  const double density = params_.droplets_per_point;
  parallelFor(held.size(), 256, [&](size_t k) {
    const uint32_t c = held[k];
    const LatticePoint& p = point[c];
    ids[c] = layout.latticeId(level, p);
    seeds[c] = geodesy::hash3(seed_, kDropletSeedStream + uint64_t(level), ids[c]);
    const PlanetPlace place = placeOnPlanet(numbering, f, p);
    rain[c] = drainage_.rain.empty() ? 1.0f : float(place.interpolate(drainage_.rain));
    base_level[c] = double(in[c]) < sea_level_m_ ||
                            underLake(place, water_level_m_, surface_.elevation_m, in[c])
                        ? 1
                        : 0;
    droplets[c] = float(density * double(rain[c]));
  });
  for (const erosion::CellCopy& copy : copies) {
    ids[copy.cell] = ids[copy.owner], seeds[copy.cell] = seeds[copy.owner];
    rain[copy.cell] = rain[copy.owner], base_level[copy.cell] = base_level[copy.owner];
  }

  // The planet's rivers that cross the window: the points of their courses, each carrying its
  // river's drainage area.
  std::vector<RiverCell> river_line;
  const double runoff_m_s = params_.river_runoff_mm_per_yr * 1e-3 / (365.25 * 86400.0);
  if (!drainage_.receiver.empty()) {
    const uint64_t pf = numbering.frequency();
    const uint64_t m = f / pf;
    const int64_t ci = centre.i, cj = centre.j;
    // The planet chart around the window: centred on the planet point nearest below the centre.
    const LatticePoint pc{centre.base, uint32_t(ci / int64_t(m)), uint32_t(cj / int64_t(m))};
    const uint32_t preach = uint32_t(radius / m) + 3;
    const double edge_m = surface_.planet_step_rad * surface_.radius_m;
    if (2 * uint64_t(preach) < pf) {
      const WindowChart planet_chart(pf, pc, preach);
      auto offset = [&](int64_t px, int64_t py) {  // planet chart offset -> window chart offset
        return std::pair<int64_t, int64_t>{(int64_t(pc.i) + px) * int64_t(m) - ci,
                                           (int64_t(pc.j) + py) * int64_t(m) - cj};
      };
      for (int64_t py = -int64_t(preach); py <= int64_t(preach); ++py) {
        for (int64_t px = -int64_t(preach); px <= int64_t(preach); ++px) {
          if (hexDistance(px, py) >= int64_t(preach)) continue;
          const std::optional<LatticePoint> u = planet_chart.unfold(px, py);
          if (!u) continue;
          const uint32_t v = numbering.vertex(u->base, u->i, u->j);
          const uint32_t r = drainage_.receiver[v];
          if (r == v || drainage_.area_m2[v] < river_area_m2_) continue;
          const auto [ux, uy] = offset(px, py);
          int step = -1;
          for (int d = 0; d < 6 && step < 0; ++d) {
            const std::optional<LatticePoint> w =
                planet_chart.unfold(px + kLatticeSteps[d][0], py + kLatticeSteps[d][1]);
            if (w && numbering.vertex(w->base, w->i, w->j) == r) step = d;
          }
          if (step < 0) continue;
          // Along the river's course from v to r (river_course.h; its frame turned by `step`
          // sixths of a turn onto the chart's): every point of it inside the window carries at
          // least the river's area (the river's line: a point next to the window's edge may
          // drain straight out of it, and the window's own routing need not follow the
          // planet's). The area does not enter the routing where the course comes in: routed
          // from there the window's own way, it was a second river of the planet's size beside
          // the course, uncarved. Its floor: the line between the planet's heights at v and r,
          // so a bend that leaves the planet's valley floor cuts down to it.
          const double width_m =
              params_.channel_width_coefficient * std::sqrt(drainage_.area_m2[v] * runoff_m_s);
          const RiverCourse course(seed_, v, width_m, edge_m);
          const double top = surface_.elevation_m[v], drop = surface_.elevation_m[r] - top;
          for (const auto& [lx, ly] : course.lattice(uint32_t(m))) {
            int64_t x = lx, y = ly;
            for (int t = 0; t < step; ++t) {  // a sixth of a turn: (1, 0) -> (0, 1) -> (-1, 1)
              const int64_t turned_x = -y, turned_y = x + y;
              x = turned_x, y = turned_y;
            }
            x += ux, y += uy;
            if (hexDistance(x, y) >= int64_t(radius)) continue;
            const size_t c = cellOf(x, y);
            if (cells[c] != erosion::PatchCell::kInterior) continue;
            const double along = (double(lx) + 0.5 * double(ly)) / double(m);
            river_line.push_back({uint32_t(c), float(drainage_.area_m2[v]),
                                  float(top + drop * std::clamp(along, 0.0, 1.0))});
          }
        }
      }
    }
  }

  // Erosion at this level's scale: stream power on the routed surface, hillslopes, droplets.
  erosion::PatchFlowInput flow_in;
  flow_in.patch = &patch;
  flow_in.height_m = in;
  flow_in.point_id = ids;
  flow_in.rain = rain;
  flow_in.base_level = base_level;
  flow_in.receiver_jitter = params_.receiver_jitter;
  flow_in.seed = geodesy::hash3(seed_, kRoutingSeedStream, uint64_t(level));
  auto route = [&](std::span<const float> height, bool rivers = true) {
    flow_in.height_m = height;
    erosion::PatchFlow routed = erosion::routePatch(flow_in);
    if (rivers) {
      for (const RiverCell& river : river_line)
        routed.area_m2[river.cell] = std::max(routed.area_m2[river.cell], river.area_m2);
    }
    return routed;
  };
  std::vector<float> h = in;
  erosion::PatchFlow flow;
  if (relief_level) {
    // A relief level: the drained relief on the level's own routing, and nothing else. Not
    // routed again: the relief drains along the routing it was hung on, whose drainage (the
    // planet's rivers' areas on their lines) the masks take.
    flow = route(in, false);
    layRelief(patch, held, river_line, params_, f / numbering.frequency(), in, flow, h);
  } else if (params_.steady_state.enabled &&
             params_.steady_state.mode != erosion::SteadyStateMode::kLay) {
    // Carved on the window's own drainage: the planet's rivers keep the planet's gradient (a
    // river's area would flatten its line from where it leaves the window), their channels
    // cut below.
    flow = route(in, false);
    erosion::steadyState(patch, flow, params_.steady_state, in, h);
    flow = route(h);
  } else if (params_.steady_state.enabled) {
    flow = route(in);
    // The steady state on the routing, then again on the routing of what it laid (divides
    // move); the droplets and the masks take the last routing.
    for (int pass = 0; pass < params_.steady_state.passes; ++pass) {
      if (pass > 0) flow = route(h);
      erosion::steadyState(patch, flow, params_.steady_state, in, h);
    }
    flow = route(h);
  } else {
    flow = route(in);
    erosion::incise(patch, flow, params_.stream_power, h);
  }
  // The droplets' own wear and deposits, only where the masks take them.
  std::vector<float> worn, laid;
  if (params_.droplet_masks) worn.assign(n, 0.0f), laid.assign(n, 0.0f);
  erosion::LatticeDropletStats stats;
  if (!relief_level) {
    erosion::relaxHillslopes(patch, flow.outlet, params_.hillslope, h);
    erosion::LatticeDropletInput drop_in;
    drop_in.patch = &patch;
    drop_in.droplets = droplets;
    drop_in.seed = seeds;
    drop_in.base_level = base_level;
    drop_in.water_m = density > 0.0 ? params_.runoff_m / density : 0.0;
    // Only the disk of the window's bump is read: with droplets_reach_bump, droplets that
    // cannot reach it stop or do not run.
    if (params_.droplets_reach_bump) {
      drop_in.keep_radius = bumpRadius();
      drop_in.keep_x = drop_in.keep_y = double(radius + 1);
    }
    // The flow the droplets stand for: the routed area before this level's incision, in cells.
    std::vector<float> flow_cells(n, 1.0f);
    const double inv_cell = 1.0 / erosion::cellAreaM2(patch);
    for (size_t c = 0; c < n; ++c) flow_cells[c] = float(double(flow.area_m2[c]) * inv_cell);
    drop_in.flow_cells = flow_cells;
    stats = erosion::erodeLatticeDroplets(drop_in, params_.droplets, h, worn, laid);
  }

  // The planet's rivers as channels: along a river's course the ground lies at least the
  // channel's depth below this level's plain surface and below the course's floor, half of it
  // beside the course. Depth from downstream hydraulic geometry, depth ~ Q^0.4 (Leopold &
  // Maddock 1953), Q the river's discharge at the planet's runoff. Against the plain surface
  // and the planet's heights, so a level that carries a coarser level's channel carves no
  // deeper.
  if (!relief_level && !river_line.empty() && params_.channel_depth_m > 0.0) {
    for (const RiverCell& river : river_line) {
      const double q = double(river.area_m2) * runoff_m_s;
      const float depth = float(params_.channel_depth_m * std::pow(q, 0.4));
      const size_t c = river.cell;
      h[c] = std::min(h[c], std::min(base[c], river.floor_m) - depth);
      for (int d = 0; d < 6; ++d) {
        const size_t b = size_t(int64_t(c) + patch.step(d));
        if (cells[b] != erosion::PatchCell::kInterior) continue;
        h[b] = std::min(h[b], std::min(base[b], river.floor_m) - 0.5f * depth);
      }
    }
  }

  // The disk where the window's bump is not zero, kept.
  WindowResult out;
  const size_t kept = disk_.size();
  out.change_m.assign(kept, 0.0f);
  out.flow_m2.assign(kept, 0.0f);
  out.wear_m.assign(kept, 0.0f);
  out.deposition_m.assign(kept, 0.0f);
  out.water.assign(kept, 0);
  out.droplet_steps = stats.steps;
  for (int64_t y = -disk_.reach(); y <= disk_.reach(); ++y) {
    for (int64_t x = disk_.low(y); x <= disk_.high(y); ++x) {
      const size_t c = cellOf(x, y);
      if (cells[c] == erosion::PatchCell::kNone) continue;
      const size_t o = disk_.index(x, y);
      const double delta = double(h[c]) - double(in[c]);
      out.change_m[o] = float(double(carried_change[c]) + delta);
      out.flow_m2[o] = flow.area_m2[c];
      const double wear = params_.droplet_masks ? double(worn[c]) : std::max(0.0, -delta);
      const double deposit = params_.droplet_masks ? double(laid[c]) : std::max(0.0, delta);
      out.wear_m[o] = float(double(carried_wear[c]) + wear);
      out.deposition_m[o] = float(double(carried_deposit[c]) + deposit);
      out.water[o] = base_level[c] || double(flow.area_m2[c]) >= river_area_m2_ ? 1 : 0;
    }
  }
  return out;
}

}  // namespace tiles::detail
