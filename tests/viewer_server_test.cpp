// Tests of export/viewer_server: the static file server behind `planetgen view DIR`. Each test
// serves two temporary folders on 127.0.0.1 (a free port) from a thread and talks raw HTTP.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "export/viewer_server.h"

namespace fs = std::filesystem;
using namespace planet_export;

namespace {

struct Served {
  fs::path root;
  std::atomic<bool> stop{false};
  std::thread thread;
  int port = 0;

  Served() {
    root =
        fs::temp_directory_path() / ("planetgen_viewer_server_test_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "planet");
    fs::create_directories(root / "viewer/node_modules/three/build");
    fs::create_directories(root / "viewer/.hidden");
    write(root / "planet/planet.glb", std::string("glTF\x02\0\0\0binary", 14));
    write(root / "planet/index.html", "a planet folder must not replace the viewer's page");
    write(root / "viewer/index.html", "<!doctype html>viewer");
    write(root / "viewer/viewer.js", "console.log(1);");
    write(root / "viewer/node_modules/three/build/three.module.js", "export {};");
    write(root / "viewer/.hidden/secret.txt", "hidden");
    write(root / "secret.txt", "TOPSECRET");
    std::promise<int> ready;
    std::future<int> bound = ready.get_future();
    thread = std::thread([this, &ready] {
      serveViewer(
          root / "planet", root / "viewer", 0,
          [&ready](const std::string& url) {
            ready.set_value(std::stoi(url.substr(url.rfind(':') + 1)));
          },
          &stop);
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

  // Sends a raw request, returns the whole response.
  std::string request(const std::string& text) const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(uint16_t(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
    ::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
    std::string response;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) response.append(buffer, size_t(n));
    ::close(fd);
    return response;
  }
  std::string get(const std::string& path) const {
    return request("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  }
};

std::string body(const std::string& response) {
  const size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
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
  const std::string head = served.request("HEAD /viewer.js HTTP/1.1\r\n\r\n");
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
  const std::string post = served.request("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  CHECK(post.rfind("HTTP/1.1 405 ", 0) == 0);
  CHECK(post.find("Allow: GET, HEAD") != std::string::npos);
  CHECK(served.request(std::string(20000, 'G')).rfind("HTTP/1.1 431 ", 0) == 0);
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
  ::send(idle, "er.js HTTP/1.1\r\n\r\n", 18, MSG_NOSIGNAL);  // the rest arrives later
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
}
