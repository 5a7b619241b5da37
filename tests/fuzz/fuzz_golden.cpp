// libFuzzer harness: one golden parity record (io/golden_record), every part check-golden reads.
#include "fuzz_common.hpp"
#include "io/golden_record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return kapla::fuzz::run_one(
      data, size, [](std::string_view text) { (void)kapla::io::golden::parse_record_line(text); });
}
