#include "export/detail/map_input.h"

#include <stdexcept>
#include <string>

#include "export/detail/surface_buffers.h"

namespace planet_export {

void checkMapInput(const char* renderer, const PlanetSurface& surface, int width,
                   std::span<const float> field, bool field_required) {
  validateSurface(surface);
  if (width < 2) {
    throw std::invalid_argument(std::string(renderer) + ": width " + std::to_string(width) +
                                " is too small (at least 2)");
  }
  if (field_required && field.size() != surface.mesh->vertexCount()) {
    throw std::invalid_argument(std::string(renderer) + ": field has " +
                                std::to_string(field.size()) + " values for " +
                                std::to_string(surface.mesh->vertexCount()) + " vertices");
  }
}

const EquirectLocations& mapLocations(const PlanetSurface& surface, int width, int height,
                                      EquirectLocations& own) {
  const EquirectLocations* shared = surface.equirect;
  if (shared != nullptr && shared->width == width && shared->height == height) return *shared;
  own = locateEquirect(*surface.mesh, width, height);
  return own;
}

}  // namespace planet_export
