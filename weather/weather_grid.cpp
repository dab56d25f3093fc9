#include "weather/weather_grid.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace weather {
namespace {

constexpr size_t kVertexGrain = 4096;
constexpr double kGroundScaleDeg = 2.0;

template <typename Body>
void forEachVertex(size_t n, const Body& body) {
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kVertexGrain),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t v = r.begin(); v != r.end(); ++v) body(v);
                    });
}

}  // namespace

WeatherGrid::WeatherGrid(const geodesy::SphereMesh& fine, int grid_frequency) : fine_(&fine) {
  if (fine.frequency <= grid_frequency) {
    mesh_ = &fine;
  } else {
    own_ = geodesy::buildIcosphere(grid_frequency, {fine.spacing});
    mesh_ = &own_;
    on_fine_.resize(own_.vertexCount());
    forEachVertex(own_.vertexCount(),
                  [&](size_t v) { on_fine_[v] = fine.locate(own_.positions[v]); });
  }
  elevation_m_.resize(mesh_->vertexCount());
  ground_m_.resize(mesh_->vertexCount());
}

void WeatherGrid::resample(std::span<const float> fine_elevation_m, double sea_level_m) {
  sea_level_m_ = sea_level_m;
  if (on_fine_.empty()) {
    std::copy(fine_elevation_m.begin(), fine_elevation_m.end(), elevation_m_.begin());
  } else {
    const Terrain fine{fine_, fine_elevation_m, {}, sea_level_m};
    forEachVertex(elevation_m_.size(),
                  [&](size_t v) { elevation_m_[v] = float(elevationAt(fine, on_fine_[v])); });
  }
  // The air feels the ground smoothed over about kGroundScaleDeg: synoptic-scale lift, not
  // every hill. Each pass averages a vertex with its neighbours (a diffusion step), and n
  // passes spread over about sqrt(n) edge lengths.
  const geodesy::SphereMesh& m = *mesh_;
  const double edge_deg = m.mean_edge_length * 180.0 / std::numbers::pi;
  const int passes = std::max(1, int(std::lround(std::pow(kGroundScaleDeg / edge_deg, 2.0))));
  for (size_t v = 0; v < ground_m_.size(); ++v) {
    ground_m_[v] = std::fmax(elevation_m_[v], float(sea_level_m));
  }
  std::vector<float> next(ground_m_.size());
  for (int pass = 0; pass < passes; ++pass) {
    forEachVertex(ground_m_.size(), [&](size_t v) {
      double sum = ground_m_[v];
      const uint32_t begin = m.neighbour_offsets[v], end = m.neighbour_offsets[v + 1];
      for (uint32_t k = begin; k < end; ++k) sum += ground_m_[m.neighbours[k]];
      next[v] = float(sum / double(1 + end - begin));
    });
    ground_m_.swap(next);
  }
}

Terrain WeatherGrid::terrain() const {
  return {mesh_, elevation_m_, ground_m_, sea_level_m_};
}

}  // namespace weather
