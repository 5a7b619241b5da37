// Network-level beam search. Spec: nn_dataflow-spec.md §9.8.
#include "schedule/network_search.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "core/errors.hpp"
#include "core/once.hpp"
#include "core/scoped_keys.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/partition.hpp"
#include "schedule/pipeline_segment.hpp"
#include "schedule/sched_dag.hpp"
#include "schedule/segment_bound.hpp"

namespace kapla::schedule {

namespace {

using LayerResults = std::vector<std::shared_ptr<const pricing::LayerSchedule>>;

mapping::FmapRange full_range(std::int64_t batch, std::int64_t nofm, PhyDim2 sofm) {
  mapping::FmapRange r;
  r.beg = {0, 0, 0, 0};
  r.end = {batch, nofm, sofm.h, sofm.w};
  return r;
}

// Stable sort by the goal key, keep the first ntops (Python sorted(...)[:ntops]). The totals
// are gathered once: each is a sum over the scheme's layers.
void keep_tops(std::vector<NetworkScheme>& v, model::Goal goal, int ntops) {
  std::vector<std::pair<double, double>> totals;  // (cost, time)
  totals.reserve(v.size());
  for (const auto& s : v) totals.emplace_back(s.total_cost(), s.total_time());
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return model::goal_less(totals[a].first, totals[a].second, totals[b].first, totals[b].second,
                            goal);
  });
  std::vector<NetworkScheme> out;
  for (std::size_t i = 0; i < idx.size() && static_cast<int>(out.size()) < ntops; ++i) {
    out.push_back(std::move(v[idx[i]]));
  }
  v = std::move(out);
}

// One strategy call, shared by every request for the same conditions (the layer-search
// cache); made once even when pairs are solved concurrently.
struct LayerCall {
  Once once;
  std::size_t layer = 0;
  LayerResults results;
  search::LayerSearchStats stats;
  bool stopped = false;        // the strategy saw the stop: its partial answer is not used
  std::string infeasible_key;  // it found nothing: the problem's key without the layout
  bool accounted = false;      // counted by Searcher::commit (on the calling thread)
};

// What solving one (segment, constraint) pair asked of the strategy, in order. The search
// counts it (Searcher::commit) in pair order, so its statistics and network curve do not
// depend on which thread made a shared call first.
struct PairLog {
  int threads = 1;  // the strategy's threads for this pair's layer searches
  std::vector<std::shared_ptr<LayerCall>> calls;
};

class Searcher {
 public:
  Searcher(const model::Network& net, std::int64_t batch, const mapping::Resource& resource,
           const search::LayerStrategy& strategy, const NetworkSearchOptions& opts)
      : net_(net),
        batch_(batch),
        resource_(resource),
        strategy_(strategy),
        opts_(opts),
        dag_(build_sched_dag(net)),
        ordered_(dag_.ordered_layers()),
        use_frontier_(opts.constraint_frontier.value_or(opts.options.cost_model ==
                                                        model::CostModelVariant::Tangram)),
        use_bounds_(opts.bound_pruning && !use_frontier_) {
    pos_.assign(net.size(), 0);
    for (std::size_t i = 0; i < ordered_.size(); ++i) pos_[ordered_[i]] = i;
  }

  NetworkSearchResult run();

 private:
  std::vector<NetworkScheme> segment_search(const PipelineSegment& seg,
                                            const std::vector<SegmentConstraint>& constraints);
  /// The best schemes of each segment ending at one position (segments[j] with constraints
  /// cstrs[j]), by branch and bound over their (segment, constraint) pairs.
  std::vector<std::vector<NetworkScheme>> bounded_search(
      const std::vector<const PipelineSegment*>& segments,
      const std::vector<const std::vector<SegmentConstraint>*>& cstrs);
  /// A pair's bound: the best prefix totals, the segment's bound, and the two on top of each
  /// other (segment_bound.hpp extended_bound).
  struct PairBound {
    double prefix_cost = 0;
    double prefix_time = 0;
    SegmentBound seg;
    std::pair<double, double> total;
  };
  /// What a pair must beat to matter (the ntops-th best scheme found), with the pair's bound.
  struct PairCut {
    const PairBound* bound = nullptr;
    std::pair<double, double> threshold;
  };
  /// The schemes of one (segment, constraint) pair extending prev, before the time-overhead
  /// check. With a cut: nullopt as soon as every partial scheme, completed by the bounds of
  /// the layers left, is worse than cut->threshold (then so is every scheme of the pair).
  std::optional<std::vector<NetworkScheme>> constraint_search(
      const PipelineSegment& seg, const SegmentConstraint& c,
      const std::vector<NetworkScheme>& prev, const PairCut* cut, PairLog& log);
  /// Solves `jobs` pairs, concurrently when there are threads for it; job(i, log) solves the
  /// i-th. Then counts their strategy calls in job order.
  void solve_pairs(std::size_t jobs, const std::function<void(std::size_t, PairLog&)>& job);
  /// Drops the schemes over the segment time-overhead limit.
  std::vector<NetworkScheme> within_overhead(std::vector<NetworkScheme> v) const;
  const std::vector<NetworkScheme>& prefix_of(const PipelineSegment& seg) const {
    const std::size_t first = pos_[seg.first_layer()];
    return first == 0 ? tops_none_ : tops_[first - 1];
  }
  PairBound pair_bound(const PipelineSegment& seg, const SegmentConstraint& c,
                       const std::vector<NetworkScheme>& prev) const;
  /// The same with the layer bounds of `seg`'s earlier constraints remembered in `bounds`.
  PairBound pair_bound(SegmentBounds& bounds, const SegmentConstraint& c,
                       const std::vector<NetworkScheme>& prev, bool reads = true) const;
  /// `refetch`: with the layers' refetch floors (pricing/refetch_bound.hpp; each costs the map
  /// strategy on every partition size of its layer, once per network search).
  SegmentBounds segment_bounds(const PipelineSegment& seg, const std::vector<NetworkScheme>& prev,
                               bool refetch = true) const;
  void report(const PipelineSegment& seg, const SegmentConstraint& c, std::size_t ci,
              const std::vector<NetworkScheme>& prev,
              const std::vector<NetworkScheme>& schemes) const;
  std::vector<NetworkScheme> layer_search(std::size_t layer, const mapping::Resource& resource,
                                          const SegmentLayerConstraint& cstr, int sp, int tm,
                                          const std::optional<mapping::NodeRegion>& fwd_region,
                                          const std::vector<NetworkScheme>& prev, PairLog& log);
  LayerResults search_layer(std::size_t layer, const pricing::LayerProblem& problem, PairLog& log);
  void run_call(LayerCall& call, std::size_t layer, const pricing::LayerProblem& problem,
                int threads);
  /// Counts a pair's strategy calls (the first request of a call is a layer search, the
  /// others cache hits) and records what they found infeasible.
  void commit(const PairLog& log);
  /// Adds one strategy call's statistics to the totals and the network curve.
  void account(std::size_t layer, const search::LayerSearchStats& st);
  /// Runs strategy.prepare_many on the problems (all threads) into the memo.
  void prepare_all(const std::vector<pricing::LayerProblem>& problems);
  /// Per position, the positions after which no segment left holds that position's layer.
  std::vector<std::vector<std::size_t>> retire_after(
      const std::vector<const PipelineSegment*>& segments) const;
  /// Drops what the layer searches, the memo and the refetch floors remember of problems of
  /// layer shape `scope` (pricing::layer_scope).
  void release(const std::string& scope);
  /// Polls opts.stop and latches it: once true, every remaining step returns at once.
  bool stop_now();
  const std::function<bool()>* stop_or_null() const { return opts_.stop ? &opts_.stop : nullptr; }

  const model::Network& net_;
  std::int64_t batch_;
  const mapping::Resource& resource_;
  const search::LayerStrategy& strategy_;
  const NetworkSearchOptions& opts_;
  SchedDag dag_;
  std::vector<std::size_t> ordered_;
  std::vector<std::size_t> pos_;
  bool use_frontier_;
  bool use_bounds_;  // after use_frontier_
  std::vector<NetworkScheme> tops_none_;
  std::vector<std::vector<NetworkScheme>> tops_;  // per position in ordered_
  std::mutex cache_mu_;  // guards cache_ (the calls themselves are made once each)
  std::map<std::string, std::shared_ptr<LayerCall>> cache_;
  ScopedKeys cache_scoped_;  // of cache_, by layer_scope
  /// With bound pruning and strategy_.empty_means_infeasible(): problem keys without the
  /// layout whose search found nothing.
  std::set<std::string> infeasible_;
  /// A layer of the pair has a problem in infeasible_ (so the pair yields nothing).
  bool known_infeasible(const PipelineSegment& seg, const SegmentConstraint& c) const;
  search::SearchMemo memo_;
  // The layers' refetch floors for the pair bounds (segment_bounds); mutable as a memo.
  mutable pricing::RefetchBounds refetch_;
  NetworkSearchStats stats_;
  // Strategy statistics (account()).
  bool all_reported_ = true;
  bool valid_counted_ = true;
  double seconds_ = 0;
  std::vector<std::optional<search::AnytimePoint>> layer_best_;
  std::size_t layers_with_best_ = 0;
  std::atomic<bool> stopped_ = false;
};

std::vector<std::vector<std::size_t>> Searcher::retire_after(
    const std::vector<const PipelineSegment*>& segments) const {
  std::vector<std::size_t> last_use(ordered_.size());
  for (std::size_t i = 0; i < ordered_.size(); ++i) last_use[i] = i;
  for (const auto* seg : segments)
    for (const auto& spatial : seg->layers())
      for (auto layer : spatial)
        last_use[pos_[layer]] = std::max(last_use[pos_[layer]], pos_[seg->last_layer()]);
  std::vector<std::vector<std::size_t>> out(ordered_.size());
  for (std::size_t i = 0; i < ordered_.size(); ++i) out[last_use[i]].push_back(i);
  return out;
}

void Searcher::release(const std::string& scope) {
  memo_.release(scope);
  refetch_.release(scope);
  const std::lock_guard<std::mutex> lock(cache_mu_);
  cache_scoped_.erase_scope(scope, cache_);
}

bool Searcher::stop_now() {
  if (!stopped_ && opts_.stop && opts_.stop()) stopped_ = true;
  return stopped_;
}

void Searcher::commit(const PairLog& log) {
  for (const auto& call : log.calls) {
    if (call->accounted) {
      ++stats_.cache_hits;
      continue;
    }
    call->accounted = true;
    ++stats_.layer_searches;
    account(call->layer, call->stats);
    if (!call->infeasible_key.empty()) infeasible_.insert(call->infeasible_key);
  }
}

void Searcher::solve_pairs(std::size_t jobs,
                           const std::function<void(std::size_t, PairLog&)>& job) {
  // No team for no pair: num_threads(0) is "the default", a team of every core whose idle
  // threads then spin-wait and burn CPU time at one requested thread.
  if (jobs == 0) return;
  const int threads = static_cast<int>(std::min<std::size_t>(std::max(opts_.num_threads, 1), jobs));
  std::vector<PairLog> logs(jobs);
  // With several pairs, each thread solves whole pairs and the strategy runs single-threaded
  // inside them; a lone pair gets the threads inside the strategy.
  for (auto& l : logs) l.threads = threads > 1 ? 1 : opts_.num_threads;
  std::vector<std::exception_ptr> errors(jobs);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::size_t i = 0; i < jobs; ++i) {
    try {
      job(i, logs[i]);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (const auto& l : logs) commit(l);
}

void Searcher::account(std::size_t layer, const search::LayerSearchStats& st) {
  if (!st.reported) {
    all_reported_ = false;
    return;
  }
  if (st.valid < 0)
    valid_counted_ = false;
  else
    stats_.schemes_valid += st.valid;
  const std::int64_t offset = stats_.schemes_evaluated;
  if (layer_best_.empty()) layer_best_.assign(net_.size(), std::nullopt);
  for (const auto& p : st.curve.points) {
    auto& best = layer_best_[layer];
    if (best && !(p.best_goal < best->best_goal)) continue;
    if (!best) ++layers_with_best_;
    best = p;
    if (layers_with_best_ < net_.size()) continue;
    double cost = 0;
    double time = 0;
    for (const auto& b : layer_best_) {
      cost += b->best_cost;
      time += b->best_time;
    }
    const auto goal = opts_.options.opt_goal;
    const double g = goal == model::Goal::Energy  ? cost
                     : goal == model::Goal::Delay ? time
                                                  : cost * time;
    stats_.curve.record(offset + p.evaluations, seconds_ + p.seconds, g, cost, time);
  }
  stats_.schemes_evaluated += st.evaluated;
  seconds_ += st.seconds;
}

void Searcher::prepare_all(const std::vector<pricing::LayerProblem>& problems) {
  search::SearchContext ctx;
  ctx.num_threads = opts_.num_threads;
  ctx.memo = &memo_;
  ctx.stop = stop_or_null();
  if (stop_now()) return;
  strategy_.prepare_many(problems, ctx);
}

LayerResults Searcher::search_layer(std::size_t layer, const pricing::LayerProblem& problem,
                                    PairLog& log) {
  if (stop_now()) return {};
  std::shared_ptr<LayerCall> call;
  if (opts_.cache_layer_searches) {
    const auto key = pricing::problem_key(problem, true);
    const std::lock_guard<std::mutex> lock(cache_mu_);
    auto& slot = cache_[key];
    if (!slot) {
      slot = std::make_shared<LayerCall>();
      cache_scoped_.add(pricing::layer_scope(problem), key);
    }
    call = slot;
  } else {
    call = std::make_shared<LayerCall>();
  }
  call->once.call([&] { run_call(*call, layer, problem, log.threads); });
  log.calls.push_back(call);
  if (call->stopped) return {};
  return call->results;
}

void Searcher::run_call(LayerCall& call, std::size_t layer, const pricing::LayerProblem& problem,
                        int threads) {
  search::SearchContext ctx;
  ctx.num_threads = threads;
  ctx.memo = &memo_;
  ctx.stats = &call.stats;
  ctx.stop = stop_or_null();
  call.layer = layer;
  auto found = strategy_.search(problem, ctx);
  // A strategy that saw the stop returned early with a partial answer: not used.
  if (stop_now()) {
    call.stopped = true;
    return;
  }
  if (found.empty() && use_bounds_ && strategy_.empty_means_infeasible()) {
    call.infeasible_key = pricing::problem_key(problem, false);
  }
  for (auto& r : found)
    call.results.push_back(std::make_shared<const pricing::LayerSchedule>(std::move(r)));
}

std::vector<NetworkScheme> Searcher::layer_search(
    std::size_t layer, const mapping::Resource& resource, const SegmentLayerConstraint& cstr,
    int sp, int tm, const std::optional<mapping::NodeRegion>& fwd_region,
    const std::vector<NetworkScheme>& prev, PairLog& log) {
  std::vector<NetworkScheme> out;
  pricing::LayerConstraint constraint;
  constraint.topbat = cstr.topbat;
  constraint.topifm = cstr.topifm;
  constraint.topofm = cstr.topofm;
  constraint.fbifm = cstr.fbifm;
  constraint.fbofm = cstr.fbofm;
  bool rule_pending = cstr.topofm_from_layer.has_value();
  for (const auto& p : prev) {
    if (stopped_) break;
    pricing::LayerProblem problem;
    pricing::set_layer(problem, net_.layer(layer), batch_);
    problem.resource = resource;
    problem.ifmap_layout = p.fmap_layout(layer);
    if (fwd_region) {
      auto& ifl = problem.ifmap_layout;
      for (std::size_t i = 0; i < ifl.frngs.size(); ++i) {
        ifl.parts[i] = mapping::projection(ifl.parts[i], *fwd_region, true);
        ifl.regions[i] = *fwd_region;
      }
    }
    const int seg_idx = p.last_seg_idx() + ((sp == 0 && tm == 0) ? 1 : 0);
    problem.sched_seq = {seg_idx, sp, tm};
    // The lazy top-OFM rule is applied with the FIRST previous scheme only; the reference then
    // clears it, so later schemes reuse that value (§11.15).
    if (rule_pending) {
      const auto* conv = p.get(*cstr.topofm_from_layer);
      KAPLA_ASSERT(conv != nullptr, "lazy topofm rule: the conv layer is not scheduled");
      constraint.topofm = conv->tvals[0][LoopDim::Ofm];
      rule_pending = false;
    }
    problem.constraint = constraint;
    problem.costs = opts_.costs;
    problem.options = opts_.options;
    const auto results = search_layer(layer, problem, log);
    for (const auto& r : results) {
      NetworkScheme s = p;
      if (r->sched_seq == problem.sched_seq) {
        s.add(layer, r);
      } else {
        auto copy = std::make_shared<pricing::LayerSchedule>(*r);
        copy->sched_seq = problem.sched_seq;
        s.add(layer, std::move(copy));
      }
      out.push_back(std::move(s));
    }
  }
  keep_tops(out, opts_.options.opt_goal, opts_.options.ntops);
  return out;
}

std::vector<NetworkScheme> Searcher::segment_search(
    const PipelineSegment& seg, const std::vector<SegmentConstraint>& constraints) {
  const auto& prev = prefix_of(seg);
  if (prev.empty()) return {};
  std::vector<std::vector<std::int64_t>> frontier;
  std::vector<NetworkScheme> out;
  // Without the frontier every constraint is searched: prepare the layout-independent part of
  // all (constraint, layer) problems in parallel first (not for layers whose constraint
  // depends on an earlier layer's result).
  if (opts_.num_threads > 1 && !use_frontier_ && seg.num_layers() > 1) {
    std::vector<pricing::LayerProblem> problems;
    std::set<std::string> keys;
    for (const auto& c : constraints) {
      for (std::size_t sp = 0; sp < seg.size(); ++sp) {
        for (std::size_t tm = 0; tm < seg.layers()[sp].size(); ++tm) {
          const auto& lc = c.layers[sp][tm];
          if (lc.topofm_from_layer) continue;
          pricing::LayerProblem pr;
          pricing::set_layer(pr, net_.layer(seg.layers()[sp][tm]), batch_);
          pr.resource = seg.allocation()[sp][tm];
          pr.constraint = {lc.topbat, lc.topifm, lc.topofm, lc.fbifm, lc.fbofm};
          pr.costs = opts_.costs;
          pr.options = opts_.options;
          if (keys.insert(pricing::problem_key(pr, false)).second)
            problems.push_back(std::move(pr));
        }
      }
    }
    prepare_all(problems);
  }
  for (const auto& c : constraints) {
    if (stopped_) break;
    if (use_frontier_) {
      const bool dominated = std::any_of(frontier.begin(), frontier.end(), [&](const auto& fh) {
        for (std::size_t i = 0; i < std::min(fh.size(), c.hints.size()); ++i) {
          if (c.hints[i] < fh[i]) return false;
        }
        return true;
      });
      if (dominated) continue;
    }
    ++stats_.constraints_searched;
    std::vector<NetworkScheme> cur;
    solve_pairs(1, [&](std::size_t, PairLog& log) {
      cur = *constraint_search(seg, c, prev, nullptr, log);
    });
    if (opts_.pair_report) {
      report(seg, c, static_cast<std::size_t>(&c - constraints.data()), prev, cur);
    }
    std::vector<NetworkScheme> ok = within_overhead(std::move(cur));
    if (!ok.empty() && std::find(frontier.begin(), frontier.end(), c.hints) == frontier.end()) {
      frontier.push_back(c.hints);
    }
    for (auto& s : ok) out.push_back(std::move(s));
  }
  keep_tops(out, opts_.options.opt_goal, opts_.options.ntops);
  return out;
}

std::optional<std::vector<NetworkScheme>> Searcher::constraint_search(
    const PipelineSegment& seg, const SegmentConstraint& c, const std::vector<NetworkScheme>& prev,
    const PairCut* cut, PairLog& log) {
  std::vector<NetworkScheme> cur = prev;
  std::vector<std::size_t> done;  // the segment's layers scheduled so far
  for (std::size_t sp = 0; sp < seg.size(); ++sp) {
    for (std::size_t tm = 0; tm < seg.layers()[sp].size(); ++tm) {
      if (cut && !done.empty() && !cur.empty()) {
        double least = std::numeric_limits<double>::infinity();
        for (const auto& s : cur) {
          double e = 0;
          for (std::size_t l : done) e += s.get(l)->cost - s.get(l)->cost_static;
          least = std::min(least, e);
        }
        const auto& b = *cut->bound;
        const auto [cost, time] =
            partial_bound(b.prefix_cost, b.prefix_time, b.seg, done.size(), least, opts_.costs);
        if (model::goal_less(cut->threshold.first, cut->threshold.second, cost, time,
                             opts_.options.opt_goal)) {
          return std::nullopt;
        }
      }
      const SegIndex idx{static_cast<int>(sp), static_cast<int>(tm)};
      cur = layer_search(seg.layers()[sp][tm], seg.allocation()[sp][tm], c.layers[sp][tm], idx.sp,
                         idx.tm, seg.forward_region(idx), cur, log);
      done.push_back(seg.layers()[sp][tm]);
    }
  }
  return cur;
}

std::vector<NetworkScheme> Searcher::within_overhead(std::vector<NetworkScheme> v) const {
  const double max_ovhd = opts_.options.layer_pipeline_time_ovhd;
  std::vector<NetworkScheme> ok;
  for (auto& s : v) {
    const bool within =
        std::all_of(s.segment_timings().begin(), s.segment_timings().end(),
                    [&](const SegmentTiming& t) { return t.time_overhead() <= max_ovhd; });
    if (within) ok.push_back(std::move(s));
  }
  return ok;
}

SegmentBounds Searcher::segment_bounds(const PipelineSegment& seg,
                                       const std::vector<NetworkScheme>& prev, bool refetch) const {
  const bool whole = !prev.empty() && prev.front().size() == 0 && seg.num_layers() == net_.size();
  return SegmentBounds(seg, net_, batch_, opts_.costs, opts_.options, whole,
                       refetch ? &refetch_ : nullptr, &prev);
}

Searcher::PairBound Searcher::pair_bound(const PipelineSegment& seg, const SegmentConstraint& c,
                                         const std::vector<NetworkScheme>& prev) const {
  SegmentBounds bounds = segment_bounds(seg, prev);
  return pair_bound(bounds, c, prev);
}

Searcher::PairBound Searcher::pair_bound(SegmentBounds& bounds, const SegmentConstraint& c,
                                         const std::vector<NetworkScheme>& prev, bool reads) const {
  PairBound b;
  b.prefix_cost = std::numeric_limits<double>::infinity();
  b.prefix_time = b.prefix_cost;
  for (const auto& p : prev) {
    b.prefix_cost = std::min(b.prefix_cost, p.total_cost());
    b.prefix_time = std::min(b.prefix_time, p.total_time());
  }
  b.seg = reads ? bounds(c) : bounds.without_reads(c);
  b.total = extended_bound(b.prefix_cost, b.prefix_time, b.seg, opts_.costs);
  return b;
}

void Searcher::report(const PipelineSegment& seg, const SegmentConstraint& c, std::size_t ci,
                      const std::vector<NetworkScheme>& prev,
                      const std::vector<NetworkScheme>& schemes) const {
  PairReport r;
  r.segment = &seg;
  r.constraint = ci;
  std::tie(r.bound_cost, r.bound_time) = pair_bound(seg, c, prev).total;
  for (const auto& s : schemes) r.schemes.emplace_back(s.total_cost(), s.total_time());
  opts_.pair_report(r);
}

bool Searcher::known_infeasible(const PipelineSegment& seg, const SegmentConstraint& c) const {
  if (infeasible_.empty()) return false;
  for (std::size_t sp = 0; sp < seg.size(); ++sp) {
    for (std::size_t tm = 0; tm < seg.layers()[sp].size(); ++tm) {
      const auto& lc = c.layers[sp][tm];
      if (lc.topofm_from_layer) continue;  // its constraint is known only when scheduled
      pricing::LayerProblem p = segment_layer_problem(seg, sp, tm, net_, batch_);
      p.constraint = layer_constraint(lc);
      p.costs = opts_.costs;
      p.options = opts_.options;
      if (infeasible_.count(pricing::problem_key(p, false)) > 0) return true;
    }
  }
  return false;
}

std::vector<std::vector<NetworkScheme>> Searcher::bounded_search(
    const std::vector<const PipelineSegment*>& segments,
    const std::vector<const std::vector<SegmentConstraint>*>& cstrs) {
  const auto goal = opts_.options.opt_goal;
  const auto ntops = static_cast<std::size_t>(std::max(opts_.options.ntops, 0));
  struct Pair {
    std::size_t seg = 0;
    std::size_t cstr = 0;
    PairBound bound;  // without the floors' reads (SegmentBounds::without_reads), to order
    std::optional<PairBound> full;  // with them, once the pair passes that bound
  };
  const std::size_t wave = std::max<std::size_t>(opts_.pair_wave, 1);
  // The first wave is the best-bound pair alone: no threshold holds yet, so a wider first wave
  // would solve all its pairs in full, where the first pair's schemes usually cut or skip the
  // others (docs/benchmarks.md). Where it is the only pair, nothing is skipped or cut and the
  // bounds do not matter, so the refetch floors would be work for nothing (every position of
  // the training networks, whose segments have one layer).
  constexpr std::size_t kFirstWave = 1;
  std::size_t num_pairs = 0;
  for (std::size_t j = 0; j < segments.size(); ++j)
    if (!prefix_of(*segments[j]).empty()) num_pairs += cstrs[j]->size();
  const bool refetch = num_pairs > kFirstWave;
  std::vector<Pair> pairs;
  std::vector<std::optional<SegmentBounds>> bounds(segments.size());
  for (std::size_t j = 0; j < segments.size(); ++j) {
    const auto& prev = prefix_of(*segments[j]);
    if (prev.empty()) continue;
    bounds[j].emplace(segment_bounds(*segments[j], prev, refetch));
    for (std::size_t ci = 0; ci < cstrs[j]->size(); ++ci) {
      pairs.push_back({j, ci, pair_bound(*bounds[j], (*cstrs[j])[ci], prev, false), {}});
    }
  }
  // Most promising first; equal bounds keep the generation order.
  std::stable_sort(pairs.begin(), pairs.end(), [&](const Pair& a, const Pair& b) {
    const auto& x = a.bound.total;
    const auto& y = b.bound.total;
    return model::goal_less(x.first, x.second, y.first, y.second, goal);
  });
  // Every scheme found here so far (total cost, time): a pair whose bound is worse than the
  // ntops-th best of them cannot place a scheme among the kept ones (the two-stage top-ntops
  // below keeps the ntops best values of all found), and dropping it changes nothing else.
  std::vector<std::pair<double, double>> found;
  auto ntops_th_best = [&] {
    auto nth = found.begin() + static_cast<std::ptrdiff_t>(ntops - 1);
    std::nth_element(found.begin(), nth, found.end(), [&](const auto& a, const auto& b) {
      return model::goal_less(a.first, a.second, b.first, b.second, goal);
    });
    return *nth;
  };
  std::vector<std::vector<std::vector<NetworkScheme>>> results(segments.size());
  for (std::size_t j = 0; j < segments.size(); ++j) results[j].resize(cstrs[j]->size());
  // Then waves of opts_.pair_wave pairs in bound order: each wave's pairs are skipped, cut and
  // solved against the threshold of the waves before it, so they are independent (solved
  // concurrently with threads) and what is solved does not depend on the thread count.
  for (std::size_t first = 0, size = kFirstWave; first < pairs.size() && !stopped_;
       first += size, size = wave) {
    std::optional<std::pair<double, double>> threshold;
    if (ntops > 0 && found.size() >= ntops) threshold = ntops_th_best();
    struct Job {
      const Pair* pair = nullptr;
      std::optional<PairCut> cut;
      std::optional<std::vector<NetworkScheme>> schemes;
    };
    std::vector<Job> jobs;
    for (std::size_t i = first; i < std::min(first + size, pairs.size()); ++i) {
      auto& p = pairs[i];
      if (threshold) {
        // The cheaper bound first; a pair it leaves gets the floors' reads.
        const auto& t = *threshold;
        auto above = [&](const PairBound& b) {
          return model::goal_less(t.first, t.second, b.total.first, b.total.second, goal);
        };
        if (!above(p.bound)) {
          const auto& seg = *segments[p.seg];
          p.full = pair_bound(*bounds[p.seg], (*cstrs[p.seg])[p.cstr], prefix_of(seg));
        }
        if (above(p.bound) || above(*p.full)) {
          ++stats_.pairs_bounded_out;
          continue;
        }
      }
      if (known_infeasible(*segments[p.seg], (*cstrs[p.seg])[p.cstr])) {
        ++stats_.pairs_known_infeasible;
        continue;
      }
      Job j;
      j.pair = &p;
      if (threshold) j.cut = PairCut{&*p.full, *threshold};
      jobs.push_back(std::move(j));
    }
    solve_pairs(jobs.size(), [&](std::size_t i, PairLog& log) {
      auto& j = jobs[i];
      const auto& seg = *segments[j.pair->seg];
      j.schemes = constraint_search(seg, (*cstrs[j.pair->seg])[j.pair->cstr], prefix_of(seg),
                                    j.cut ? &*j.cut : nullptr, log);
    });
    if (stopped_) break;
    for (auto& j : jobs) {
      ++stats_.constraints_searched;
      if (!j.schemes) {
        ++stats_.pairs_cut_short;
        continue;
      }
      const auto& p = *j.pair;
      auto& cur = *j.schemes;
      if (opts_.pair_report)
        report(*segments[p.seg], (*cstrs[p.seg])[p.cstr], p.cstr, prefix_of(*segments[p.seg]), cur);
      auto ok = within_overhead(std::move(cur));
      for (const auto& s : ok) found.emplace_back(s.total_cost(), s.total_time());
      results[p.seg][p.cstr] = std::move(ok);
    }
  }
  // Each segment's schemes in constraint order, as segment_search would have them.
  std::vector<std::vector<NetworkScheme>> out(segments.size());
  for (std::size_t j = 0; j < segments.size(); ++j) {
    for (auto& r : results[j])
      for (auto& s : r) out[j].push_back(std::move(s));
    keep_tops(out[j], goal, opts_.options.ntops);
  }
  return out;
}

NetworkSearchResult Searcher::run() {
  const auto segments = gen_segments(dag_, net_, batch_, resource_, opts_.options);
  // The distinct segments in generation order, indexed by their last layer.
  std::vector<const PipelineSegment*> distinct;
  std::vector<std::vector<std::size_t>> by_last(net_.size());
  for (const auto& seg : segments) {
    auto& lst = by_last[seg.last_layer()];
    if (std::none_of(lst.begin(), lst.end(), [&](std::size_t i) { return *distinct[i] == seg; })) {
      lst.push_back(distinct.size());
      distinct.push_back(&seg);
      ++stats_.segments;
    }
  }
  // Their constraints, after the strategy's inter-layer pruning (if any).
  const auto& filter = opts_.segment_filter;
  std::vector<bool> keep_seg(distinct.size(), true);
  if (filter.segments) {
    keep_seg = filter.segments(distinct);
    KAPLA_ASSERT(keep_seg.size() == distinct.size(), "segment filter: one flag per segment");
  }
  std::vector<std::vector<SegmentConstraint>> seg_constraints(distinct.size());
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    auto all = distinct[i]->constraints(opts_.options.layer_pipeline_time_ovhd);
    stats_.constraints_before_pruning += all.size();
    if (!keep_seg[i]) continue;
    if (filter.constraint) {
      for (auto& c : all) {
        if (filter.constraint(*distinct[i], c)) seg_constraints[i].push_back(std::move(c));
      }
    } else {
      seg_constraints[i] = std::move(all);
    }
    stats_.constraints_after_pruning += seg_constraints[i].size();
    if (!seg_constraints[i].empty()) ++stats_.segments_after_pruning;
  }
  stats_.segments_before_pruning = distinct.size();
  // With several threads, run the layout-independent part of every single-layer problem up
  // front, layers in parallel (one thread each); the beam search then reuses it (no numeric
  // effect: the strategy's search() returns the same with or without it).
  if (opts_.num_threads > 1) {
    std::vector<pricing::LayerProblem> problems;
    std::set<std::string> keys;
    for (const auto& seg : segments) {
      if (seg.num_layers() != 1) continue;
      pricing::LayerProblem pr;
      pricing::set_layer(pr, net_.layer(seg.first_layer()), batch_);
      pr.resource = seg.allocation()[0][0];
      pr.costs = opts_.costs;
      pr.options = opts_.options;
      if (keys.insert(pricing::problem_key(pr, false)).second) problems.push_back(std::move(pr));
    }
    prepare_all(problems);
  }
  for (auto& [in, ext] : input_layout_choices(net_, batch_, resource_, opts_.options)) {
    tops_none_.emplace_back(net_, std::move(in), std::move(ext));
  }
  tops_.assign(ordered_.size(), {});
  // What the searches remember of a layer shape (layer calls, memo entries, refetch floors)
  // is dropped once no segment left holds a layer of that shape: memory, not numbers (an
  // entry asked for again would be made again, and none is). ResNet-50 inference on cloud
  // with K peaked at 919 MiB keeping everything, 297 MiB so.
  const auto retire = retire_after(distinct);
  std::vector<std::string> scope(ordered_.size());
  std::map<std::string, std::size_t> live;  // positions of each shape not yet retired
  for (std::size_t i = 0; i < ordered_.size(); ++i) {
    pricing::LayerProblem pr;
    pricing::set_layer(pr, net_.layer(ordered_[i]), batch_);
    scope[i] = pricing::layer_scope(pr);
    ++live[scope[i]];
  }
  SearchProgress progress;
  progress.layers_total = ordered_.size();
  progress.segments_total = stats_.segments_after_pruning;
  for (std::size_t i = 0; i < ordered_.size() && !stopped_; ++i) {
    std::vector<NetworkScheme> cand;
    const auto& ending_here = by_last[ordered_[i]];
    std::vector<std::vector<NetworkScheme>> bounded;
    if (use_bounds_) {
      std::vector<const PipelineSegment*> segs;
      std::vector<const std::vector<SegmentConstraint>*> cs;
      for (std::size_t k : ending_here) {
        segs.push_back(distinct[k]);
        cs.push_back(&seg_constraints[k]);
      }
      bounded = bounded_search(segs, cs);
    }
    for (std::size_t j = 0; j < ending_here.size(); ++j) {
      const std::size_t k = ending_here[j];
      if (seg_constraints[k].empty()) continue;  // pruned (or no constraint at all)
      auto found =
          use_bounds_ ? std::move(bounded[j]) : segment_search(*distinct[k], seg_constraints[k]);
      for (auto& s : found) cand.push_back(std::move(s));
      if (opts_.progress) {
        ++progress.segments_done;
        // The layer is done with the last segment that ends at it.
        const bool last = std::none_of(ending_here.begin() + static_cast<std::ptrdiff_t>(j) + 1,
                                       ending_here.end(),
                                       [&](std::size_t m) { return !seg_constraints[m].empty(); });
        progress.layers_done = i + (last ? 1 : 0);
        progress.segment = distinct[k];
        opts_.progress(progress);
      }
    }
    keep_tops(cand, opts_.options.opt_goal, opts_.options.ntops);
    tops_[i] = std::move(cand);
    for (auto q : retire[i])
      if (--live[scope[q]] == 0) release(scope[q]);
  }
  NetworkSearchResult res;
  res.stopped = stopped_;
  if (!tops_.empty() && !stopped_) res.tops = std::move(tops_.back());
  stats_.memo_hits = memo_.hits();
  if (!all_reported_) stats_.schemes_evaluated = -1;
  if (!all_reported_ || !valid_counted_) stats_.schemes_valid = -1;
  if (!stats_.curve.empty()) {
    const auto last = stats_.curve.points.back();
    stats_.curve.record(stats_.schemes_evaluated, seconds_, last.best_goal, last.best_cost,
                        last.best_time);
  }
  res.stats = stats_;
  return res;
}

}  // namespace

std::vector<std::pair<mapping::DataLayout, std::vector<mapping::DataLayout>>> input_layout_choices(
    const model::Network& net, std::int64_t batch, const mapping::Resource& resource,
    const model::SearchOptions& options) {
  const auto& input = net.input();
  const auto& region = resource.src_data_region;
  std::vector<std::pair<mapping::DataLayout, std::vector<mapping::DataLayout>>> out;
  for (const auto& part :
       mapping::gen_input_partition(input.nofm, input.sofm, batch, region.dim, options, true)) {
    const auto proj = mapping::projection(part, region, true);
    mapping::DataLayout in{{full_range(batch, input.nofm, input.sofm)}, {region}, {proj}};
    std::vector<mapping::DataLayout> ext;
    for (const auto& e : net.externals()) {
      ext.push_back(mapping::DataLayout{{full_range(batch, e.nofm, e.sofm)}, {region}, {proj}});
    }
    out.emplace_back(std::move(in), std::move(ext));
  }
  return out;
}

NetworkSearchResult network_search(const model::Network& net, std::int64_t batch,
                                   const mapping::Resource& resource,
                                   const search::LayerStrategy& strategy,
                                   const NetworkSearchOptions& opts) {
  return Searcher(net, batch, resource, strategy, opts).run();
}

}  // namespace kapla::schedule
