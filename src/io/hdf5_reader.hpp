// Reading kapla results (schema: result_schema.hpp, docs/hdf5_schema.md), checked: a file that
// is not HDF5, is truncated, has no 'kapla_schema' attribute or another version, or lacks a
// column is refused with a one-line InputError "FILE: reason".
#pragma once

#include <filesystem>
#include <vector>

#include "io/result_schema.hpp"

namespace kapla::io {

/// Whether the recorded schedules (TupleResult::schedule, version 9) are read: a reader that
/// only lists or tabulates the tuples skips their decompression. The checksum still covers them.
enum class Schedules { Read, Skip };

/// One results file (a final output or a part file).
ResultsFile read_results_file(const std::filesystem::path& file,
                              Schedules schedules = Schedules::Read);

/// A results file, or a directory: every *.h5 in it and in its *.parts subdirectories (a
/// sweep's unfinished parts), sorted by name. Each file is checked as read_results_file does.
std::vector<ResultsFile> read_results(const std::filesystem::path& file_or_dir,
                                      Schedules schedules = Schedules::Read);

/// The union of several results by tuple key, sorted by key. The same key twice must carry
/// the same search results (sweep::first_difference), else InputError; inputs with different
/// job fingerprints are refused (they were searched with different options).
ResultsFile merge_results(const std::vector<ResultsFile>& inputs);

/// Rows of files older than schema 4 have no strategy letter or label: `tuple` takes those
/// of `from` (the same tuple, from a job's parse or a newer file) when it has none.
void take_strategy_label(sweep::Tuple& tuple, const sweep::Tuple& from);
/// Every record without a strategy letter takes it (and the label) from the /expected tuple
/// with its key: old rows resumed or merged into a newer file get the job's letters.
void label_from_expected(ResultsFile& results);

/// Whether `file` begins as an HDF5 file: kapla's user block, or HDF5's signature where the
/// format allows it (offset 0, 512, 1024, ...), as the readers above test it. Bytes only, for
/// choosing a reader; read_results_file still refuses a foreign or corrupt one.
bool looks_like_hdf5(const std::filesystem::path& file);

/// Same check as read_results_file, without keeping the records: the file's info.
ResultsFileInfo check_results_file(const std::filesystem::path& file);

}  // namespace kapla::io
