#pragma once
// User input quoted in a message (a --set value, a key, a path): control characters escaped, so
// that a value ending in a carriage return cannot overwrite the line on a terminal, and long
// text cut, so that a 100,000-character value is not echoed in full (stderr is read by people).

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace planet::detail {

// How much of a value (a --set value, a config value, a key) and of a path a message quotes.
inline constexpr size_t kMaxShownValueChars = 80;
inline constexpr size_t kMaxShownPathChars = 300;

// `text` with \r, \n and \t written as such and other control bytes (below 0x20, and 0x7f) as
// \xNN; if it is longer than `max_chars` bytes, its first bytes (not cutting a UTF-8 sequence)
// followed by "... (N bytes)". Plain text of at most max_chars bytes comes back unchanged.
inline std::string displayedText(std::string_view text, size_t max_chars = kMaxShownValueChars) {
  std::string_view shown = text;
  if (text.size() > max_chars) {
    size_t cut = max_chars;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    shown = text.substr(0, cut);
  }
  std::string out;
  out.reserve(shown.size() + 24);
  for (const char c : shown) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  if (shown.size() < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace planet::detail
