#pragma once
// What `planetgen generate` and `compare` tell the user while and after they run: a progress
// line with percentage and elapsed time (stderr, only on a terminal), one line per stage with
// --verbose, and a closing summary of the files written (stdout) unless --quiet.

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace app {

enum class Verbosity { kQuiet, kNormal, kVerbose };

// The progress line: "planetgen: [ 42%] erosion, epoch 2/4  12.3 s", rewritten in place twice
// a second by its own thread while stderr is a terminal and not --quiet; with --verbose one
// line per stage as it starts (any stderr). Wiped when destroyed. Not thread-safe: stage() is
// called from the run's thread only.
class Progress {
 public:
  Progress(Verbosity verbosity, bool compare);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void stage(const std::string& name);
  double elapsedSeconds() const;

 private:
  void draw();  // with mutex_ held

  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  const bool compare_;
  const bool line_;     // the in-place line: stderr is a terminal and not quiet
  const bool verbose_;  // one line per stage
  int erosion_runs_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  bool shown_ = false;
  std::string stage_;
  double fraction_ = 0.0;
  std::thread ticker_;
};

// Path (relative to the folder) -> last write time of every file under a folder; empty when
// the folder does not exist.
using FolderTimes = std::map<std::string, std::filesystem::file_time_type>;
FolderTimes folderTimes(const std::filesystem::path& dir);

// The closing summary on stdout: "planetgen: wrote 9 files (41.2 MB) to out/default in 12.4 s
// on 2 threads", then one line per file that is new or rewritten since `before`, sorted by
// name, with its size. Throws std::runtime_error if standard output cannot take it.
void printRunSummary(const std::filesystem::path& out_dir, const FolderTimes& before,
                     double seconds, int threads);

}  // namespace app
