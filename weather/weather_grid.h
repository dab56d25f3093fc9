#pragma once
// Internal to weather/: the coarse icosphere the clouds move over. A cloud crosses several
// faces of a fine mesh per tick (at f = 512 the default wind moves it 3.6 edges), and walking
// a 2.6 M-vertex mesh misses the cache at every face. On a grid of frequency ~64 (edge ~1 deg,
// 41 k vertices, all in cache) a step crosses at most one edge, and the air sees the terrain
// smoothed to the grid scale, as real air masses do.

#include <span>
#include <vector>

#include "geodesy/sphere_mesh.h"
#include "weather/surface_sampling.h"

namespace weather {

class WeatherGrid {
 public:
  // Uses the fine mesh itself if its frequency is at most grid_frequency, else builds an
  // icosphere of grid_frequency and finds where each grid vertex lies on the fine mesh.
  // fine must outlive the grid. Parallel in the caller's arena.
  WeatherGrid(const geodesy::SphereMesh& fine, int grid_frequency);
  WeatherGrid(const WeatherGrid&) = delete;  // mesh_ may point into the grid itself
  WeatherGrid& operator=(const WeatherGrid&) = delete;

  // Samples the fine terrain at the grid vertices (barycentric interpolation) and sets the
  // ground the air feels to max(elevation, sea level) smoothed over about 2 degrees (repeated
  // neighbour averaging), so orographic lift follows mountain ranges rather than every hill.
  // fine_elevation_m has one value per fine vertex.
  void resample(std::span<const float> fine_elevation_m, double sea_level_m);

  // The grid terrain from the last resample: elevation_m decides land and ocean, ground_m
  // drives orographic lift and deflection.
  Terrain terrain() const;
  const geodesy::SphereMesh& mesh() const { return *mesh_; }

 private:
  const geodesy::SphereMesh* fine_;
  geodesy::SphereMesh own_;
  const geodesy::SphereMesh* mesh_;
  std::vector<geodesy::SurfacePoint> on_fine_;  // per grid vertex; empty if the grid is fine
  std::vector<float> elevation_m_, ground_m_;
  double sea_level_m_ = 0.0;
};

}  // namespace weather
