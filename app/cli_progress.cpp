#include "app/cli_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/standard_output.h"
#include "planet/detail/displayed_text.h"
#include "planet/stage_progress.h"

namespace app {

namespace {

namespace fs = std::filesystem;

std::string sizeText(uintmax_t bytes) {
  char text[32];
  if (bytes < 1000)
    std::snprintf(text, sizeof text, "%ju B", bytes);
  else if (bytes < 1000'000)
    std::snprintf(text, sizeof text, "%.1f kB", double(bytes) / 1e3);
  else
    std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / 1e6);
  return text;
}

}  // namespace

Progress::Progress(Verbosity verbosity, bool compare)
    : compare_(compare),
      line_(verbosity != Verbosity::kQuiet && isatty(STDERR_FILENO) == 1),
      verbose_(verbosity == Verbosity::kVerbose) {
  if (!line_) return;
  ticker_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!done_) {
      if (!stage_.empty()) draw();
      wake_.wait_for(lock, std::chrono::milliseconds(500));
    }
  });
}

Progress::~Progress() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  if (shown_) std::fputs("\r\033[K", stderr);
}

double Progress::elapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::stage(const std::string& name) {
  std::lock_guard lock(mutex_);
  if (name == "erosion") ++erosion_runs_;
  fraction_ = std::max(fraction_, planet::stageFraction(name, compare_, erosion_runs_));
  stage_ = name;
  if (verbose_) {
    if (shown_) std::fputs("\r\033[K", stderr);
    std::fprintf(stderr, "planetgen: %6.1f s  %s\n", elapsedSeconds(), name.c_str());
    shown_ = false;
  }
  if (line_) draw();
}

void Progress::draw() {
  std::fprintf(stderr, "\r\033[Kplanetgen: [%3d%%] %s  %.1f s", int(fraction_ * 100.0),
               stage_.c_str(), elapsedSeconds());
  std::fflush(stderr);
  shown_ = true;
}

FolderTimes folderTimes(const fs::path& dir) {
  FolderTimes times;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file(ec))
      times[fs::relative(it->path(), dir, ec).string()] = it->last_write_time(ec);
  }
  return times;
}

void printRunSummary(const fs::path& out_dir, const FolderTimes& before, double seconds,
                     int threads) {
  std::vector<std::pair<std::string, uintmax_t>> files;
  uintmax_t total = 0;
  std::error_code ec;
  for (const auto& [name, time] : folderTimes(out_dir)) {
    const auto old = before.find(name);
    if (old != before.end() && old->second == time) continue;
    if (name.front() == '.') continue;  // .planetgen-files: the writer's own record
    const uintmax_t size = fs::file_size(out_dir / name, ec);
    files.emplace_back(name, ec ? 0 : size);
    total += ec ? 0 : size;
  }
  char line[256];
  std::snprintf(line, sizeof line, " in %.1f s on %d thread%s\n", seconds, threads,
                threads == 1 ? "" : "s");
  std::string text =
      "planetgen: wrote " + std::to_string(files.size()) + " file" +
      (files.size() == 1 ? "" : "s") + " (" + sizeText(total) + ") to " +
      planet::detail::displayedText(out_dir.string(), planet::detail::kMaxShownPathChars) + line;
  for (const auto& [name, size] : files) {
    std::snprintf(line, sizeof line, "  %-28s %10s\n", planet::detail::displayedText(name).c_str(),
                  sizeText(size).c_str());
    text += line;
  }
  printToStdout(text);
}

}  // namespace app
