#pragma once
// Atomic file output: data goes to a temporary file in the target's folder, is flushed, and
// is renamed over the target only when complete. A crash or full disk leaves the previous
// file intact and at most a temporary file, which the caller's transaction removes.
//
// Temporary files are hidden and unique per process and call: `.<name>.tmp.<pid>.<counter>`
// next to the target. Every live temporary is also listed in a process-wide registry so that
// removeLiveTemporaries() can delete them from a signal handler.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace planet_export {

// Writes bytes to path atomically: temporary file, every write checked, fsync, rename over
// path, fsync of the folder. Throws std::runtime_error naming the path and the OS error on
// failure (and removes its temporary file); the previous file at path is then untouched.
// Thread-safe for distinct paths.
void writeFileAtomic(const std::filesystem::path& path, std::string_view bytes);

// Groups several outputs: each stage() writes a temporary file; commit() renames them all.
// If commit() is never reached (exception, early return), the destructor removes the
// temporaries, so the output folder keeps exactly what it had before.
// Not thread-safe: one thread drives a transaction (the files themselves may be written by
// any thread through the paths temporaryFor returns).
class OutputTransaction {
 public:
  // The folder must exist; it is not created.
  explicit OutputTransaction(std::filesystem::path folder);
  ~OutputTransaction();
  OutputTransaction(const OutputTransaction&) = delete;
  OutputTransaction& operator=(const OutputTransaction&) = delete;

  // Path of a fresh temporary file for `name` inside the folder; the caller writes it before
  // commit(). `name` is a plain file name (no folder part). Asking again for the same name
  // drops the earlier temporary.
  std::filesystem::path temporaryFor(const std::string& name);
  // Writes bytes to a temporary for `name`, checked and flushed. Throws std::runtime_error
  // naming the final path on failure.
  void stage(const std::string& name, std::string_view bytes);
  // fsyncs every temporary, then renames each over its final name, in staging order, and
  // fsyncs the folder. Throws std::runtime_error naming the final path on failure; files
  // renamed before the failure stay, the others are removed by the destructor.
  void commit();
  const std::filesystem::path& folder() const { return folder_; }

 private:
  std::filesystem::path folder_;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged_;  // tmp, final
  bool committed_ = false;
};

// Deletes every temporary file of this process that is still live (created by
// writeFileAtomic or temporaryFor and neither renamed nor removed yet). Meant for a SIGINT or
// SIGTERM handler before the process exits: it takes no lock and allocates nothing, and only
// calls unlink(2). Best effort: a temporary being registered or released by another thread at
// that instant may be missed. Paths longer than 4095 bytes, or beyond 128 live temporaries,
// are not registered (their transaction still removes them).
void removeLiveTemporaries() noexcept;

// Number of temporaries currently registered (for tests and diagnostics).
size_t liveTemporaryCount();

}  // namespace planet_export
