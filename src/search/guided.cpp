// Strategy M (see guided.hpp; docs/baselines.md).
#include "search/guided.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "core/errors.hpp"

namespace kapla::search {

void validate(const GuidedOptions& o) {
  validate(o.budget);
  auto fail = [](const std::string& field, const std::string& what) {
    throw InputError("GuidedOptions: " + field + " " + what);
  };
  if (o.batch_size < 1) fail("batch_size", "must be >= 1");
  if (!(o.random_fraction >= 0 && o.random_fraction <= 1))
    fail("random_fraction", "must be in [0, 1]");
  if (o.num_chains < 1 || o.num_chains > o.batch_size)
    fail("num_chains", "must be in [1, batch_size]");
  if (!(o.initial_fraction >= 0 && o.initial_fraction <= 1))
    fail("initial_fraction", "must be in [0, 1]");
  if (!(o.t_start >= 0) || !(o.t_end >= 0) || std::isinf(o.t_start) || std::isinf(o.t_end))
    fail("t_start/t_end", "must be finite and >= 0");
  if (o.patience < 1) fail("patience", "must be >= 1");
  if (o.elite < 1) fail("elite", "must be >= 1");
  if (o.max_retries < 0) fail("max_retries", "must be >= 0");
  if (o.surrogate_candidates < 1) fail("surrogate_candidates", "must be >= 1");
  if (o.surrogate_min_samples < 2) fail("surrogate_min_samples", "must be >= 2");
  if (!(o.ridge_lambda > 0) || std::isinf(o.ridge_lambda)) fail("ridge_lambda", "must be > 0");
}

// ---- Surrogate ---------------------------------------------------------------------------

std::vector<double> surrogate_features(const SchemeSpace& space, const SchemePoint& p) {
  std::vector<double> f;
  f.reserve(26);
  for (int k = 0; k < 3; ++k)
    for (auto l : all_values<LoopDim>()) f.push_back(std::log2(static_cast<double>(p.bl_ts[k][l])));
  for (int k = 0; k < 2; ++k) {
    int inner = -1;
    for (auto l : all_values<LoopDim>()) {
      if (p.bl_ts[k][l] <= 1) continue;
      if (inner < 0 || p.bl_ords[k][l] < p.bl_ords[k][static_cast<LoopDim>(inner)])
        inner = static_cast<int>(l);
    }
    for (int l = 0; l < 3; ++l) f.push_back(l == inner ? 1.0 : 0.0);
  }
  if (!space.partitions().empty()) {
    const auto& part = space.partitions()[static_cast<std::size_t>(p.part_index)];
    for (auto d : all_values<ParallelDim>())
      f.push_back(std::log2(static_cast<double>(part.size(d))));
  }
  if (space.has_nlds()) {
    const auto& n = space.nld(p.part_index, p.nld_index);
    for (auto d : all_values<DataCategory>()) f.push_back(std::log2(n.usize_gbuf[d] + 1));
    for (auto d : all_values<DataCategory>()) f.push_back(std::log2(n.usize_regf[d] + 1));
    f.push_back(std::log2(static_cast<double>(n.unit_time) + 1));
  }
  return f;
}

void RidgeModel::fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                     double lambda) {
  fitted_ = false;
  if (x.empty() || x.size() != y.size()) return;
  const std::size_t n = x.size();
  const std::size_t d = x.front().size();
  mean_.assign(d, 0.0);
  double ymean = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) mean_[j] += x[i][j];
    ymean += y[i];
  }
  for (auto& m : mean_) m /= static_cast<double>(n);
  ymean /= static_cast<double>(n);
  // A = Xc^T Xc + lambda * n * I, c = Xc^T yc.
  std::vector<double> a(d * d, 0.0), c(d, 0.0), xc(d);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) xc[j] = x[i][j] - mean_[j];
    const double yc = y[i] - ymean;
    for (std::size_t j = 0; j < d; ++j) {
      c[j] += xc[j] * yc;
      for (std::size_t k = 0; k <= j; ++k) a[j * d + k] += xc[j] * xc[k];
    }
  }
  for (std::size_t j = 0; j < d; ++j) a[j * d + j] += lambda * static_cast<double>(n);
  // Cholesky A = L L^T (lower triangle in place), then two triangular solves.
  for (std::size_t j = 0; j < d; ++j) {
    double s = a[j * d + j];
    for (std::size_t k = 0; k < j; ++k) s -= a[j * d + k] * a[j * d + k];
    if (!(s > 0)) return;
    const double ljj = std::sqrt(s);
    a[j * d + j] = ljj;
    for (std::size_t i = j + 1; i < d; ++i) {
      double t = a[i * d + j];
      for (std::size_t k = 0; k < j; ++k) t -= a[i * d + k] * a[j * d + k];
      a[i * d + j] = t / ljj;
    }
  }
  std::vector<double> z(d);
  for (std::size_t i = 0; i < d; ++i) {
    double t = c[i];
    for (std::size_t k = 0; k < i; ++k) t -= a[i * d + k] * z[k];
    z[i] = t / a[i * d + i];
  }
  w_.assign(d, 0.0);
  for (std::size_t i = d; i-- > 0;) {
    double t = z[i];
    for (std::size_t k = i + 1; k < d; ++k) t -= a[k * d + i] * w_[k];
    w_[i] = t / a[i * d + i];
  }
  b_ = ymean;
  fitted_ = true;
}

double RidgeModel::predict(const std::vector<double>& x) const {
  double s = b_;
  for (std::size_t j = 0; j < w_.size() && j < x.size(); ++j) s += w_[j] * (x[j] - mean_[j]);
  return s;
}

// ---- The explorer ------------------------------------------------------------------------

namespace {

// Stream tags mixed into the layer seed (docs/baselines.md).
constexpr std::uint64_t kInitStream = 0x494E4954ULL;           // "INIT"
constexpr std::uint64_t kChainStream = 0x434841494E000000ULL;  // "CHAIN" + chain index

double log_goal(double v) { return std::log(std::max(v, std::numeric_limits<double>::min())); }

struct Chain {
  SchemePoint cur;
  double cur_f = 0;   // ln goal of cur
  double best_f = 0;  // best ln goal this chain reached since its last restart
  int stale = 0;      // rounds without improving best_f
  Rng rng{0};
};

}  // namespace

SamplingResult guided_search(const SchemeSpace& space, const SchemeEvaluator& evaluate,
                             model::Goal goal, int ntops, const GuidedOptions& opts,
                             std::uint64_t layer_seed, int num_threads) {
  validate(opts);
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  SamplingResult r;
  r.stats.layer_seed = layer_seed;
  r.stats.space_size = space.size();
  if (space.empty()) {
    r.stats.stop = SamplingStats::Stop::EmptySpace;
    return r;
  }
  const auto& budget = opts.budget;
  const std::int64_t max_evals = budget.max_evaluations;
  auto left = [&]() -> std::int64_t {
    return max_evals > 0 ? max_evals - r.stats.evaluations
                         : std::numeric_limits<std::int64_t>::max();
  };
  std::unordered_set<std::uint64_t> visited;
  TopSchedules top(ntops, goal);
  TopSchedules elite(opts.elite, goal);
  // Surrogate training data: features of every measured point, ln goal of the valid ones.
  std::vector<std::vector<double>> feat_all, feat_valid;
  std::vector<double> valid_label, log_cost;
  RidgeModel cost_model, valid_model;

  auto stop_reason = [&]() -> std::optional<SamplingStats::Stop> {
    if (max_evals > 0 && r.stats.evaluations >= max_evals) return SamplingStats::Stop::Budget;
    if (budget.max_seconds > 0 && elapsed() >= budget.max_seconds)
      return SamplingStats::Stop::Seconds;
    if (visited.size() >= space.size()) return SamplingStats::Stop::Exhausted;
    return std::nullopt;
  };
  auto measure = [&](const std::vector<SchemePoint>& batch) {
    const auto results = evaluate_batch(batch, evaluate, num_threads);
    const double now = elapsed();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      ++r.stats.evaluations;
      visited.insert(*space.index_of(batch[i]));
      const auto& res = results[i];
      if (opts.surrogate) {
        feat_all.push_back(surrogate_features(space, batch[i]));
        valid_label.push_back(res ? 1.0 : 0.0);
      }
      if (!res) {
        ++r.stats.invalid;
        continue;
      }
      ++r.stats.valid;
      if (opts.surrogate) {
        feat_valid.push_back(feat_all.back());
        log_cost.push_back(log_goal(goal_scalar(*res, goal)));
      }
      elite.offer(batch[i], *res);
      if (top.offer(batch[i], *res)) {
        ++r.stats.improvements;
        r.curve.record(r.stats.evaluations, now, goal_scalar(*res, goal), res->cost, res->time);
      }
    }
    return results;
  };
  // An unmeasured point not yet in this batch, drawn uniformly (nullopt if none found).
  auto random_fresh =
      [&](Rng& rng,
          const std::unordered_set<std::uint64_t>& in_batch) -> std::optional<SchemePoint> {
    for (int attempt = 0; attempt < 64; ++attempt) {
      const auto idx = rng.uniform(space.size());
      if (!visited.count(idx) && !in_batch.count(idx)) return space.at(idx);
    }
    // Nearly exhausted: the first free index from a random start.
    const auto from = rng.uniform(space.size());
    for (std::uint64_t k = 0; k < space.size(); ++k) {
      const auto idx = (from + k) % space.size();
      if (!visited.count(idx) && !in_batch.count(idx)) return space.at(idx);
    }
    return std::nullopt;
  };

  // Phase 1: uniform random points (at least one batch), then until one is valid.
  Rng init_rng(mix_seed(layer_seed, kInitStream));
  const std::int64_t n_init = std::max<std::int64_t>(
      opts.batch_size, max_evals > 0
                           ? std::llround(opts.initial_fraction * static_cast<double>(max_evals))
                           : opts.batch_size);
  std::optional<SamplingStats::Stop> stop;
  while (!(stop = stop_reason()) && (r.stats.evaluations < n_init || elite.empty())) {
    const std::int64_t want = std::min<std::int64_t>(
        {static_cast<std::int64_t>(opts.batch_size), left(),
         elite.empty() && r.stats.evaluations >= n_init ? static_cast<std::int64_t>(opts.batch_size)
                                                        : n_init - r.stats.evaluations});
    std::vector<SchemePoint> batch;
    std::unordered_set<std::uint64_t> in_batch;
    for (std::int64_t i = 0; i < want; ++i) {
      const auto p = random_fresh(init_rng, in_batch);
      if (!p) break;
      in_batch.insert(*space.index_of(*p));
      batch.push_back(*p);
    }
    if (batch.empty()) {
      stop = SamplingStats::Stop::Exhausted;
      break;
    }
    measure(batch);
  }

  // Phase 2: batched annealing chains.
  if (!stop && !elite.empty()) {
    std::vector<Chain> chains(static_cast<std::size_t>(opts.num_chains));
    {
      const auto pts = elite.points();
      const auto sch = elite.schedules();
      for (std::size_t c = 0; c < chains.size(); ++c) {
        chains[c].rng = Rng(mix_seed(layer_seed, kChainStream + c));
        chains[c].cur = pts[c % pts.size()];
        chains[c].cur_f = chains[c].best_f = log_goal(goal_scalar(sch[c % sch.size()], goal));
      }
    }
    while (!(stop = stop_reason())) {
      const double progress =
          max_evals > 0 ? static_cast<double>(r.stats.evaluations) / static_cast<double>(max_evals)
                        : std::min(1.0, elapsed() / budget.max_seconds);
      const double temp = opts.t_end + (opts.t_start - opts.t_end) * (1 - progress);
      const bool use_model =
          opts.surrogate && static_cast<int>(log_cost.size()) >= opts.surrogate_min_samples;
      if (use_model) {
        cost_model.fit(feat_valid, log_cost, opts.ridge_lambda);
        valid_model.fit(feat_all, valid_label, opts.ridge_lambda);
      }
      // Proposals: batch slot j belongs to chain j % num_chains; drawn in slot order.
      const auto n = static_cast<std::size_t>(
          std::min<std::int64_t>(static_cast<std::int64_t>(opts.batch_size), left()));
      std::vector<SchemePoint> batch;
      std::vector<std::size_t> owner;
      std::unordered_set<std::uint64_t> in_batch;
      for (std::size_t slot = 0; slot < n; ++slot) {
        if (opts.random_fraction > 0 && init_rng.uniform01() < opts.random_fraction) {
          if (const auto p = random_fresh(init_rng, in_batch)) {
            in_batch.insert(*space.index_of(*p));
            batch.push_back(*p);
            owner.push_back(chains.size());  // no chain
          }
          continue;
        }
        const std::size_t c = slot % chains.size();
        auto& ch = chains[c];
        auto fresh = [&](const SchemePoint& q) {
          const auto idx = *space.index_of(q);
          return !visited.count(idx) && !in_batch.count(idx);
        };
        std::optional<SchemePoint> pick;
        if (use_model && cost_model.fitted() && valid_model.fitted()) {
          double best_score = std::numeric_limits<double>::infinity();
          for (int k = 0; k < opts.surrogate_candidates; ++k) {
            const auto q = space.neighbour(ch.cur, ch.rng, opts.moves);
            if (!fresh(q)) continue;
            const auto x = surrogate_features(space, q);
            const double score = cost_model.predict(x) + (valid_model.predict(x) < 0.5 ? 1e6 : 0.0);
            if (score < best_score) {
              best_score = score;
              pick = q;
            }
          }
        }
        for (int k = 0; k <= opts.max_retries && !pick; ++k) {
          const auto q = space.neighbour(ch.cur, ch.rng, opts.moves);
          if (fresh(q)) pick = q;
        }
        if (!pick) pick = random_fresh(ch.rng, in_batch);
        if (!pick) continue;
        in_batch.insert(*space.index_of(*pick));
        batch.push_back(*pick);
        owner.push_back(c);
      }
      if (batch.empty()) {
        stop = SamplingStats::Stop::Exhausted;
        break;
      }
      const auto results = measure(batch);
      // Each chain's best valid proposal (first on ties), then acceptance in chain order.
      std::vector<std::optional<std::size_t>> best_of(chains.size());
      std::vector<double> best_f(chains.size(), std::numeric_limits<double>::infinity());
      for (std::size_t j = 0; j < batch.size(); ++j) {
        if (!results[j] || owner[j] >= chains.size()) continue;
        const double f = log_goal(goal_scalar(*results[j], goal));
        if (f < best_f[owner[j]]) {
          best_f[owner[j]] = f;
          best_of[owner[j]] = j;
        }
      }
      const auto elite_pts = elite.points();
      const auto elite_sch = elite.schedules();
      for (std::size_t c = 0; c < chains.size(); ++c) {
        auto& ch = chains[c];
        const double u = ch.rng.uniform01();
        if (best_of[c]) {
          const double f = best_f[c];
          if (f <= ch.cur_f || (temp > 0 && u < std::exp(-(f - ch.cur_f) / temp))) {
            ch.cur = batch[*best_of[c]];
            ch.cur_f = f;
          }
          if (f < ch.best_f) {
            ch.best_f = f;
            ch.stale = 0;
            continue;
          }
        }
        if (++ch.stale >= opts.patience) {
          const auto e = ch.rng.uniform(elite_pts.size());
          ch.cur = elite_pts[e];
          ch.cur_f = ch.best_f = log_goal(goal_scalar(elite_sch[e], goal));
          ch.stale = 0;
        }
      }
    }
  }
  r.stats.stop = stop.value_or(SamplingStats::Stop::Budget);
  r.stats.seconds = elapsed();
  if (!top.empty()) {
    const auto& best = top.best();
    r.curve.record(r.stats.evaluations, r.stats.seconds, goal_scalar(best, goal), best.cost,
                   best.time);
  }
  r.best = top.schedules();
  r.best_points = top.points();
  return r;
}

Guided::Guided(GuidedOptions opts) : opts_(opts) { validate(opts_); }

SamplingResult Guided::run(const pricing::LayerProblem& problem, const SearchContext& ctx) const {
  const auto space = SchemeSpace::of_problem(problem);
  SchemeEvaluator evaluate = cost_model_evaluator(problem, space);
  if (ctx.stop != nullptr) {
    // Once the caller asks to stop, samples are no longer priced (they count as invalid), so
    // an evaluation budget runs out at once; the caller discards the result.
    evaluate = [price = std::move(evaluate), &ctx](const SchemePoint& point) {
      return ctx.stop_requested() ? std::nullopt : price(point);
    };
  }
  const auto seed = mix_seed(opts_.budget.seed, problem_key(problem));
  return guided_search(space, evaluate, problem.options.opt_goal, problem.options.ntops, opts_,
                       seed, ctx.num_threads);
}

std::vector<pricing::LayerSchedule> Guided::search(const pricing::LayerProblem& problem,
                                                   const SearchContext& ctx) const {
  return report_best(run(problem, ctx), ctx);
}

// ---- Registry entry ----------------------------------------------------------------------

StrategyEntry guided_entry() {
  StrategyEntry e;
  e.name = "guided";
  e.letter = 'M';
  e.label = "M (guided)";
  e.description = "guided search: batched simulated annealing, optional surrogate (AutoTVM role)";
  e.cost_weight = 6.98;
  e.parse = [](const ParamSource& src) {
    src.allow({"max_evaluations", "max_seconds", "surrogate", "batch_size", "num_chains"});
    GuidedOptions o;
    read_budget(src, o.budget);
    if (src.has("surrogate")) o.surrogate = src.boolean("surrogate");
    read_count(src, "batch_size", o.batch_size);
    read_count(src, "num_chains", o.num_chains);
    return validated_params(src, "guided", o);
  };
  e.describe = [](const StrategyParams& p, std::uint64_t seed) -> DescribedParams {
    const auto& o = p.get<GuidedOptions>();
    return {{"strategy.seed", std::to_string(seed)},
            {"strategy.max_evaluations", std::to_string(o.budget.max_evaluations)},
            {"strategy.max_seconds", number_text(o.budget.max_seconds)},
            {"strategy.batch_size", std::to_string(o.batch_size)},
            {"strategy.num_chains", std::to_string(o.num_chains)},
            {"strategy.surrogate", flag_text(o.surrogate)}};
  };
  e.make = [](const StrategyParams& p, std::uint64_t seed) -> std::unique_ptr<LayerStrategy> {
    GuidedOptions o = p.get<GuidedOptions>();
    o.budget.seed = seed;
    validate_as("guided", [&] { validate(o); });
    return std::make_unique<Guided>(o);
  };
  return e;
}

}  // namespace kapla::search
