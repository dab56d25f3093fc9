#pragma once
// Argument checks shared by the map renderers (maps.h, globe.h).

#include <span>

#include "export/equirect_sampler.h"
#include "export/planet_surface.h"

namespace planet_export {

// validateSurface, then: width >= 2 (so the 2:1 map has a row), and field, when given, has one
// value per vertex. Throws std::invalid_argument naming `renderer`.
void checkMapInput(const char* renderer, const PlanetSurface& surface, int width,
                   std::span<const float> field = {}, bool field_required = false);

// The pixel centres of a width x height map on surface.mesh: surface.equirect when it has that
// size, else located into `own` (which the result then refers to).
const EquirectLocations& mapLocations(const PlanetSurface& surface, int width, int height,
                                      EquirectLocations& own);

}  // namespace planet_export
