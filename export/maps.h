#pragma once
// Equirectangular (2:1) pictures of a planet: shaded relief, colour maps of per-vertex fields
// with a legend, and a 16-bit heightmap. Pixel layout as in equirect_sampler.h (north up,
// longitude -180 degrees at the left edge). All renderers are parallel over rows on the
// caller's oneTBB arena and give the same pixels for any thread count. They read the surface's
// mesh, elevation_m, radius_m, sea_level_m and palette; they throw std::invalid_argument for a
// surface that validateSurface rejects, a field of the wrong size, or width < 2.

#include <span>
#include <string>

#include "export/image.h"
#include "export/planet_surface.h"
#include "export/surface_shading.h"

namespace planet_export {

struct ReliefOptions {
  int width = 2048;  // height is width / 2
  SunLight sun;
  // Relief is a few kilometres on a planet thousands of kilometres wide: without exaggeration
  // a global map shows almost no shading.
  double vertical_exaggeration = 30.0;
  // Optional, one value per vertex in [0, 1]: how strongly to paint water over the land
  // (rivers by discharge, lakes), blended towards river blue. Empty = none.
  std::span<const float> water;
};

// Land: hypsometric tint (TerrainPalette) times the hillshade of the exaggerated surface
// normal (the gradient of the interpolated elevation). Sea: bathymetric blue by depth, flat.
RgbImage renderShadedRelief(const PlanetSurface& surface, const ReliefOptions& options = {});

struct FieldMapOptions {
  int width = 2048;  // height is width / 2
  // Colour limits come from this quantile of the non-zero |values| (diverging) or non-zero
  // values (sequential) over vertices, so a few extreme vertices do not wash the map out.
  double percentile = 0.98;
  double limit = 0.0;     // > 0: use this limit instead of the percentile
  std::string title;      // legend caption, e.g. "erosion change"
  std::string units;      // appended to the legend numbers, e.g. "m"
  bool coastline = true;  // outline the sea-level coast of the surface in dark grey
  bool legend = true;     // colour bar with limits drawn into the bottom of the image
  // Diverging maps: by default negative values are red and positive blue (for an elevation
  // change after - before: red erosion, blue deposition). Set to show positive in red.
  bool positive_is_red = false;
};

// Signed field, one value per vertex: white at 0, symmetric limits [-L, L] with L from
// FieldMapOptions (1 if every value is 0), values beyond the limits saturate.
RgbImage renderDivergingMap(const PlanetSurface& surface, std::span<const float> field,
                            const FieldMapOptions& options = {});

// Non-negative field, one value per vertex (e.g. rainfall): pale at 0, dark blue at the limit.
// Negative values show as 0.
RgbImage renderSequentialMap(const PlanetSurface& surface, std::span<const float> field,
                             const FieldMapOptions& options = {});

// The quantile q in [0, 1] of |v| over the non-zero values (nearest rank); 0 if there are
// none.
double magnitudeQuantile(std::span<const float> values, double q);

struct HeightmapOptions {
  int width = 2048;  // height is width / 2
  // Elevation range (metres, relative to radius_m) mapped to 0..65535; by default the range
  // of the surface's elevations. Values outside clamp.
  double min_m = 0.0;
  double max_m = 0.0;
  bool use_data_range = true;
};

// 16-bit equirectangular heightmap: round((e - min) / (max - min) * 65535).
Gray16Image renderHeightmap(const PlanetSurface& surface, const HeightmapOptions& options = {});

}  // namespace planet_export
