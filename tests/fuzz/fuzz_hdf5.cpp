// libFuzzer harness: the HDF5 results reader (io/hdf5_reader) on a file holding the input.
// The reader opens files by name (HDF5's API), so the input goes to a per-process temp file.
// After every input no HDF5 identifier may be left open: that is what a leak of kapla's own would
// look like (libhdf5's own leaks on its error paths are suppressed: lsan_suppressions.txt).
#include <hdf5.h>
#include <unistd.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_common.hpp"
#include "io/hdf5_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("kapla_fuzz_" + std::to_string(::getpid()) + ".h5");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  kapla::fuzz::run_one(data, size,
                       [](std::string_view) { (void)kapla::io::read_results_file(file); });
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) std::abort();  // a handle left open
  return 0;
}
