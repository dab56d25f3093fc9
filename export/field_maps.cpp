#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include <tbb/parallel_for.h>

#include "export/colour_ramps.h"
#include "export/detail/legend.h"
#include "export/detail/map_input.h"
#include "export/equirect_sampler.h"
#include "export/maps.h"

namespace planet_export {
namespace {

const Rgb kCoastColour{0.15f, 0.15f, 0.15f};

// Colours every pixel by colour_of(field value there), outlines the coast, adds the legend.
RgbImage renderFieldMap(const PlanetSurface& surface, std::span<const float> field,
                        const FieldMapOptions& options, const std::function<Rgb(double)>& colour_of,
                        Legend legend) {
  const geodesy::SphereMesh& mesh = *surface.mesh;
  const int width = options.width;
  const int height = width / 2;
  EquirectLocations own;
  const EquirectLocations& where = mapLocations(surface, width, height, own);
  const std::vector<float> values = sampleVertexField(mesh, where, field);
  std::vector<uint8_t> land;
  if (options.coastline) {
    const std::vector<float> elevation = sampleVertexField(mesh, where, surface.elevation_m);
    land.resize(elevation.size());
    for (size_t i = 0; i < land.size(); ++i) land[i] = elevation[i] >= surface.sea_level_m;
  }
  RgbImage image(width, height);
  tbb::parallel_for(0, height, [&](int y) {
    for (int x = 0; x < width; ++x) {
      const size_t i = size_t(y) * size_t(width) + size_t(x);
      bool coast = false;
      if (!land.empty()) {
        const size_t right = size_t(y) * size_t(width) + size_t((x + 1) % width);  // wraps
        const size_t below = y + 1 < height ? i + size_t(width) : i;
        coast = land[i] != land[right] || land[i] != land[below];
      }
      image.set(x, y, coast ? kCoastColour : colour_of(values[i]));
    }
  });
  if (options.legend) drawLegend(image, legend);
  return image;
}

double colourLimit(std::span<const float> field, const FieldMapOptions& options) {
  if (options.limit > 0.0) return options.limit;
  const double limit = magnitudeQuantile(field, options.percentile);
  return limit > 0.0 ? limit : 1.0;
}

}  // namespace

double magnitudeQuantile(std::span<const float> values, double q) {
  std::vector<float> magnitudes;
  magnitudes.reserve(values.size());
  for (float v : values) {
    if (v != 0.0f && std::isfinite(v)) magnitudes.push_back(std::abs(v));
  }
  if (magnitudes.empty()) return 0.0;
  const double rank = std::ceil(std::clamp(q, 0.0, 1.0) * double(magnitudes.size()));
  const size_t index = size_t(std::clamp(rank - 1.0, 0.0, double(magnitudes.size() - 1)));
  std::nth_element(magnitudes.begin(), magnitudes.begin() + ptrdiff_t(index), magnitudes.end());
  return magnitudes[index];
}

RgbImage renderDivergingMap(const PlanetSurface& surface, std::span<const float> field,
                            const FieldMapOptions& options) {
  checkMapInput("renderDivergingMap", surface, options.width, field, true);
  const double limit = colourLimit(field, options);
  // divergingColour runs blue (-1) to red (+1).
  const double sign = options.positive_is_red ? 1.0 : -1.0;
  const auto colour_of = [limit, sign](double v) { return divergingColour(sign * v / limit); };
  Legend legend;
  legend.ramp = [&](double t) { return colour_of((2.0 * t - 1.0) * limit); };
  legend.title = options.title;
  legend.left_label = formatValue(-limit, options.units);
  legend.middle_label = "0";
  legend.right_label = "+" + formatValue(limit, options.units);
  return renderFieldMap(surface, field, options, colour_of, std::move(legend));
}

RgbImage renderSequentialMap(const PlanetSurface& surface, std::span<const float> field,
                             const FieldMapOptions& options) {
  checkMapInput("renderSequentialMap", surface, options.width, field, true);
  const double limit = colourLimit(field, options);
  const auto colour_of = [limit](double v) { return sequentialColour(std::max(v, 0.0) / limit); };
  Legend legend;
  legend.ramp = [&](double t) { return colour_of(t * limit); };
  legend.title = options.title;
  legend.left_label = formatValue(0.0, options.units);
  legend.middle_label = formatValue(0.5 * limit, options.units);
  legend.right_label = formatValue(limit, options.units);
  return renderFieldMap(surface, field, options, colour_of, std::move(legend));
}

}  // namespace planet_export
