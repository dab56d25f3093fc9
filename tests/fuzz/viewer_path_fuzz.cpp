// libFuzzer target: the viewer server's request-path resolution (app/viewer_server_paths.h).
// Any request target is parsed and, when accepted, opened below a fixed folder that holds
// regular files, a subfolder, symlinks leading outside (to a file, to the parent, to /), a
// FIFO and a link to /dev/zero. A descriptor that comes back must be one of the regular files
// inside the folder (compared by device and inode); anything else aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/viewer_server_paths.h"

namespace fs = std::filesystem;

namespace {

struct Folder {
  int fd = -1;
  std::set<std::pair<dev_t, ino_t>> inside;  // the regular files below the folder

  Folder() {
    const fs::path top =
        fs::temp_directory_path() / ("viewer_path_fuzz_" + std::to_string(getpid()));
    const fs::path root = top / "root";
    fs::remove_all(top);
    fs::create_directories(root / "sub/deeper");
    std::ofstream(top / "outside.txt") << "outside";
    for (const char* name : {"index.html", "planet.glb", "sub/a.js", "sub/deeper/b.png"})
      std::ofstream(root / name) << name;
    fs::create_symlink(top / "outside.txt", root / "out.txt");
    fs::create_symlink("..", root / "sub/up");
    fs::create_symlink("/", root / "slash");
    fs::create_symlink("/dev/zero", root / "zero");
    ::mkfifo((root / "fifo").c_str(), 0600);
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      struct stat info {};
      if (::lstat(entry.path().c_str(), &info) == 0 && S_ISREG(info.st_mode))
        inside.insert({info.st_dev, info.st_ino});
    }
    fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) std::abort();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Folder folder;
  const std::string target(reinterpret_cast<const char*>(data), size);
  const app::RequestPath path = app::parseRequestPath(target);
  if (path.status != 200) {
    if (!path.segments.empty()) std::abort();
    return 0;
  }
  for (const std::string& s : path.segments) {
    if (s.empty() || s[0] == '.' || s.find('/') != std::string::npos ||
        s.find('\0') != std::string::npos)
      std::abort();
  }
  const int fd = app::openBeneath(folder.fd, path.segments);
  if (fd < 0) return 0;
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) ||
      folder.inside.count({info.st_dev, info.st_ino}) == 0)
    std::abort();
  ::close(fd);
  return 0;
}
