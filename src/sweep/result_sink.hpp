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
  /// Records one finished tuple durably before returning: a later kill must not lose it or
  /// corrupt anything. Called on every rank, from one thread per process at a time.
  virtual void write(const TupleRecord& record) = 0;
  /// Called on rank 0 after every rank has finished (also after an interruption): makes the
  /// final output hold every recorded tuple.
  virtual void finish() = 0;
  /// Every record of the final output, after finish() (rank 0): what a search's next round
  /// is chosen from (sweep/search_rounds.hpp).
  virtual std::vector<TupleRecord> recorded() = 0;
};

}  // namespace kapla::sweep
