// Generates the default planet with the planetgen library and writes its files.
#include <cstdio>
#include <string>

#include "planet/planetgen.h"

int main(int argc, char** argv) {
  // usage: planet_from_code OUT_DIR
  if (argc != 2) return 2;
  const planetgen::Config config = planetgen::defaultConfig();  // configs/default.toml
  planetgen::GenerateOptions options;
  options.on_progress = [](std::string_view stage, double done) {
    std::printf("%3.0f%% %.*s\n", 100 * done, int(stage.size()), stage.data());
  };
  const planetgen::Planet planet = planetgen::generate(config, options);
  planetgen::writeOutputs(planet, argv[1]);  // planet.glb, maps, summary.json, ...
  planetgen::savePlanet(planet, std::string(argv[1]) + ".planet");  // for a game to load
  std::printf("elevation hash %s\n", planet.elevationHash().c_str());
}
