// The golden-record parser refuses what a reference run never writes, with one InputError.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "io/golden_record.hpp"

namespace kapla::io::golden {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::string& line) {
  try {
    parse_record_line(line);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// A network_run record whose integer fields are given as other JSON numbers. Found by fuzzing:
// nlohmann's get<int64_t>() of 2.28889e+103 is undefined behaviour (UBSan), and of 3.5 it
// silently truncated.
TEST(GoldenRecord, IntegerFieldsMustBeIntegersInRange) {
  const std::string batch_of = R"({"kind": "network_run", "net": "n", "result": {"batch": )";
  for (const char* bad : {"2.28889e+103", "3.5"}) {
    EXPECT_THAT(error_of(batch_of + bad + "}}"),
                HasSubstr("must be an integer, got " + std::string(bad)))
        << bad;
  }
  EXPECT_THAT(error_of(batch_of + "18446744073709551615}}"),
              HasSubstr("is too large, got 18446744073709551615"));
  // A valid batch gets past it (to the next missing key).
  EXPECT_THAT(error_of(batch_of + "4}}"), HasSubstr("resource"));
}

}  // namespace
}  // namespace kapla::io::golden
