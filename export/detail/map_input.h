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

}  // namespace planet_export
