#pragma once
// Atomic file output: data goes to a temporary file in the target's folder, is flushed, and
// is renamed over the target only when complete. A crash or full disk leaves the previous
// file intact and at most a temporary file, which the caller's transaction removes.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace planet_export {

// Writes bytes to path atomically. Throws std::runtime_error naming the path on failure
// (and removes its temporary file).
void writeFileAtomic(const std::filesystem::path& path, std::string_view bytes);

// Groups several outputs: each stage() writes a temporary file; commit() renames them all.
// If commit() is never reached (exception, early return), the destructor removes the
// temporaries, so the output folder keeps exactly what it had before.
class OutputTransaction {
 public:
  explicit OutputTransaction(std::filesystem::path folder);
  ~OutputTransaction();
  OutputTransaction(const OutputTransaction&) = delete;
  OutputTransaction& operator=(const OutputTransaction&) = delete;

  // Path of a fresh temporary file for `name` inside the folder; the caller writes it.
  std::filesystem::path temporaryFor(const std::string& name);
  void stage(const std::string& name, std::string_view bytes);
  void commit();
  const std::filesystem::path& folder() const { return folder_; }

 private:
  std::filesystem::path folder_;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged_;  // tmp, final
  bool committed_ = false;
};

}  // namespace planet_export
