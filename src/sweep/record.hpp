// A recorded tuple: the tuple, its result and where/when it ran. What ResultSink stores and
// the HDF5 reader gives back.
#pragma once

#include <chrono>

#include <optional>
#include <string>
#include <vector>

#include "sweep/job.hpp"
#include "sweep/tuple_runner.hpp"

namespace kapla::sweep {

struct Provenance {
  std::string kapla_version;
  std::string git_hash;
  std::string compiler;
  std::string mpi_version;   // "" without MPI
  std::string hdf5_version;  // filled by the HDF5 sink
  std::string host;
  std::int64_t rank = 0;
  std::string slurm_job_id;
  std::string slurm_array_job_id;
  std::string slurm_array_task_id;
  std::string command_line;
  std::string start_time;  // ISO 8601 UTC
  std::string end_time;
};

struct TupleRecord {
  Tuple tuple;
  std::uint64_t search_seed = 0;  // tuple_seed(tuple)
  TupleResult result;
  Provenance provenance;
};

/// The first difference between two records in what a search determines: everything but
/// timing and provenance (wall/CPU seconds, thread count, curve times, host, rank, dates).
/// nullopt when they agree. Doubles must be bit-identical; schedules are compared when both
/// records have one (one without was run without recording it).
std::optional<std::string> first_difference(const TupleRecord& a, const TupleRecord& b);
/// The same over two record lists (matched by key; both must hold the same key set).
std::optional<std::string> first_difference(const std::vector<TupleRecord>& a,
                                            const std::vector<TupleRecord>& b);

/// Build facts and the environment of this process (Slurm ids, host, time).
Provenance process_provenance(int rank, const std::string& command_line,
                              const std::string& mpi_version);
/// Now, ISO 8601 UTC with milliseconds.
std::string utc_now();
/// `t` in the same form ("2026-01-31T12:00:00.000Z").
std::string utc_time(std::chrono::system_clock::time_point t);

}  // namespace kapla::sweep
