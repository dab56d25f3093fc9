#include "app/viewer_server.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <httplib.h>

#include "app/viewer_server_paths.h"
#include "io/detail/unique_fd.h"

namespace app {
namespace {

namespace fs = std::filesystem;

// Workers of the thread pool: each connection holds one while it is open, so this many
// clients are served at once (a slow reader holds only its own); the others queue.
constexpr size_t kWorkers = 128;
constexpr time_t kReadTimeoutSeconds = 5;    // a request's headers must arrive within this
constexpr time_t kWriteTimeoutSeconds = 10;  // a client that reads nothing for this is dropped
constexpr time_t kKeepAliveSeconds = 2;      // an idle kept-alive connection is closed after
constexpr size_t kKeepAliveRequests = 100;
constexpr size_t kChunkBytes = 64 * 1024;
constexpr auto kStopPoll = std::chrono::milliseconds(100);

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

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

void sendText(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "text/plain; charset=utf-8");
}

// The part of a file of `size` bytes a request asks for with its Range header (RFC 9110 §14).
// cpp-httplib 0.11.4 (Debian 12) gets ranges of a content provider wrong: no clamping of an
// end past the file, no 416 for a start past it (it sends a Content-Length of 2^64 - 1), and
// 200 once a handler sets the status; so the server answers Range itself.
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
// ignored, as §14.2 allows) for: no Range, a unit other than bytes, a malformed range, several
// ranges (no multipart/byteranges here), an If-Range (this server sends no validators, so none
// can match, §13.1.5), and a suffix range of an empty file (no part of it can be named).
ByteRange requestedRange(const httplib::Request& req, uint64_t size) {
  if (req.method != "GET" || !req.has_header("Range") || req.has_header("If-Range")) return {};
  const std::string header = req.get_header_value("Range");
  std::string_view spec(header);
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

class Handler {
 public:
  Handler(fs::path planet_dir, fs::path viewer_dir)
      : planet_dir_(std::move(planet_dir)), viewer_dir_(std::move(viewer_dir)) {}
  void setPort(int port) { port_ = port; }

  void operator()(const httplib::Request& req, httplib::Response& res) const {
    if (req.method != "GET" && req.method != "HEAD") {
      res.set_header("Allow", "GET, HEAD");
      sendText(res, 405, "only GET and HEAD\n");
      return;
    }
    if (!hostAllowed(req.get_header_value("Host"))) {
      // DNS rebinding: a page from another site that resolves its name to 127.0.0.1 still
      // sends its own name as the Host.
      sendText(res, 403,
               "Host must be 127.0.0.1:" + std::to_string(port_) +
                   " or localhost:" + std::to_string(port_) + "\n");
      return;
    }
    RequestPath path = parseRequestPath(req.target);
    if (path.status == 400) return sendText(res, 400, "bad request path\n");
    if (path.status == 403) return sendText(res, 403, "path outside the served folders\n");
    if (path.status != 200) return sendText(res, 404, "not found\n");
    // "/" is always the viewer's page, never a file of the planet's folder.
    const bool root = path.segments.empty();
    if (root) path.segments.push_back("index.html");
    int file = -1;
    if (!root && path.segments.size() == 1) file = openIn(planet_dir_, path.segments);
    if (file < 0) file = openIn(viewer_dir_, path.segments);
    if (file < 0) return sendText(res, 404, "not found: " + path.decoded + "\n");
    sendFile(req, res, file, path.segments.back());
  }

 private:
  bool hostAllowed(const std::string& host) const {
    const std::string port = ":" + std::to_string(port_);
    if (host.size() <= port.size() || host.compare(host.size() - port.size(), port.size(), port))
      return false;
    const std::string_view name(host.data(), host.size() - port.size());
    return name == "127.0.0.1" || equalsIgnoringCase(name, "localhost");
  }

  static int openIn(const fs::path& folder, const std::vector<std::string>& segments) {
    const io::UniqueFd dir(openFolder(folder));
    if (dir.fd < 0) return -1;
    return openBeneath(dir.fd, segments);
  }

  static void sendFile(const httplib::Request& req, httplib::Response& res, int file,
                       const std::string& name) {
    auto guard = std::make_shared<io::UniqueFd>(file);
    struct stat info {};
    if (::fstat(file, &info) != 0) return sendText(res, 500, "cannot stat file\n");
    const uint64_t size = uint64_t(info.st_size);
    res.set_header("Cache-Control", "no-cache");
    res.set_header("Accept-Ranges", "bytes");
    const ByteRange range = requestedRange(req, size);
    if (range.kind == ByteRange::kUnsatisfiable) {
      res.set_header("Content-Range", "bytes */" + std::to_string(size));
      return sendText(res, 416, "range not satisfiable\n");
    }
    uint64_t start = 0, length = size;
    res.status = 200;
    if (range.kind == ByteRange::kPart) {
      start = range.first;
      length = range.last - range.first + 1;
      res.status = 206;
      res.set_header("Content-Range", "bytes " + std::to_string(range.first) + "-" +
                                          std::to_string(range.last) + "/" + std::to_string(size));
    }
    // An empty file is an empty body (httplib sends a provider of length 0 without a
    // Content-Length, so the client waits for the connection to close).
    if (length == 0) {
      res.set_header("Content-Type", std::string(mimeTypeFor(name)));
      return;
    }
    // The length is fixed now; a file that shrinks meanwhile ends the connection early
    // (pread returns short), one that grows is cut at this length. The provider's offsets count
    // from the range's start.
    res.set_content_provider(size_t(length), std::string(mimeTypeFor(name)),
                             [guard, start](size_t offset, size_t count, httplib::DataSink& sink) {
                               char buffer[kChunkBytes];
                               const ssize_t n =
                                   ::pread(guard->fd, buffer, std::min(count, sizeof buffer),
                                           off_t(start + offset));
                               if (n <= 0) return false;
                               return sink.write(buffer, size_t(n));
                             });
  }

  fs::path planet_dir_;
  fs::path viewer_dir_;
  int port_ = 0;
};

}  // namespace

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

std::filesystem::path defaultViewerDir() {
  return std::filesystem::path(PLANETGEN_VIEWER_DIR);
}

int serveViewer(const std::filesystem::path& planet_dir, const std::filesystem::path& viewer_dir,
                int port, std::function<void(std::string url)> on_ready,
                const std::atomic<bool>* stop) {
  fs::path folders[2];
  for (int i = 0; i < 2; ++i) {
    const fs::path& dir = i == 0 ? planet_dir : viewer_dir;
    std::error_code error;
    if (!fs::is_directory(dir, error)) {
      throw std::invalid_argument("serveViewer: " + dir.string() + " is not a folder");
    }
    folders[i] = fs::canonical(dir, error);
    if (error) throw std::invalid_argument("serveViewer: " + dir.string() + ": " + error.message());
  }
  if (port < 0 || port > 65535) {
    throw std::invalid_argument("serveViewer: port " + std::to_string(port) +
                                " is out of range; allowed: 0 (any free port) to 65535");
  }
  Handler handler(folders[0], folders[1]);
  httplib::Server server;
  server.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  server.set_read_timeout(kReadTimeoutSeconds);
  server.set_write_timeout(kWriteTimeoutSeconds);
  server.set_keep_alive_timeout(kKeepAliveSeconds);
  server.set_keep_alive_max_count(kKeepAliveRequests);
  server.set_payload_max_length(64 * 1024);
  // The handler answers Range itself (requestedRange), so httplib must not apply its own
  // parsed ranges to the response: they are cleared. (The Request is httplib's non-const local
  // of the connection's loop, handed on as const.)
  const auto serve = [&handler](const httplib::Request& req, httplib::Response& res) {
    const_cast<httplib::Request&>(req).ranges.clear();
    handler(req, res);
    return httplib::Server::HandlerResponse::Handled;
  };
  server.set_pre_routing_handler(serve);
  // httplib answers a Range header it cannot parse (another unit, a malformed range) with a
  // bare 416 before any handler runs; RFC 9110 §14.2 says to ignore such a header, so that
  // request is served here after all (requestedRange ignores it too). The handler's own 416 has
  // a Content-Range; other errors pass.
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [&serve](const httplib::Request& req, httplib::Response& res) {
        if (res.status != 416 || res.has_header("Content-Range"))
          return httplib::Server::HandlerResponse::Unhandled;
        try {  // the exception handler does not cover the error handler
          return serve(req, res);
        } catch (...) {
          sendText(res, 500, "internal error\n");
          return httplib::Server::HandlerResponse::Handled;
        }
      }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                                  std::exception_ptr) { sendText(res, 500, "internal error\n"); });
  // cpp-httplib listens with a backlog of 5: a burst of connections (a browser opens several)
  // overflows it and the kernel drops SYNs, which clients resend only after 1 s. Listening
  // again on the same socket raises the backlog (Linux).
  // SO_REUSEADDR only: httplib's default sets SO_REUSEPORT, with which a second `view` on the
  // same port bound too and the kernel shared the connections between the two.
  int listener = -1;
  server.set_socket_options([&listener](int fd) {
    listener = fd;
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  errno = 0;
  const int bound_port = port == 0 ? server.bind_to_any_port("127.0.0.1")
                                   : (server.bind_to_port("127.0.0.1", port) ? port : -1);
  if (bound_port <= 0) {
    throw std::runtime_error("cannot listen on 127.0.0.1:" + std::to_string(port) + ": " +
                             (errno ? std::strerror(errno) : "bind failed"));
  }
  if (listener >= 0) ::listen(listener, SOMAXCONN);
  handler.setPort(bound_port);
  if (on_ready) on_ready("http://127.0.0.1:" + std::to_string(bound_port) + "/");

  std::atomic<bool> finished{false};
  std::thread watcher;
  if (stop != nullptr) {
    watcher = std::thread([&] {
      // Again until listening ends: a stop() before the listen loop has started does nothing.
      while (!finished.load()) {
        if (stop->load()) server.stop();
        std::this_thread::sleep_for(kStopPoll);
      }
    });
  }
  const bool listened = server.listen_after_bind();
  finished = true;
  if (watcher.joinable()) watcher.join();
  if (!listened && (stop == nullptr || !stop->load())) {
    throw std::runtime_error("cannot serve on 127.0.0.1:" + std::to_string(bound_port));
  }
  return 0;
}

}  // namespace app
