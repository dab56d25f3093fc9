#pragma once
// `planetgen compare`: one terrain, eroded once with cloud rain and once with uniform rain
// (same droplet budget, same erosion parameters; only the spawn positions differ), then maps,
// globes, metrics.json and report.html side by side.

#include <filesystem>
#include <string>
#include <vector>

#include "planet/config.h"
#include "planet/pipeline.h"

namespace planet {

// Runs the comparison and writes every file into out_dir, all or nothing. Returns the output
// transaction's warnings for the user (OutputTransaction::warnings).
std::vector<std::string> runCompare(const Config& config, const std::filesystem::path& out_dir,
                                    int threads, const StageCallback& on_stage);

}  // namespace planet
