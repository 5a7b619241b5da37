// A sweep in rounds, for jobs with local-search hardware spaces (sweep/design_search.hpp):
// each round is an ordinary sweep (run_sweep: the round's tuples shared over the ranks, part
// files, merge) of every design chosen so far, so the earlier rounds' tuples are resumed, not
// rerun; when it ends, rank 0 reads the recorded results, chooses the next round's designs
// and tells the other ranks. The choice depends only on the job and the results of the
// designs the search has priced, so 1 or N ranks, any thread count, and a kill and rerun
// (which replays the rounds from round 0, resuming their tuples) choose the same designs.
#pragma once

#include <functional>
#include <memory>

#include "sweep/communicator.hpp"
#include "sweep/job.hpp"
#include "sweep/progress.hpp"
#include "sweep/result_sink.hpp"
#include "sweep/runner.hpp"
#include "sweep/tuple_runner.hpp"

namespace kapla::sweep {

/// The sink of one round, whose spec lists every tuple asked for so far (the output's
/// /expected grows with the rounds).
using SinkFactory = std::function<std::unique_ptr<ResultSink>(const SweepSpec& round_spec)>;

/// A round about to start (after round 0), on rank 0.
struct RoundStart {
  std::size_t round = 0;
  std::size_t new_designs = 0;  // chosen for this round, over all searched spaces
  std::size_t designs = 0;      // priced by the searches, this round's included
};
using RoundFn = std::function<void(const RoundStart&)>;

/// run_sweep once for a job without searches; else round after round until every search is
/// over or the sweep is interrupted. Every tuple of a searched design gets search_rows() in
/// its /resolved rows. The summary covers all rounds (progress.finish is called once).
RunSummary run_search_rounds(const SweepSpec& spec, const TupleRunner& runner, Communicator& comm,
                             const SinkFactory& make_sink, Progress& progress,
                             const RunOptions& options, const RoundFn& on_round = {});

/// The score of each design of `search` the search has priced (nullopt for the others, and
/// for a priced design whose tuples are not all recorded with status ok): the objective summed
/// over the design's tuples of `spec`, found by key in `records`.
std::vector<std::optional<DesignScore>> design_scores(const DesignSearch& search,
                                                      const std::vector<bool>& priced,
                                                      const SweepSpec& spec,
                                                      const std::vector<TupleRecord>& records);

}  // namespace kapla::sweep
