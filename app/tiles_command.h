#pragma once
// `planetgen tiles`: bake the tiles of a region of a planet into a folder as an OGC 3D Tiles
// tileset with per-tile heightmaps (planet/tile_bake.h, docs/tiles.md):
//   planetgen tiles [--config FILE] [--planet FILE] --center LAT,LON --radius-km R
//                   --spacing-m S --out DIR [--shard K/N] [--threads N] [--tile-edge T]
//                   [--compare-rain]
// With --compare-rain it writes, instead of a tileset, the region's finest tiles eroded under the
// planet's rain and under uniform rain, side by side (planet/tile_compare.h).
// The planet comes from a planet file (--planet; with --config too, the file must have been made
// from that config), or is generated from --config (the built-in default without either).

#include <string>
#include <vector>

#include "app/cli_progress.h"

namespace CLI {
class App;
}

namespace app {

struct TilesArgs {
  std::string config_file;
  std::string planet_file;
  std::string center;
  std::string radius_km;
  std::string spacing_m;
  std::string out_dir;
  std::string shard;
  std::string threads;
  std::string tile_edge;
  std::vector<std::string> overrides;  // --set section.key=value
  bool compare_rain = false;
};

// The arguments with "--center -33.9,18.4" (and --radius-km, --spacing-m followed by a value
// that starts with a minus sign and a digit) joined into "--center=-33.9,18.4": the command-line
// parser would take the value for an option of its own (southern latitudes, western
// longitudes).
std::vector<std::string> joinNegativeValues(std::vector<std::string> args);

// Adds the subcommand to app; its options fill args.
CLI::App* addTilesCommand(CLI::App& app, TilesArgs& args);

// Runs it. Every check of the arguments comes before any work or output: bad input prints one
// message naming the flag, the value and what is allowed, and returns 2 with nothing written.
int runTiles(const TilesArgs& args, Verbosity verbosity);

}  // namespace app
