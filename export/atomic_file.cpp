#include "export/atomic_file.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "export/file_writer.h"

namespace planet_export {
namespace {

namespace fs = std::filesystem;

// Registry of live temporaries. Fixed slots with inline path storage, so the signal-time
// reader (removeLiveTemporaries) needs neither the mutex nor the heap: it reads a lock-free
// flag and a NUL-terminated string that was complete before the flag was set (release/acquire).
// The mutex only serialises registration and release against each other.
constexpr size_t kMaxLiveTemporaries = 128;
constexpr size_t kMaxPathBytes = 4096;

struct LiveSlot {
  std::atomic<bool> live{false};
  char path[kMaxPathBytes] = {};
};
static_assert(std::atomic<bool>::is_always_lock_free);

std::array<LiveSlot, kMaxLiveTemporaries> g_live_slots;
std::mutex g_live_mutex;
std::atomic<uint64_t> g_temporary_counter{0};

void registerTemporary(const fs::path& path) {
  const std::string& text = path.native();
  if (text.size() >= kMaxPathBytes) return;
  std::lock_guard lock(g_live_mutex);
  for (LiveSlot& slot : g_live_slots) {
    if (slot.live.load(std::memory_order_relaxed)) continue;
    std::memcpy(slot.path, text.c_str(), text.size() + 1);
    slot.live.store(true, std::memory_order_release);
    return;
  }
}

void releaseTemporary(const fs::path& path) {
  std::lock_guard lock(g_live_mutex);
  for (LiveSlot& slot : g_live_slots) {
    if (slot.live.load(std::memory_order_relaxed) && path.native() == slot.path) {
      slot.live.store(false, std::memory_order_release);
      return;
    }
  }
}

// Removes a temporary file (ignoring errors: it may never have been created) and forgets it.
void discardTemporary(const fs::path& path) {
  ::unlink(path.c_str());
  releaseTemporary(path);
}

// Hidden, per-process unique name next to the target: `.<name>.tmp.<pid>.<counter>`.
fs::path temporaryPathFor(const fs::path& target) {
  const uint64_t n = g_temporary_counter.fetch_add(1, std::memory_order_relaxed);
  const std::string name = "." + target.filename().string() + ".tmp." + std::to_string(::getpid()) +
                           "." + std::to_string(n);
  return target.parent_path() / name;
}

std::string errorText(int error) {
  return std::strerror(error);
}

// fsync of a file that someone else wrote, so the rename publishes data that is on disk.
void syncFile(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(path.string() + ": " + errorText(errno));
  const int result = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (result != 0) throw std::runtime_error(path.string() + ": " + errorText(error));
}

// Makes renames in a folder durable. Best effort: some file systems refuse to fsync a folder,
// and the data itself is already safe, so a failure here is not reported.
void syncFolder(const fs::path& folder) {
  const fs::path dir = folder.empty() ? fs::path(".") : folder;
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void renameOver(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::rename(from, to, error);
  if (error) {
    throw std::runtime_error("cannot rename " + from.string() + " to " + to.string() + ": " +
                             error.message());
  }
}

// Writes bytes to a fresh temporary file and syncs it; the caller owns its removal.
void writeTemporary(const fs::path& temporary, std::string_view bytes) {
  FileWriter out(temporary, FileWriter::Create::kExclusive);
  out.write(bytes);
  out.sync();
  out.close();
}

}  // namespace

void writeFileAtomic(const fs::path& path, std::string_view bytes) {
  const fs::path temporary = temporaryPathFor(path);
  registerTemporary(temporary);
  try {
    writeTemporary(temporary, bytes);
    renameOver(temporary, path);
  } catch (const std::exception& e) {
    discardTemporary(temporary);
    throw std::runtime_error("cannot write " + path.string() + ": " + e.what());
  }
  releaseTemporary(temporary);
  syncFolder(path.parent_path());
}

OutputTransaction::OutputTransaction(fs::path folder) : folder_(std::move(folder)) {}

OutputTransaction::~OutputTransaction() {
  for (const auto& [temporary, final_path] : staged_) discardTemporary(temporary);
}

fs::path OutputTransaction::temporaryFor(const std::string& name) {
  if (name.empty() || fs::path(name).filename() != fs::path(name)) {
    throw std::invalid_argument("OutputTransaction: '" + name + "' is not a plain file name");
  }
  const fs::path final_path = folder_ / name;
  const auto earlier = std::find_if(staged_.begin(), staged_.end(),
                                    [&](const auto& entry) { return entry.second == final_path; });
  if (earlier != staged_.end()) {
    discardTemporary(earlier->first);
    staged_.erase(earlier);
  }
  fs::path temporary = temporaryPathFor(final_path);
  registerTemporary(temporary);
  staged_.emplace_back(temporary, final_path);
  return temporary;
}

void OutputTransaction::stage(const std::string& name, std::string_view bytes) {
  const fs::path temporary = temporaryFor(name);
  try {
    writeTemporary(temporary, bytes);
  } catch (const std::exception& e) {
    // A partial temporary must never be committed: drop it here, not only in the destructor.
    discardTemporary(temporary);
    staged_.pop_back();
    throw std::runtime_error("cannot write " + (folder_ / name).string() + ": " + e.what());
  }
}

void OutputTransaction::commit() {
  for (const auto& [temporary, final_path] : staged_) {
    try {
      syncFile(temporary);
    } catch (const std::exception& e) {
      throw std::runtime_error("cannot write " + final_path.string() + ": " + e.what());
    }
  }
  size_t renamed = 0;
  try {
    for (; renamed < staged_.size(); ++renamed) {
      const auto& [temporary, final_path] = staged_[renamed];
      renameOver(temporary, final_path);
      releaseTemporary(temporary);
    }
  } catch (const std::exception& e) {
    const fs::path failed = staged_[renamed].second;
    staged_.erase(staged_.begin(), staged_.begin() + ptrdiff_t(renamed));
    throw std::runtime_error("cannot write " + failed.string() + ": " + e.what());
  }
  staged_.clear();
  committed_ = true;
  syncFolder(folder_);
}

void removeLiveTemporaries() noexcept {
  for (LiveSlot& slot : g_live_slots) {
    if (slot.live.load(std::memory_order_acquire)) ::unlink(slot.path);
  }
}

size_t liveTemporaryCount() {
  std::lock_guard lock(g_live_mutex);
  return size_t(std::count_if(g_live_slots.begin(), g_live_slots.end(), [](const LiveSlot& s) {
    return s.live.load(std::memory_order_relaxed);
  }));
}

}  // namespace planet_export
