#include "app/viewer_server_paths.h"

#include <algorithm>
#include <cerrno>
#include <optional>

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace app {
namespace {

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int hi = hexDigit(text[i + 1]), lo = hexDigit(text[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(char(hi * 16 + lo));
    i += 2;
  }
  return out;
}

bool isPlainName(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  for (const char c : name) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

int closeWith(int fd, int error) {
  ::close(fd);
  errno = error;
  return -1;
}

// The descriptor is what was opened: it must be a regular file.
int checkedRegular(int fd) {
  if (fd < 0) return -1;
  struct stat info {};
  if (::fstat(fd, &info) != 0) return closeWith(fd, errno);
  if (S_ISDIR(info.st_mode)) return closeWith(fd, EISDIR);
  if (!S_ISREG(info.st_mode)) return closeWith(fd, EACCES);
  return fd;
}

// One component at a time, each opened from the descriptor of the one before with
// O_NOFOLLOW: a symlink anywhere fails with ELOOP (or ENOTDIR for O_DIRECTORY).
int openByComponents(int folder_fd, const std::vector<std::string>& segments) {
  int dir = folder_fd;
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    const int next =
        ::openat(dir, segments[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int error = errno;
    if (dir != folder_fd) ::close(dir);
    if (next < 0) {
      errno = error;
      return -1;
    }
    dir = next;
  }
  const int fd =
      ::openat(dir, segments.back().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  const int error = errno;
  if (dir != folder_fd) ::close(dir);
  errno = error;
  return fd;
}

}  // namespace

RequestPath parseRequestPath(std::string_view target) {
  RequestPath result;
  if (target.empty() || target[0] != '/') {
    result.status = 400;
    return result;
  }
  const std::optional<std::string> decoded =
      percentDecode(target.substr(0, target.find_first_of("?#")));
  if (!decoded) {
    result.status = 400;
    return result;
  }
  result.decoded = *decoded;
  size_t start = 1;
  while (start <= decoded->size()) {
    const size_t end = std::min(decoded->find('/', start), decoded->size());
    std::string segment = decoded->substr(start, end - start);
    start = end + 1;
    if (segment.empty() || segment == ".") continue;
    if (segment == ".." || segment.find('\\') != std::string::npos ||
        segment.find('\0') != std::string::npos) {
      result.status = 403;
      result.segments.clear();
      return result;
    }
    if (!isPlainName(segment)) result.status = 404;  // hidden, or a control character
    result.segments.push_back(std::move(segment));
  }
  if (result.status != 200) result.segments.clear();
  return result;
}

int openBeneath(int folder_fd, const std::vector<std::string>& segments) {
  if (segments.empty()) {
    errno = ENOENT;
    return -1;
  }
  std::string relative;
  for (const std::string& s : segments) {
    if (!isPlainName(s)) {
      errno = ENOENT;
      return -1;
    }
    if (!relative.empty()) relative += '/';
    relative += s;
  }
  open_how how{};
  how.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  long fd = ::syscall(SYS_openat2, folder_fd, relative.c_str(), &how, sizeof how);
  if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
    // No openat2 (Linux < 5.6), or a seccomp filter that refuses it.
    fd = openByComponents(folder_fd, segments);
  }
  return checkedRegular(int(fd));
}

}  // namespace app
