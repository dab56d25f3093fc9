#include <algorithm>
#include <cmath>

#include <tbb/parallel_for.h>

#include "export/detail/map_input.h"
#include "export/equirect_sampler.h"
#include "export/maps.h"

namespace planet_export {

Gray16Image renderHeightmap(const PlanetSurface& surface, const HeightmapOptions& options) {
  checkMapInput("renderHeightmap", surface, options.width);
  double lo = options.min_m;
  double hi = options.max_m;
  if (options.use_data_range) {
    const auto [min_it, max_it] =
        std::minmax_element(surface.elevation_m.begin(), surface.elevation_m.end());
    lo = *min_it;
    hi = *max_it;
  }
  const double scale = hi > lo ? 65535.0 / (hi - lo) : 0.0;
  const int width = options.width;
  const int height = width / 2;
  EquirectLocations own;
  const EquirectLocations& where = mapLocations(surface, width, height, own);
  const std::vector<float> elevation = sampleVertexField(*surface.mesh, where, surface.elevation_m);
  Gray16Image image(width, height);
  tbb::parallel_for(size_t(0), elevation.size(), [&](size_t i) {
    image.pixels[i] = uint16_t(std::lround(std::clamp((elevation[i] - lo) * scale, 0.0, 65535.0)));
  });
  return image;
}

}  // namespace planet_export
