#pragma once
// Erosion at every level finer than the planet (docs/tile_erosion.md).
//
// Windows. Level L's windows sit at the tile corners of level L + s (s = window_subdivision):
// lattice points whose coordinates are multiples of the core radius C = T / 2^s. Window w
// erodes the points of a disk around its centre (its bump's disk plus the halo; its chart:
// window_chart.h), each a pure function of the window's key, and keeps the disk where its bump
// is not zero. Its weight at a point p is a smooth bump of p's distance r from the centre in
// the window's own chart, (1 - r^2/R^2)^3 with R = bumpRadius() (TileErosionParams::
// bump_fraction of C, at most one step inside the core's inradius: every point is within
// 0.58 C of some centre), divided by the sum of the bumps of the windows around p. The weights sum
// to 1 and are C2 (the plain barycentric hat of the window lattice is only C0: the slope of the
// blend would jump along every window line, tile edges among them). A point's erosion is that sum
// over the (one to six) windows in reach, in the order of their keys: two tiles that share a point
// compute the same windows and the same sum, bit for bit.
//
// Levels. A window of level L erodes the surface of level L (planet + detail, as the tile
// generator makes it) plus the change that levels coarser than L made there (their change at
// the points of level L - 1, carried to level L's points as the parent edge's mean: the same
// rule as TileMesh::parent_height_m). Its change is therefore the change of all levels down to
// L, and valleys cut at coarse levels carry down. Levels from firstLevel() to lastLevel()
// erode; finer ones take the last level's change, interpolated.
//
// Thread-safe: const, with a thread-safe window cache (window_cache.h) that changes no result.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tiles/detail/erosion_window.h"
#include "tiles/detail/planet_drainage.h"
#include "tiles/detail/surface_model.h"
#include "tiles/detail/window_cache.h"
#include "tiles/lattice_point.h"
#include "tiles/tile_planet.h"

namespace tiles::detail {

struct WindowResult;

// Erosion at one point: the change of the surface (add to the height) and the masks.
struct PointErosion {
  float change_m = 0.0f;
  float flow_m2 = 0.0f;
  float wear_m = 0.0f;
  float deposition_m = 0.0f;
  float water = 0.0f;
};

// A window that may have weight at a point: its key and its centre.
struct CandidateWindow {
  WindowKey key;
  LatticePoint centre;
};

class ErosionModel {
 public:
  // Copies what it needs from planet; `surface` must outlive the model. Throws
  // std::invalid_argument for arrays of the wrong size or parameters out of range.
  ErosionModel(const SurfaceModel& surface, const TilePlanet& planet,
               const TileErosionParams& params);
  ~ErosionModel();

  int firstLevel() const { return first_level_; }
  int lastLevel() const { return last_level_; }
  // Whether points of `level` are changed by erosion (of theirs or coarser levels').
  bool erodes(int level) const { return level >= first_level_ && first_level_ <= last_level_; }
  uint32_t coreRadius() const { return core_; }
  // A window erodes the points of a disk around its centre: its bump's disk, one step more and
  // the halo (bumpRadius() + 1 + halo lattice steps). windowRadius() bounds it in chart
  // offsets: the disk's radius over sqrt(3)/2, rounded up (the hexagon that holds the disk).
  double windowDiskRadius() const { return window_disk_radius_; }
  uint32_t windowRadius() const { return window_radius_; }
  // Whether chart offset (x, y) lies in a window's disk grown by `more` steps.
  bool inWindow(int64_t x, int64_t y, double more = 0.0) const {
    const double r = window_disk_radius_ + more;
    return erosion::latticeSquaredLength(double(x), double(y)) <= r * r;
  }
  // Radius of a window's bump in the partition of unity, lattice steps:
  // TileErosionParams::bump_fraction of the core radius C, at most one step inside the core
  // hexagon's inradius, so that the windows one lattice row beyond a tile's edge have no
  // weight on the ring of points just outside it that the tile's normals need (at the inradius
  // itself they had a weight of 4e-6 there and doubled the windows a tile makes). Cores under
  // 4 steps keep the whole fraction: every point must stay within the radius of some centre
  // (C / sqrt(3)).
  double bumpRadius() const { return bump_radius_; }

  // Erosion at canonical points of `level`, into out (one per point). Parallel on the caller's
  // oneTBB arena; computes the windows it needs that are not cached.
  void sample(int level, std::span<const LatticePoint> points, std::span<PointErosion> out) const;

  // The windows that may have weight at canonical point p of eroded level `level`, in key
  // order (1 to 6; sample() takes the weight from the window's own chart).
  int windowsAt(int level, const LatticePoint& p, CandidateWindow* out) const;
  // The window of `key` (centre: canonical point of `level`), from the cache or made.
  std::shared_ptr<const WindowResult> window(int level, const LatticePoint& centre) const;
  size_t cachedBytes() const { return cache_.bytes(); }

 private:
  // The windows of a level with weight at some of a set of points, in key order, and each
  // point's terms (window, position in the window's disk, bump): point k's are terms[first[k]]
  // to terms[first[k + 1]] (1.4 a point on average, 22 bytes; six fixed slots would be 96).
  static constexpr size_t kMostWindows = 6;
  struct Term {
    uint32_t window = 0;
    uint32_t cell = 0;
    double weight = 0.0;
  };
  struct Blend {
    std::vector<std::pair<WindowKey, LatticePoint>> windows;
    std::vector<uint32_t> first;
    std::vector<Term> terms;
  };
  Blend blendOf(int level, std::span<const LatticePoint> points) const;
  // The points of level - 1 whose erosion a window of `level` at `centre` reads (the even
  // points of its disk grown by one step: its points' neighbours), canonical; index (optional)
  // gets, per chart offset (x, y) within windowRadius() + 1 (row (y + r + 1), column
  // (x + r + 1), 2 r + 3 wide), the parent's position or -1.
  std::vector<LatticePoint> parentPoints(int level, const LatticePoint& centre,
                                         std::vector<int32_t>* index) const;
  // The windows, from the cache or made (the coarser levels' ones they read first).
  std::vector<std::shared_ptr<const WindowResult>> makeWindows(
      int level, std::span<const std::pair<WindowKey, LatticePoint>> windows) const;
  // The heights before erosion of the points of several windows of one level, each point once
  // (erosion_model.cpp); null where the windows do not fit one chart.
  struct SharedSurface;
  std::unique_ptr<const SharedSurface> sharedSurface(int level,
                                                     std::span<const LatticePoint> centres) const;
  // The surface before erosion at canonical points of `level` (LevelSampler), into out.
  void surfaceHeights(int level, std::span<const LatticePoint> points, std::span<float> out) const;
  // shared (optional): the surface shared with the windows made with it, this window its
  // window number shared_window.
  WindowResult makeWindow(int level, const LatticePoint& centre,
                          const SharedSurface* shared = nullptr, size_t shared_window = 0) const;
  void sampleLevel(int level, std::span<const LatticePoint> points,
                   std::span<PointErosion> out) const;

  const SurfaceModel& surface_;
  TileErosionParams params_;
  PlanetDrainage drainage_;
  std::vector<float> water_level_m_;  // per planet vertex, or empty
  double sea_level_m_ = 0.0;
  uint64_t seed_ = 0;
  double river_area_m2_ = 0.0;
  uint32_t core_ = 0, halo_ = 0, window_radius_ = 0;
  double bump_radius_ = 0.0, window_disk_radius_ = 0.0;
  WindowDisk disk_;
  int first_level_ = 0, last_level_ = -1;
  mutable WindowCache cache_;
};

}  // namespace tiles::detail
