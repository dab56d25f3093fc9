// Tests of app/viewer_server: the static file server behind `planetgen view DIR`. Each test
// serves two temporary folders on 127.0.0.1 (a free port) from a thread and talks raw HTTP.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "app/viewer_server.h"

namespace fs = std::filesystem;
using namespace app;

namespace {

struct Served {
  fs::path root;
  std::atomic<bool> stop{false};
  std::thread thread;
  int port = 0;

  // `page`: what "/" serves from the viewer's folder.
  explicit Served(const std::string& page = "index.html") {
    root =
        fs::temp_directory_path() / ("planetgen_viewer_server_test_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "planet");
    fs::create_directories(root / "viewer/node_modules/three/build");
    fs::create_directories(root / "viewer/.hidden");
    write(root / "planet/planet.glb", std::string("glTF\x02\0\0\0binary", 14));
    write(root / "planet/index.html", "a planet folder must not replace the viewer's page");
    write(root / "viewer/index.html", "<!doctype html>viewer");
    write(root / "viewer/tiles.html", "<!doctype html>tiles viewer");
    write(root / "viewer/viewer.js", "console.log(1);");
    write(root / "viewer/node_modules/three/build/three.module.js", "export {};");
    write(root / "viewer/.hidden/secret.txt", "hidden");
    write(root / "secret.txt", "TOPSECRET");
    std::promise<int> ready;
    std::future<int> bound = ready.get_future();
    thread = std::thread([this, &ready, page] {
      serveViewer(
          root / "planet", root / "viewer", 0,
          [&ready](const std::string& url) {
            ready.set_value(std::stoi(url.substr(url.rfind(':') + 1)));
          },
          &stop, page);
    });
    port = bound.get();
  }
  ~Served() {
    stop = true;
    thread.join();
    fs::remove_all(root);
  }
  static void write(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  }

  // Sends a raw request, returns the whole response (what came within 5 s: a server that
  // does not answer fails the test instead of hanging it).
  std::string request(const std::string& text) const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(uint16_t(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
    timeval timeout{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
    std::string response;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) response.append(buffer, size_t(n));
    ::close(fd);
    return response;
  }
  std::string host() const { return "127.0.0.1:" + std::to_string(port); }
  std::string get(const std::string& path) const {
    return request("GET " + path + " HTTP/1.1\r\nHost: " + host() +
                   "\r\nConnection: close\r\n\r\n");
  }
};

int connectTo(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  return fd;
}

std::string body(const std::string& response) {
  const size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

// A response header's value ("" if absent; names as the server writes them).
std::string header(const std::string& response, const std::string& name) {
  const size_t head_end = response.find("\r\n\r\n");
  const size_t at = response.find("\r\n" + name + ": ");
  if (at == std::string::npos || at >= head_end) return "";
  const size_t start = at + name.size() + 4;
  return response.substr(start, response.find("\r\n", start) - start);
}

}  // namespace

TEST_CASE("viewer server: serves the viewer and the planet with MIME types", "[viewer]") {
  Served served;
  const std::string index = served.get("/");
  CHECK(index.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(index.find("Content-Type: text/html; charset=utf-8\r\n") != std::string::npos);
  CHECK(body(index) == "<!doctype html>viewer");
  const std::string glb = served.get("/planet.glb?v=3");
  CHECK(glb.find("Content-Type: model/gltf-binary\r\n") != std::string::npos);
  CHECK(glb.find("Content-Length: 14\r\n") != std::string::npos);
  CHECK(body(glb) == std::string("glTF\x02\0\0\0binary", 14));
  const std::string js = served.get("/node_modules/three/build/three.module.js");
  CHECK(js.find("Content-Type: text/javascript; charset=utf-8\r\n") != std::string::npos);
  CHECK(body(js) == "export {};");
  CHECK(served.get("/viewer.js").find("Cache-Control: no-cache\r\n") != std::string::npos);
  // HEAD: headers only.
  const std::string head = served.request("HEAD /viewer.js HTTP/1.1\r\nHost: " + served.host() +
                                          "\r\nConnection: close\r\n\r\n");
  CHECK(head.find("Content-Length: 15\r\n") != std::string::npos);
  CHECK(body(head).empty());
  CHECK(mimeTypeFor("a/b/Model.GLB") == "model/gltf-binary");
  CHECK(mimeTypeFor("x.r16") == "application/octet-stream");
}

TEST_CASE("viewer server: path traversal and bad requests are refused", "[viewer]") {
  Served served;
  for (const char* path : {"/../secret.txt", "/%2e%2e/secret.txt", "/node_modules/../../secret.txt",
                           "/..%2fsecret.txt", "/a%5c..%5csecret.txt"}) {
    INFO(path);
    const std::string response = served.get(path);
    CHECK(response.rfind("HTTP/1.1 403 ", 0) == 0);
    CHECK(response.find("TOPSECRET") == std::string::npos);
  }
  CHECK(served.get("/.hidden/secret.txt").rfind("HTTP/1.1 404 ", 0) == 0);
  CHECK(served.get("/missing.js").rfind("HTTP/1.1 404 ", 0) == 0);
  CHECK(served.get("/%zz").rfind("HTTP/1.1 400 ", 0) == 0);
  CHECK(served.get("relative").rfind("HTTP/1.1 400 ", 0) == 0);
  CHECK(served.request("garbage\r\n\r\n").rfind("HTTP/1.1 400 ", 0) == 0);
  const std::string post = served.request("POST / HTTP/1.1\r\nHost: " + served.host() +
                                          "\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  CHECK(post.rfind("HTTP/1.1 405 ", 0) == 0);
  CHECK(post.find("Allow: GET, HEAD") != std::string::npos);
  // An over-long request line is refused (4xx) or dropped, never served.
  const std::string huge = served.request("GET /" + std::string(20000, 'G') + " HTTP/1.1\r\n\r\n");
  CHECK((huge.empty() || huge.rfind("HTTP/1.1 4", 0) == 0));
  // Still serving after all that.
  CHECK(served.get("/viewer.js").rfind("HTTP/1.1 200 ", 0) == 0);
}

TEST_CASE("viewer server: an idle connection does not hold up the others", "[viewer]") {
  Served served;
  // A browser pre-connects sockets it may never use; requests on other sockets go on.
  const int idle = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(served.port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(idle, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  ::send(idle, "GET /view", 9, MSG_NOSIGNAL);  // half a request
  const auto start = std::chrono::steady_clock::now();
  CHECK(served.get("/viewer.js").rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK(served.get("/planet.glb").rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  const std::string rest =
      "er.js HTTP/1.1\r\nHost: " + served.host() + "\r\nConnection: close\r\n\r\n";
  ::send(idle, rest.data(), rest.size(), MSG_NOSIGNAL);  // the rest arrives later
  std::string response;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::recv(idle, buffer, sizeof(buffer), 0)) > 0) response.append(buffer, size_t(n));
  ::close(idle);
  CHECK(body(response) == "console.log(1);");
}

TEST_CASE("viewer server: bad folders and ports are errors", "[viewer]") {
  std::atomic<bool> stop{true};
  CHECK_THROWS_AS(serveViewer("/no/such/folder", fs::temp_directory_path(), 0, nullptr, &stop),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      serveViewer(fs::temp_directory_path(), fs::temp_directory_path(), 70000, nullptr, &stop),
      std::invalid_argument);
  CHECK(fs::exists(defaultViewerDir() / "index.html"));
  // The page "/" serves is a plain name in the viewer's folder.
  for (const std::string page : {"", "../index.html", "a/b.html", ".hidden.html"}) {
    INFO(page);
    CHECK_THROWS_AS(
        serveViewer(fs::temp_directory_path(), fs::temp_directory_path(), 0, nullptr, &stop, page),
        std::invalid_argument);
  }
}

TEST_CASE("viewer server: a tiles folder gets the tiles page at /", "[viewer]") {
  Served served("tiles.html");
  CHECK(body(served.get("/")) == "<!doctype html>tiles viewer");
  // The other files are served as for a planet.
  CHECK(body(served.get("/viewer.js")) == "console.log(1);");
  CHECK(body(served.get("/planet.glb")).substr(0, 4) == "glTF");
  CHECK(body(served.get("/node_modules/three/build/three.module.js")) == "export {};");
}

TEST_CASE("viewer server: the Host header must name this server", "[viewer]") {
  Served served;
  const auto withHost = [&](const std::string& host) {
    return served.request("GET /viewer.js HTTP/1.1\r\n" + host + "Connection: close\r\n\r\n");
  };
  const std::string port = std::to_string(served.port);
  CHECK(withHost("Host: 127.0.0.1:" + port + "\r\n").rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK(withHost("Host: localhost:" + port + "\r\n").rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK(withHost("Host: LocalHost:" + port + "\r\n").rfind("HTTP/1.1 200 ", 0) == 0);
  for (const std::string& host : std::vector<std::string>{
           "Host: evil.example:" + port + "\r\n", "Host: evil.example\r\n", "Host: 127.0.0.1\r\n",
           "Host: localhost:1\r\n", "Host: 127.0.0.1:" + port + "0\r\n",
           "Host: x127.0.0.1:" + port + "\r\n"}) {
    INFO(host);
    const std::string response = withHost(host);
    CHECK(response.rfind("HTTP/1.1 403 ", 0) == 0);
    CHECK(response.find("console.log") == std::string::npos);
  }
  // RFC 9112 §3.2: an HTTP/1.1 request without Host, or any request with two, is a 400 (a
  // tester's request with two Host fields was served). HTTP/1.0 has no Host to require.
  const std::string ours = "Host: 127.0.0.1:" + port + "\r\n";
  for (const std::string& hosts :
       {std::string(), ours + ours, ours + "Host: evil.example\r\n",
        "Host: evil.example\r\n" + ours, ours + "host: localhost:" + port + "\r\n"}) {
    INFO(hosts);
    const std::string response = withHost(hosts);
    CHECK(response.rfind("HTTP/1.1 400 ", 0) == 0);
    CHECK(response.find("console.log") == std::string::npos);
  }
  const std::string old = served.request("GET /viewer.js HTTP/1.0\r\n\r\n");
  CHECK(old.rfind("HTTP/1.1 403 ", 0) == 0);
  const std::string two = served.request("GET /viewer.js HTTP/1.0\r\n" + ours + ours + "\r\n");
  CHECK(two.rfind("HTTP/1.1 400 ", 0) == 0);
  CHECK(body(served.request("GET /viewer.js HTTP/1.0\r\n" + ours + "\r\n")) == "console.log(1);");
}

TEST_CASE("viewer server: symlinks, FIFOs and folders are never served", "[viewer]") {
  Served served;
  fs::create_symlink(served.root / "secret.txt", served.root / "planet/link.txt");
  fs::create_symlink(served.root, served.root / "viewer/up");
  fs::create_directories(served.root / "viewer/sub");
  REQUIRE(::mkfifo((served.root / "planet/fifo.glb").c_str(), 0600) == 0);
  for (const char* path : {"/link.txt", "/up/secret.txt", "/sub", "/fifo.glb", "/up"}) {
    INFO(path);
    const std::string response = served.get(path);
    CHECK(response.rfind("HTTP/1.1 404 ", 0) == 0);
    CHECK(response.find("TOPSECRET") == std::string::npos);
  }
}

// A server that checks a path and then opens it by name serves a file outside the folder when a
// link is swapped in between. Two links race here for 10 s: planet/swap.txt flips between a
// regular file and a symlink to ../secret.txt, and viewer/dir between a folder and a symlink
// to the root (so /dir/secret.txt is outside the viewer folder).
TEST_CASE("viewer server: a symlink-swap race serves nothing from outside", "[viewer]") {
  Served served;
  const fs::path planet = served.root / "planet", viewer = served.root / "viewer";
  Served::write(planet / "swap.txt", "inside");
  fs::create_symlink(served.root / "secret.txt", planet / "swap.other");
  fs::create_directories(viewer / "dir");
  Served::write(viewer / "dir/secret.txt", "inside too");
  fs::create_symlink(served.root, viewer / "dir.other");
  std::atomic<bool> done{false};
  std::thread swapper([&] {
    // RENAME_EXCHANGE swaps the two names in one step: a name is always one or the other.
    while (!done) {
      ::renameat2(AT_FDCWD, (planet / "swap.txt").c_str(), AT_FDCWD,
                  (planet / "swap.other").c_str(), RENAME_EXCHANGE);
      ::renameat2(AT_FDCWD, (viewer / "dir").c_str(), AT_FDCWD, (viewer / "dir.other").c_str(),
                  RENAME_EXCHANGE);
    }
  });
  int outside = 0, inside = 0, requests = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < end) {
    for (const char* path : {"/swap.txt", "/dir/secret.txt"}) {
      const std::string response = served.get(path);
      ++requests;
      if (response.find("TOPSECRET") != std::string::npos) ++outside;
      if (response.rfind("HTTP/1.1 200 ", 0) == 0) ++inside;
    }
  }
  done = true;
  swapper.join();
  INFO(requests << " requests, " << inside << " served from inside");
  CHECK(outside == 0);
  CHECK(inside > 0);  // the race was real: the regular file was there some of the time
}

// One slow reader of a large file must not stall the other clients (a single-threaded server
// stalled them for 92 s).
TEST_CASE("viewer server: a slow reader does not hold up 20 other requests", "[viewer]") {
  Served served;
  {
    std::ofstream(served.root / "planet/big.glb").close();
    fs::resize_file(served.root / "planet/big.glb", 256u << 20);  // sparse, 256 MiB
  }
  const int slow = connectTo(served.port);
  int buffer_size = 4096;
  ::setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &buffer_size, sizeof buffer_size);
  const std::string request =
      "GET /big.glb HTTP/1.1\r\nHost: " + served.host() + "\r\nConnection: close\r\n\r\n";
  ::send(slow, request.data(), request.size(), MSG_NOSIGNAL);
  char chunk[1024];
  REQUIRE(::recv(slow, chunk, sizeof chunk, 0) > 0);  // the transfer has started
  // 64 idle connections too, as a browser's pre-connected sockets.
  std::vector<int> idle;
  for (int i = 0; i < 64; ++i) idle.push_back(connectTo(served.port));
  std::vector<double> seconds;
  for (int i = 0; i < 20; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const std::string response = served.get(i % 2 ? "/viewer.js" : "/planet.glb");
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    CHECK(response.rfind("HTTP/1.1 200 ", 0) == 0);
    ::recv(slow, chunk, sizeof chunk, 0);  // the slow reader keeps reading, a little
  }
  for (int fd : idle) ::close(fd);
  ::close(slow);
  INFO("slowest request: " << *std::max_element(seconds.begin(), seconds.end()) << " s");
  for (double s : seconds) CHECK(s < 1.0);
}

// From a tester: a second `view` on a port in use bound as well (httplib's default
// SO_REUSEPORT), said "viewer at ...", and the kernel shared the requests between the two.
TEST_CASE("viewer server: a second server on a port in use fails, naming the port", "[viewer]") {
  Served served;
  std::atomic<bool> stop{true};  // were it to bind, it would stop at once
  bool ready = false;
  const std::string port = std::to_string(served.port);
  CHECK_THROWS_WITH(
      serveViewer(
          served.root / "viewer", served.root / "viewer", served.port,
          [&ready](const std::string&) { ready = true; }, &stop),
      Catch::Contains("cannot listen on 127.0.0.1:" + port + ": Address already in use"));
  CHECK_FALSE(ready);
  // The first one still serves every request.
  for (int i = 0; i < 4; ++i) CHECK(body(served.get("/planet.glb")).rfind("glTF", 0) == 0);
}

// From a tester: "bytes=SIZE+1-" got 200 with Content-Length 2^64 - 1, "bytes=0-HUGE" a
// Content-Length of HUGE and a cut connection, "bytes=0-9" 200 instead of 206.
TEST_CASE("viewer server: byte ranges get 206, 416 or the whole file (RFC 9110)", "[viewer]") {
  Served served;
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += char('a' + i % 26 + (i / 26) % 2 * ('A' - 'a'));
  Served::write(served.root / "planet/range.glb", bytes);
  const auto get = [&](const std::string& range, const std::string& method = "GET") {
    return served.request(method + " /range.glb HTTP/1.1\r\nHost: " + served.host() +
                          "\r\nRange: " + range + "\r\nConnection: close\r\n\r\n");
  };
  SECTION("a satisfiable range: 206 with exactly those bytes") {
    const std::string first10 = get("bytes=0-9");
    CHECK(first10.rfind("HTTP/1.1 206 ", 0) == 0);
    CHECK(header(first10, "Content-Length") == "10");
    CHECK(header(first10, "Content-Range") == "bytes 0-9/1000");
    CHECK(header(first10, "Content-Type") == "model/gltf-binary");
    CHECK(body(first10) == bytes.substr(0, 10));
    const std::string middle = get("bytes=500-500");
    CHECK(middle.rfind("HTTP/1.1 206 ", 0) == 0);
    CHECK(header(middle, "Content-Range") == "bytes 500-500/1000");
    CHECK(body(middle) == bytes.substr(500, 1));
    const std::string rest = get("bytes=990-");
    CHECK(header(rest, "Content-Range") == "bytes 990-999/1000");
    CHECK(body(rest) == bytes.substr(990));
    CHECK(served.get("/range.glb").find("Accept-Ranges: bytes\r\n") != std::string::npos);
  }
  SECTION("an end past the file is clamped to its last byte") {
    for (const char* range : {"bytes=0-99999999999", "bytes=0-999", "bytes=0-1000",
                              "bytes=0-99999999999999999999999999"}) {
      INFO(range);
      const std::string response = get(range);
      CHECK(response.rfind("HTTP/1.1 206 ", 0) == 0);
      CHECK(header(response, "Content-Length") == "1000");
      CHECK(header(response, "Content-Range") == "bytes 0-999/1000");
      CHECK(body(response) == bytes);
    }
  }
  SECTION("a suffix range: the last N bytes, the whole file if N is larger") {
    const std::string last10 = get("bytes=-10");
    CHECK(last10.rfind("HTTP/1.1 206 ", 0) == 0);
    CHECK(header(last10, "Content-Length") == "10");
    CHECK(header(last10, "Content-Range") == "bytes 990-999/1000");
    CHECK(body(last10) == bytes.substr(990));
    const std::string all = get("bytes=-5000");
    CHECK(header(all, "Content-Range") == "bytes 0-999/1000");
    CHECK(body(all) == bytes);
  }
  SECTION("a start at or past the end, or an empty suffix: 416 with bytes */SIZE") {
    for (const char* range : {"bytes=1000-", "bytes=1001-", "bytes=1000-2000", "bytes=-0",
                              "bytes=99999999999999999999999999-"}) {
      INFO(range);
      const std::string response = get(range);
      CHECK(response.rfind("HTTP/1.1 416 ", 0) == 0);
      CHECK(header(response, "Content-Range") == "bytes */1000");
      CHECK(body(response).find(bytes.substr(0, 26)) == std::string::npos);
    }
  }
  SECTION("a malformed range, another unit, several ranges or an If-Range: the whole file") {
    for (const char* range : {"bytes=abc", "bytes=9-5", "bytes=-", "bytes=1-2-3", "bytes=+1-2",
                              "items=0-5", "bytes=0-1,5-6", "bytes 0-9"}) {
      INFO(range);
      const std::string response = get(range);
      CHECK(response.rfind("HTTP/1.1 200 ", 0) == 0);
      CHECK(header(response, "Content-Length") == "1000");
      CHECK(header(response, "Content-Range").empty());
      CHECK(body(response) == bytes);
    }
    const std::string if_range = get("bytes=0-9\r\nIf-Range: \"abc\"");
    CHECK(if_range.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(body(if_range) == bytes);
    // The Host check still applies to a request whose Range is not understood.
    const std::string wrong_host = served.request(
        "GET /range.glb HTTP/1.1\r\nHost: evil.example\r\nRange: items=0-5\r\n"
        "Connection: close\r\n\r\n");
    CHECK(wrong_host.rfind("HTTP/1.1 403 ", 0) == 0);
  }
  SECTION("HEAD ignores Range") {
    const std::string head = get("bytes=0-9", "HEAD");
    CHECK(head.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(header(head, "Content-Length") == "1000");
    CHECK(body(head).empty());
  }
  SECTION("an empty file") {
    Served::write(served.root / "planet/empty.glb", "");
    const auto empty = [&](const std::string& range) {
      return served.request("GET /empty.glb HTTP/1.1\r\nHost: " + served.host() +
                            "\r\nRange: " + range + "\r\nConnection: close\r\n\r\n");
    };
    const std::string from0 = empty("bytes=0-");
    CHECK(from0.rfind("HTTP/1.1 416 ", 0) == 0);
    CHECK(header(from0, "Content-Range") == "bytes */0");
    const std::string suffix = empty("bytes=-10");
    CHECK(suffix.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(header(suffix, "Content-Length") == "0");
  }
  // A range on a kept-alive connection leaves it usable.
  const int fd = connectTo(served.port);
  const std::string first =
      "GET /range.glb HTTP/1.1\r\nHost: " + served.host() + "\r\nRange: bytes=0-9\r\n\r\n";
  ::send(fd, first.data(), first.size(), MSG_NOSIGNAL);
  std::string both;
  char buffer[4096];
  ssize_t n = 0;
  while (both.find("\r\n\r\n") == std::string::npos || body(both).size() < 10) {
    n = ::recv(fd, buffer, sizeof(buffer), 0);
    REQUIRE(n > 0);
    both.append(buffer, size_t(n));
  }
  const size_t second = both.size();
  const std::string next = "GET /range.glb HTTP/1.1\r\nHost: " + served.host() +
                           "\r\nRange: bytes=-10\r\nConnection: close\r\n\r\n";
  ::send(fd, next.data(), next.size(), MSG_NOSIGNAL);
  while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) both.append(buffer, size_t(n));
  ::close(fd);
  CHECK(body(both.substr(0, second)) == bytes.substr(0, 10));
  CHECK(both.substr(second).rfind("HTTP/1.1 206 ", 0) == 0);
  CHECK(body(both.substr(second)) == bytes.substr(990));
}

namespace {

// The responses in `stream`, one after the other: each its head and its body (Content-Length
// bytes; none after a HEAD, whose methods are given in order).
std::vector<std::pair<std::string, std::string>> splitResponses(
    std::string stream, const std::vector<std::string>& methods) {
  std::vector<std::pair<std::string, std::string>> responses;
  for (size_t i = 0; !stream.empty(); ++i) {
    const size_t end = stream.find("\r\n\r\n");
    if (end == std::string::npos) break;
    const std::string head = stream.substr(0, end + 4);
    const std::string length = header(head, "Content-Length");
    const size_t bytes =
        (i < methods.size() && methods[i] == "HEAD") || length.empty() ? 0 : std::stoul(length);
    responses.emplace_back(head, stream.substr(end + 4, bytes));
    stream.erase(0, std::min(stream.size(), end + 4 + bytes));
  }
  return responses;
}

std::string readAll(int fd) {
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string text;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) text.append(buffer, size_t(n));
  return text;
}

}  // namespace

// A tester's trial: with several requests sent in one write, only the first was answered
// (httplib 0.11 read the rest into a buffer it then dropped). RFC 9112 §9.3.2: answer them all,
// in order (or close after the first).
TEST_CASE("viewer server: pipelined requests are all answered, in order", "[viewer]") {
  Served served;
  const std::string host = "Host: " + served.host() + "\r\n";
  SECTION("three in one write") {
    const int fd = connectTo(served.port);
    const std::string pipeline = "GET /viewer.js HTTP/1.1\r\n" + host + "\r\n" +
                                 "HEAD /planet.glb HTTP/1.1\r\n" + host + "\r\n" +
                                 "GET / HTTP/1.1\r\n" + host + "Connection: close\r\n\r\n";
    REQUIRE(::send(fd, pipeline.data(), pipeline.size(), MSG_NOSIGNAL) == ssize_t(pipeline.size()));
    const auto responses = splitResponses(readAll(fd), {"GET", "HEAD", "GET"});
    ::close(fd);
    REQUIRE(responses.size() == 3);
    CHECK(responses[0].first.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(responses[0].second == "console.log(1);");
    CHECK(responses[1].first.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(header(responses[1].first, "Content-Length") == "14");
    CHECK(responses[1].second.empty());
    CHECK(responses[2].first.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(responses[2].second == "<!doctype html>viewer");
    CHECK(header(responses[2].first, "Connection") == "close");
  }
  SECTION("a bad request in a pipeline is answered, then the connection closes") {
    const int fd = connectTo(served.port);
    const std::string pipeline = "GET /viewer.js HTTP/1.1\r\n" + host + "\r\n" +
                                 "GET /viewer.js HTTP/1.1\r\n" + host + host + "\r\n" +
                                 "GET /viewer.js HTTP/1.1\r\n" + host + "\r\n";
    ::send(fd, pipeline.data(), pipeline.size(), MSG_NOSIGNAL);
    const auto responses = splitResponses(readAll(fd), {});
    ::close(fd);
    REQUIRE(responses.size() == 2);
    CHECK(responses[0].second == "console.log(1);");
    CHECK(responses[1].first.rfind("HTTP/1.1 400 ", 0) == 0);
    CHECK(header(responses[1].first, "Connection") == "close");
  }
  SECTION("a hundred in one write, the kept-alive bound closing the connection after them") {
    const int fd = connectTo(served.port);
    std::string pipeline;
    for (int i = 0; i < 100; ++i) pipeline += "GET /viewer.js HTTP/1.1\r\n" + host + "\r\n";
    ::send(fd, pipeline.data(), pipeline.size(), MSG_NOSIGNAL);
    const auto responses = splitResponses(readAll(fd), {});
    ::close(fd);
    REQUIRE(responses.size() == 100);
    for (const auto& [head, content] : responses) CHECK(content == "console.log(1);");
    CHECK(header(responses.back().first, "Connection") == "close");
  }
}

namespace {

// Raises this process's descriptor limit to `wanted` if the hard limit allows; returns whether
// it is at least that now.
bool descriptorsAtLeast(rlim_t wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  if (limit.rlim_cur < wanted && limit.rlim_max >= wanted) {
    limit.rlim_cur = wanted;
    ::setrlimit(RLIMIT_NOFILE, &limit);
    ::getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur >= wanted;
}

}  // namespace

// A tester's trial: 128 or more connections that each sent one header line every few seconds
// blocked every other client for as long as they kept trickling (the 5 s header limit was per
// read, and each held one of 128 workers). Here 512 connections trickle a line a second each,
// and come back when dropped, as an attacker's would, while a normal client keeps asking (at
// least twenty times, and until every trickling connection has been cut off, at most 60 s):
// each answer must come within 1 s, and the trickling ones must be cut off by the head's
// deadline although every single read comes well within it. The client asks until the cut-offs
// are seen rather than for a fixed time, because a dropped connection is noticed only at the
// second send after the server closed it, a second or two after the 5 s deadline, later still
// in a sanitizer build.
TEST_CASE("viewer server: 512 connections trickling headers starve no client", "[viewer]") {
  constexpr int kSlow = 512;
  // Both ends are in this process: the slow clients' sockets and the server's.
  if (!descriptorsAtLeast(3 * kSlow)) {
    WARN("skipped: the descriptor limit is below " << 3 * kSlow);
    return;
  }
  Served served;
  const std::string start = "GET /viewer.js HTTP/1.1\r\nHost: " + served.host() + "\r\n";
  std::atomic<bool> done{false};
  std::atomic<int> reconnects{0};
  std::atomic<bool> flooding{false};
  std::thread trickle([&] {
    std::vector<int> slow;
    const auto open = [&] {  // not connectTo: REQUIRE belongs to the test's own thread
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(uint16_t(served.port));
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0)
        ::send(fd, start.data(), start.size(), MSG_NOSIGNAL);
      return fd;
    };
    for (int i = 0; i < kSlow; ++i) slow.push_back(open());
    flooding = true;
    for (int line = 0; !done; ++line) {
      const std::string field = "X-Slow-" + std::to_string(line) + ": x\r\n";
      for (int& fd : slow) {
        if (::send(fd, field.data(), field.size(), MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
            errno != EAGAIN) {
          ::close(fd);  // dropped by the server: come back
          fd = open();
          ++reconnects;
        }
      }
      for (int tick = 0; tick < 10 && !done; ++tick)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (int fd : slow) ::close(fd);
  });
  while (!flooding) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::vector<double> seconds;
  const auto flood_start = std::chrono::steady_clock::now();
  const auto asked_enough = [&] {
    return seconds.size() >= 20 &&
           (reconnects >= kSlow ||
            std::chrono::steady_clock::now() - flood_start > std::chrono::seconds(60));
  };
  for (int i = 0; !asked_enough(); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string response = served.get(i % 2 ? "/viewer.js" : "/planet.glb");
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    CHECK(response.rfind("HTTP/1.1 200 ", 0) == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(350));
  }
  done = true;
  trickle.join();
  INFO("slowest request: " << *std::max_element(seconds.begin(), seconds.end()) << " s; "
                           << reconnects << " slow connections dropped and reopened");
  for (double s : seconds) CHECK(s < 1.0);
  // Every slow connection was cut off at its 5 s deadline (within the 60 s the client asked).
  CHECK(reconnects >= kSlow);
}
