#include "planet/detail/suggest.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace planet {

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearestChoice(std::string_view word, std::span<const std::string> choices) {
  const std::string* best = nullptr;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const std::string& c : choices) {
    const size_t d = editDistance(word, c);
    if (d < best_d) best_d = d, best = &c;
  }
  if (!best || best_d > std::max<size_t>(2, word.size() / 3)) return {};
  return *best;
}

}  // namespace planet
