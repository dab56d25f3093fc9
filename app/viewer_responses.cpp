#include "app/viewer_responses.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <ctime>
#include <vector>

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "app/viewer_server.h"
#include "app/viewer_server_paths.h"
#include "io/detail/unique_fd.h"

namespace app {
namespace {

namespace fs = std::filesystem;

// Opens a served folder by its canonical path (fixed at start), refusing a symlink in any
// component: a folder swapped for a link while serving is not followed. Opened again for every
// request, so a planet regenerated into DIR (which replaces the folder) is served at once.
int openFolder(const fs::path& canonical) {
  open_how how{};
  how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd = ::syscall(SYS_openat2, AT_FDCWD, canonical.c_str(), &how, sizeof how);
  if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
    fd = ::open(canonical.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  return int(fd);
}

int openIn(const fs::path& folder, const std::vector<std::string>& segments) {
  const io::UniqueFd dir(openFolder(folder));
  if (dir.fd < 0) return -1;
  return openBeneath(dir.fd, segments);
}

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 206:
      return "Partial Content";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 414:
      return "URI Too Long";
    case 416:
      return "Range Not Satisfiable";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

// The part of a file of `size` bytes a request asks for with its Range field (RFC 9110 §14).
struct ByteRange {
  enum Kind { kWhole, kPart, kUnsatisfiable } kind = kWhole;
  uint64_t first = 0, last = 0;  // kPart: bytes first..last, both inside the file
};

// A run of digits as a number; more than 64 bits saturate (a huge end is clamped anyway).
bool parseDigits(std::string_view text, uint64_t& value) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size()) return false;
  if (error == std::errc::result_out_of_range) value = UINT64_MAX;
  return true;
}

// Only GET has ranges (RFC 9110 §14.2: HEAD and others ignore Range). Whole file (Range
// ignored, as §14.2 allows) for: no Range, several Range fields, a unit other than bytes, a
// malformed range, several ranges (no multipart/byteranges here), an If-Range (this server
// sends no validators, so none can match, §13.1.5), and a suffix range of an empty file (no
// part of it can be named).
ByteRange requestedRange(const HttpRequest& req, uint64_t size) {
  const std::string* header = req.field("range");
  if (req.method != "GET" || header == nullptr || req.count("if-range") > 0) return {};
  std::string_view spec(*header);
  constexpr std::string_view kUnit = "bytes=";
  if (!equalsIgnoringCase(spec.substr(0, kUnit.size()), kUnit)) return {};
  spec.remove_prefix(kUnit.size());
  while (!spec.empty() && (spec.front() == ' ' || spec.front() == '\t')) spec.remove_prefix(1);
  while (!spec.empty() && (spec.back() == ' ' || spec.back() == '\t')) spec.remove_suffix(1);
  const size_t dash = spec.find('-');
  if (dash == std::string_view::npos || spec.find(',') != std::string_view::npos) return {};
  const std::string_view first_text = spec.substr(0, dash), last_text = spec.substr(dash + 1);
  uint64_t first = 0, last = UINT64_MAX;
  if (first_text.empty()) {  // "-N": the last N bytes
    uint64_t suffix = 0;
    if (!parseDigits(last_text, suffix)) return {};
    if (suffix == 0) return {ByteRange::kUnsatisfiable};
    if (size == 0) return {};
    return {ByteRange::kPart, size - std::min(suffix, size), size - 1};
  }
  if (!parseDigits(first_text, first)) return {};
  if (!last_text.empty() && !parseDigits(last_text, last)) return {};
  if (last < first) return {};  // invalid (§14.1.1), so ignored
  if (first >= size) return {ByteRange::kUnsatisfiable};
  return {ByteRange::kPart, first, std::min(last, size - 1)};
}

// The Host field must name this server: DNS rebinding (a page from another site whose name
// resolves to 127.0.0.1) still sends its own name.
bool hostAllowed(const std::string* host, int port) {
  if (host == nullptr) return false;
  const std::string suffix = ":" + std::to_string(port);
  if (host->size() <= suffix.size() ||
      host->compare(host->size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const std::string_view name(host->data(), host->size() - suffix.size());
  return name == "127.0.0.1" || equalsIgnoringCase(name, "localhost");
}

class Builder {
 public:
  Builder(int status, std::string_view date) {
    response_.status = status;
    response_.head =
        "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason(status)) + "\r\n";
    if (!date.empty()) field("Date", date);
  }
  Builder& field(std::string_view name, std::string_view value) {
    response_.head.append(name).append(": ").append(value).append("\r\n");
    return *this;
  }
  // A text body (errors): sent unless the request was a HEAD.
  Response text(std::string_view body, bool head_only, bool close) {
    field("Content-Type", "text/plain; charset=utf-8");
    if (!head_only) response_.body = std::string(body);
    return finish(body.size(), close);
  }
  // The body is `bytes` bytes of `file` from `offset` (none for HEAD); takes the descriptor.
  Response file(io::UniqueFd& file, uint64_t offset, uint64_t bytes, bool head_only, bool close) {
    if (!head_only && bytes > 0) {
      response_.file = file.fd;
      file.fd = -1;
      response_.file_offset = offset;
      response_.file_bytes = bytes;
    }
    return finish(bytes, close);
  }

 private:
  Response finish(uint64_t length, bool close) {
    field("Content-Length", std::to_string(length));
    field("X-Content-Type-Options", "nosniff");
    if (close) field("Connection", "close");
    response_.head += "\r\n";
    response_.close = close;
    return std::move(response_);
  }
  Response response_;
};

}  // namespace

Response::Response(Response&& other) noexcept {
  *this = std::move(other);
}

Response& Response::operator=(Response&& other) noexcept {
  if (this != &other) {
    if (file >= 0) ::close(file);
    status = other.status;
    head = std::move(other.head);
    body = std::move(other.body);
    file = other.file;
    other.file = -1;
    file_offset = other.file_offset;
    file_bytes = other.file_bytes;
    close = other.close;
  }
  return *this;
}

Response::~Response() {
  if (file >= 0) ::close(file);
}

std::string httpDate(int64_t unix_seconds) {
  const std::time_t t = std::time_t(unix_seconds);
  std::tm utc{};
  if (::gmtime_r(&t, &utc) == nullptr) return "";
  char text[64];
  const size_t n = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return std::string(text, n);
}

Response respond(const RequestHead& head, const ServedFolders& folders, bool keep_alive,
                 std::string_view date) {
  if (head.state != RequestHead::State::kComplete) {
    const int status = head.status != 0 ? head.status : 400;
    return Builder(status, date).text(std::string(reason(status)) + "\n", false, true);
  }
  const HttpRequest& req = head.request;
  const bool head_only = req.method == "HEAD";
  // The request's body is never read, so the connection cannot carry another request after it.
  const bool close = !keep_alive || req.body_bytes > 0 || req.lists("connection", "close") ||
                     (req.minor_version == 0 && !req.lists("connection", "keep-alive"));
  if (req.method != "GET" && req.method != "HEAD") {
    return Builder(405, date).field("Allow", "GET, HEAD").text("only GET and HEAD\n", false, close);
  }
  if (!hostAllowed(req.field("host"), folders.port)) {
    const std::string port = std::to_string(folders.port);
    return Builder(403, date).text(
        "Host must be 127.0.0.1:" + port + " or localhost:" + port + "\n", head_only, close);
  }
  RequestPath path = parseRequestPath(req.target);
  if (path.status == 400) return Builder(400, date).text("bad request path\n", head_only, close);
  if (path.status == 403)
    return Builder(403, date).text("path outside the served folders\n", head_only, close);
  if (path.status != 200) return Builder(404, date).text("not found\n", head_only, close);
  // "/" is always the viewer's page, never a file of the planet's folder.
  const bool root = path.segments.empty();
  if (root) path.segments.push_back(folders.page);
  io::UniqueFd file(-1);
  if (!root && path.segments.size() == 1) file.fd = openIn(folders.planet, path.segments);
  if (file.fd < 0) file.fd = openIn(folders.viewer, path.segments);
  if (file.fd < 0) return Builder(404, date).text("not found\n", head_only, close);
  struct stat info {};
  if (::fstat(file.fd, &info) != 0)
    return Builder(500, date).text("cannot read the file\n", head_only, close);
  const uint64_t size = uint64_t(info.st_size);
  const ByteRange range = requestedRange(req, size);
  if (range.kind == ByteRange::kUnsatisfiable) {
    return Builder(416, date)
        .field("Content-Range", "bytes */" + std::to_string(size))
        .text("range not satisfiable\n", head_only, close);
  }
  Builder builder(range.kind == ByteRange::kPart ? 206 : 200, date);
  builder.field("Content-Type", mimeTypeFor(path.segments.back()))
      .field("Cache-Control", "no-cache")
      .field("Accept-Ranges", "bytes");
  if (range.kind == ByteRange::kPart) {
    builder.field("Content-Range", "bytes " + std::to_string(range.first) + "-" +
                                       std::to_string(range.last) + "/" + std::to_string(size));
    return builder.file(file, range.first, range.last - range.first + 1, head_only, close);
  }
  return builder.file(file, 0, size, head_only, close);
}

std::string_view mimeTypeFor(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  static const std::pair<std::string_view, std::string_view> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".glb", "model/gltf-binary"},
      {".gltf", "model/gltf+json"},
      {".bin", "application/octet-stream"},
      {".png", "image/png"},
      {".jpg", "image/jpeg"},
      {".jpeg", "image/jpeg"},
      {".svg", "image/svg+xml"},
      {".ico", "image/x-icon"},
      {".wasm", "application/wasm"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const auto& [extension, type] : kTypes) {
    if (ext == extension) return type;
  }
  return "application/octet-stream";
}

}  // namespace app
