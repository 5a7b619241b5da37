// The HDF5 results schema, version 2 (docs/hdf5_schema.md): table and column names shared by
// the writer (hdf5_sink) and the reader (hdf5_reader). Change the version when a name or a
// meaning changes; the reader refuses other versions.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/record.hpp"

namespace kapla::io {

inline constexpr int kResultSchemaVersion = 2;

// Root attributes.
inline constexpr const char* kAttrSchema = "kapla_schema";          // int
inline constexpr const char* kAttrJobName = "job_name";             // string
inline constexpr const char* kAttrJobFingerprint = "job_fingerprint";  // string (hex)
inline constexpr const char* kAttrJobFile = "job_file";             // string: the job's text
inline constexpr const char* kAttrWriterVersion = "kapla_version";  // string

// Tables: 1-D compound datasets at the root; every table has a "key" column (the tuple key)
// so that tables join on it. Rows are sorted by key (then by their index within a tuple).
inline constexpr const char* kTableTuples = "tuples";
inline constexpr const char* kTableLayers = "layers";
inline constexpr const char* kTableSegments = "segments";
inline constexpr const char* kTableCurves = "curves";
inline constexpr const char* kTableResolved = "resolved";

/// Every file starts with a 512-byte HDF5 user block (ignored by HDF5 and h5py) holding a
/// checksum of the rest of the file: "KAPLA-RESULTS\nsize=<bytes>\nfnv1a64=<hex>\n". The reader
/// verifies it before HDF5 parses anything, so a damaged or truncated file is refused with a
/// clear message instead of being parsed (HDF5 may crash on corrupt metadata).
inline constexpr std::size_t kUserBlockBytes = 512;
inline constexpr std::string_view kUserBlockMagic = "KAPLA-RESULTS\n";

/// Columns whose values depend on the run, not on the search: excluded when comparing runs.
inline constexpr std::array<std::string_view, 17> kRunDependentColumns = {
    "search_seconds", "cpu_seconds", "threads", "kapla_version", "git_hash", "compiler",
    "mpi_version", "hdf5_version", "host", "rank", "slurm_job_id", "slurm_array_job_id",
    "slurm_array_task_id", "command_line", "start_time", "end_time", "seconds"};

/// What the root attributes say.
struct ResultsFileInfo {
  int schema = kResultSchemaVersion;
  std::string job_name;
  std::string job_fingerprint;
  std::string job_file;
  std::string kapla_version;
};

/// A whole results file in memory.
struct ResultsFile {
  std::filesystem::path path;  // where it was read from ("" when built in memory)
  ResultsFileInfo info;
  std::vector<sweep::TupleRecord> records;  // sorted by key
};

}  // namespace kapla::io
