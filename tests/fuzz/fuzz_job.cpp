// libFuzzer harness: job files (io/job_json), including their tuple expansion.
#include "fuzz_common.hpp"
#include "io/job_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return kapla::fuzz::run_one(data, size, [](std::string_view text) {
    (void)kapla::io::parse_job_text(text, "fuzz.json");
  });
}
