#include "tiles/detail/level_sampler.h"

#include <algorithm>
#include <array>
#include <cassert>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "geodesy/lattice_numbering.h"

namespace tiles::detail {
namespace {

template <typename Body>
void parallelFor(size_t n, const Body& body) {
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 64), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t k = r.begin(); k != r.end(); ++k) body(k);
  });
}

// The corners of a planet triangle as (non-canonical) points of its base face.
std::array<LatticePoint, 3> cornersOf(uint32_t base, uint32_t i, uint32_t j, bool down) {
  if (down) return {{{base, i + 1, j}, {base, i + 1, j + 1}, {base, i, j + 1}}};
  return {{{base, i, j}, {base, i + 1, j}, {base, i, j + 1}}};
}

struct Ring {
  int count = 0;
  std::array<LatticePoint, 6> points;
  std::array<uint32_t, 6> ids{};
};

Ring ringOf(const geodesy::LatticeNumbering& numbering, const LatticePoint& canonical) {
  Ring ring;
  ring.count = latticeRing(numbering.frequency(), canonical, ring.points);
  for (int k = 0; k < ring.count; ++k) {
    ring.ids[k] = numbering.vertex(ring.points[k].base, ring.points[k].i, ring.points[k].j);
  }
  return ring;
}

}  // namespace

LevelSampler::LevelSampler(const SurfaceModel& model, int level,
                           std::span<const LatticePoint> points)
    : model_(model),
      detail_(model.levels[level]),
      frequency_(model.layout.levelFrequency(level)),
      octave_count_(model.levels[level].octaves.size()) {
  // The planet triangles the points fall in, each once, in key order. Neighbouring points
  // mostly share a triangle, so runs collapse before the sort.
  std::vector<uint64_t> keys;
  for (const LatticePoint& p : points) {
    const Place at = place(p);
    if (!at.at_vertex && (keys.empty() || keys.back() != at.triangle)) keys.push_back(at.triangle);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<Place> unique(keys.size());
  const geodesy::Lattice& lattice = model.numbering.lattice();
  for (size_t k = 0; k < keys.size(); ++k) {
    const geodesy::LatticeFace at = geodesy::latticeFace(int(lattice.f), uint32_t(keys[k]));
    unique[k].triangle = keys[k];
    unique[k].base = at.base, unique[k].i = at.i, unique[k].j = at.j, unique[k].down = at.down;
  }

  // Their corners, each once: the octaves' values there pin the detail to 0.
  const uint32_t f = model.planetFrequency();
  std::vector<std::pair<uint32_t, LatticePoint>> vertices;
  vertices.reserve(unique.size() * 3);
  for (const Place& t : unique) {
    for (const LatticePoint& c : cornersOf(t.base, t.i, t.j, t.down)) {
      const LatticePoint canonical = canonicalPoint(f, c);
      vertices.push_back(
          {model.numbering.vertex(canonical.base, canonical.i, canonical.j), canonical});
    }
  }
  std::sort(vertices.begin(), vertices.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  vertices.erase(std::unique(vertices.begin(), vertices.end(),
                             [](const auto& a, const auto& b) { return a.first == b.first; }),
                 vertices.end());
  vertex_ids_.resize(vertices.size());
  vertex_noise_.resize(vertices.size() * octave_count_);
  const LevelDetail& d = detail_;
  parallelFor(vertices.size(), [&](size_t k) {
    const auto& [id, point] = vertices[k];
    vertex_ids_[k] = id;
    if (octave_count_ == 0) return;
    const glm::dvec3 unit = unitPosition(model.spacing, f, point);
    for (size_t o = 0; o < octave_count_; ++o) {
      const Octave& octave = d.octaves[o];
      vertex_noise_[k * octave_count_ + o] = octaveNoise(model.noise, octave, unit);
    }
  });

  triangle_keys_.resize(unique.size());
  triangles_.resize(unique.size());
  corner_noise_.resize(unique.size() * 3 * octave_count_);
  parallelFor(unique.size(), [&](size_t k) {
    const Place& t = unique[k];
    triangle_keys_[k] = t.triangle;
    double* corners = corner_noise_.data() + k * 3 * octave_count_;
    for (int c = 0; c < 3; ++c) {
      const LatticePoint p = canonicalPoint(f, cornersOf(t.base, t.i, t.j, t.down)[c]);
      const size_t slot = vertexSlot(model.numbering.vertex(p.base, p.i, p.j));
      std::copy_n(vertex_noise_.data() + slot * octave_count_, octave_count_,
                  corners + c * octave_count_);
    }
    triangles_[k] = buildTriangle(t, corners);
  });
}

LevelSampler::Place LevelSampler::place(const LatticePoint& p) const {
  const uint64_t f = model_.planetFrequency();
  Place out;
  if (frequency_ <= f) {
    const uint64_t r = f / frequency_;
    out.at_vertex = true;
    out.vertex = model_.numbering.vertex(p.base, uint32_t(p.i * r), uint32_t(p.j * r));
    return out;
  }
  const uint64_t m = frequency_ / f;
  const uint64_t i = p.i / m, j = p.j / m, ri = p.i - i * m, rj = p.j - j * m;
  if (ri == 0 && rj == 0) {
    out.at_vertex = true;
    out.vertex = model_.numbering.vertex(p.base, uint32_t(i), uint32_t(j));
    return out;
  }
  const double inv = 1.0 / double(m);  // a power of two: the weights below are exact
  const geodesy::Lattice& lattice = model_.numbering.lattice();
  out.base = p.base;
  out.i = uint32_t(i);
  out.j = uint32_t(j);
  out.down = ri + rj > m;
  if (!out.down) {
    out.l[0] = double(m - ri - rj) * inv;
    out.l[1] = double(ri) * inv;
    out.l[2] = double(rj) * inv;
  } else {
    // Corners (i + 1, j), (i + 1, j + 1), (i, j + 1).
    out.l[0] = double(m - rj) * inv;
    out.l[1] = double(ri + rj - m) * inv;
    out.l[2] = double(m - ri) * inv;
  }
  const uint32_t in_base = out.down ? lattice.downFace(out.i, out.j) : lattice.upFace(out.i, out.j);
  out.triangle = uint64_t(p.base) * lattice.facesPerBase() + in_base;
  return out;
}

size_t LevelSampler::vertexSlot(uint32_t vertex) const {
  const auto it = std::lower_bound(vertex_ids_.begin(), vertex_ids_.end(), vertex);
  assert(it != vertex_ids_.end() && *it == vertex);
  return size_t(it - vertex_ids_.begin());
}

LevelSampler::Triangle LevelSampler::buildTriangle(const Place& t,
                                                   const double* corner_noise) const {
  const uint32_t f = model_.planetFrequency();
  const auto corners = cornersOf(t.base, t.i, t.j, t.down);
  std::array<LatticePoint, 3> canonical;
  for (int k = 0; k < 3; ++k) canonical[k] = canonicalPoint(f, corners[k]);

  // Per corner: elevation and detail amplitude, and their edge derivatives toward the next two
  // corners from the corner's ring.
  constexpr int kFields = 2;
  const std::vector<float>* field[kFields] = {&model_.elevation_m, &model_.roughness_m};
  std::array<std::array<double, 3>, kFields> values{};
  std::array<std::array<std::array<double, 2>, 3>, kFields> slopes{};
  for (int k = 0; k < 3; ++k) {
    const uint32_t id = model_.numbering.vertex(canonical[k].base, canonical[k].i, canonical[k].j);
    const Ring ring = ringOf(model_.numbering, canonical[k]);
    for (int side = 0; side < 2; ++side) {
      const LatticePoint& toward = canonical[(k + 1 + side) % 3];
      int q = 0;
      while (q < ring.count && !(ring.points[q] == toward)) ++q;
      assert(q < ring.count);
      for (int i = 0; i < kFields; ++i) {
        const std::vector<float>& x = *field[i];
        auto h = [&](int n) { return double(x[ring.ids[(q + n) % ring.count]]); };
        slopes[i][k][side] = ring.count == 6 ? edgeDerivative6(h(0), h(1), h(2), h(3), h(4), h(5))
                                             : edgeDerivative5(x[id], h(0), h(1), h(2), h(3), h(4));
      }
    }
    for (int i = 0; i < kFields; ++i) values[i][k] = (*field[i])[id];
  }
  Triangle out;
  out.elevation = CloughTocher(values[0], slopes[0]);
  out.roughness = CloughTocher(values[1], slopes[1]);
  if (octave_count_ == 0) return out;

  // The detail's mean over the triangle by a lattice rule of order q (its points are lattice
  // points of frequency f q; each weighs the number of small triangles around it). The
  // integrated octaves enter whole; the finer ones average out on their own.
  const uint32_t q = detail_.quadrature_order;
  const uint64_t fq = uint64_t(f) * q;
  const double inv = 1.0 / double(q);
  double sum = 0.0;
  // Eight points at a time (the noise's lanes); each adds weight * sigma * octave sum.
  Lanes lanes;
  double factor[kLanes];
  auto flush = [&] {
    double sums[kLanes];
    octaves(lanes, 0, detail_.low_count, sums);
    for (int k = 0; k < lanes.count; ++k) sum += factor[k] * sums[k];
    lanes.count = 0;
  };
  for (uint32_t b = 0; b <= q; ++b) {
    for (uint32_t a = 0; a + b <= q; ++a) {
      const uint32_t c = q - a - b;
      if (a == q || b == q || c == q) continue;  // the corners, where the detail is 0
      const double weight = (a == 0 || b == 0 || c == 0) ? 3.0 : 6.0;
      const double l[3] = {double(c) * inv, double(a) * inv, double(b) * inv};
      const double sigma = std::max(0.0, out.roughness(l[0], l[1], l[2]));
      if (sigma == 0.0) continue;
      // Up corners (i, j), (i + 1, j), (i, j + 1); down (i + 1, j), (i + 1, j + 1), (i, j + 1).
      const uint64_t x = t.down ? (uint64_t(t.i) + 1) * q - b : uint64_t(t.i) * q + a;
      const uint64_t y = uint64_t(t.j) * q + (t.down ? a + b : b);
      factor[lanes.count] = weight * sigma;
      lanes.add(l, geodesy::latticePosition(model_.spacing, fq, t.base, x, y), corner_noise,
                octave_count_);
      if (lanes.count == kLanes) flush();
    }
  }
  if (lanes.count > 0) flush();
  out.beta = sum / (3.0 * double(q) * double(q)) / kBumpMean;
  return out;
}

void LevelSampler::Lanes::add(const double* l, const glm::dvec3& position,
                              const double* corner_noise, size_t octave_count) {
  // The nearest corner: within a pin radius (<= 1/2 step) of at most one. Chart distance to
  // corner k: |l_{k+1} e1 + l_{k+2} e2|^2 with unit e1, e2 at 60 degrees.
  double d2[3];
  for (int k = 0; k < 3; ++k) {
    const double a = l[(k + 1) % 3], b = l[(k + 2) % 3];
    d2[k] = a * a + b * b + a * b;
  }
  const int near = d2[0] <= d2[1] ? (d2[0] <= d2[2] ? 0 : 2) : (d2[1] <= d2[2] ? 1 : 2);
  unit[count] = position;
  near_d2[count] = d2[near];
  pinned[count] = corner_noise + size_t(near) * octave_count;
  ++count;
}

void LevelSampler::octaves(const Lanes& lanes, size_t first, size_t last, double* out) const {
  for (int k = 0; k < lanes.count; ++k) out[k] = 0.0;
  double x[kLanes], y[kLanes], z[kLanes];
  float n[kLanes];
  for (size_t o = first; o < last; ++o) {
    const Octave& octave = detail_.octaves[o];
    for (int k = 0; k < kLanes; ++k) {
      // Unused lanes repeat the first point.
      const glm::dvec3 c = lanes.unit[k < lanes.count ? k : 0] * octave.frequency + octave.offset;
      x[k] = c.x, y[k] = c.y, z[k] = c.z;
    }
    model_.noise.noise8(x, y, z, n);
    const double r2 = octave.pin_radius * octave.pin_radius;
    for (int k = 0; k < lanes.count; ++k) {
      double value = n[k];
      if (lanes.near_d2[k] < r2) {
        const double s = 1.0 - lanes.near_d2[k] / r2;
        value -= lanes.pinned[k][o] * s * s * s;
      }
      out[k] += octave.amplitude * value;
    }
  }
}

void LevelSampler::heights(std::span<const LatticePoint> points, std::span<const glm::dvec3> units,
                           double* out) const {
  Lanes lanes;
  size_t index[kLanes];
  double sigma[kLanes];
  auto flush = [&] {
    double sums[kLanes];
    octaves(lanes, 0, octave_count_, sums);
    for (int k = 0; k < lanes.count; ++k) out[index[k]] += sigma[k] * sums[k];
    lanes.count = 0;
  };
  for (size_t p = 0; p < points.size(); ++p) {
    const Place at = place(points[p]);
    if (at.at_vertex) {
      out[p] = model_.elevation_m[at.vertex];
      continue;
    }
    const auto it = std::lower_bound(triangle_keys_.begin(), triangle_keys_.end(), at.triangle);
    assert(it != triangle_keys_.end() && *it == at.triangle);
    const size_t k = size_t(it - triangle_keys_.begin());
    const Triangle& t = triangles_[k];
    const double* l = at.l;
    out[p] = t.elevation(l[0], l[1], l[2]);
    if (octave_count_ == 0) continue;
    const double bump = 27.0 * l[0] * l[1] * l[2];
    out[p] += -t.beta * bump * bump;
    const double s = std::max(0.0, t.roughness(l[0], l[1], l[2]));
    if (s == 0.0) continue;
    index[lanes.count] = p;
    sigma[lanes.count] = s;
    lanes.add(l, units[p], corner_noise_.data() + k * 3 * octave_count_, octave_count_);
    if (lanes.count == kLanes) flush();
  }
  if (lanes.count > 0) flush();
}

double LevelSampler::height(const LatticePoint& p, const glm::dvec3& unit) const {
  double out;
  heights({&p, 1}, {&unit, 1}, &out);
  return out;
}

}  // namespace tiles::detail
