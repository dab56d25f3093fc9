#pragma once
// A picture of the planet as seen from far away: an orthographic CPU ray-caster over
// SphereMesh::locate, no GPU needed.

#include <glm/vec3.hpp>

#include "export/image.h"
#include "export/planet_surface.h"

namespace planet_export {

struct GlobeOptions {
  int size_px = 1024;          // square image; the disc spans 96% of it
  double view_lat_deg = 20.0;  // surface point at the centre of the disc
  double view_lon_deg = 0.0;
  double vertical_exaggeration = 30.0;  // of the relief shading (not of the silhouette)
  // Direction toward the light in view space: x right, y up, z toward the viewer.
  glm::dvec3 light_view{-0.45, 0.5, 0.75};
  int supersampling = 2;  // rays per pixel along each axis (>= 1), averaged
  Rgb background{0.02f, 0.02f, 0.04f};
};

// Each ray hits the sea-level sphere; the hit direction is located on the mesh. Land above sea
// level: hypsometric tint lit by the interpolated normal of the exaggerated surface (Lambert
// plus ambient). Below: the bathymetric tint of the sea floor under a glossy water surface
// (Lambert on the sphere normal plus a Blinn-Phong highlight). Parallel over rows on the
// caller's oneTBB arena, same pixels for any thread count. Throws std::invalid_argument for a
// surface validateSurface rejects, size_px < 2, or supersampling < 1.
RgbImage renderGlobe(const PlanetSurface& surface, const GlobeOptions& options = {});

}  // namespace planet_export
