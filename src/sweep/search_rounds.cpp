// The sweep in rounds (see search_rounds.hpp).
#include "sweep/search_rounds.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/errors.hpp"

namespace kapla::sweep {
namespace {

// Adds the search's /resolved rows to the tuples of searched designs. The map only changes
// between rounds, while no tuple runs.
class NotingRunner final : public TupleRunner {
 public:
  using Rows = std::vector<std::pair<std::string, std::string>>;
  explicit NotingRunner(const TupleRunner& inner) : inner_(inner) {}
  void note(const std::string& hardware, Rows rows) { rows_[hardware] = std::move(rows); }
  void check(const Tuple& t) const override { inner_.check(t); }
  double estimate_cost(const Tuple& t) const override { return inner_.estimate_cost(t); }
  TupleResult run(const Tuple& t, const RunContext& ctx) const override {
    TupleResult r = inner_.run(t, ctx);
    const auto it = rows_.find(t.hardware);
    if (it != rows_.end())
      r.resolved.insert(r.resolved.end(), it->second.begin(), it->second.end());
    return r;
  }

 private:
  const TupleRunner& inner_;
  std::map<std::string, Rows> rows_;
};

// Holds the rounds' updates and summaries: the caller's progress sees one sweep.
class RoundProgress final : public Progress {
 public:
  explicit RoundProgress(Progress& inner) : inner_(inner) {}
  void update(const ProgressState& s) override { inner_.update(s); }
  void finish(const RunSummary& s) override { last = s; }
  RunSummary last;

 private:
  Progress& inner_;
};

// The next round's designs of every search, as one line per search of grid indices.
std::string encode(const std::vector<std::vector<std::size_t>>& next) {
  std::ostringstream os;
  for (const auto& designs : next) {
    for (std::size_t i = 0; i < designs.size(); ++i) os << (i ? " " : "") << designs[i];
    os << '\n';
  }
  return os.str();
}

std::vector<std::vector<std::size_t>> decode(const std::string& text, std::size_t searches) {
  std::vector<std::vector<std::size_t>> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream is(line);
    std::vector<std::size_t> designs;
    for (std::size_t i; is >> i;) designs.push_back(i);
    out.push_back(std::move(designs));
  }
  KAPLA_ASSERT(out.size() == searches, "run_search_rounds: malformed round message");
  return out;
}

// Sums the rounds: a later round's "skipped" tuples include the earlier rounds' own.
void add_round(RunSummary& total, const RunSummary& round, std::size_t recorded_before) {
  total.total = round.total;
  total.skipped = round.skipped - std::min(round.skipped, recorded_before);
  total.done += round.done;
  total.failed += round.failed;
  total.timed_out += round.timed_out;
  total.remaining = round.remaining;
  total.interrupted = round.interrupted;
  total.wall_seconds += round.wall_seconds;
  for (const auto& r : round.ranks) {
    auto it = std::find_if(total.ranks.begin(), total.ranks.end(),
                           [&](const RankSummary& t) { return t.rank == r.rank; });
    if (it == total.ranks.end()) {
      total.ranks.push_back(r);
      continue;
    }
    it->tuples += r.tuples;
    it->busy_seconds += r.busy_seconds;
    it->wall_seconds += r.wall_seconds;
  }
}

}  // namespace

std::vector<std::optional<DesignScore>> design_scores(const DesignSearch& search,
                                                      const std::vector<bool>& priced,
                                                      const SweepSpec& spec,
                                                      const std::vector<TupleRecord>& records) {
  std::map<std::string, const TupleRecord*> by_key;
  for (const auto& r : records) by_key.emplace(r.tuple.key(), &r);
  // The priced designs' tuples (the job's other axes on each design alone), and whether each
  // design has all of them recorded.
  SweepSpec one;
  one.networks = spec.networks;
  one.strategies = spec.strategies;
  one.seeds = spec.seeds;
  one.options = spec.options;
  std::vector<const TupleRecord*> found;
  std::vector<bool> complete(search.grid.size(), false);
  for (std::size_t i = 0; i < search.grid.size(); ++i) {
    if (!priced[i]) continue;
    one.hardware = {design_axis(search.grid[i], search.batches)};
    complete[i] = true;
    for (const auto& t : expand_tuples(one)) {
      const auto it = by_key.find(t.key());
      if (it == by_key.end()) {
        complete[i] = false;
      } else {
        found.push_back(it->second);
      }
    }
  }
  const auto by_design = score_records(found, search.settings.objective);
  std::vector<std::optional<DesignScore>> scores(search.grid.size());
  for (std::size_t i = 0; i < search.grid.size(); ++i) {
    if (complete[i]) scores[i] = by_design.at(search.grid[i].hardware.name);
  }
  return scores;
}

RunSummary run_search_rounds(const SweepSpec& spec, const TupleRunner& runner, Communicator& comm,
                             const SinkFactory& make_sink, Progress& progress,
                             const RunOptions& options, const RoundFn& on_round) {
  SweepSpec round_spec = spec;
  NotingRunner noted(runner);
  std::vector<std::vector<bool>> priced;
  std::size_t designs = 0;
  for (const auto& s : spec.searches) {
    priced.emplace_back(s.grid.size(), false);
    for (const auto i : s.initial) {
      priced.back()[i] = true;
      noted.note(s.grid[i].hardware.name, search_rows(s.settings, 0));
      ++designs;
    }
  }
  RoundProgress rounds(progress);
  RunSummary total;
  std::size_t recorded_before = 0;  // tuples recorded by the earlier rounds of this run
  for (std::size_t round = 0;; ++round) {
    const auto sink = make_sink(round_spec);
    const RunSummary summary = run_sweep(round_spec, noted, comm, *sink, rounds, options);
    add_round(total, rounds.last, recorded_before);
    recorded_before += rounds.last.done;
    if (summary.interrupted) {
      total.interrupted = true;
      break;
    }
    if (spec.searches.empty()) break;
    // Rank 0 chooses; the others learn the choice (or the error) from it.
    std::string message;
    if (comm.rank() == 0) {
      try {
        const auto records = sink->recorded();
        std::vector<std::vector<std::size_t>> next;
        for (std::size_t k = 0; k < spec.searches.size(); ++k) {
          const auto& s = spec.searches[k];
          next.push_back(next_designs(s, design_scores(s, priced[k], round_spec, records),
                                      priced[k], round + 1));
        }
        message = "K";  // not "K" + encode(): GCC 12 warns falsely (-Wrestrict) on that
        message += encode(next);
      } catch (const std::exception& e) {
        message = std::string("E") + e.what();
      }
    }
    message = comm.broadcast(message);
    if (message.empty() || message[0] != 'K') throw InputError(message.substr(1));
    const auto next = decode(message.substr(1), spec.searches.size());
    std::size_t added = 0;
    for (std::size_t k = 0; k < spec.searches.size(); ++k) {
      const auto& s = spec.searches[k];
      for (const auto i : next[k]) {
        KAPLA_ASSERT(i < s.grid.size() && !priced[k][i], "run_search_rounds: bad next design");
        priced[k][i] = true;
        round_spec.hardware.push_back(design_axis(s.grid[i], s.batches));
        noted.note(s.grid[i].hardware.name, search_rows(s.settings, round + 1));
        ++added;
      }
    }
    if (added == 0) break;
    designs += added;
    if (comm.rank() == 0 && on_round) on_round({round + 1, added, designs});
  }
  if (comm.rank() == 0) progress.finish(total);
  return total;
}

}  // namespace kapla::sweep
