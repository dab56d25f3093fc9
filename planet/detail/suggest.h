#pragma once
// "Did you mean" suggestions for mistyped config keys, subcommands and options.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace planet {

// Levenshtein distance: the fewest single-character insertions, deletions and substitutions
// that turn a into b.
size_t editDistance(std::string_view a, std::string_view b);

// The choice closest to word by editDistance (ties: the first), or "" when choices is empty or
// the closest is more than max(2, word.size() / 3) edits away (no sensible suggestion).
std::string nearestChoice(std::string_view word, std::span<const std::string> choices);

}  // namespace planet
