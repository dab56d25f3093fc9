#pragma once
// Helpers every test file needs: a temporary folder, a whole file as a string, and a command
// run in a shell with its output captured.

#include <filesystem>
#include <string>
#include <vector>

namespace test_support {

// A fresh, empty folder under the system temp folder, named after `tag`, the process id and a
// counter; removed with everything in it (write permission restored first) when destroyed.
struct TempDir {
  explicit TempDir(const std::string& tag = "planetgen_test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // The names of the entries directly in the folder, sorted.
  std::vector<std::string> names() const;
  // The same for any folder.
  static std::vector<std::string> namesOf(const std::filesystem::path& folder);

  std::filesystem::path path;
};

// The whole file, byte for byte; "" when it cannot be read.
std::string readFile(const std::filesystem::path& path);

struct CommandResult {
  int exit_code = -1;  // 128 + signal number when the command was killed
  std::string output;  // stdout and stderr, interleaved as written
};

// Runs `command` with /bin/sh (popen), stderr joined to stdout.
CommandResult run(const std::string& command);

// Runs the planetgen binary of this build with `args` (a shell word list).
CommandResult runPlanetgen(const std::string& args);

// The path quoted for /bin/sh.
std::string quoted(const std::filesystem::path& path);

// The environment variable `name` split at ';' (empty items dropped); none when it is not set.
// For lists of config overrides such as "erosion.droplets=5;weather.ticks=10", applied the way
// the CLI's --set applies them.
std::vector<std::string> envList(const char* name);

}  // namespace test_support
