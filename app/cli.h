#pragma once
// The planetgen command line: generate, bench. Returns the process exit code
// (see README.md "Errors and exit codes").

#include <span>
#include <string>

#include "planet/config.h"

namespace app {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;   // runtime failure (e.g. a write failed)
constexpr int kExitBadInput = 2;  // bad config, option or input file
constexpr int kExitTooLarge = 3;  // refused: the run would not fit in memory

int runCli(int argc, char** argv);

// What a command's errors name as its config: the file given, or the built-in default's name
// when none is.
std::string configOrigin(const std::string& config_file);
// A command's config: the file given, or the built-in default when none is, with its --set
// overrides. Throws planet::ConfigError.
planet::Config loadCommandConfig(const std::string& config_file,
                                 std::span<const std::string> overrides);

}  // namespace app
