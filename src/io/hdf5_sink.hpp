// Writing kapla results to HDF5, and the sweep's ResultSink.
//
// Crash safety (measured in docs/sweep.md): each finished tuple is written to its own small
// file OUTPUT.parts/<key>.h5 through a temporary name, fsync and rename, so a kill at any
// moment leaves only complete files. finish() merges the output and the parts into OUTPUT the
// same way (temporary file, fsync, rename) and then removes the merged parts. No HDF5 file is
// ever modified in place, so none can be left half-written.
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include "io/result_schema.hpp"
#include "sweep/result_sink.hpp"

namespace kapla::io {

/// Writes a results file atomically (temporary name in the same directory, fsync, rename).
/// Records are written in the order given (callers sort by key).
void write_results_file(const std::filesystem::path& file, const ResultsFile& results);

/// "major.minor.release" of the HDF5 library in use.
std::string hdf5_library_version();

class Hdf5Sink final : public sweep::ResultSink {
 public:
  Hdf5Sink(std::filesystem::path output, ResultsFileInfo info);

  /// Keys in OUTPUT and OUTPUT.parts/; refuses (InputError) a corrupt or foreign file, or one
  /// written by a job with another fingerprint. Removes stale temporary files of killed runs.
  std::set<std::string> existing_keys() override;
  void write(const sweep::TupleRecord& record) override;
  void finish() override;
  std::vector<sweep::TupleRecord> recorded() override;

  const std::filesystem::path& output() const { return output_; }
  static std::filesystem::path parts_dir(const std::filesystem::path& output);
  /// File name of a tuple's part: its key made filename-safe plus a hash of it.
  static std::string part_name(const std::string& key);

 private:
  std::filesystem::path output_;
  ResultsFileInfo info_;
};

/// Merges OUTPUT.parts/ into OUTPUT (what Hdf5Sink::finish does); the number of tuples in the
/// result. Used by `kapla merge` after a killed run.
std::size_t finish_output(const std::filesystem::path& output);

}  // namespace kapla::io
