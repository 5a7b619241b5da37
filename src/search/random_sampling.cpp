// Strategy R (see random_sampling.hpp; docs/baselines.md).
#include "search/random_sampling.hpp"

#include <chrono>
#include <cmath>

#include "core/errors.hpp"
#include "model/limits.hpp"

namespace kapla::search {

void validate(const SamplingBudget& b) {
  if (b.max_evaluations < 0)
    throw InputError("SamplingBudget: max_evaluations must be >= 0, got " +
                     std::to_string(b.max_evaluations));
  if (!(b.max_seconds >= 0) || std::isinf(b.max_seconds))
    throw InputError("SamplingBudget: max_seconds must be finite and >= 0");
  if (b.max_evaluations == 0 && b.max_seconds == 0)
    throw InputError("SamplingBudget: max_evaluations and max_seconds are both 0 (no budget)");
}

void validate(const RandomSamplingOptions& o) {
  validate(o.budget);
  if (o.victory_condition < 0)
    throw InputError("RandomSamplingOptions: victory_condition must be >= 0, got " +
                     std::to_string(o.victory_condition));
  if (o.batch_size < 1)
    throw InputError("RandomSamplingOptions: batch_size must be >= 1, got " +
                     std::to_string(o.batch_size));
}

SamplingResult random_sampling(const SchemeSpace& space, const SchemeEvaluator& evaluate,
                               model::Goal goal, int ntops, const RandomSamplingOptions& opts,
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
  const auto& b = opts.budget;
  TopSchedules top(ntops, goal);
  std::int64_t since_improvement = 0;  // consecutive valid non-improving samples
  std::int64_t next = 0;               // index of the next sample
  bool done = false;
  while (!done) {
    if (b.max_seconds > 0 && elapsed() >= b.max_seconds) {
      r.stats.stop = SamplingStats::Stop::Seconds;
      break;
    }
    std::int64_t n = opts.batch_size;
    if (b.max_evaluations > 0) n = std::min<std::int64_t>(n, b.max_evaluations - next);
    std::vector<SchemePoint> batch;
    batch.reserve(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      Rng rng(mix_seed(layer_seed, static_cast<std::uint64_t>(next + i)));
      batch.push_back(space.sample(rng));
    }
    const auto results = evaluate_batch(batch, evaluate, num_threads);
    const double now = elapsed();
    // Reduce in sample order: the victory condition may stop inside a batch; later samples of
    // that batch are then dropped (not counted), so batch size and threads do not matter.
    for (std::int64_t i = 0; i < n; ++i) {
      ++r.stats.evaluations;
      const auto& res = results[static_cast<std::size_t>(i)];
      if (!res) {
        ++r.stats.invalid;
        continue;
      }
      ++r.stats.valid;
      if (top.offer(batch[static_cast<std::size_t>(i)], *res)) {
        ++r.stats.improvements;
        since_improvement = 0;
        r.curve.record(r.stats.evaluations, now, goal_scalar(*res, goal), res->cost, res->time);
      } else if (opts.victory_condition > 0 && ++since_improvement >= opts.victory_condition) {
        r.stats.stop = SamplingStats::Stop::Victory;
        done = true;
        break;
      }
    }
    next += n;
    if (!done && b.max_evaluations > 0 && next >= b.max_evaluations) {
      r.stats.stop = SamplingStats::Stop::Budget;
      done = true;
    }
  }
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

void record_stats(const SamplingResult& r, LayerSearchStats& out) {
  out.reported = true;
  out.evaluated = r.stats.evaluations;
  out.valid = r.stats.valid;
  out.seconds = r.stats.seconds;
  out.curve = r.curve;
}

std::vector<pricing::LayerSchedule> report_best(SamplingResult r, const SearchContext& ctx) {
  if (ctx.stats != nullptr) record_stats(r, *ctx.stats);
  return std::move(r.best);
}

RandomSampling::RandomSampling(RandomSamplingOptions opts) : opts_(opts) { validate(opts_); }

SamplingResult RandomSampling::run(const pricing::LayerProblem& problem,
                                   const SearchContext& ctx) const {
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
  return random_sampling(space, evaluate, problem.options.opt_goal, problem.options.ntops, opts_,
                         seed, ctx.num_threads);
}

std::vector<pricing::LayerSchedule> RandomSampling::search(const pricing::LayerProblem& problem,
                                                           const SearchContext& ctx) const {
  return report_best(run(problem, ctx), ctx);
}

// ---- Registry entry ----------------------------------------------------------------------

std::int64_t read_evaluations(const ParamSource& src, std::string_view key) {
  const auto v = src.integer(key);
  try {
    model::limits::check_int(key, v, 0, model::limits::kMaxEvaluations);
  } catch (const InputError& e) {
    src.rethrow(e);
  }
  return v;
}

// Budgets are bounded (model/limits.hpp) so that a deadline computed from max_seconds cannot
// overflow the clock, and an evaluation count cannot overflow a counter.
void read_budget(const ParamSource& src, SamplingBudget& b) {
  if (src.has("max_evaluations")) b.max_evaluations = read_evaluations(src, "max_evaluations");
  if (src.has("max_seconds")) {
    b.max_seconds = src.number("max_seconds");
    try {
      model::limits::check_real("max_seconds", b.max_seconds, 0, model::limits::kMaxSeconds);
    } catch (const InputError& e) {
      src.rethrow(e);
    }
  }
  if (b.max_evaluations == 0 && b.max_seconds == 0) {
    src.fail("max_evaluations", "max_evaluations and max_seconds are both 0 (no budget)");
  }
}

void read_count(const ParamSource& src, std::string_view key, int& field) {
  if (!src.has(key)) return;
  const auto v = src.positive_int(key);
  if (v > 1000000) src.fail(key, "must be <= 1000000");
  field = static_cast<int>(v);
}

StrategyEntry random_sampling_entry() {
  StrategyEntry e;
  e.name = "random";
  e.letter = 'R';
  e.label = "R (random)";
  e.description = "uniform random sampling of schemes (seed, budget, victory condition)";
  e.cost_weight = 3.11;
  e.parse = [](const ParamSource& src) {
    src.allow({"max_evaluations", "max_seconds", "victory_condition", "batch_size"});
    RandomSamplingOptions o;
    read_budget(src, o.budget);
    if (src.has("victory_condition")) {
      o.victory_condition = read_evaluations(src, "victory_condition");
    }
    read_count(src, "batch_size", o.batch_size);
    return validated_params(src, "random", o);
  };
  e.describe = [](const StrategyParams& p, std::uint64_t seed) -> DescribedParams {
    const auto& o = p.get<RandomSamplingOptions>();
    return {{"strategy.seed", std::to_string(seed)},
            {"strategy.max_evaluations", std::to_string(o.budget.max_evaluations)},
            {"strategy.max_seconds", number_text(o.budget.max_seconds)},
            {"strategy.victory_condition", std::to_string(o.victory_condition)},
            {"strategy.batch_size", std::to_string(o.batch_size)}};
  };
  e.make = [](const StrategyParams& p, std::uint64_t seed) -> std::unique_ptr<LayerStrategy> {
    RandomSamplingOptions o = p.get<RandomSamplingOptions>();
    o.budget.seed = seed;
    validate_as("random", [&] { validate(o); });
    return std::make_unique<RandomSampling>(o);
  };
  return e;
}

}  // namespace kapla::search
