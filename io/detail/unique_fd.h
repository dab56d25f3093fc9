#pragma once
// A file descriptor closed when it goes out of scope (internal to export/).

#include <unistd.h>

namespace io {

struct UniqueFd {
  int fd = -1;
  explicit UniqueFd(int f) : fd(f) {}
  ~UniqueFd() {
    if (fd >= 0) ::close(fd);
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
};

}  // namespace io
