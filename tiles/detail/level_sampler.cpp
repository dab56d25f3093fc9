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
      with_detail_(!model.levels[level].octaves.empty()) {
  // The planet triangles the points fall in, each once, in key order.
  std::vector<Place> places(points.size());
  parallelFor(points.size(), [&](size_t k) { places[k] = place(points[k]); });
  std::vector<Place> unique;
  for (const Place& p : places) {
    if (!p.at_vertex && (unique.empty() || unique.back().triangle != p.triangle))
      unique.push_back(p);
  }
  std::sort(unique.begin(), unique.end(),
            [](const Place& a, const Place& b) { return a.triangle < b.triangle; });
  unique.erase(std::unique(unique.begin(), unique.end(),
                           [](const Place& a, const Place& b) { return a.triangle == b.triangle; }),
               unique.end());

  // Their corners and the corners' rings: every vertex a patch reads.
  const uint32_t f = model.planetFrequency();
  std::vector<std::pair<uint32_t, LatticePoint>> vertices;
  vertices.reserve(unique.size() * 21);
  for (const Place& t : unique) {
    for (const LatticePoint& c : cornersOf(t.base, t.i, t.j, t.down)) {
      const LatticePoint canonical = canonicalPoint(f, c);
      vertices.push_back(
          {model.numbering.vertex(canonical.base, canonical.i, canonical.j), canonical});
      const Ring ring = ringOf(model.numbering, canonical);
      for (int k = 0; k < ring.count; ++k) vertices.push_back({ring.ids[k], ring.points[k]});
    }
  }
  std::sort(vertices.begin(), vertices.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  vertices.erase(std::unique(vertices.begin(), vertices.end(),
                             [](const auto& a, const auto& b) { return a.first == b.first; }),
                 vertices.end());
  vertex_ids_.resize(vertices.size());
  vertex_fields_.resize(vertices.size());
  const LevelDetail& d = detail_;
  parallelFor(vertices.size(), [&](size_t k) {
    const auto& [id, point] = vertices[k];
    vertex_ids_[k] = id;
    VertexFields& out = vertex_fields_[k];
    out.elevation = model.elevation_m[id];
    out.roughness = model.roughness_m[id];
    if (with_detail_) {
      const glm::dvec3 unit = unitPosition(model.spacing, f, point);
      out.noise_low = octaveSum(model.noise, d.octaves.data(), d.low_count, unit);
      out.noise_high = octaveSum(model.noise, d.octaves.data() + d.low_count,
                                 d.octaves.size() - d.low_count, unit);
    }
  });

  triangle_keys_.resize(unique.size());
  triangles_.resize(unique.size());
  parallelFor(unique.size(), [&](size_t k) {
    triangle_keys_[k] = unique[k].triangle;
    triangles_[k] = buildTriangle(unique[k]);
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

const LevelSampler::VertexFields& LevelSampler::fields(uint32_t vertex) const {
  const auto it = std::lower_bound(vertex_ids_.begin(), vertex_ids_.end(), vertex);
  assert(it != vertex_ids_.end() && *it == vertex);
  return vertex_fields_[size_t(it - vertex_ids_.begin())];
}

LevelSampler::Triangle LevelSampler::buildTriangle(const Place& t) const {
  const uint32_t f = model_.planetFrequency();
  const auto corners = cornersOf(t.base, t.i, t.j, t.down);
  std::array<LatticePoint, 3> canonical;
  for (int k = 0; k < 3; ++k) canonical[k] = canonicalPoint(f, corners[k]);

  // Per corner: its fields and, per field, the edge derivatives toward the next two corners.
  constexpr int kFields = 4;
  std::array<std::array<double, 3>, kFields> values{};
  std::array<std::array<std::array<double, 2>, 3>, kFields> slopes{};
  for (int k = 0; k < 3; ++k) {
    const uint32_t id = model_.numbering.vertex(canonical[k].base, canonical[k].i, canonical[k].j);
    const Ring ring = ringOf(model_.numbering, canonical[k]);
    std::array<std::array<double, 6>, kFields> around{};
    for (int n = 0; n < ring.count; ++n) {
      const VertexFields& v = fields(ring.ids[n]);
      around[0][n] = v.elevation, around[1][n] = v.roughness;
      around[2][n] = v.noise_low, around[3][n] = v.noise_high;
    }
    const VertexFields& centre = fields(id);
    const double centre_values[kFields] = {centre.elevation, centre.roughness, centre.noise_low,
                                           centre.noise_high};
    for (int side = 0; side < 2; ++side) {
      const LatticePoint& toward = canonical[(k + 1 + side) % 3];
      int q = 0;
      while (q < ring.count && !(ring.points[q] == toward)) ++q;
      assert(q < ring.count);
      for (int field = 0; field < kFields; ++field) {
        const auto& h = around[field];
        slopes[field][k][side] =
            ring.count == 6 ? edgeDerivative6(h[q], h[(q + 1) % 6], h[(q + 2) % 6], h[(q + 3) % 6],
                                              h[(q + 4) % 6], h[(q + 5) % 6])
                            : edgeDerivative5(centre_values[field], h[q], h[(q + 1) % 5],
                                              h[(q + 2) % 5], h[(q + 3) % 5], h[(q + 4) % 5]);
      }
    }
    for (int field = 0; field < kFields; ++field) values[field][k] = centre_values[field];
  }
  Triangle out;
  out.elevation = CloughTocher(values[0], slopes[0]);
  out.roughness = CloughTocher(values[1], slopes[1]);
  if (!with_detail_) return out;
  out.noise_low = CloughTocher(values[2], slopes[2]);
  out.noise_high = CloughTocher(values[3], slopes[3]);

  // The detail's mean over the triangle by a lattice rule of order q (its points are lattice
  // points of frequency f q; each weighs the number of small triangles around it). The
  // integrated octaves enter whole; the finer ones only through their patch CT[N_high], which
  // is smooth; their own noise averages out.
  const uint32_t q = detail_.quadrature_order;
  const uint64_t fq = uint64_t(f) * q;
  const double inv = 1.0 / double(q);
  double sum = 0.0;
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
      const glm::dvec3 unit = geodesy::latticePosition(model_.spacing, fq, t.base, x, y);
      const double n_low = octaveSum(model_.noise, detail_.octaves.data(), detail_.low_count, unit);
      sum += weight * sigma *
             (n_low - out.noise_low(l[0], l[1], l[2]) - out.noise_high(l[0], l[1], l[2]));
    }
  }
  out.beta = sum / (3.0 * double(q) * double(q)) / kBumpMean;
  return out;
}

double LevelSampler::detailAt(const Triangle& t, const double* l, const glm::dvec3& unit) const {
  const double bump = 27.0 * l[0] * l[1] * l[2];
  double detail = -t.beta * bump * bump;
  const double sigma = std::max(0.0, t.roughness(l[0], l[1], l[2]));
  if (sigma > 0.0) {
    const LevelDetail& d = detail_;
    const double n_low = octaveSum(model_.noise, d.octaves.data(), d.low_count, unit);
    const double n_high = octaveSum(model_.noise, d.octaves.data() + d.low_count,
                                    d.octaves.size() - d.low_count, unit);
    detail += sigma *
              ((n_low - t.noise_low(l[0], l[1], l[2])) + (n_high - t.noise_high(l[0], l[1], l[2])));
  }
  return detail;
}

double LevelSampler::height(const LatticePoint& p, const glm::dvec3& unit) const {
  const Place at = place(p);
  if (at.at_vertex) return model_.elevation_m[at.vertex];
  const auto it = std::lower_bound(triangle_keys_.begin(), triangle_keys_.end(), at.triangle);
  assert(it != triangle_keys_.end() && *it == at.triangle);
  const Triangle& t = triangles_[size_t(it - triangle_keys_.begin())];
  const double surface = t.elevation(at.l[0], at.l[1], at.l[2]);
  return with_detail_ ? surface + detailAt(t, at.l, unit) : surface;
}

}  // namespace tiles::detail
