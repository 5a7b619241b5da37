// CLI11 reads an integer option with strtoll (strtoull), which saturates without a word: a
// batch of 2^63 would be read as 2^63 - 1 and reported so, a seed of 2^64 taken as 2^64 - 1. This
// check runs on the text first and refuses a number that does not fit the option's integer type,
// quoting what the user wrote.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>

namespace kapla::cli {

/// A CLI11 check for an integer option of type T: a value out of T's range is an error naming
/// it; anything else not a number is left to CLI11's own conversion message.
template <class T>
CLI::Validator fits_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        T value = 0;
        const char* begin = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
        if (std::from_chars(begin, text.data() + text.size(), value).ec ==
            std::errc::result_out_of_range)
          return "out of range for a " + std::to_string(8 * sizeof(T)) + "-bit integer: " + text;
        return {};
      },
      "");
}

inline CLI::Validator fits_int64() { return fits_integer<std::int64_t>(); }

}  // namespace kapla::cli
