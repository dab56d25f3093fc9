#pragma once
// write(2) until every byte is written or the kernel reports a failure: the one loop behind the
// export's file writers (FileWriter, its direct writes, the glb's spool, the output folder's
// manifest). Internal to export/.

#include <cerrno>
#include <cstddef>

#include <unistd.h>

namespace io {

// Writes `size` bytes of `data` to `fd`, retrying interrupted calls. Returns how many bytes were
// written; `error` is 0 when that is all of them, else the errno of the failing call (EIO for a
// call that wrote nothing, so a stuck descriptor cannot make it spin).
inline size_t writeFully(int fd, const char* data, size_t size, int& error) {
  size_t done = 0;
  error = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    done += size_t(n);
  }
  return done;
}

}  // namespace io
