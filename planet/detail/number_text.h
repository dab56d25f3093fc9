#pragma once
// A number as messages and generated text show it: the shortest of fixed or scientific
// notation with 6 significant digits (std::ostream's default), e.g. 0.5, 2000, 1e+09.

#include <sstream>
#include <string>

namespace planet::detail {

inline std::string numberText(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace planet::detail
