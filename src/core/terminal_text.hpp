// Text bound for a terminal: error messages quote user input (names, keys, paths), which must
// not be able to move the cursor, clear the screen or split the one-line error.
#pragma once

#include <string>
#include <string_view>

namespace kapla {

/// A message made safe for one terminal line: newlines and tabs become spaces, other control
/// characters (an ESC in a layer name would reach the terminal raw) are written as \xNN.
inline std::string terminal_safe(std::string_view message) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(message.size());
  for (char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace kapla
