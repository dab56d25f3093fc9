// Hillshaded crops of a planet's relief before and after erosion, rendered from the mesh itself
// (each pixel's height interpolated on its face), for looking at valleys, ridges and lattice
// artefacts at a vertical exaggeration of choice. Not part of the tool; a picture maker for
// docs/fluvial.md:
//
//   relief_crop CONFIG OUT_PREFIX [--set section.key=value]... [--width PX] [--exaggeration X]
//               [--box LON0 LON1 LAT0 LAT1 | --peak SIZE_DEG | --full]
//
// writes OUT_PREFIX_before.png and OUT_PREFIX_after.png. --peak centres a SIZE_DEG box on the
// noise terrain's highest land (the largest range's interior); --full is the whole planet.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <glm/geometric.hpp>

#include "export/image.h"
#include "export/png_io.h"
#include "geodesy/latlon.h"
#include "planet/config.h"
#include "planet/pipeline.h"

namespace {

struct Box {
  double lon0 = -180, lon1 = 180, lat0 = -90, lat1 = 90;  // degrees
};

// Heights at the pixel centres of box (w x h), interpolated on mesh's faces.
std::vector<float> sample(const geodesy::SphereMesh& mesh, const std::vector<float>& h,
                          const Box& box, int w, int hgt) {
  std::vector<float> out(size_t(w) * size_t(hgt));
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
    }
  }
  return out;
}

planet_export::RgbImage shade(const std::vector<float>& z, int w, int hgt, const Box& box,
                              double radius_m, double sea_m, double top_m, double exaggeration) {
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
      const double gx = (at(x + 1, y) - at(x - 1, y)) / (2 * dx) * exaggeration;
      const double gy = (at(x, y - 1) - at(x, y + 1)) / (2 * dy) * exaggeration;
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
  bool full = false, boxed = false;
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
    const std::vector<float> z = sample(mesh, view.h, box, width, height);
    planet_export::writePngRgb8(prefix + "_" + view.name + ".png",
                                shade(z, width, height, box, config.planet.radius_m,
                                      planet.sea_level_m, top_m, exaggeration));
  }
  return 0;
}
