#pragma once
// What `planetgen view`'s server answers to one request head (the rules are in
// viewer_server.h), apart from the sockets so that a fuzz target (tests/fuzz/
// http_request_fuzz.cpp) can drive whole requests through it.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "app/http_request.h"

namespace app {

// The two folders a server serves (canonical paths, fixed at start), the page "/" serves from
// the viewer's folder (a plain file name) and the port it listens on (the Host field must name
// it).
struct ServedFolders {
  std::filesystem::path planet;
  std::filesystem::path viewer;
  std::string page = "index.html";
  int port = 0;
};

// One response: its head, then either a short body (an error's text) or a part of a file.
// Move-only; owns the file's descriptor.
struct Response {
  int status = 0;
  std::string head;  // status line and fields, with the empty line that ends them
  std::string body;  // sent after the head (empty for HEAD, and when a file follows)
  int file = -1;     // >= 0: then file_bytes bytes of it from file_offset follow the head
  uint64_t file_offset = 0;
  uint64_t file_bytes = 0;
  bool close = false;  // the connection ends after this response (Connection: close is sent)

  Response() = default;
  Response(Response&& other) noexcept;
  Response& operator=(Response&& other) noexcept;
  Response(const Response&) = delete;
  Response& operator=(const Response&) = delete;
  ~Response();
};

// The response to `head` (complete, or kBad: its status, and the connection closes).
// `keep_alive`: whether the connection may stay open after this response (false for the last
// one a connection may carry); it closes anyway for an HTTP/1.0 request without
// "Connection: keep-alive", a "Connection: close", or a request with a body (which is not
// read). `date` is the Date field's value ("" leaves the field out). Opens files through the
// folders' descriptors (viewer_server_paths.h). Never throws except std::bad_alloc.
Response respond(const RequestHead& head, const ServedFolders& folders, bool keep_alive,
                 std::string_view date);

// The Date field's value for a time (RFC 9110 §5.6.7, IMF-fixdate).
std::string httpDate(int64_t unix_seconds);

}  // namespace app
