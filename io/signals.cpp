#include "io/signals.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

#include "io/atomic_file.h"

namespace io {
namespace {

// Any thread may receive the signal (TBB workers too), so the hold-back is a process-wide
// flag rather than a per-thread signal mask.
std::atomic<bool> g_committing{false};
std::atomic<int> g_pending{0};
std::atomic<bool> g_writes_folder{false};  // markOutputRun
std::atomic<bool> g_committed{false};      // CommitGuard::committed
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

[[noreturn]] void terminate(int sig) {
  // Only async-signal-safe calls: system calls (inside removeLiveTemporaries), write, _exit.
  io::removeLiveTemporaries();
  const char kept[] = "planetgen: interrupted; the output folder keeps its earlier files\n";
  const char written[] =
      "planetgen: interrupted after the run was written; the output folder holds this run\n";
  const char plain[] = "planetgen: interrupted\n";
  const char* message = !g_writes_folder.load() ? plain : g_committed.load() ? written : kept;
  size_t length = 0;
  while (message[length] != '\0') ++length;
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, message, length);
  ::_exit(128 + sig);
}

extern "C" void onTerminate(int sig) {
  if (g_committing.load()) {
    g_pending.store(sig);
    return;
  }
  terminate(sig);
}

}  // namespace

void installSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = onTerminate;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A file-size limit (ulimit -f) must fail the write with EFBIG, which the writers report,
  // instead of killing the process with SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
}

void markOutputRun() {
  g_writes_folder.store(true);
}

CommitGuard::CommitGuard() {
  g_committing.store(true);
}

void CommitGuard::committed() {
  g_committed.store(true);
}

CommitGuard::~CommitGuard() {
  g_committing.store(false);
  if (const int sig = g_pending.load()) terminate(sig);
}

}  // namespace io
