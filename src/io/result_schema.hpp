// The HDF5 results schema (docs/hdf5_schema.md): every table and column is defined once, in
// result_schema.cpp, with its name, type, unit, description and accessor. The writer
// (hdf5_sink) and the reader (hdf5_reader) only walk these definitions, and the writer stores
// each column's unit and description as attributes of its table, so a reader needs no docs.
// Change the version when a name or a meaning changes; the reader reads versions
// kOldestReadableSchema .. kResultSchemaVersion (a column or table newer than a file is left at
// its default when that file is read).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sweep/record.hpp"

namespace kapla::io {

inline constexpr int kResultSchemaVersion = 9;
/// The first version that records each tuple's schedule (/schedules, /schedule_text).
inline constexpr int kSchedulesSchema = 9;
/// Version 2 files (no /expected, no column attributes, a `layers.directives` column) and
/// version 3 files (no strategy_letter / strategy_label) and version 4 files (no design_*
/// columns) and version 5 files (no imperfect column: none) and version 6 files (no macs
/// columns: 0) and version 7 files (no pe_utilisation / design_min_pe_utilisation: 0) and
/// version 8 files (no recorded schedules) still load, resume and merge.
inline constexpr int kOldestReadableSchema = 2;

// Root attributes.
inline constexpr const char* kAttrSchema = "kapla_schema";             // int
inline constexpr const char* kAttrJobName = "job_name";                // string
inline constexpr const char* kAttrJobFingerprint = "job_fingerprint";  // string (hex)
inline constexpr const char* kAttrJobFile = "job_file";                // string: the job's text
inline constexpr const char* kAttrWriterVersion = "kapla_version";     // string

/// The recorded schedules' text (version 9): one 1-D uint8 dataset, every tuple's schedule
/// document (TupleResult::schedule) one after the other in /schedules order, deflated in chunks
/// of kScheduleChunkBytes; /schedules gives each tuple's offset and length in it.
inline constexpr const char* kScheduleTextDataset = "schedule_text";
inline constexpr std::size_t kScheduleChunkBytes = 1 << 20;
inline constexpr int kScheduleDeflateLevel = 6;

// Attributes of every table (version 3): a description of the table, and one unit and one
// description per column, in column order (variable-length string arrays).
inline constexpr const char* kAttrTableDescription = "description";
inline constexpr const char* kAttrColumnUnits = "units";
inline constexpr const char* kAttrColumnDescriptions = "descriptions";

/// Every file starts with a 512-byte HDF5 user block (ignored by HDF5 and h5py) holding a
/// checksum of the rest of the file: "KAPLA-RESULTS\nsize=<bytes>\nfnv1a64=<hex>\n". The reader
/// verifies it before HDF5 parses anything, so a damaged or truncated file is refused with a
/// clear message instead of being parsed (HDF5 may crash on corrupt metadata).
inline constexpr std::size_t kUserBlockBytes = 512;
inline constexpr std::string_view kUserBlockMagic = "KAPLA-RESULTS\n";

/// Columns whose values depend on the run, not on the search: excluded when comparing runs.
inline constexpr std::array<std::string_view, 17> kRunDependentColumns = {"search_seconds",
                                                                          "cpu_seconds",
                                                                          "threads",
                                                                          "kapla_version",
                                                                          "git_hash",
                                                                          "compiler",
                                                                          "mpi_version",
                                                                          "hdf5_version",
                                                                          "host",
                                                                          "rank",
                                                                          "slurm_job_id",
                                                                          "slurm_array_job_id",
                                                                          "slurm_array_task_id",
                                                                          "command_line",
                                                                          "start_time",
                                                                          "end_time",
                                                                          "seconds"};

/// One tuple a job asked for (the /expected table), whether or not it has run yet.
struct ExpectedTuple {
  std::string job_name;
  sweep::Tuple tuple;
};

/// What the root attributes and /expected say.
struct ResultsFileInfo {
  int schema = kResultSchemaVersion;
  std::string job_name;
  std::string job_fingerprint;
  std::string job_file;
  std::string kapla_version;
  /// Every tuple the job(s) asked for, in job order; empty in version 2 files.
  std::vector<ExpectedTuple> expected;
};

/// A whole results file in memory.
struct ResultsFile {
  std::filesystem::path path;  // where it was read from ("" when built in memory)
  ResultsFileInfo info;
  std::vector<sweep::TupleRecord> records;  // sorted by key
};

// ---------------------------------------------------------------------------------------------
// The tables: 1-D compound datasets at the root; every table has a "key" column (the tuple key)
// so that tables join on it.

enum class ColumnType { F64, I64, U64, Str };
using Cell = std::variant<double, std::int64_t, std::uint64_t, std::string>;

/// One column: what it is, and how a row of type Row gives and takes its value.
template <class Row>
struct Column {
  std::string name;
  ColumnType type = ColumnType::F64;
  std::string unit;  // "" when the value has none (names, text, indices)
  std::string description;
  std::function<Cell(const Row&)> get;
  std::function<void(Row&, const Cell&)> set;
  int since = kOldestReadableSchema;  // first schema version that has it
};

template <class Row>
struct Table {
  const char* name;
  std::string description;
  std::vector<Column<Row>> columns;
  int since = kOldestReadableSchema;  // first schema version that has it
};

// The rows of the per-tuple tables: the tuple key plus the record's part.
struct LayerEntry {
  std::string key;
  std::int64_t index = 0;  // position in scheduling order
  sweep::LayerRow row;
};
struct SegmentEntry {
  std::string key;
  sweep::SegmentRow row;
};
struct CurveEntry {
  std::string key;
  std::int64_t point = 0;
  sweep::CurvePoint row;
};
/// Where a tuple's schedule document lies in /schedule_text.
struct ScheduleEntry {
  std::string key;
  std::int64_t offset = 0;  // bytes
  std::int64_t bytes = 0;
};
struct ResolvedEntry {
  std::string key;
  std::string name;
  std::string value;
};

const Table<sweep::TupleRecord>& tuples_table();  // one row per tuple, sorted by key
const Table<LayerEntry>& layers_table();          // sorted by (key, layer_index)
const Table<SegmentEntry>& segments_table();      // sorted by (key, segment)
const Table<CurveEntry>& curves_table();          // sorted by (key, point)
const Table<ResolvedEntry>& resolved_table();     // (key, name, value)
const Table<ExpectedTuple>& expected_table();     // in job order; version 3 on
const Table<ScheduleEntry>& schedules_table();    // sorted by key; version 9 on

}  // namespace kapla::io
