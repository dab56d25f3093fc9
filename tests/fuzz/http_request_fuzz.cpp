// libFuzzer target: whole HTTP requests as `planetgen view`'s server reads and answers them
// (app/http_request.h, app/viewer_responses.h), without the sockets. The input is the bytes a
// client sends on one connection: one request or several pipelined, with any request line,
// fields (Host, Range, Connection, Content-Length, ...) and bytes. Each head is parsed and
// answered from a planet folder and a viewer folder that hold regular files, a subfolder,
// symlinks leading outside (to a file, to the parent, to /), a FIFO and a link to /dev/zero.
// For every response, anything else aborts:
//  - the head is a status line "HTTP/1.1 NNN Reason" and "Name: value" lines without control
//    characters, ending in an empty line;
//  - Content-Length is what follows: the text (nothing after a HEAD) or the file part, which
//    lies inside the file; a file served is one of the folders' regular files (device and
//    inode);
//  - a 2xx answers only a GET or HEAD with exactly one Host naming this server; a 206's
//    Content-Range names exactly the part sent;
//  - a request that is not complete and valid closes the connection; a complete one consumes
//    bytes, within the head limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

#include "app/http_request.h"
#include "app/viewer_responses.h"

namespace fs = std::filesystem;

namespace {

constexpr int kPort = 8080;

struct Folders {
  app::ServedFolders served;
  std::set<std::pair<dev_t, ino_t>> inside;  // the regular files below the two folders

  Folders() {
    const fs::path top =
        fs::temp_directory_path() / ("http_request_fuzz_" + std::to_string(getpid()));
    fs::remove_all(top);
    const fs::path planet = top / "planet", viewer = top / "viewer";
    fs::create_directories(viewer / "sub/deeper");
    fs::create_directories(planet);
    std::ofstream(top / "outside.txt") << "outside";
    for (const char* name : {"index.html", "viewer.js", "sub/a.js", "sub/deeper/b.png"})
      std::ofstream(viewer / name) << name;
    std::ofstream(planet / "planet.glb") << std::string(1000, 'g');
    std::ofstream(planet / "empty.json").close();
    fs::create_symlink(top / "outside.txt", planet / "out.txt");
    fs::create_symlink("..", viewer / "sub/up");
    fs::create_symlink("/", viewer / "slash");
    fs::create_symlink("/dev/zero", planet / "zero");
    ::mkfifo((planet / "fifo").c_str(), 0600);
    for (const fs::path& folder : {planet, viewer}) {
      for (const auto& entry : fs::recursive_directory_iterator(folder)) {
        struct stat info {};
        if (::lstat(entry.path().c_str(), &info) == 0 && S_ISREG(info.st_mode))
          inside.insert({info.st_dev, info.st_ino});
      }
    }
    served.planet = fs::canonical(planet);
    served.viewer = fs::canonical(viewer);
    served.port = kPort;
  }
};

void check(bool ok) {
  if (!ok) std::abort();
}

bool lowerEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? char(a[i] - 'A' + 'a') : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

// The value of the response field `name` (as the server writes it), "" if absent; aborts if
// it appears twice.
std::string responseField(const std::string& head, const std::string& name) {
  const std::string key = "\r\n" + name + ": ";
  const size_t at = head.find(key);
  if (at == std::string::npos) return "";
  check(head.find(key, at + 1) == std::string::npos);
  const size_t start = at + key.size();
  return head.substr(start, head.find("\r\n", start) - start);
}

void checkHead(const std::string& head, int status) {
  check(head.rfind("HTTP/1.1 " + std::to_string(status) + " ", 0) == 0);
  check(head.size() >= 4 && head.compare(head.size() - 4, 4, "\r\n\r\n") == 0);
  size_t line_start = head.find("\r\n") + 2;
  while (line_start < head.size() - 2) {
    const size_t end = head.find("\r\n", line_start);
    const std::string_view line(head.data() + line_start, end - line_start);
    const size_t colon = line.find(": ");
    check(colon != std::string_view::npos && colon > 0);
    for (const char c : line) check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
    line_start = end + 2;
  }
}

void checkResponse(const Folders& folders, const app::RequestHead& head, const app::Response& r) {
  check(r.status >= 200 && r.status <= 599);
  checkHead(r.head, r.status);
  const std::string length = responseField(r.head, "Content-Length");
  check(!length.empty() && length.find_first_not_of("0123456789") == std::string::npos);
  const uint64_t content_length = std::stoull(length);
  if (head.state != app::RequestHead::State::kComplete) {
    check(r.close && r.status >= 400 && r.file < 0);
    return;
  }
  const app::HttpRequest& req = head.request;
  const bool head_only = req.method == "HEAD";
  if (r.file >= 0) {
    check(!head_only && r.body.empty() && content_length == r.file_bytes && r.file_bytes > 0);
    struct stat info {};
    check(::fstat(r.file, &info) == 0 && S_ISREG(info.st_mode));
    check(folders.inside.count({info.st_dev, info.st_ino}) == 1);
    check(r.file_offset + r.file_bytes <= uint64_t(info.st_size));
  } else {
    check(head_only ? r.body.empty() : content_length == r.body.size());
  }
  if (r.status / 100 == 2) {
    check(req.method == "GET" || head_only);
    const std::string* host = req.field("host");
    const std::string port = ":" + std::to_string(kPort);
    check(host != nullptr && host->size() > port.size() &&
          host->compare(host->size() - port.size(), port.size(), port) == 0);
    const std::string_view name(host->data(), host->size() - port.size());
    check(name == "127.0.0.1" || lowerEquals(name, "localhost"));
  }
  if (r.status == 206) {
    const std::string range = responseField(r.head, "Content-Range");
    check(range == "bytes " + std::to_string(r.file_offset) + "-" +
                       std::to_string(r.file_offset + r.file_bytes - 1) + "/" +
                       range.substr(range.find('/') + 1));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Folders folders;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  for (int n = 0; n < 64; ++n) {
    const app::RequestHead head = app::parseRequestHead(rest);
    if (head.state == app::RequestHead::State::kIncomplete) {
      check(rest.size() <= app::kMaxRequestHeadBytes);
      return 0;
    }
    if (head.state == app::RequestHead::State::kComplete)
      check(head.length > 0 && head.length <= rest.size() &&
            head.length <= app::kMaxRequestHeadBytes);
    const app::Response response =
        app::respond(head, folders.served, true, "Thu, 01 Jan 1970 00:00:00 GMT");
    checkResponse(folders, head, response);
    if (response.close) return 0;
    rest.remove_prefix(head.length);
  }
  return 0;
}
