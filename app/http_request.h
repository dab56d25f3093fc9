#pragma once
// HTTP/1.1 request heads (RFC 9112) as `planetgen view`'s server reads them, apart from the
// sockets so that a fuzz target (tests/fuzz/http_request_fuzz.cpp) can drive it alone.
//
// Strict where the RFC allows a choice, since only a browser on this machine talks to it: a
// request line of exactly three parts with single spaces, field names without whitespace before
// the colon, no line folding, no control characters but tab in values; a bare LF ends a line as
// CRLF does (RFC 9112 §2.2), a bare CR is an error; empty lines before the request line are
// skipped. Limits: 16 KiB for the whole head, 8 KiB for the request line, 100 fields.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace app {

inline constexpr size_t kMaxRequestHeadBytes = 16384;
inline constexpr size_t kMaxRequestLineBytes = 8192;
inline constexpr size_t kMaxRequestFields = 100;

struct HttpRequest {
  std::string method;                                       // as sent (methods are case-sensitive)
  std::string target;                                       // the request target, e.g. "/a/b?query"
  int minor_version = 1;                                    // HTTP/1.minor
  uint64_t body_bytes = 0;                                  // Content-Length (0 without one)
  std::vector<std::pair<std::string, std::string>> fields;  // names lower-cased, values trimmed

  // How many fields are named `name` (lower case).
  size_t count(std::string_view name) const;
  // The value of the field `name` (lower case), or nullptr if there is none or more than one.
  const std::string* field(std::string_view name) const;
  // Whether a comma-separated field (Connection) lists `token`, compared without case.
  bool lists(std::string_view name, std::string_view token) const;
};

struct RequestHead {
  enum class State { kIncomplete, kComplete, kBad };
  State state = State::kIncomplete;
  size_t length = 0;    // kComplete, kBad: bytes of the head, up to and including its empty line
                        // (kBad: what was looked at; the connection is closed anyway)
  int status = 0;       // kBad: the response status: 400, 414, 431, 501 or 505
  HttpRequest request;  // kComplete
};

// Parses the request head at the start of `bytes` (more bytes may follow: the body, or the next
// request of a pipeline). kIncomplete: the head is not all there yet and within the limits.
// kBad with the status for: a malformed request line or field (400), a request line over the
// limit (414), a head over the limit or too many fields (431), a Transfer-Encoding (501: no
// request body is read), an HTTP major version other than 1 (505), and, as RFC 9112 §3.2
// says, an HTTP/1.1 request without a Host field or any request with more than one (400); also
// a malformed or repeated Content-Length (400). Never throws except std::bad_alloc.
RequestHead parseRequestHead(std::string_view bytes);

}  // namespace app
