#pragma once
// How far a run is when a stage starts: the pipeline's stage names and their rough shares of
// the default planet's wall time (the front door's progress hook and the CLI's progress line).

#include <string>

namespace planet {

// The share of a run done when `stage` (a StageCallback name: "terrain", "erosion, epoch 2/4",
// ...) starts, in [0, 1); compare erodes twice, so its erosion stages count half each.
// `erosion_runs` is how many "erosion" stages have begun, this one included.
double stageFraction(const std::string& stage, bool compare, int erosion_runs);

}  // namespace planet
