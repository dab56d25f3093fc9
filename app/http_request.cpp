#include "app/http_request.h"

#include <algorithm>
#include <charconv>

namespace app {
namespace {

// RFC 9110 §5.6.2: token characters.
bool isTokenChar(char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool isToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), isTokenChar);
}

// A field value: visible characters, obs-text, space and tab (RFC 9110 §5.5).
bool isFieldValue(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b == '\t' || (b >= 0x20 && b != 0x7f);
  });
}

// A request target: visible ASCII only (a browser percent-encodes the rest).
bool isTarget(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b > 0x20 && b < 0x7f;
  });
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

RequestHead bad(int status, size_t length) {
  RequestHead head;
  head.state = RequestHead::State::kBad;
  head.status = status;
  head.length = length;
  return head;
}

// The request line: method SP target SP HTTP/DIGIT.DIGIT. Returns 0, or the status.
int parseRequestLine(std::string_view line, HttpRequest& request) {
  const size_t first = line.find(' ');
  const size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos)
    return 400;
  const std::string_view method = line.substr(0, first);
  const std::string_view target = line.substr(first + 1, second - first - 1);
  const std::string_view version = line.substr(second + 1);
  if (!isToken(method) || !isTarget(target)) return 400;
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9')
    return 400;
  if (version[5] != '1') return 505;
  request.method = std::string(method);
  request.target = std::string(target);
  request.minor_version = version[7] - '0';
  return 0;
}

// The checks on the fields as a whole. Returns 0, or the status.
int checkFields(HttpRequest& request) {
  const size_t hosts = request.count("host");
  if (hosts > 1 || (hosts == 0 && request.minor_version >= 1)) return 400;
  if (request.count("transfer-encoding") > 0) return 501;
  const size_t lengths = request.count("content-length");
  if (lengths > 1) return 400;
  if (lengths == 1) {
    const std::string& text = *request.field("content-length");
    const char* end = text.data() + text.size();
    const auto [used, error] = std::from_chars(text.data(), end, request.body_bytes);
    if (text.empty() || error != std::errc() || used != end || text[0] == '-' || text[0] == '+')
      return 400;
  }
  return 0;
}

}  // namespace

size_t HttpRequest::count(std::string_view name) const {
  return size_t(
      std::count_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == name; }));
}

const std::string* HttpRequest::field(std::string_view name) const {
  const std::string* found = nullptr;
  for (const auto& [key, value] : fields) {
    if (key != name) continue;
    if (found != nullptr) return nullptr;
    found = &value;
  }
  return found;
}

bool HttpRequest::lists(std::string_view name, std::string_view token) const {
  for (const auto& [key, value] : fields) {
    if (key != name) continue;
    std::string_view rest(value);
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      const std::string_view item = trimmed(rest.substr(0, comma));
      if (item.size() == token.size() &&
          std::equal(item.begin(), item.end(), token.begin(),
                     [](char a, char b) { return lower(a) == lower(b); }))
        return true;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return false;
}

RequestHead parseRequestHead(std::string_view bytes) {
  RequestHead head;
  size_t at = 0;
  bool have_request_line = false;
  while (true) {
    const size_t newline = bytes.find('\n', at);
    const size_t line_limit = have_request_line ? kMaxRequestHeadBytes : kMaxRequestLineBytes;
    if (newline == std::string_view::npos) {
      // Not all there yet; refused as soon as it cannot fit any more.
      if (bytes.size() > kMaxRequestHeadBytes) return bad(431, bytes.size());
      if (bytes.size() - at > line_limit) return bad(have_request_line ? 431 : 414, bytes.size());
      return head;
    }
    if (!have_request_line && newline - at > kMaxRequestLineBytes + 1) return bad(414, newline + 1);
    if (newline + 1 > kMaxRequestHeadBytes) return bad(431, newline + 1);
    std::string_view line = bytes.substr(at, newline - at);
    at = newline + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('\r') != std::string_view::npos) return bad(400, at);
    if (!have_request_line) {
      if (line.empty()) continue;  // RFC 9112 §2.2: empty lines before the request line
      if (line.size() > kMaxRequestLineBytes) return bad(414, at);
      if (const int status = parseRequestLine(line, head.request)) return bad(status, at);
      have_request_line = true;
      continue;
    }
    if (line.empty()) break;                                               // the end of the head
    if (line.front() == ' ' || line.front() == '\t') return bad(400, at);  // obsolete folding
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !isToken(line.substr(0, colon))) return bad(400, at);
    const std::string_view value = trimmed(line.substr(colon + 1));
    if (!isFieldValue(value)) return bad(400, at);
    if (head.request.fields.size() == kMaxRequestFields) return bad(431, at);
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(), lower);
    head.request.fields.emplace_back(std::move(name), std::string(value));
  }
  if (const int status = checkFields(head.request)) return bad(status, at);
  head.state = RequestHead::State::kComplete;
  head.length = at;
  return head;
}

}  // namespace app
