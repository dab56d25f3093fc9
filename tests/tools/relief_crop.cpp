// Hillshaded crops of a planet's relief before and after erosion, rendered from the mesh itself
// (each pixel's height interpolated on its face), for looking at valleys, ridges and lattice
// artefacts at a vertical exaggeration of choice. Not part of the tool; a picture maker for
// docs/fluvial.md:
//
//   relief_crop CONFIG OUT_PREFIX [--set section.key=value]... [--width PX] [--exaggeration X]
//               [--box LON0 LON1 LAT0 LAT1 | --peak SIZE_DEG | --full] [--shading flat|smooth|both]
//
// writes OUT_PREFIX_before.png and OUT_PREFIX_after.png. --shading flat (the default) takes
// each pixel's slope from the heights interpolated on the faces, so every triangle is one plane
// (one shade); smooth interpolates per-vertex slopes (the mean of the faces' around each vertex),
// as a game engine's per-vertex normals shade the mesh; both writes
// the smooth ones as OUT_PREFIX_before_smooth.png and OUT_PREFIX_after_smooth.png as well. It also
// prints, for the land in the box, how the slopes lie against the lattice: the angle of each
// vertex's slope to its nearest edge direction, folded into 0-30 degrees (0: the slope runs along
// an edge, 30: across one), in 5-degree bins weighted by the slope; a surface without the lattice
// in it has 1/6 in each. --peak centres a SIZE_DEG box on the noise terrain's highest land (the
// largest range's interior); --full is the whole planet.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "export/image.h"
#include "export/png_io.h"
#include "geodesy/latlon.h"
#include "planet/config.h"
#include "planet/pipeline.h"

namespace {

struct Box {
  double lon0 = -180, lon1 = 180, lat0 = -90, lat1 = 90;  // degrees
};

// Per-vertex slope of h (m per m, a tangent vector in 3-D): the area-weighted mean of the slopes
// of the faces around each vertex, each face a plane through its corners at radius_m.
std::vector<glm::dvec3> vertexSlopes(const geodesy::SphereMesh& mesh, const std::vector<float>& h,
                                     double radius_m) {
  std::vector<glm::dvec3> g(mesh.vertexCount(), glm::dvec3(0.0));
  std::vector<double> weight(mesh.vertexCount(), 0.0);
  for (size_t f = 0; f < mesh.faceCount(); ++f) {
    const uint32_t* c = &mesh.indices[3 * f];
    const glm::dvec3 a = glm::dvec3(mesh.positions[c[0]]) * radius_m;
    const glm::dvec3 e1 = glm::dvec3(mesh.positions[c[1]]) * radius_m - a;
    const glm::dvec3 e2 = glm::dvec3(mesh.positions[c[2]]) * radius_m - a;
    const double d1 = double(h[c[1]]) - h[c[0]], d2 = double(h[c[2]]) - h[c[0]];
    // The gradient in the face's plane: x e1 + y e2 with its dot products with e1, e2 = d1, d2.
    const double a11 = glm::dot(e1, e1), a12 = glm::dot(e1, e2), a22 = glm::dot(e2, e2);
    const double det = a11 * a22 - a12 * a12;
    if (!(det > 0.0)) continue;
    const double x = (d1 * a22 - d2 * a12) / det, y = (d2 * a11 - d1 * a12) / det;
    const glm::dvec3 grad = x * e1 + y * e2;
    const double area = 0.5 * std::sqrt(det);
    for (int k = 0; k < 3; ++k) g[c[k]] += area * grad, weight[c[k]] += area;
  }
  for (size_t v = 0; v < g.size(); ++v)
    if (weight[v] > 0.0) g[v] /= weight[v];
  return g;
}

// The slope's angle to the nearest of v's edge directions, folded into [0, 30] degrees.
double latticeAngleDeg(const geodesy::SphereMesh& mesh, uint32_t v, const glm::dvec3& grad) {
  const glm::dvec3 up = glm::dvec3(mesh.positions[v]);
  const glm::dvec3 t = grad - glm::dot(grad, up) * up;
  double best = 90.0;
  for (uint32_t k = mesh.neighbour_offsets[v]; k < mesh.neighbour_offsets[v + 1]; ++k) {
    glm::dvec3 e = glm::dvec3(mesh.positions[mesh.neighbours[k]]) - up;
    e -= glm::dot(e, up) * up;
    const double c = std::abs(glm::dot(glm::normalize(e), glm::normalize(t)));
    best = std::min(best, std::acos(std::min(1.0, c)) * 180.0 / M_PI);
  }
  // best is the angle to the nearest edge line in [0, 30] on a six-fold vertex (edge lines
  // every 60 degrees); a slope across an edge (90 degrees) is 30 from the nearest.
  return std::min(best, 30.0);
}

// Heights at the pixel centres of box (w x h), interpolated on mesh's faces; with slopes given,
// also the pixel's slope (east, north), interpolated from the per-vertex slopes.
std::vector<float> sample(const geodesy::SphereMesh& mesh, const std::vector<float>& h,
                          const Box& box, int w, int hgt,
                          const std::vector<glm::dvec3>* slopes = nullptr,
                          std::vector<glm::dvec2>* slope_out = nullptr) {
  std::vector<float> out(size_t(w) * size_t(hgt));
  if (slope_out) slope_out->assign(out.size(), glm::dvec2(0.0));
  uint32_t hint = 0;
  for (int y = 0; y < hgt; ++y) {
    const double lat = box.lat1 - (y + 0.5) * (box.lat1 - box.lat0) / hgt;
    for (int x = 0; x < w; ++x) {
      const double lon = box.lon0 + (x + 0.5) * (box.lon1 - box.lon0) / w;
      const glm::dvec3 p = geodesy::latLonToUnit({lat * M_PI / 180.0, lon * M_PI / 180.0});
      const geodesy::SurfacePoint at = mesh.locateFrom(hint, glm::vec3(p));
      hint = at.face;
      const uint32_t* c = &mesh.indices[3 * size_t(at.face)];
      out[size_t(y) * w + x] = at.bary.x * h[c[0]] + at.bary.y * h[c[1]] + at.bary.z * h[c[2]];
      if (slopes && slope_out) {
        const glm::dvec3 g = double(at.bary.x) * (*slopes)[c[0]] +
                             double(at.bary.y) * (*slopes)[c[1]] +
                             double(at.bary.z) * (*slopes)[c[2]];
        const glm::dvec3 east = geodesy::eastAt(p), north = geodesy::northAt(p);
        (*slope_out)[size_t(y) * w + x] = {glm::dot(g, east), glm::dot(g, north)};
      }
    }
  }
  return out;
}

planet_export::RgbImage shade(const std::vector<float>& z, const std::vector<glm::dvec2>& slope,
                              int w, int hgt, const Box& box, double radius_m, double sea_m,
                              double top_m, double exaggeration) {
  planet_export::RgbImage image(w, hgt);
  const double dlon = (box.lon1 - box.lon0) / w * M_PI / 180.0;
  const double dlat = (box.lat1 - box.lat0) / hgt * M_PI / 180.0;
  const glm::dvec3 light = glm::normalize(glm::dvec3(-1.0, 1.0, 1.0));  // from the north-west
  auto at = [&](int x, int y) {
    return double(z[size_t(std::clamp(y, 0, hgt - 1)) * w + std::clamp(x, 0, w - 1)]);
  };
  for (int y = 0; y < hgt; ++y) {
    const double lat = (box.lat1 - (y + 0.5) * (box.lat1 - box.lat0) / hgt) * M_PI / 180.0;
    const double dx = std::max(1.0, radius_m * std::cos(lat) * dlon);
    const double dy = radius_m * dlat;
    for (int x = 0; x < w; ++x) {
      const bool smooth = !slope.empty();
      const double gx =
          (smooth ? slope[size_t(y) * w + x].x : (at(x + 1, y) - at(x - 1, y)) / (2 * dx)) *
          exaggeration;
      const double gy =
          (smooth ? slope[size_t(y) * w + x].y : (at(x, y - 1) - at(x, y + 1)) / (2 * dy)) *
          exaggeration;
      const glm::dvec3 n = glm::normalize(glm::dvec3(-gx, -gy, 1.0));
      double s = std::max(0.0, glm::dot(n, light));
      const double e = at(x, y);
      planet_export::Rgb base;
      if (e < sea_m) {
        base = {0.30f, 0.45f, 0.70f};
        s = 0.8 + 0.2 * s;
      } else {
        const double t = std::clamp((e - sea_m) / std::max(1.0, top_m - sea_m), 0.0, 1.0);
        // green lowlands, brown uplands, pale peaks
        base = t < 0.5 ? planet_export::Rgb{float(0.45 + 0.5 * t), float(0.58 + 0.1 * t), 0.40f}
                       : planet_export::Rgb{float(0.70 + 0.5 * (t - 0.5)),
                                            float(0.63 + 0.6 * (t - 0.5)),
                                            float(0.40 + 0.9 * (t - 0.5))};
        s = 0.15 + 0.85 * s;
      }
      image.set(x, y, {float(base.r * s), float(base.g * s), float(base.b * s)});
    }
  }
  return image;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: relief_crop CONFIG OUT_PREFIX [options]\n");
    return 2;
  }
  const std::string config_file = argv[1], prefix = argv[2];
  std::vector<std::string> sets;
  int width = 900;
  double exaggeration = 100.0, peak = 0.0;
  bool full = false, boxed = false, smooth = false, both = false;
  Box box;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--set" && i + 1 < argc) {
      sets.push_back(argv[++i]);
    } else if (a == "--width" && i + 1 < argc) {
      width = std::atoi(argv[++i]);
    } else if (a == "--exaggeration" && i + 1 < argc) {
      exaggeration = std::atof(argv[++i]);
    } else if (a == "--peak" && i + 1 < argc) {
      peak = std::atof(argv[++i]);
    } else if (a == "--shading" && i + 1 < argc) {
      const std::string mode = argv[++i];
      smooth = mode == "smooth";
      both = mode == "both";
    } else if (a == "--full") {
      full = true;
    } else if (a == "--box" && i + 4 < argc) {
      box = {std::atof(argv[i + 1]), std::atof(argv[i + 2]), std::atof(argv[i + 3]),
             std::atof(argv[i + 4])};
      boxed = true;
      i += 4;
    } else {
      std::fprintf(stderr, "relief_crop: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  const planet::Config config = planet::loadConfig(config_file, sets);
  planet::StageTimer timer;
  const planet::StageCallback quiet = [](const std::string&) {};
  planet::PlanetState planet = planet::buildPlanet(config, timer, quiet);
  planet::erodePlanet(planet, config, timer, quiet);
  const geodesy::SphereMesh& mesh = *planet.mesh;
  if (!full && !boxed) {
    if (peak <= 0.0) peak = 20.0;
    const auto top =
        std::max_element(planet.initial_elevation_m.begin(), planet.initial_elevation_m.end()) -
        planet.initial_elevation_m.begin();
    const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(mesh.positions[size_t(top)]));
    const double lat = ll.lat_rad * 180.0 / M_PI, lon = ll.lon_rad * 180.0 / M_PI;
    const double half_lat = 0.5 * peak * 0.62;  // a 16:10 box on the ground
    const double half_lon = 0.5 * peak / std::max(0.2, std::cos(lat * M_PI / 180.0));
    box = {lon - half_lon, lon + half_lon, std::max(-89.0, lat - half_lat),
           std::min(89.0, lat + half_lat)};
    std::printf("box %.2f %.2f %.2f %.2f\n", box.lon0, box.lon1, box.lat0, box.lat1);
  }
  const double ground_ratio =
      (box.lat1 - box.lat0) /
      ((box.lon1 - box.lon0) * std::cos(0.5 * (box.lat0 + box.lat1) * M_PI / 180.0));
  const int height = full ? width / 2 : std::max(16, int(std::lround(width * ground_ratio)));
  const double top_m =
      *std::max_element(planet.initial_elevation_m.begin(), planet.initial_elevation_m.end());
  const struct {
    const char* name;
    const std::vector<float>& h;
  } views[] = {{"before", planet.initial_elevation_m}, {"after", planet.elevation_m}};
  for (const auto& view : views) {
    const std::vector<glm::dvec3> slopes = vertexSlopes(mesh, view.h, config.planet.radius_m);
    std::vector<glm::dvec2> pixel_slopes;
    const std::vector<float> z = sample(mesh, view.h, box, width, height, &slopes, &pixel_slopes);
    for (int k = 0; k < (both ? 2 : 1); ++k) {
      const bool smooth_now = both ? k == 1 : smooth;
      planet_export::writePngRgb8(
          prefix + "_" + view.name + (both && smooth_now ? "_smooth" : "") + ".png",
          shade(z, smooth_now ? pixel_slopes : std::vector<glm::dvec2>{}, width, height, box,
                config.planet.radius_m, planet.sea_level_m, top_m, exaggeration));
    }
    double bins[6] = {}, total = 0.0;
    for (uint32_t v = 0; v < mesh.vertexCount(); ++v) {
      if (view.h[v] < planet.sea_level_m) continue;
      if (mesh.neighbour_offsets[v + 1] - mesh.neighbour_offsets[v] != 6) continue;
      const geodesy::LatLon ll = geodesy::unitToLatLon(glm::dvec3(mesh.positions[v]));
      const double lat = ll.lat_rad * 180.0 / M_PI, lon = ll.lon_rad * 180.0 / M_PI;
      if (lat < box.lat0 || lat > box.lat1 || lon < box.lon0 || lon > box.lon1) continue;
      const double m = glm::length(slopes[v]);
      if (!(m > 0.0)) continue;
      bins[std::min(5, int(latticeAngleDeg(mesh, v, slopes[v]) / 5.0))] += m;
      total += m;
    }
    std::printf("%s slope-to-edge angle (0-30 deg, 5-deg bins, slope-weighted):", view.name);
    for (double b : bins) std::printf(" %.3f", total > 0.0 ? b / total : 0.0);
    std::printf("\n");
  }
  return 0;
}
