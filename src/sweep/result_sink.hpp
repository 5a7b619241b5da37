// Where finished tuples go. sweep/ owns the interface; io/hdf5_sink implements it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "sweep/record.hpp"

namespace kapla::sweep {

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  /// Keys of the tuples already recorded in the output (for resume). Called on rank 0 only,
  /// before any write; throws InputError for a corrupt or foreign output, which is then left
  /// untouched.
  virtual std::set<std::string> existing_keys() = 0;
  /// Called on rank 0 after existing_keys() and before any tuple runs: records what the job
  /// asks for, so that a merge after a kill still knows the tuples that never ran.
  virtual void begin() {}
  /// Records one finished tuple durably, at once or within a bounded delay (HDF5: half a
  /// second): a later kill must not corrupt anything, nor lose a tuple recorded longer ago.
  /// Called on every rank, from one thread per process at a time.
  virtual void write(const TupleRecord& record) = 0;
  /// Called on every rank after its last write: records everything written so far.
  virtual void flush() {}
  /// Called on rank 0 after every rank has finished (also after an interruption): makes the
  /// final output hold every recorded tuple.
  virtual void finish() = 0;
  /// Every record of the final output, after finish() (rank 0): what a search's next round
  /// is chosen from (sweep/search_rounds.hpp).
  virtual std::vector<TupleRecord> recorded() = 0;
};

}  // namespace kapla::sweep
