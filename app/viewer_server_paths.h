#pragma once
// Request-path resolution of the viewer server (viewer_server.h), apart from the HTTP code so
// that a fuzz target (tests/fuzz/viewer_path_fuzz.cpp) can drive it alone.
//
// A request target becomes a list of plain path segments, and a file is opened below a folder
// through that folder's descriptor, never by a path string that was checked earlier: whatever
// happens to the links in the folder between two requests (or during one), the file opened is
// a regular file inside the folder.

#include <string>
#include <string_view>
#include <vector>

namespace app {

struct RequestPath {
  int status = 200;                   // 200, or the HTTP status that refuses the target
  std::vector<std::string> segments;  // plain names: no "", ".", "..", "/", "\\", NUL or dot
  std::string decoded;                // the percent-decoded path (for messages)
};

// Parses an HTTP request target ("/a/b%20c?query"). The query and fragment are dropped,
// percent-escapes decoded (a bad escape: 400), "" and "." segments skipped; a ".." segment, a
// backslash or a NUL byte: 403; a hidden segment (".git") or a control character: 404; a
// target that does not start with '/': 400. Never throws except std::bad_alloc.
RequestPath parseRequestPath(std::string_view target);

// Opens folder_fd/segments[0]/.../segments[n-1] read-only, with O_NONBLOCK (a FIFO cannot
// block) and O_CLOEXEC. No component may be a symlink and none may leave the folder
// (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
// RESOLVE_NO_XDEV; on kernels without openat2, one openat(O_NOFOLLOW) per component from the
// folder's descriptor). The opened descriptor is then checked with fstat: a regular file, or it
// is closed. Returns the descriptor, or -1 with errno set (ELOOP for a symlink, EISDIR or
// EACCES for anything that is not a regular file). `segments` must come from parseRequestPath
// (or be plain names in the same sense); an empty list gives -1 (ENOENT).
int openBeneath(int folder_fd, const std::vector<std::string>& segments);

}  // namespace app
