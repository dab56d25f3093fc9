#pragma once
// The built-in default config: configs/default.toml as it was when planetgen was built
// (embedded by CMake), used when `planetgen generate` or `compare` gets no --config.

#include <string_view>

namespace planet {

// Where a run's config came from, as error messages and summary.json name it.
inline constexpr std::string_view kDefaultConfigOrigin = "<built-in configs/default.toml>";

// The text of configs/default.toml. Never empty.
std::string_view defaultConfigText();

}  // namespace planet
