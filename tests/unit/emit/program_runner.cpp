#include "program_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <system_error>

namespace kapla::emit_test {

namespace fs = std::filesystem;

fs::path program_dir() {
  return fs::temp_directory_path() / ("kapla_emit_test_" + std::to_string(::getpid()));
}

ProgramRun compile_and_run(const std::string& source, const std::string& name, bool count_only,
                           const std::string& flags) {
  const fs::path dir = program_dir();
  fs::create_directories(dir);
  const fs::path src = dir / (name + ".cpp"), exe = dir / name;
  std::ofstream(src) << source;
  const std::string build = std::string(KAPLA_TEST_CXX) + " -std=c++17 -O1 " + flags + " -o " +
                            exe.string() + " " + src.string() + " 2>&1";
  ProgramRun r;
  if (std::system(build.c_str()) != 0) {
    r.output = "compile failed: " + build;
    return r;
  }
  const std::string cmd = exe.string() + (count_only ? " --count-only" : "") + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) r.output += buf;
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (r.exit_code == 0) {  // a failing program stays for a look (its path is in the output)
    fs::remove(src);
    fs::remove(exe);
    std::error_code kept;  // the directory goes once it is empty (not if a failure is kept)
    fs::remove(dir, kept);
  } else {
    r.output += "(source kept: " + src.string() + ")\n";
  }
  return r;
}

}  // namespace kapla::emit_test
