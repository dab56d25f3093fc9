#pragma once
// The planetgen command line: generate, bench. Returns the process exit code
// (see README.md "Errors and exit codes").

namespace app {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;   // runtime failure (e.g. a write failed)
constexpr int kExitBadInput = 2;  // bad config, option or input file
constexpr int kExitTooLarge = 3;  // refused: the run would not fit in memory

int runCli(int argc, char** argv);

}  // namespace app
