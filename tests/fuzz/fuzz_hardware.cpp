// libFuzzer harness: hardware files, kapla's format and the reference's (io/hardware_json).
#include "fuzz_common.hpp"
#include "io/hardware_json.hpp"
#include "io/json_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return kapla::fuzz::run_one(data, size, [](std::string_view text) {
    (void)kapla::io::parse_hardware(kapla::io::parse_json_text(text), "fuzz.json", "fuzz");
  });
}
