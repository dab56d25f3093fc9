#pragma once
// Standard output as the command line uses it: every write checked, so that output lost to a
// full disk, /dev/full or a closed descriptor is an error with a non-zero exit, not a silent
// exit 0 (`planetgen config --print-reference > FILE` on a full disk left an empty FILE).

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

namespace app {

// Writes text to standard output and flushes it. Throws std::runtime_error ("cannot write to
// standard output: <the OS error>") if any of it, or anything written before, could not be
// written.
inline void printToStdout(std::string_view text) {
  errno = 0;
  const size_t written = std::fwrite(text.data(), 1, text.size(), stdout);
  int error = errno;
  if (written == text.size() && std::fflush(stdout) == 0 && !std::ferror(stdout)) return;
  if (errno != 0) error = errno;
  throw std::runtime_error(std::string("cannot write to standard output: ") +
                           std::strerror(error != 0 ? error : EIO));
}

// Flushes standard output; "" if everything written to it so far (through stdio or
// std::cout, which shares its buffer) arrived, else the error ("cannot write to ...").
inline std::string standardOutputProblem() {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return "";
  return std::string("cannot write to standard output: ") + std::strerror(errno != 0 ? errno : EIO);
}

// Makes sure descriptors 0, 1 and 2 are open before anything else opens a file: a program
// started with one of them closed would otherwise get it back from its first open(), and its
// messages would go into that file (an output file, or the config it reads). A closed one is
// taken by /dev/null opened read-only, so writes to it still fail (EBADF) and are reported.
inline void reserveStandardDescriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int taken = ::open("/dev/null", O_RDONLY);
    if (taken >= 0 && taken != fd) ::close(taken);  // a lower one was free: not expected
  }
}

}  // namespace app
