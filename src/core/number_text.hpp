// Numbers as text for machines (CSV, resolved values): the shortest form that reads back as
// the same double (std::to_chars), e.g. 0.98372184 rather than %.17g's 0.98372183999999996.
#pragma once

#include <charconv>
#include <string>
#include <system_error>

namespace kapla {

inline std::string shortest_text(double v) {
  char buf[32];  // the longest shortest form of a double is 24 characters
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

}  // namespace kapla
