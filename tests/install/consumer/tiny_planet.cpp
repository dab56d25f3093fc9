// A small eroded planet written as planet.glb, through the installed library alone.
#include <cstdio>

#include "export/mesh_export.h"
#include "planet/pipeline.h"
#include "planetgen_version.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  planet::Config config;  // every default, on a small icosphere
  config.planet.frequency = 16;
  config.droplets.droplets = 2000;
  planet::StageTimer timer;
  const planet::StageCallback quiet = [](const std::string&) {};
  planet::PlanetState planet = planet::buildPlanet(config, timer, quiet);
  planet::erodePlanet(planet, config, timer, quiet);
  planet_export::writeGlb(argv[1], planet::surfaceOf(planet, config));
  std::printf("tiny_planet: planetgen %s wrote %s\n", planetgen::kVersion, argv[1]);
}
