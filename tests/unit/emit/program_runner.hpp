// Builds and runs an emitted layer program (src/emit) with the compiler that built the tests:
// the harness of the emitter's tests.
#pragma once

#include <filesystem>
#include <string>

namespace kapla::emit_test {

struct ProgramRun {
  int exit_code = -1;
  std::string output;
};

/// Where this test process writes its programs (one directory per process: ctest runs tests in
/// parallel).
std::filesystem::path program_dir();

/// Writes `source`, compiles it (-O1, `flags` for the warnings: the HLS target must build
/// warning-free with -Werror) and runs it, with --count-only if asked. A program that fails is
/// kept for a look (its path is in the output); one that passes is removed.
ProgramRun compile_and_run(const std::string& source, const std::string& name, bool count_only,
                           const std::string& flags = "-w");

}  // namespace kapla::emit_test
