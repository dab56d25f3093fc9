#include "io/atomic_file.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "io/detail/unique_fd.h"
#include "io/detail/write_fully.h"
#include "io/file_writer.h"

namespace io {
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
  bool folder = false;  // a staging folder: removed (rmdir) after the files
  char path[kMaxPathBytes] = {};
};
static_assert(std::atomic<bool>::is_always_lock_free);

std::array<LiveSlot, kMaxLiveTemporaries> g_live_slots;
std::mutex g_live_mutex;
std::atomic<uint64_t> g_temporary_counter{0};

void registerTemporary(const fs::path& path, bool folder = false) {
  const std::string& text = path.native();
  if (text.size() >= kMaxPathBytes) return;
  std::lock_guard lock(g_live_mutex);
  for (LiveSlot& slot : g_live_slots) {
    if (slot.live.load(std::memory_order_relaxed)) continue;
    std::memcpy(slot.path, text.c_str(), text.size() + 1);
    slot.folder = folder;
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

// Test hooks (tests/app/fault_test.cpp, tests/io/output_folder_test.cpp):
// PLANETGEN_KILL_AT_COMMIT_STEP=k sends SIGKILL to the process just before the k-th change a
// commit makes to the file system (1-based, counted from the start of each commit), to check
// that every instant of a commit leaves a complete run behind; PLANETGEN_TERM_AT_COMMIT_STEP=k
// sends SIGTERM there (which the CLI holds until the commit ends). Read at the start of each
// commit; unset: no effect.
struct CommitSteps {
  long kill_at = 0, term_at = 0, done = 0;
};
CommitSteps g_commit_steps;

void startCommitSteps() {
  const auto stepOf = [](const char* name) {
    const char* text = std::getenv(name);
    return text != nullptr ? std::atol(text) : 0L;
  };
  g_commit_steps = {stepOf("PLANETGEN_KILL_AT_COMMIT_STEP"),
                    stepOf("PLANETGEN_TERM_AT_COMMIT_STEP"), 0};
}

void commitStep() {
  const long now = ++g_commit_steps.done;
  if (g_commit_steps.kill_at > 0 && now == g_commit_steps.kill_at) std::raise(SIGKILL);
  if (g_commit_steps.term_at > 0 && now == g_commit_steps.term_at) std::raise(SIGTERM);
}

struct Entry {
  std::string name;
  bool folder = false;
};

// The entries of an open folder, without "." and "..".
std::vector<Entry> listEntries(int dir_fd) {
  std::vector<Entry> entries;
  const int copy = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (copy < 0) return entries;
  DIR* dir = ::fdopendir(copy);
  if (dir == nullptr) {
    ::close(copy);
    return entries;
  }
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    bool folder = e->d_type == DT_DIR;
    if (e->d_type == DT_UNKNOWN) {
      struct stat info {};
      folder =
          ::fstatat(dir_fd, e->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(info.st_mode);
    }
    entries.push_back({name, folder});
  }
  ::closedir(dir);
  return entries;
}

// The whole of file `name` in a folder, if it is a regular file (not a link) of at most 1 MiB.
std::optional<std::string> readSmallFile(int dir_fd, const char* name) {
  const UniqueFd file(::openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (file.fd < 0) return std::nullopt;
  struct stat info {};
  if (::fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size > (1 << 20))
    return std::nullopt;
  std::string text(size_t(info.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(file.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += size_t(n);
  }
  text.resize(got);
  return text;
}

// The names a folder's manifest lists; nullopt if it has none.
std::optional<std::set<std::string>> readManifest(int dir_fd) {
  const std::optional<std::string> manifest = readSmallFile(dir_fd, kManifestName);
  if (!manifest) return std::nullopt;
  const std::string& text = *manifest;
  std::set<std::string> names;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    if (end > start) names.insert(text.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

void writeManifest(int dir_fd, const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += name + "\n";
  const UniqueFd file(
      ::openat(dir_fd, kManifestName, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (file.fd < 0) throw std::runtime_error(std::string(kManifestName) + ": " + errorText(errno));
  int error = 0;
  writeFully(file.fd, text.data(), text.size(), error);
  if (error != 0) throw std::runtime_error(std::string(kManifestName) + ": " + errorText(error));
  if (::fsync(file.fd) != 0)
    throw std::runtime_error(std::string(kManifestName) + ": " + errorText(errno));
}

bool startsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}
bool endsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What a folder without a manifest (written before manifests existed) counts as the tool's.
bool legacyOutput(const std::string& name, const std::set<std::string>& this_run) {
  return this_run.count(name) || name == "planet.obj" || name == "planet.mtl" ||
         (startsWith(name, "planet_lod") && endsWith(name, ".glb")) ||
         (startsWith(name, "cube_") && endsWith(name, ".png"));
}

// Whether a folder without a manifest holds an earlier run of this tool (from before
// manifests): a summary.json that names planetgen as its generator, or compare's metrics.json
// beside its report.html. Otherwise nothing in it is the tool's: a folder the user points
// --out at for the first time keeps all of its files.
bool earlierRunOfTool(int dir_fd) {
  const auto exists = [&](const char* name) {
    struct stat info {};
    return ::fstatat(dir_fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(info.st_mode);
  };
  if (exists("metrics.json") && exists("report.html")) return true;
  const std::optional<std::string> summary = readSmallFile(dir_fd, "summary.json");
  return summary && summary->find("\"generator\": \"planetgen\"") != std::string::npos;
}

// The tool's own bookkeeping files in a folder it manages.
bool bookkeeping(const std::string& name) {
  return name == kManifestName || name == kStagingMarkerName;
}

// Moves the user's entries (those `tool` does not list) from one folder into another where
// that name is free. Best effort: an entry that cannot move stays where it was.
void moveBackUserEntries(int from_fd, const std::set<std::string>& tool, int to_fd,
                         bool count_steps) {
  for (const Entry& e : listEntries(from_fd)) {
    if (bookkeeping(e.name) || tool.count(e.name)) continue;
    if (count_steps) commitStep();
    ::renameat2(from_fd, e.name.c_str(), to_fd, e.name.c_str(), RENAME_NOREPLACE);
  }
}

// Whether entry `name` of folder a is the same file as entry `name` of folder b (a hard link
// made before the swap).
bool sameFile(int a_fd, int b_fd, const std::string& name) {
  struct stat a {};
  struct stat b {};
  return ::fstatat(a_fd, name.c_str(), &a, AT_SYMLINK_NOFOLLOW) == 0 &&
         ::fstatat(b_fd, name.c_str(), &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

// Deletes `name` in parent, a previous output folder swapped out (or a leftover of one), after
// its user entries were moved back: the files `tool` lists, the user's files the output folder
// (target_fd, -1 if none) holds as the same file, then the manifest and the marker. Anything
// else is the user's (an entry that could not move back: a name the new run now uses, a folder
// that may not change parent) and stays, and so does the folder with its manifest and marker:
// returns false then.
bool discardSwappedOut(int parent_fd, const std::string& name, int folder_fd,
                       const std::set<std::string>& tool, int target_fd) {
  bool only_bookkeeping = true;
  for (const Entry& e : listEntries(folder_fd)) {
    if (bookkeeping(e.name)) continue;
    const bool ours = !e.folder && tool.count(e.name);
    if ((ours || (!e.folder && target_fd >= 0 && sameFile(folder_fd, target_fd, e.name))) &&
        ::unlinkat(folder_fd, e.name.c_str(), 0) == 0)
      continue;
    only_bookkeeping = false;
  }
  // The manifest and the marker go last: while the folder stays, they tell the next recovery
  // that it is the tool's and what in it is whose.
  if (!only_bookkeeping) return false;
  ::unlinkat(folder_fd, kManifestName, 0);
  ::unlinkat(folder_fd, kStagingMarkerName, 0);
  return ::unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) == 0;
}

// The warning for a swapped-out folder that had to stay.
std::string keptWarning(const fs::path& kept, const fs::path& target) {
  return "kept " + kept.string() +
         ": it holds entries of yours that could not be moved back into " + target.string() +
         " (a name this run writes, or a folder that may not be moved); move them "
         "yourself, then delete it";
}

// The warning for a folder named like a staging folder that the tool cannot prove its own.
std::string foreignWarning(const fs::path& folder) {
  return "left " + folder.string() +
         " alone: it is named like this tool's staging folder, but its marker (" +
         kStagingMarkerName +
         ") does not prove that this tool made it; rename it, or delete it if it is not yours";
}

std::string stagingPrefix(const std::string& name) {
  return "." + name + ".planetgen.";
}

// 16 hex digits from the kernel's random source (a clock and a counter if it fails: the token
// tells the tool's folders apart, it guards no secret).
std::string randomToken() {
  uint64_t value = 0;
  if (::getrandom(&value, sizeof value, GRND_NONBLOCK) != ssize_t(sizeof value)) {
    value = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^
            (uint64_t(::getpid()) << 40) ^ g_temporary_counter.fetch_add(1);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// The marker's text for the open folder `dir_fd` when it sits at `name` beside the output
// folder: its name (which ends in the random token) and its device and inode, so that a
// folder copied, or renamed by the user to another name of the pattern, is not taken for it.
std::optional<std::string> markerText(int dir_fd, const std::string& name) {
  struct stat info {};
  if (::fstat(dir_fd, &info) != 0) return std::nullopt;
  return std::string(kStagingMarkerText) + "\nname " + name + "\nfolder " +
         std::to_string(uint64_t(info.st_dev)) + ":" + std::to_string(uint64_t(info.st_ino)) + "\n";
}

// Writes the marker into the open folder `dir_fd`, which sits (or is about to sit) at `name`.
void writeMarker(int dir_fd, const std::string& name) {
  const std::optional<std::string> text = markerText(dir_fd, name);
  const UniqueFd file(::openat(dir_fd, kStagingMarkerName,
                               O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
  int error = text ? 0 : errno;
  if (file.fd < 0) error = errno;
  if (error == 0) writeFully(file.fd, text->data(), text->size(), error);
  if (error == 0 && ::fsync(file.fd) != 0) error = errno;
  if (error != 0)
    throw std::runtime_error(std::string(kStagingMarkerName) + ": " + errorText(error));
}

// Whether the open folder `dir_fd`, found at `name`, is one this tool made: its marker is a
// regular file (not a link) that names exactly this folder, by name and by device and inode.
bool provenOwn(int dir_fd, const std::string& name) {
  const std::optional<std::string> marker = readSmallFile(dir_fd, kStagingMarkerName);
  const std::optional<std::string> expected = markerText(dir_fd, name);
  return marker && expected && *marker == *expected;
}

// Staging folders of dead runs beside `name` in `parent`: user entries back, then deleted.
// Only a folder the tool can prove its own (provenOwn) is touched; any other folder of that
// name pattern is left as it is, with a warning, unless it is empty (rmdir removes nothing
// else; a run killed between the staging folder's mkdir and its marker leaves one). Returns a
// warning for each folder that had to stay (see discardSwappedOut).
std::vector<std::string> recoverLeftovers(const fs::path& parent, const std::string& name) {
  std::vector<std::string> warnings;
  const UniqueFd parent_fd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent_fd.fd < 0) return warnings;
  for (const Entry& e : listEntries(parent_fd.fd)) {
    if (!e.folder || !startsWith(e.name, stagingPrefix(name))) continue;
    // Another live process's (its pid is in the name): it may not hold its flock yet, between
    // the staging folder's mkdir and its open (a newcomer's review). This process's own are
    // told apart by their flock alone.
    const long pid = std::atol(e.name.c_str() + stagingPrefix(name).size());
    if (pid > 0 && pid != long(::getpid()) && (::kill(pid_t(pid), 0) == 0 || errno != ESRCH))
      continue;
    const UniqueFd leftover(
        ::openat(parent_fd.fd, e.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (leftover.fd < 0 || ::flock(leftover.fd, LOCK_EX | LOCK_NB) != 0) continue;  // live
    if (!provenOwn(leftover.fd, e.name)) {
      if (::unlinkat(parent_fd.fd, e.name.c_str(), AT_REMOVEDIR) != 0)
        warnings.push_back(foreignWarning(parent / e.name));
      continue;
    }
    // With a manifest it may be a previous folder swapped out (it holds the user's entries
    // not yet moved back); without one it is a staging folder killed before its commit, which
    // holds only this tool's files.
    if (const auto tool = readManifest(leftover.fd)) {
      const UniqueFd target(
          ::openat(parent_fd.fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (target.fd >= 0) moveBackUserEntries(leftover.fd, *tool, target.fd, false);
      if (!discardSwappedOut(parent_fd.fd, e.name, leftover.fd, *tool, target.fd))
        warnings.push_back(keptWarning(parent / e.name, parent / name));
      continue;
    }
    std::error_code ignored;
    fs::remove_all(parent / e.name, ignored);
  }
  return warnings;
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

std::string outputFolderProblem(const fs::path& folder) {
  if (folder.empty()) return "is empty";
  std::error_code error;
  const fs::path path = fs::absolute(folder, error).lexically_normal();
  if (error) return error.message();
  const fs::file_status link = fs::symlink_status(path, error);
  if (fs::is_symlink(link)) {
    const fs::file_status target = fs::status(path, error);
    if (!fs::exists(target)) return "is a dangling symbolic link";
    if (!fs::is_directory(target)) return "is a symbolic link to something that is not a folder";
  } else if (fs::exists(link) && !fs::is_directory(link)) {
    return "exists and is not a folder";
  }
  fs::path real = fs::weakly_canonical(path, error);
  if (error) return error.message();
  if (!real.has_filename()) real = real.parent_path();
  if (real == real.root_path()) return "is the root folder (the run replaces its output folder)";
  // The run writes beside the folder (the staging folder) and may create missing parents.
  fs::path existing = real.parent_path();
  while (!existing.empty() && !fs::exists(existing, error)) {
    if (existing == existing.parent_path()) break;
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, error)) return "has a parent that is not a folder";
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    return "cannot be written: " + existing.string() + ": " + errorText(errno);
  }
  // What access() cannot tell (/proc, /sys, a name too long for the staging folder's): make
  // and remove a folder named like the staging folder where it will be.
  const fs::path probe =
      existing / (stagingPrefix(real.filename().string()) + std::to_string(::getpid()) + ".probe");
  if (::mkdir(probe.c_str(), 0700) != 0) {
    const int e = errno;
    return e == ENAMETOOLONG ? "has a name too long for the run's staging folder beside it (" +
                                   probe.filename().string().substr(0, 40) + "...)"
                             : "cannot be written: " + existing.string() + ": " + errorText(e);
  }
  ::rmdir(probe.c_str());
  // The run replaces the folder by a rename, which a mount point cannot take part in.
  struct stat here {};
  struct stat above {};
  if (::stat(real.c_str(), &here) == 0 && ::stat(real.parent_path().c_str(), &above) == 0 &&
      here.st_dev != above.st_dev)
    return "is a mount point (the run replaces its output folder; write into a folder inside it)";
  // A folder that is there already is swapped out and emptied (the user's entries move back
  // into the new one), which needs write access to it too.
  if (fs::is_directory(real, error)) {
    if (::access(real.c_str(), W_OK | X_OK) != 0)
      return "cannot be written: " + real.string() + ": " + errorText(errno);
    // The user's folders in it move into the new folder, which needs write access to each
    // (its ".." changes).
    for (const fs::directory_entry& entry : fs::directory_iterator(real, error)) {
      if (entry.is_directory(error) && !entry.is_symlink(error) &&
          ::access(entry.path().c_str(), W_OK) != 0) {
        return "holds a folder the run cannot move into its new output folder: " +
               entry.path().string() + ": " + errorText(errno);
      }
    }
  }
  return "";
}

OutputTransaction::OutputTransaction(fs::path folder) : folder_(std::move(folder)) {
  const std::string problem = outputFolderProblem(folder_);
  if (!problem.empty()) throw std::runtime_error(folder_.string() + " " + problem);
  std::error_code error;
  target_ = fs::weakly_canonical(fs::absolute(folder_), error);
  if (error) throw std::runtime_error(folder_.string() + ": " + error.message());
  if (!target_.has_filename()) target_ = target_.parent_path();
  const fs::path parent = target_.parent_path();
  for (fs::path p = parent; !fs::exists(p, error) && p != p.parent_path(); p = p.parent_path())
    created_parents_.insert(created_parents_.begin(), p);
  for (const fs::path& p : created_parents_) {
    if (!fs::create_directory(p, error) && error) {
      throw std::runtime_error("cannot create " + p.string() + ": " + error.message());
    }
  }
  warnings_ = recoverLeftovers(parent, target_.filename().string());
  const auto undoParents = [&] {
    for (auto p = created_parents_.rbegin(); p != created_parents_.rend(); ++p) ::rmdir(p->c_str());
  };
  // The name ends in a random token, which the marker repeats: a folder of the user's that
  // happens to match the pattern is never taken for this one (and mkdir never takes it over).
  int made = -1, e = 0;
  for (int attempt = 0; attempt < 8 && made != 0; ++attempt) {
    staging_ = parent / (stagingPrefix(target_.filename().string()) + std::to_string(::getpid()) +
                         "." + randomToken());
    made = ::mkdir(staging_.c_str(), 0777);
    e = errno;
    if (made != 0 && e != EEXIST) break;
  }
  if (made != 0) {
    undoParents();
    throw std::runtime_error("cannot create " + staging_.string() + ": " + errorText(e));
  }
  registerTemporary(staging_, true);
  staging_fd_ = ::open(staging_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  try {
    if (staging_fd_ < 0) throw std::runtime_error(errorText(errno));
    ::flock(staging_fd_, LOCK_EX);  // "live" for other runs' recovery
    writeMarker(staging_fd_, staging_.filename().string());
  } catch (const std::exception& failure) {
    if (staging_fd_ >= 0) ::close(staging_fd_);
    staging_fd_ = -1;
    std::error_code ignored;
    fs::remove_all(staging_, ignored);
    releaseTemporary(staging_);
    undoParents();
    throw std::runtime_error("cannot create " + staging_.string() + ": " + failure.what());
  }
}

OutputTransaction::~OutputTransaction() {
  if (!committed_) {
    for (const std::string& name : names_) discardTemporary(staging_ / name);
    std::error_code ignored;
    fs::remove_all(staging_, ignored);
    releaseTemporary(staging_);
    for (auto p = created_parents_.rbegin(); p != created_parents_.rend(); ++p) ::rmdir(p->c_str());
  }
  if (staging_fd_ >= 0) ::close(staging_fd_);
}

fs::path OutputTransaction::temporaryFor(const std::string& name) {
  if (name.empty() || name[0] == '.' || fs::path(name).filename() != fs::path(name)) {
    throw std::invalid_argument("OutputTransaction: '" + name + "' is not a plain file name");
  }
  const fs::path path = staging_ / name;
  const auto earlier = std::find(names_.begin(), names_.end(), name);
  if (earlier != names_.end()) {
    discardTemporary(path);
    names_.erase(earlier);
  }
  registerTemporary(path);
  names_.push_back(name);
  return path;
}

void OutputTransaction::stage(const std::string& name, std::string_view bytes) {
  const fs::path temporary = temporaryFor(name);
  try {
    writeTemporary(temporary, bytes);
  } catch (const std::exception& e) {
    // A partial file must never be committed: drop it here, not only in the destructor.
    discardTemporary(temporary);
    names_.pop_back();
    throw std::runtime_error("cannot write " + (target_ / name).string() + ": " + e.what());
  }
}

std::vector<std::string> OutputTransaction::names() const {
  return names_;
}

void OutputTransaction::commit() {
  startCommitSteps();
  const std::set<std::string> this_run(names_.begin(), names_.end());
  const std::string name = target_.filename().string();
  const fs::path parent = target_.parent_path();
  try {
    for (const std::string& n : names_) syncFile(staging_ / n);
    writeManifest(staging_fd_, this_run);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot write into " + target_.string() + ": " + e.what());
  }
  ::fsync(staging_fd_);
  const UniqueFd parent_fd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent_fd.fd < 0) throw std::runtime_error(parent.string() + ": " + errorText(errno));
  const std::string staging_name = staging_.filename().string();
  const auto fail = [&](const char* what) {
    throw std::runtime_error(std::string("cannot ") + what + " " + target_.string() + ": " +
                             errorText(errno));
  };

  const UniqueFd old(
      ::openat(parent_fd.fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  std::set<std::string> old_tool;
  if (old.fd < 0) {
    if (errno != ENOENT) fail("open");
    // A new folder: it appears complete, in one rename.
    commitStep();
    if (::renameat2(parent_fd.fd, staging_name.c_str(), parent_fd.fd, name.c_str(),
                    RENAME_NOREPLACE) != 0)
      fail("create");
    commitStep();
    ::unlinkat(staging_fd_, kStagingMarkerName, 0);  // the folder is no longer a staging folder
  } else {
    struct stat info {};
    if (::fstat(old.fd, &info) == 0) ::fchmod(staging_fd_, info.st_mode & 07777);
    bool wrote_manifest = false;  // into the user's folder: taken out again if the swap fails
    if (const auto manifest = readManifest(old.fd)) {
      old_tool = *manifest;
    } else {
      const bool earlier_run = earlierRunOfTool(old.fd);
      for (const Entry& e : listEntries(old.fd))
        if (!e.folder && earlier_run && legacyOutput(e.name, this_run)) old_tool.insert(e.name);
      // Recorded in the folder itself so that, if this run is killed after the swap, the
      // next run's recovery can tell the user's entries from the tool's.
      commitStep();
      try {
        writeManifest(old.fd, old_tool);
        wrote_manifest = true;
      } catch (const std::exception&) {
        ::unlinkat(old.fd, kManifestName, 0);
        fail("record the files of");
      }
    }
    // The folder is marked as the tool's under the name the swap gives it, so that if this
    // run is killed after the swap, the next run's recovery may empty it.
    commitStep();
    try {
      writeMarker(old.fd, staging_name);
    } catch (const std::exception& e) {
      ::unlinkat(old.fd, kStagingMarkerName, 0);
      if (wrote_manifest) ::unlinkat(old.fd, kManifestName, 0);
      throw std::runtime_error("cannot write into " + target_.string() + ": " + e.what());
    }
    // The user's files are in both folders from here on, so they never disappear.
    for (const Entry& e : listEntries(old.fd)) {
      if (e.folder || bookkeeping(e.name) || old_tool.count(e.name) || this_run.count(e.name))
        continue;
      commitStep();
      ::linkat(old.fd, e.name.c_str(), staging_fd_, e.name.c_str(), 0);
    }
    commitStep();
    if (::renameat2(parent_fd.fd, staging_name.c_str(), parent_fd.fd, name.c_str(),
                    RENAME_EXCHANGE) != 0) {
      const int error = errno;
      ::unlinkat(old.fd, kStagingMarkerName, 0);
      if (wrote_manifest) ::unlinkat(old.fd, kManifestName, 0);
      errno = error;
      fail("replace");
    }
    commitStep();
    ::unlinkat(staging_fd_, kStagingMarkerName, 0);  // now the output folder
  }
  // Committed: the staging path now holds the previous folder (or nothing).
  committed_ = true;
  for (const std::string& n : names_) releaseTemporary(staging_ / n);
  releaseTemporary(staging_);
  if (old.fd >= 0) {
    // What the swap put at the staging path: the folder opened above, unless another run
    // committed into the same output folder in between; then that run's folder, which its own
    // manifest describes (the folder opened above is that run's to empty).
    const UniqueFd swapped(::openat(parent_fd.fd, staging_name.c_str(),
                                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    const UniqueFd now(
        ::openat(parent_fd.fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (swapped.fd >= 0) {
      const std::set<std::string> tool = readManifest(swapped.fd).value_or(old_tool);
      if (now.fd >= 0) moveBackUserEntries(swapped.fd, tool, now.fd, true);
      commitStep();
      if (!discardSwappedOut(parent_fd.fd, staging_name, swapped.fd, tool, now.fd))
        warnings_.push_back(keptWarning(staging_, target_));
    }
  }
  ::fsync(parent_fd.fd);
}

namespace {

// Unlinks every entry of a staging folder, with system calls only (async-signal-safe): the
// folder holds only this run's files until its commit, which runs with signals held.
void emptyStagingFolder(const char* path) noexcept {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buffer[4096];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
      unsigned short length = 0;
      std::memcpy(&length, buffer + at + 16, sizeof length);
      const char* name = buffer + at + 19;
      if (!(name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))))
        ::unlinkat(fd, name, 0);
      at += length;
    }
  }
  ::close(fd);
}

}  // namespace

void removeLiveTemporaries() noexcept {
  for (const bool folders : {false, true}) {
    for (LiveSlot& slot : g_live_slots) {
      if (!slot.live.load(std::memory_order_acquire) || slot.folder != folders) continue;
      if (!folders) {
        ::unlink(slot.path);
        continue;
      }
      // A writer on another thread may create a file between the unlinks above and here
      // (a tester saw 3 in 40 SIGTERMs leave a staging folder with an empty PNG): empty the
      // folder itself, a few times if it keeps filling.
      for (int attempt = 0; ::rmdir(slot.path) != 0 && errno == ENOTEMPTY && attempt < 4; ++attempt)
        emptyStagingFolder(slot.path);
    }
  }
}

size_t liveTemporaryCount() {
  std::lock_guard lock(g_live_mutex);
  return size_t(std::count_if(g_live_slots.begin(), g_live_slots.end(), [](const LiveSlot& s) {
    return s.live.load(std::memory_order_relaxed);
  }));
}

}  // namespace io
