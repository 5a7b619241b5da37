// Writing kapla results to HDF5, and the sweep's ResultSink.
//
// Crash safety (measured in docs/sweep.md): finished tuples are written to small part files
// OUTPUT.parts/<first key>.h5, each through a temporary name, fsync and rename, so a kill at
// any moment leaves only complete files. A part holds the tuples finished within half a
// second (BatchedWriter), so a kill loses at most that. The job's expected tuples go once per
// run into OUTPUT.parts/job_expected.h5, a results file without tuples. finish() merges the
// output and the parts into OUTPUT the same way (temporary file, fsync, rename) and then
// removes the merged parts. No HDF5 file is ever modified in place, so none can be left
// half-written.
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include "io/batched_writer.hpp"
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
  /// Writes the job's expected tuples to OUTPUT.parts/job_expected.h5.
  void begin() override;
  /// Queues the record; it is in a part file within half a second.
  void write(const sweep::TupleRecord& record) override;
  /// Writes what is queued (also what a rank other than 0 calls at its end).
  void flush() override;
  void finish() override;
  std::vector<sweep::TupleRecord> recorded() override;

  const std::filesystem::path& output() const { return output_; }
  static std::filesystem::path parts_dir(const std::filesystem::path& output);
  /// File name of a part whose first tuple has this key: the key made filename-safe plus a
  /// hash of it.
  static std::string part_name(const std::string& key);
  /// The manifest's name: no part name has it (part names end in "~<8 hex>.h5").
  static constexpr const char* kExpectedPartName = "job_expected.h5";

 private:
  void write_part(const std::vector<sweep::TupleRecord>& records) const;

  std::filesystem::path output_;
  ResultsFileInfo info_;
  BatchedWriter writer_;  // last: destroyed (drained) first, while the rest is alive
};

/// Merges OUTPUT.parts/ into OUTPUT (what Hdf5Sink::finish does); the number of tuples in the
/// result. Used by `kapla merge` after a killed run.
std::size_t finish_output(const std::filesystem::path& output);

}  // namespace kapla::io
