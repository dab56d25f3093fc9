// Streams tiles around a camera that descends from orbit to 2 m above the ground, as a game
// would: the planet is loaded from its file once, a const tile generator is built from it, and
// the game's own worker threads make the tiles each camera position needs. Prints, per camera
// position, the level it asks for and the time each tile took.
//
// usage: tile_stream PLANET_FILE [LAT LON]   (the file savePlanet wrote; default 30 N, 20 E)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include "geodesy/latlon.h"
#include "planet/planetgen.h"

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The tile under the camera and the tiles around it: its neighbours and theirs.
std::vector<tiles::TileId> tilesAround(const tiles::TileGenerator& generator,
                                       const glm::dvec3& direction, int level) {
  const tiles::TileId centre = generator.tileAt(direction, level);
  std::set<uint64_t> keys{tiles::packTileId(centre)};
  for (const auto& a : generator.layout().neighbours(centre)) {
    keys.insert(tiles::packTileId(a.id));
    for (const auto& b : generator.layout().neighbours(a.id)) keys.insert(tiles::packTileId(b.id));
  }
  std::vector<tiles::TileId> out;
  for (uint64_t key : keys) out.push_back(tiles::unpackTileId(key));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 4) {
    std::fprintf(stderr, "usage: tile_stream PLANET_FILE [LAT LON]\n");
    return 2;
  }
  const double lat_deg = argc == 4 ? std::atof(argv[2]) : 30.0;
  const double lon_deg = argc == 4 ? std::atof(argv[3]) : 20.0;
  const glm::dvec3 down = geodesy::latLonToUnit({lat_deg * M_PI / 180.0, lon_deg * M_PI / 180.0});

  Clock::time_point t0 = Clock::now();
  const planetgen::Planet planet = planetgen::loadPlanet(argv[1]);
  std::printf("loaded %s (f = %d) in %.1f ms\n", argv[1], planet.frequency(), msSince(t0));
  t0 = Clock::now();
  const tiles::TileGenerator generator = planetgen::makeTileGenerator(planet);
  std::printf("tile generator built in %.1f ms\n", msSince(t0));

  // The camera descends from 10,000 km to 2 m; at each height it asks for tiles whose lattice
  // step is about a thousandth of its height (never finer than 0.5 m), made by two
  // worker threads of the game's own.
  const unsigned workers = 2;
  for (double altitude_m : {1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 2.0}) {
    const double wanted_m = std::max(altitude_m / 1000.0, 0.5);
    const int level = generator.layout().levelForSpacing(wanted_m, planet.radiusM());
    const std::vector<tiles::TileId> ids = tilesAround(generator, down, level);
    std::vector<double> ms(ids.size());
    std::vector<size_t> vertices(ids.size());
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    t0 = Clock::now();
    for (unsigned w = 0; w < workers; ++w) {
      pool.emplace_back([&] {
        for (size_t k = next++; k < ids.size(); k = next++) {
          const Clock::time_point start = Clock::now();
          const tiles::TileMesh mesh = generator.generate(ids[k]);  // a game uploads it here
          ms[k] = msSince(start);
          vertices[k] = mesh.vertexCount();
        }
      });
    }
    for (std::thread& t : pool) t.join();
    const double wall_ms = msSince(t0);
    std::sort(ms.begin(), ms.end());
    std::printf(
        "camera %10.0f m: level %2d, spacing %.2f m, %2zu tiles (%zu vertices) in %.1f ms on %u "
        "threads; "
        "per tile median %.1f ms, max %.1f ms\n",
        altitude_m, level, generator.layout().levelSpacingRad(level) * planet.radiusM(), ids.size(),
        std::accumulate(vertices.begin(), vertices.end(), size_t(0)), wall_ms, workers,
        ms[ms.size() / 2], ms.back());
  }
}
