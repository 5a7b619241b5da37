// What every libFuzzer harness checks: the parser under test either succeeds or throws one
// InputError with a non-empty message. Any other exception escapes LLVMFuzzerTestOneInput and
// libFuzzer reports it as a crash (so do ASan/UBSan findings, timeouts and the RSS limit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/errors.hpp"

namespace kapla::fuzz {

template <class F>
int run_one(const std::uint8_t* data, std::size_t size, F&& parse) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    parse(text);
  } catch (const InputError& e) {
    if (std::string_view(e.what()).empty()) std::abort();  // a message must say something
  }
  return 0;
}

}  // namespace kapla::fuzz
