// libFuzzer harness: network files (io/network_json), from text to a validated model::Network.
#include "fuzz_common.hpp"
#include "io/json_util.hpp"
#include "io/network_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return kapla::fuzz::run_one(data, size, [](std::string_view text) {
    (void)kapla::io::parse_network(kapla::io::parse_json_text(text), "fuzz.json");
  });
}
