// libFuzzer harness: KAPLA options files (io/options_json, `kapla schedule --options FILE`).
#include "fuzz_common.hpp"
#include "io/json_util.hpp"
#include "io/options_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return kapla::fuzz::run_one(data, size, [](std::string_view text) {
    (void)kapla::io::parse_search_options(kapla::io::parse_json_text(text), "",
                                          kapla::io::OptionsFormat::KaplaFile);
  });
}
