#include "erosion/lattice_droplets.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>
#include <vector>

#include "geodesy/hash.h"

namespace erosion {
namespace {

// Streams of the droplets' random numbers: geodesy::hash3(point seed, stream, ...).
constexpr uint64_t kCountStream = 0x6c61744472704e31ull;      // "latDrpN1"
constexpr uint64_t kStartStream = 0x6c61744472705031ull;      // "latDrpP1"
constexpr uint64_t kDirectionStream = 0x6c61744472704431ull;  // "latDrpD1"

constexpr float kInvSqrt3 = 0.57735026918962576f;
constexpr float kTwoInvSqrt3 = 1.1547005383792515f;
// A heading shorter than this (squared) is none: the droplet stands on flat ground.
constexpr float kNoDirection2 = 1e-20f;

// The brush of eq. 5.9 around a lattice point: index offsets and weights max(0, r - d),
// normalised to sum 1.
struct Brush {
  std::vector<int64_t> offsets;
  std::vector<int32_t> da, db;  // the offsets as lattice steps
  std::vector<float> weights;
  int reach = 0;

  Brush(const LatticePatch& patch, double radius) {
    reach = int(std::ceil(radius)) + 1;
    double total = 0.0;
    std::vector<double> w;
    for (int b = -reach; b <= reach; ++b) {
      for (int a = -reach; a <= reach; ++a) {
        const double d = std::sqrt(double(latticeSquaredLength(a, b)));
        if (!(d < radius)) continue;
        offsets.push_back(int64_t(b) * int64_t(patch.width) + a);
        da.push_back(a), db.push_back(b);
        w.push_back(radius - d);
        total += radius - d;
      }
    }
    for (double x : w) weights.push_back(float(x / total));
  }
};

// Where a droplet stands: the triangle under it, its corners' weights, and the height and
// gradient (per lattice step along a and b) of the plane through the corners.
struct Sample {
  bool valid = false;
  uint32_t corner[3] = {0, 0, 0};
  float weight[3] = {0.0f, 0.0f, 0.0f};
  float h = 0.0f;
  float ga = 0.0f, gb = 0.0f;
  uint32_t near = 0;  // the corner of the largest weight, the first of equal ones
  uint32_t nearest() const { return near; }
  void findNearest() {
    // Selects, not branches: which corner is nearest is as good as random from step to step.
    const bool first = weight[0] >= weight[1];
    const float w = first ? weight[0] : weight[1];
    const uint32_t c = first ? corner[0] : corner[1];
    near = w >= weight[2] ? c : corner[2];
  }
};

// kMasks: each point's loss and gain are kept (the caller asks for them); without, only their
// totals, and a brush entry is one store fewer.
template <bool kCopies, bool kMasks>
class Runner {
 public:
  // Erodes height_m in place (only the points are written: a copy's cell keeps its value until
  // finish()).
  Runner(const LatticeDropletInput& input, const LatticeDropletParams& params,
         std::span<float> height_m)
      : patch_(*input.patch),
        input_(input),
        h_(height_m),
        brush_(patch_, params.radius),
        width_(patch_.width),
        inertia_(float(params.inertia)),
        inv_spacing_(float(1.0 / patch_.spacing_m)),
        capacity_(float(params.capacity_s_per_m)),
        min_slope_(float(params.min_slope)),
        flow_speed_(float(params.flow_speed_m_s)),
        flow_exponent_(float(params.flow_exponent)),
        max_flow_cells_(float(params.max_flow_cells)),
        channel_cells_(input.flow_cells.empty() ? 0.0f : float(params.channel_cells)),
        erode_share_(float(-std::expm1(-params.erosion_per_m * patch_.spacing_m))),
        deposit_share_(float(-std::expm1(-params.deposition_per_m * patch_.spacing_m))),
        keep_water_(float(std::exp(-params.evaporation_per_m * patch_.spacing_m))),
        initial_water_(float(input.water_m)),
        max_steps_(int(std::clamp(std::ceil(params.max_length_m / patch_.spacing_m), 1.0,
                                  double(std::max(1, params.max_steps))))),
        keep_(input.keep_radius > 0.0),
        keep_x_(float(input.keep_x)),
        keep_y_(float(input.keep_y)),
        // The brush's reach and the triangle under the droplet, one step more.
        keep_reach_(float(input.keep_radius + params.radius + 1.0)) {
    const size_t n = patch_.size();
    if constexpr (kMasks) {
      eroded_.assign(n, 0.0f);
      deposited_.assign(n, 0.0f);
    }
    point_.resize(n);
    if constexpr (kCopies) {
      owner_ = cellOwners(patch_);
      for (size_t c = 0; c < n; ++c) point_[c] = owner_[c] != UINT32_MAX;
    } else {
      for (size_t c = 0; c < n; ++c) point_[c] = patch_.cells[c] != PatchCell::kNone;
    }
    // The flow factor of each point, once (a droplet asks for it at every step).
    if (!input.flow_cells.empty()) {
      factor_.resize(n);
      for (size_t c = 0; c < n; ++c) {
        const float cells = std::clamp(input.flow_cells[c], 1.0f, max_flow_cells_);
        factor_[c] = flow_exponent_ == 0.5f ? std::sqrt(cells) : std::pow(cells, flow_exponent_);
      }
    }
    // Cells whose four corners (both triangles of the cell) are points.
    quad_.assign(n, 0);
    for (uint32_t y = 0; y + 1 < patch_.rows; ++y) {
      for (uint32_t x = 0; x + 1 < width_; ++x) {
        const size_t c = size_t(y) * width_ + x;
        quad_[c] = point_[c] && point_[c + 1] && point_[c + width_] && point_[c + width_ + 1];
      }
    }
    // Brush targets: points that are not base level.
    target_ = point_;
    if (!input.base_level.empty()) {
      for (size_t c = 0; c < n; ++c) {
        if (input.base_level[c]) target_[c] = 0;
      }
    }
    // Centres whose whole brush lies inside the array and holds only targets: the brush's
    // common case, which then needs no check per entry. A cell is kept out when a cell that is
    // not a target lies within the brush's reach in both lattice coordinates (a box holding
    // the brush), found by two sliding counts, along rows and then along columns.
    const uint32_t reach = uint32_t(brush_.reach);
    std::vector<uint8_t> near_row(n, 0);
    for (uint32_t y = 0; y < patch_.rows; ++y) {
      const size_t row = size_t(y) * width_;
      uint32_t count = 0;  // cells that are not targets in [x - reach, x + reach]
      for (uint32_t x = 0; x < reach && x < width_; ++x) count += !target_[row + x];
      for (uint32_t x = 0; x < width_; ++x) {
        if (x + reach < width_) count += !target_[row + x + reach];
        near_row[row + x] = count > 0;
        if (x >= reach) count -= !target_[row + x - reach];
      }
    }
    safe_.assign(n, 0);
    for (uint32_t x = reach; x + reach < width_; ++x) {
      uint32_t count = 0;  // rows in [y - reach, y + reach] whose near_row is set
      for (uint32_t y = 0; y < 2 * reach && y < patch_.rows; ++y)
        count += near_row[size_t(y) * width_ + x];
      for (uint32_t y = reach; y + reach < patch_.rows; ++y) {
        count += near_row[size_t(y + reach) * width_ + x];
        safe_[size_t(y) * width_ + x] = count == 0;
        count -= near_row[size_t(y - reach) * width_ + x];
      }
    }
  }

  void run(LatticeDropletStats& stats) {
    const size_t n = patch_.size();
    for (uint32_t c = 0; c < n; ++c) {
      if (!patch_.holds(c)) continue;
      const float expected = input_.droplets[c];
      if (!(expected > 0.0f)) continue;
      const uint64_t seed = input_.seed[c];
      const float whole = std::floor(expected);
      uint32_t count = uint32_t(whole);
      if (geodesy::unitFromHash(geodesy::hash3(seed, kCountStream, 0)) < double(expected - whole))
        ++count;
      const float x = float(c % width_), y = float(c / width_);
      for (uint32_t k = 0; k < count; ++k) {
        geodesy::HashStream rng(seed, kStartStream, k);
        const float a = x + float(rng.uniform()) - 0.5f;
        const float b = y + float(rng.uniform()) - 0.5f;
        drop(a, b, geodesy::hash3(seed, kDirectionStream, k), stats);
        ++stats.droplets;
      }
    }
  }

  void finish(std::span<float> height_m, std::span<float> eroded_m, std::span<float> deposited_m,
              LatticeDropletStats& stats) {
    const size_t n = patch_.size();
    double eroded = eroded_total_, deposited = deposited_total_;
    for (size_t c = 0; kMasks && c < n; ++c) {
      if (!patch_.holds(uint32_t(c))) continue;
      eroded += eroded_[c];
      deposited += deposited_[c];
      if (!eroded_m.empty()) eroded_m[c] += eroded_[c];
      if (!deposited_m.empty()) deposited_m[c] += deposited_[c];
    }
    for (const CellCopy& copy : patch_.copies) {
      height_m[copy.cell] = height_m[copy.owner];
      if (!eroded_m.empty()) eroded_m[copy.cell] = eroded_m[copy.owner];
      if (!deposited_m.empty()) deposited_m[copy.cell] = deposited_m[copy.owner];
    }
    const double cell_m2 = cellAreaM2(patch_);
    stats.eroded_m3 += eroded * cell_m2;
    stats.deposited_m3 += deposited * cell_m2;
  }

 private:
  uint32_t resolve(uint32_t cell) const {
    if constexpr (kCopies) return owner_[cell];
    return cell;
  }

  Sample sample(float a, float b) const {
    Sample s;
    // For a, b >= 0 the integer part is the floor (a truncating conversion, where std::floor
    // is a libm call on baseline x86-64).
    if (!(a >= 0.0f && b >= 0.0f && a < float(width_) && b < float(patch_.rows))) return s;
    const float fx = float(uint32_t(a)), fy = float(uint32_t(b));
    if (!(fx + 1.0f < float(width_) && fy + 1.0f < float(patch_.rows))) return s;
    const float fa = a - fx, fb = b - fy;
    const uint32_t c = uint32_t(fy) * width_ + uint32_t(fx);
    if (fa + fb <= 1.0f) {
      s.corner[0] = c, s.corner[1] = c + 1, s.corner[2] = c + width_;
      s.weight[0] = 1.0f - fa - fb, s.weight[1] = fa, s.weight[2] = fb;
    } else {
      s.corner[0] = c + 1 + width_, s.corner[1] = c + 1, s.corner[2] = c + width_;
      s.weight[0] = fa + fb - 1.0f, s.weight[1] = 1.0f - fb, s.weight[2] = 1.0f - fa;
    }
    // A cell whose four corners are points (the common case) needs no check per corner.
    if (!quad_[c]) {
      for (int k = 0; k < 3; ++k) {
        if (!point_[s.corner[k]]) return s;
      }
    }
    for (int k = 0; k < 3; ++k) s.corner[k] = resolve(s.corner[k]);
    const float h0 = h_[s.corner[0]], h1 = h_[s.corner[1]], h2 = h_[s.corner[2]];
    if (fa + fb <= 1.0f) {
      s.ga = h1 - h0, s.gb = h2 - h0;
      s.h = h0 + fa * s.ga + fb * s.gb;
    } else {
      // Corners (1, 1), (1, 0), (0, 1) of the cell.
      s.ga = h0 - h2, s.gb = h0 - h1;
      s.h = h0 - (1.0f - fa) * s.ga - (1.0f - fb) * s.gb;
    }
    s.findNearest();
    s.valid = true;
    return s;
  }

  // Beyer 2015, §5.2: a deposit on the triangle's corners by their weights.
  void deposit(const Sample& s, float volume) {
    for (int k = 0; k < 3; ++k) {
      const float share = volume * s.weight[k];
      h_[s.corner[k]] += share;
      if constexpr (kMasks) {
        deposited_[s.corner[k]] += share;
      } else {
        deposited_total_ += double(share);
      }
    }
  }

  // Calls fn(cell, k) for brush entry k around `centre` where its cell is a target (a point
  // that is not base level). Safe centres' brushes are all targets; the others check each
  // entry against the border, so that no offset wraps into another row, and against target_.
  template <typename Fn>
  void forBrush(uint32_t centre, Fn&& fn) const {
    const size_t count = brush_.offsets.size();
    if (safe_[centre]) {
      for (size_t k = 0; k < count; ++k) fn(uint32_t(int64_t(centre) + brush_.offsets[k]), k);
      return;
    }
    const int64_t x = centre % width_, y = centre / width_;
    for (size_t k = 0; k < count; ++k) {
      const int64_t cx = x + brush_.da[k], cy = y + brush_.db[k];
      if (cx < 0 || cy < 0 || cx >= int64_t(width_) || cy >= int64_t(patch_.rows)) continue;
      const uint32_t c = uint32_t(cy * width_ + cx);
      if (target_[c]) fn(c, k);
    }
  }

  // Beyer 2015, eqs. 5.6 and 5.9: the brush around `centre` gives up amount * weight.
  float take(uint32_t centre, float amount) {
    float taken = 0.0f;
    forBrush(centre, [&](uint32_t c, size_t k) {
      const uint32_t o = resolve(c);
      const float t = amount * brush_.weights[k];
      h_[o] -= t;
      if constexpr (kMasks) eroded_[o] += t;
      taken += t;
    });
    if constexpr (!kMasks) eroded_total_ += double(taken);
    return taken;
  }

  // What a droplet still carries when it ends on land, spread over the brush around where it
  // stands (a low fan, not a spike).
  void settle(const Sample& s, float volume) {
    const uint32_t centre = s.nearest();
    float total = 0.0f;
    forBrush(centre, [&](uint32_t, size_t k) { total += brush_.weights[k]; });
    if (!(total > 0.0f)) return deposit(s, volume);
    const float scale = volume / total;
    forBrush(centre, [&](uint32_t c, size_t k) {
      const uint32_t o = resolve(c);
      const float share = scale * brush_.weights[k];
      h_[o] += share;
      if constexpr (kMasks) {
        deposited_[o] += share;
      } else {
        deposited_total_ += double(share);
      }
    });
  }

  // The flow a droplet stands for at `cell` (flow_cells^flow_exponent, capped).
  float flowFactor(uint32_t cell) const { return factor_.empty() ? 1.0f : factor_[cell]; }

  bool channel(uint32_t cell) const {
    return channel_cells_ > 0.0f && input_.flow_cells[cell] >= channel_cells_;
  }

  // Whether a droplet at (a, b) with `steps` steps of one spacing left can still touch the
  // kept disk.
  bool canReachKept(float a, float b, int steps) const {
    const float da = a - keep_x_, db = b - keep_y_;
    const float limit = keep_reach_ + float(steps);
    return latticeSquaredLength(da, db) <= limit * limit;
  }

  bool baseLevel(uint32_t cell) const {
    return !input_.base_level.empty() && input_.base_level[cell];
  }

  void drop(float a, float b, uint64_t direction_seed, LatticeDropletStats& stats) {
    Sample s = sample(a, b);
    if (!s.valid || baseLevel(s.nearest())) return;
    geodesy::HashStream rng(direction_seed, 0, 0);
    float dx = 0.0f, dy = 0.0f;
    float water = initial_water_, sediment = 0.0f;
    int stalled = 0;
    for (int life = 0; life < max_steps_; ++life) {
      if (keep_ && !canReachKept(a, b, max_steps_ - life)) return;
      // Beyer 2015, eq. 5.1: the gradient in Cartesian steps as a metric slope, then the new
      // heading.
      const float gx = s.ga * inv_spacing_, gy = (2.0f * s.gb - s.ga) * kInvSqrt3 * inv_spacing_;
      float nx = dx * inertia_ - gx * (1.0f - inertia_);
      float ny = dy * inertia_ - gy * (1.0f - inertia_);
      const float length2 = nx * nx + ny * ny;
      if (!(length2 > kNoDirection2)) {
        if (++stalled >= 2) break;
        const float phi = float(2.0 * std::numbers::pi * rng.uniform());
        nx = std::cos(phi), ny = std::sin(phi);
      } else {
        stalled = 0;
        const float inv = 1.0f / std::sqrt(length2);
        nx *= inv, ny *= inv;
      }
      dx = nx, dy = ny;
      // Beyer 2015, eq. 5.2: one step, in lattice coordinates.
      const float na = a + dx - dy * kInvSqrt3, nb = b + dy * kTwoInvSqrt3;
      const Sample t = sample(na, nb);
      if (!t.valid) return;  // left the patch: what it carries leaves with it
      ++stats.steps;
      const float dh = t.h - s.h;  // eq. 5.3, metres
      // Eq. 5.4 in metric units: slope (rise over run) x flow speed x water.
      const float slope = std::max(-dh * inv_spacing_, min_slope_);
      const float speed = flow_speed_ * std::sqrt(slope);
      const float capacity = capacity_ * slope * speed * water * flowFactor(t.nearest());
      if (dh <= 0.0f && sediment > capacity && channel(t.nearest())) {
        // A channel carries the excess on.
      } else if (dh > 0.0f || sediment > capacity) {
        // Uphill: fill the pit behind, at most dh; else eq. 5.5 at the step's share.
        const float laid =
            dh > 0.0f ? std::min(dh, sediment) : (sediment - capacity) * deposit_share_;
        deposit(s, laid);
        sediment -= laid;
      } else {
        // Eq. 5.6 at the step's share: never more than -dh, so one step digs no pit.
        sediment += take(s.nearest(), std::min((capacity - sediment) * erode_share_, -dh));
      }
      water *= keep_water_;  // eq. 5.8 per metre
      a = na, b = nb;
      s = t;
      if (baseLevel(s.nearest())) {
        deposit(s, sediment);  // into the sea or lake it reached
        return;
      }
    }
    if (sediment > 0.0f && !channel(s.nearest())) settle(s, sediment);
  }

  const LatticePatch& patch_;
  const LatticeDropletInput& input_;
  const std::span<float> h_;
  const Brush brush_;
  const uint32_t width_;
  const float inertia_, inv_spacing_, capacity_, min_slope_, flow_speed_, flow_exponent_;
  const float max_flow_cells_, channel_cells_;
  const float erode_share_, deposit_share_, keep_water_, initial_water_;
  const int max_steps_;
  const bool keep_;
  const float keep_x_, keep_y_, keep_reach_;
  std::vector<float> eroded_, deposited_, factor_;     // eroded_, deposited_: with kMasks
  double eroded_total_ = 0.0, deposited_total_ = 0.0;  // without
  std::vector<uint8_t> point_, target_, safe_, quad_;
  std::vector<uint32_t> owner_;
};

template <bool kCopies, bool kMasks>
LatticeDropletStats runAll(const LatticeDropletInput& input, const LatticeDropletParams& params,
                           std::span<float> height_m, std::span<float> eroded_m,
                           std::span<float> deposited_m) {
  LatticeDropletStats stats;
  Runner<kCopies, kMasks> runner(input, params, height_m);
  runner.run(stats);
  runner.finish(height_m, eroded_m, deposited_m, stats);
  return stats;
}

}  // namespace

LatticeDropletStats erodeLatticeDroplets(const LatticeDropletInput& input,
                                         const LatticeDropletParams& params,
                                         std::span<float> height_m, std::span<float> eroded_m,
                                         std::span<float> deposited_m) {
  assert(input.patch && height_m.size() == input.patch->size());
  const bool masks = !eroded_m.empty() || !deposited_m.empty();
  if (input.patch->copies.empty()) {
    return masks ? runAll<false, true>(input, params, height_m, eroded_m, deposited_m)
                 : runAll<false, false>(input, params, height_m, eroded_m, deposited_m);
  }
  return masks ? runAll<true, true>(input, params, height_m, eroded_m, deposited_m)
               : runAll<true, false>(input, params, height_m, eroded_m, deposited_m);
}

}  // namespace erosion
