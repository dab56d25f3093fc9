#pragma once
// Atomic output, two ways:
//  - OutputTransaction (the run's output folder): every file of a run is written under its
//    final name into a hidden staging folder beside the output folder, which one rename swaps
//    in at commit (below); what is the user's and what the tool's is decided there.
//  - writeFileAtomic (one file): data goes to a hidden temporary `.<name>.tmp.<pid>.<counter>`
//    next to the target and is renamed over it only when complete.
// Every live temporary and staging folder is listed in a process-wide registry so that
// removeLiveTemporaries() can delete them from a signal handler.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace io {

// Writes bytes to path atomically: temporary file, every write checked, fsync, rename over
// path, fsync of the folder. Throws std::runtime_error naming the path and the OS error on
// failure (and removes its temporary file); the previous file at path is then untouched.
// Thread-safe for distinct paths.
void writeFileAtomic(const std::filesystem::path& path, std::string_view bytes);

// Writes a whole run into a folder, all or nothing at every instant, even under SIGKILL.
//
// The run is written into a hidden staging folder beside the output folder,
// `.<name>.planetgen.<pid>.<token>` (16 random hex digits). commit() swaps the two folders with one
// renameat2(RENAME_EXCHANGE) (or, for a new output folder, renames the staging folder into
// place with RENAME_NOREPLACE), so the output path shows either the complete previous set or
// the complete new set, never a mix. Entries of the folder that no run of the tool wrote (the
// user's own files and folders) are kept: before the swap every such file is hard-linked into
// the staging folder; after it, the rest (folders, or files created meanwhile) are moved back;
// then the previous folder is deleted, except for what could not move back (a user's folder
// that may not change parent, a name the new run writes): that stays in the hidden folder, with
// a warning (warnings()), never deleted. Which entries the tool wrote is recorded in a manifest,
// `.planetgen-files` (one name a line), in the folder itself; files the previous run wrote
// that this run does not are thereby dropped. A folder without a manifest counts the names this
// run writes and planet.obj, planet.mtl, planet_lod*.glb and cube_*.png as the tool's only if
// it holds an earlier run of the tool (earlierRunOfTool: its summary.json, or compare's files);
// in any other folder nothing is the tool's.
//
// A killed run leaves at most its staging folder (or the previous folder, if the kill fell
// after the swap); each transaction first recovers the leftovers of dead runs beside its output
// folder: entries the leftover's manifest does not list are the user's and go back into the
// output folder if absent there, then the leftover is deleted. Only a folder the tool can prove
// it made is touched: the staging folder's name ends in a random token, and a marker file,
// `.planetgen-staging`, written into it at creation (and into the previous folder before the
// swap) names the folder by that name and by its device and inode. A folder of the pattern
// without a matching marker is the user's: it is left as it is, with a warning (an empty one
// is removed). A live run's staging folder is recognised by the flock its transaction holds on
// it, and left alone.
//
// Limits: the output folder must be on the same file system as its parent (not a mount point:
// outputFolderProblem refuses one; the swap would fail with EXDEV or EBUSY); a user's folder
// inside the output folder is absent for the moment between the swap and its move back (and, if
// the run is killed in that moment, until the next run recovers it); the output folder itself
// is replaced, so a shell inside it still sees the previous run until it changes directory.
// Not thread-safe: one thread drives a transaction (the files themselves may be written by any
// thread through the paths temporaryFor returns).
class OutputTransaction {
 public:
  // Creates the missing parents of `folder` (removed again if the transaction is not
  // committed) and the staging folder, after recovering dead runs' leftovers. `folder` may be
  // missing (it appears at commit) or a folder or a symlink to one. Throws std::runtime_error
  // naming the path if it is something else, or if the staging folder cannot be created.
  explicit OutputTransaction(std::filesystem::path folder);
  ~OutputTransaction();
  OutputTransaction(const OutputTransaction&) = delete;
  OutputTransaction& operator=(const OutputTransaction&) = delete;

  // Path of the file for `name` in the staging folder; the caller writes it before commit().
  // `name` is a plain file name (no folder part, not hidden). Asking again for the same name
  // drops the earlier file.
  std::filesystem::path temporaryFor(const std::string& name);
  // Writes bytes to the file for `name`, checked and flushed. Throws std::runtime_error naming
  // the final path on failure.
  void stage(const std::string& name, std::string_view bytes);
  // Names staged so far, in staging order.
  std::vector<std::string> names() const;
  // fsyncs every file and the staging folder, writes the manifest, then swaps the folders as
  // described above. Throws std::runtime_error naming the folder on failure; the output folder
  // then holds the previous set. After the swap nothing is thrown (the run is in place): a
  // previous folder that cannot be emptied stays hidden beside it, reported by warnings().
  void commit();
  const std::filesystem::path& folder() const { return folder_; }
  // What the caller should tell the user: hidden folders beside the output folder that had to
  // stay because they hold the user's entries (of this commit, or of a dead run's leftovers
  // met by the constructor). Nothing of the user's is ever deleted.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::filesystem::path folder_;   // as given
  std::filesystem::path target_;   // the real folder (symlinks resolved), absolute
  std::filesystem::path staging_;  // hidden sibling of target_
  std::vector<std::filesystem::path> created_parents_;  // deepest last
  int staging_fd_ = -1;                                 // holds the flock
  std::vector<std::string> names_;
  bool committed_ = false;
  std::vector<std::string> warnings_;
};

// Name of the manifest file in an output folder.
inline constexpr const char* kManifestName = ".planetgen-files";
// Name of the marker file in a staging folder (and in a previous folder being swapped out), and
// its first line; the lines after it name the folder (see OutputTransaction).
inline constexpr const char* kStagingMarkerName = ".planetgen-staging";
inline constexpr const char* kStagingMarkerText = "planetgen staging folder";

// What is wrong with `folder` as an output folder, checked before any work: empty if it is fine
// (a writable existing folder, a symlink to one, or a missing path whose nearest existing
// parent is a writable folder), else a sentence such as "is a file", "is a dangling symbolic link",
// "is the root folder", "is not writable".
std::string outputFolderProblem(const std::filesystem::path& folder);

// Deletes every temporary file of this process that is still live (created by
// writeFileAtomic or temporaryFor and neither renamed nor removed yet), then empties and
// removes the staging folders (before its commit a staging folder holds only this run's files;
// a writer thread may still create one meanwhile, so it is emptied a few times). Meant for a
// SIGINT or SIGTERM handler before the process exits: it takes no lock and allocates nothing,
// and makes only system calls (unlink, open, getdents64, unlinkat, rmdir, close). Best effort: a
// temporary being registered or released by another thread at that instant may be missed. Paths
// longer than 4095 bytes, or beyond 128 live temporaries, are not registered (their transaction
// still removes them).
void removeLiveTemporaries() noexcept;

// Number of temporaries currently registered (for tests and diagnostics).
size_t liveTemporaryCount();

}  // namespace io
