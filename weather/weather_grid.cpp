#include "weather/weather_grid.h"

#include <algorithm>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace weather {
namespace {

constexpr size_t kVertexGrain = 4096;

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
  const geodesy::SphereMesh& m = *mesh_;
  forEachVertex(ground_m_.size(), [&](size_t v) {
    double sum = std::fmax(elevation_m_[v], sea_level_m);
    const uint32_t begin = m.neighbour_offsets[v], end = m.neighbour_offsets[v + 1];
    for (uint32_t k = begin; k < end; ++k)
      sum += std::fmax(elevation_m_[m.neighbours[k]], sea_level_m);
    ground_m_[v] = float(sum / double(1 + end - begin));
  });
}

Terrain WeatherGrid::terrain() const {
  return {mesh_, elevation_m_, ground_m_, sea_level_m_};
}

}  // namespace weather
