#pragma once
// SIGINT/SIGTERM: stop at once, remove this process's temporary files, exit 130/143.
// Earlier outputs are untouched because new files only replace them by rename at commit.
// While a CommitGuard is alive the signal is held back and acted on when the guard ends, so
// a run ends either with all of its files in place or with none of them.

namespace io {

// Installs the handlers. Call once from main before any work.
void installSignalHandlers();

// Says that this process writes an output folder (generate, compare), so that an interrupt's
// message says the folder keeps its earlier files; other commands say only "interrupted".
void markOutputRun();

class CommitGuard {
 public:
  CommitGuard();
  ~CommitGuard();
  // The commit succeeded: a signal held back, or one that comes later, says the output folder
  // holds this run (the exit code is still 128 + the signal).
  void committed();
  CommitGuard(const CommitGuard&) = delete;
  CommitGuard& operator=(const CommitGuard&) = delete;
};

}  // namespace io
