#include "tiles/detail/river_course.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "geodesy/hash.h"

namespace tiles::detail {
namespace {

constexpr uint64_t kCourseStream = 0x74696c65436f7572ull;  // "tileCour"
constexpr double kPi = std::numbers::pi;
// Meander wavelength over channel width (Leopold & Wolman 1960: 10.9 w^1.01).
constexpr double kWavelengthWidths = 11.0;
// Meander amplitude over wavelength, before the slow modulation (0.7 to 1 of it) and the
// per-river factor (0.6 to 1): bends of sinuosity about 1.3.
constexpr double kAmplitudeWavelengths = 0.35;
// The most a course leaves its edge's line: its meanders and its wander, fraction of the
// edge. A course far off the line would climb the planet valley's sides (the channel's bed
// follows the line's floor, so it cuts a gorge there).
constexpr double kMostMeander = 0.08;
constexpr double kMostWander = 0.03;

constexpr double kRowHeight = 0.8660254037844386;  // sqrt(3) / 2

// The lattice point nearest (x, y) in lattice coordinates: cube coordinates (x, y, -x - y)
// rounded, the one rounded furthest recomputed from the other two.
std::array<int64_t, 2> nearestPoint(double x, double y) {
  const double z = -x - y;
  double rx = std::round(x), ry = std::round(y);
  const double rz = std::round(z);
  const double dx = std::abs(rx - x), dy = std::abs(ry - y), dz = std::abs(rz - z);
  if (dx > dy && dx > dz)
    rx = -ry - rz;
  else if (dy > dz)
    ry = -rx - rz;
  return {int64_t(rx), int64_t(ry)};
}

double smoothstep(double x) {
  x = std::clamp(x, 0.0, 1.0);
  return x * x * (3.0 - 2.0 * x);
}

}  // namespace

RiverCourse::RiverCourse(uint64_t seed, uint32_t vertex, double width_m, double edge_m) {
  geodesy::HashStream random(seed, kCourseStream, vertex);
  const double wavelength_m = std::max(kWavelengthWidths * width_m, 1e-9);
  half_waves_ = int(std::clamp(std::round(2.0 * edge_m / wavelength_m), 1.0, 4096.0));
  const double h = double(half_waves_);
  // Loops leaning up or down the valley and flattened or pointed (the third harmonic of
  // Kinoshita's curve, Parker et al. 1983), by river.
  skew_ = 0.2 * (2.0 * random.uniform() - 1.0);
  flat_ = 0.1 * (2.0 * random.uniform() - 1.0);
  const double shape = 1.0 + std::abs(skew_) + std::abs(flat_);  // the most |shape(phase)|
  meander_ = std::min(kAmplitudeWavelengths * (2.0 / h) * (0.6 + 0.4 * random.uniform()),
                      kMostMeander / shape);
  // Bends of uneven length: the phase drifts with three waves of 3 to 8 meander wavelengths,
  // each changing the phase's rate by at most a sixth of the meanders' (pi h), and one of 1 to
  // 2 wavelengths changing it by at most 0.3 (one bend longer than the next, as on real
  // rivers), so the phase always advances (the rates' changes add to at most 0.8).
  for (int k = 0; k < 4; ++k) {
    Wave& wave = drift_[k];
    const bool bend = k == 3;
    wave.cycles = h / (bend ? 2.0 + 2.0 * random.uniform() : 6.0 + 10.0 * random.uniform());
    wave.amplitude = (2.0 * random.uniform() - 1.0) * h * (bend ? 0.15 : 1.0 / 12.0) / wave.cycles;
    wave.phase = 2.0 * kPi * random.uniform();
  }
  // and of uneven height: the amplitude swells and shrinks over 5 to 10 wavelengths.
  swell_.cycles = h / (10.0 + 10.0 * random.uniform());
  swell_.amplitude = 0.3;
  swell_.phase = 2.0 * kPi * random.uniform();
  // Two thirds of the wander in one long bend, a third in two: together at most kMostWander.
  const double wander = kMostWander * (0.5 + 0.5 * random.uniform());
  for (int k = 0; k < 2; ++k)
    wander_[k] = (2.0 * random.uniform() - 1.0) * wander * (k == 0 ? 2.0 : 1.0) / 3.0;
}

double RiverCourse::offset(double s) const {
  const double h = double(half_waves_);
  double phase = kPi * h * s;
  for (const Wave& wave : drift_)
    phase += wave.amplitude * std::sin(2.0 * kPi * wave.cycles * s + wave.phase);
  const double swell =
      1.0 - swell_.amplitude * (0.5 + 0.5 * std::sin(2.0 * kPi * swell_.cycles * s + swell_.phase));
  // The meanders die out over the first and last half-wave: the course meets the edge's ends.
  const double taper = smoothstep(std::min(s, 1.0 - s) * h);
  const double shape =
      std::sin(phase) + flat_ * std::sin(3.0 * phase) + skew_ * std::cos(3.0 * phase);
  double w = meander_ * swell * taper * shape;
  for (int k = 0; k < 2; ++k) w += wander_[k] * std::sin(double(k + 1) * kPi * s);
  return w;
}

std::vector<std::array<int64_t, 2>> RiverCourse::lattice(uint32_t steps) const {
  std::vector<std::array<int64_t, 2>> out;
  out.push_back({0, 0});
  // The curve sampled a quarter step apart along the edge, each sample to its nearest lattice
  // point; where the curve runs steeply across the edge two samples' points may be apart, and
  // the line between them fills the gap (the nearest points of the line's samples, a step
  // apart: two points closer than half a step are the same or neighbours, their hexagonal
  // cells touching).
  const uint64_t samples = 4 * uint64_t(steps);
  for (uint64_t k = 1; k <= samples; ++k) {
    const double s = k == samples ? 1.0 : double(k) / double(samples);
    const double across = k == samples ? 0.0 : offset(s) * double(steps);
    // Cartesian (along, across) -> lattice (x, y): along = x + y / 2, across = y sqrt(3) / 2.
    const double y = across / kRowHeight, x = s * double(steps) - 0.5 * y;
    const std::array<int64_t, 2> p = nearestPoint(x, y);
    const std::array<int64_t, 2> from = out.back();
    const int64_t dx = p[0] - from[0], dy = p[1] - from[1];
    const int64_t apart = std::max({std::abs(dx), std::abs(dy), std::abs(dx + dy)});
    for (int64_t t = 1; t <= apart; ++t) {
      const double f = double(t) / double(apart);
      const std::array<int64_t, 2> q = t == apart ? p
                                                  : nearestPoint(double(from[0]) + f * double(dx),
                                                                 double(from[1]) + f * double(dy));
      if (q != out.back()) out.push_back(q);
    }
  }
  return out;
}

}  // namespace tiles::detail
