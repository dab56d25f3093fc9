#pragma once
// `planetgen compare`: one terrain, eroded once with cloud rain and once with uniform rain
// (same droplet budget, same erosion parameters; only the spawn positions differ), then maps,
// globes, metrics.json and report.html side by side.

#include <filesystem>

#include "planet/config.h"
#include "planet/pipeline.h"

namespace planet {

struct CompareOptions {
  int globe_size_px = 512;
  int globe_views = 3;          // viewpoints spread evenly in longitude
  double globe_lat_deg = 25.0;  // latitude of every viewpoint
};

// Runs the comparison and writes every file into out_dir, all or nothing.
void runCompare(const Config& config, const CompareOptions& options,
                const std::filesystem::path& out_dir, int threads, const StageCallback& on_stage);

}  // namespace planet
