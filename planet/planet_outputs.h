#pragma once
// The files of a run, summary.json aside: planet.glb and its level files, the OBJ, the maps
// and the engine maps. They do not depend on each other, so each is a oneTBB task on the
// caller's arena (no threads of its own); the maps and heightmaps share the caller's located
// sampling grid. Files are staged in a fixed order whatever the scheduling, and every file's bytes
// are the same at any thread count.

#include "export/planet_surface.h"
#include "io/atomic_file.h"
#include "planet/config.h"
#include "planet/masks_output.h"
#include "planet/pipeline.h"
#include "planet/run_stats.h"

namespace planet {

// Writes every output the config asks for into `out` (not committed), the masks' PNGs and
// masks.json among them when config.output.masks (`masks`: maskLayers' result; surface's
// attributes may point into their values, which a move keeps in place). `surface` is
// surfaceOf(planet, config) with its biomes and land colour set, and surface.equirect the
// located grid of map_width (the caller's, shared with the masks; null: each map locates its
// own). Each output's own wall time goes to timer.addPart (name: its file). Throws what
// a writer throws (std::runtime_error naming the file).
void writeOutputs(const PlanetState& planet, const Config& config,
                  const planet_export::PlanetSurface& surface, std::vector<MaskLayer> masks,
                  io::OutputTransaction& out, StageTimer& timer);

}  // namespace planet
