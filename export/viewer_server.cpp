#include "export/viewer_server.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace planet_export {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxRequestBytes = 16 * 1024;
constexpr int kSendTimeoutSeconds = 30;  // a client that stops reading is given up
constexpr int kIdleSeconds = 30;         // a connection without a complete request is dropped
constexpr size_t kMaxConnections = 64;
constexpr int kStopPollMilliseconds = 200;

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

[[noreturn]] void failSystem(const std::string& what, int port) {
  throw std::runtime_error("cannot " + what + " 127.0.0.1:" + std::to_string(port) + ": " +
                           std::strerror(errno));
}

// Sends everything or gives up (the client went away or stalled).
bool sendAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

void sendText(int fd, int status, const char* reason, const std::string& body,
              const std::string& extra_headers = "") {
  const std::string response = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                               "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\n" + extra_headers +
                               "Connection: close\r\n\r\n" + body;
  sendAll(fd, response.data(), response.size());
}

std::optional<std::string> percentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    const int hi = hex(text[i + 1]), lo = hex(text[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(char(hi * 16 + lo));
    i += 2;
  }
  return out;
}

bool isInside(const fs::path& file, const fs::path& root) {
  std::error_code error;
  const fs::path real_file = fs::canonical(file, error);
  if (error) return false;
  const fs::path real_root = fs::canonical(root, error);
  if (error) return false;
  const auto mismatch =
      std::mismatch(real_root.begin(), real_root.end(), real_file.begin(), real_file.end());
  return mismatch.first == real_root.end();
}

bool isRegularFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

class Server {
 public:
  Server(fs::path planet_dir, fs::path viewer_dir)
      : planet_dir_(std::move(planet_dir)), viewer_dir_(std::move(viewer_dir)) {}

  // Answers one complete request (headers up to the blank line) on a blocking socket.
  void respond(int fd, const std::string& request) {
    timeval timeout{kSendTimeoutSeconds, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
    const size_t line_end = request.find("\r\n");
    const std::string line = request.substr(0, line_end);
    const size_t space1 = line.find(' ');
    const size_t space2 = line.find(' ', space1 == std::string::npos ? 0 : space1 + 1);
    if (space1 == std::string::npos || space2 == std::string::npos ||
        line.compare(space2 + 1, 5, "HTTP/") != 0) {
      sendText(fd, 400, "Bad Request", "malformed request line\n");
      return;
    }
    const std::string method = line.substr(0, space1);
    const std::string target = line.substr(space1 + 1, space2 - space1 - 1);
    if (method != "GET" && method != "HEAD") {
      sendText(fd, 405, "Method Not Allowed", "only GET and HEAD\n", "Allow: GET, HEAD\r\n");
      return;
    }
    serve(fd, target, method == "HEAD");
  }

 private:
  void serve(int fd, const std::string& target, bool head_only) {
    if (target.empty() || target[0] != '/') {
      sendText(fd, 400, "Bad Request", "the path must start with /\n");
      return;
    }
    const std::string raw_path = target.substr(0, target.find_first_of("?#"));
    const std::optional<std::string> decoded = percentDecode(raw_path);
    if (!decoded) {
      sendText(fd, 400, "Bad Request", "bad percent-escape\n");
      return;
    }
    std::vector<std::string> segments;
    size_t start = 1;
    while (start <= decoded->size()) {
      const size_t end = std::min(decoded->find('/', start), decoded->size());
      const std::string segment = decoded->substr(start, end - start);
      if (segment == ".." || segment.find('\\') != std::string::npos ||
          segment.find('\0') != std::string::npos) {
        sendText(fd, 403, "Forbidden", "path outside the served folders\n");
        return;
      }
      if (!segment.empty() && segment != ".") {
        if (segment[0] == '.') {
          sendText(fd, 404, "Not Found", "not found\n");
          return;
        }
        segments.push_back(segment);
      }
      start = end + 1;
    }
    // "/" is always the viewer's page, never a file of the planet's folder.
    const bool root = segments.empty();
    if (root) segments.push_back("index.html");
    fs::path relative;
    for (const std::string& s : segments) relative /= s;

    std::optional<fs::path> file;
    if (!root && segments.size() == 1 && isRegularFile(planet_dir_ / relative) &&
        isInside(planet_dir_ / relative, planet_dir_)) {
      file = planet_dir_ / relative;
    } else if (isRegularFile(viewer_dir_ / relative) &&
               isInside(viewer_dir_ / relative, viewer_dir_)) {
      file = viewer_dir_ / relative;
    }
    if (!file) {
      sendText(fd, 404, "Not Found", "not found: " + *decoded + "\n");
      return;
    }
    sendFile(fd, *file, head_only);
  }

  static void sendFile(int fd, const fs::path& path, bool head_only) {
    const int file = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (file < 0) {
      sendText(fd, 404, "Not Found", "cannot open file\n");
      return;
    }
    const Fd guard(file);
    struct stat info {};
    if (::fstat(file, &info) != 0) {
      sendText(fd, 500, "Internal Server Error", "cannot stat file\n");
      return;
    }
    const std::string header =
        "HTTP/1.1 200 OK\r\nContent-Type: " + std::string(mimeTypeFor(path)) +
        "\r\nContent-Length: " + std::to_string(info.st_size) +
        "\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";
    if (!sendAll(fd, header.data(), header.size()) || head_only) return;
    std::vector<char> buffer(1 << 16);
    for (;;) {
      const ssize_t n = ::read(file, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || !sendAll(fd, buffer.data(), size_t(n))) return;
    }
  }

  fs::path planet_dir_;
  fs::path viewer_dir_;
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
  for (const fs::path& dir : {planet_dir, viewer_dir}) {
    std::error_code error;
    if (!fs::is_directory(dir, error)) {
      throw std::invalid_argument("serveViewer: " + dir.string() + " is not a folder");
    }
  }
  if (port < 0 || port > 65535) {
    throw std::invalid_argument("serveViewer: port " + std::to_string(port) +
                                " is out of range; allowed: 0 (any free port) to 65535");
  }
  const Fd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (listener.fd < 0) failSystem("create a socket for", port);
  const int yes = 1;
  ::setsockopt(listener.fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener.fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    failSystem("listen on", port);
  }
  if (::listen(listener.fd, 16) != 0) failSystem("listen on", port);
  socklen_t length = sizeof(address);
  ::getsockname(listener.fd, reinterpret_cast<sockaddr*>(&address), &length);
  const int bound_port = ntohs(address.sin_port);
  if (on_ready) on_ready("http://127.0.0.1:" + std::to_string(bound_port) + "/");

  // One thread, many connections: poll waits on the listener and every open connection, so a
  // browser's idle pre-connected socket never holds up the requests on its other sockets.
  // A connection is answered (synchronously) once its request headers are complete, then
  // closed; one that stays incomplete for kIdleSeconds is dropped.
  Server server(planet_dir, viewer_dir);
  struct Client {
    std::unique_ptr<Fd> socket;
    std::string request;
    std::chrono::steady_clock::time_point since;
  };
  std::vector<Client> clients;
  while (stop == nullptr || !stop->load()) {
    std::vector<pollfd> waiting{{listener.fd, POLLIN, 0}};
    for (const Client& c : clients) waiting.push_back({c.socket->fd, POLLIN, 0});
    if (::poll(waiting.data(), waiting.size(), kStopPollMilliseconds) < 0) continue;  // EINTR
    const auto now = std::chrono::steady_clock::now();
    std::vector<bool> done(clients.size(), false);
    for (size_t i = 0; i < clients.size(); ++i) {
      Client& c = clients[i];
      if (waiting[i + 1].revents == 0) {
        done[i] = now - c.since > std::chrono::seconds(kIdleSeconds);
        continue;
      }
      char buffer[4096];
      const ssize_t n = ::recv(c.socket->fd, buffer, sizeof(buffer), MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
      done[i] = true;
      if (n <= 0) continue;  // closed by the client, or an error
      c.request.append(buffer, size_t(n));
      if (c.request.find("\r\n\r\n") != std::string::npos) {
        server.respond(c.socket->fd, c.request);
      } else if (c.request.size() > kMaxRequestBytes) {
        sendText(c.socket->fd, 431, "Request Header Fields Too Large", "request too large\n");
      } else {
        done[i] = false;  // wait for the rest
      }
    }
    for (size_t i = clients.size(); i-- > 0;) {
      if (done[i]) clients.erase(clients.begin() + ptrdiff_t(i));
    }
    if ((waiting[0].revents & POLLIN) != 0 && clients.size() < kMaxConnections) {
      const int fd = ::accept4(listener.fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) clients.push_back({std::make_unique<Fd>(fd), std::string(), now});
    }
  }
  return 0;
}

}  // namespace planet_export
