// Strategy S (see directive_exhaustive.hpp and docs/kapla.md).
#include "search/directive_exhaustive.hpp"

#include <atomic>
#include <chrono>

#include "search/kapla/cost_oracle.hpp"
#include "search/kapla/exhaustive.hpp"
#include "search/kapla/forwarding_oracle.hpp"

namespace kapla::search {

namespace {

// The cost oracle seen through S's bookkeeping: counts the valid evaluations and, once the
// caller asks to stop, offers no nested loops, so the shared enumerator (kapla/exhaustive.cpp,
// also K's fallback) skips every partition it has not started. Thread-safe: the enumerator
// calls it from several threads; the count is a sum, so it does not depend on their order.
class CountingOracle final : public kapla::ForwardingOracle {
 public:
  CountingOracle(const kapla::CostOracle& inner, const SearchContext& ctx)
      : ForwardingOracle(inner), ctx_(ctx) {}
  kapla::NestList nests(const mapping::PartitionScheme& part) const override {
    if (ctx_.stop_requested())  // polled once per partition
      return std::make_shared<const std::vector<kapla::NodeNest>>();
    return inner().nests(part);
  }
  std::optional<kapla::Score> evaluate(const kapla::CanonicalScheme& s) const override {
    auto score = inner().evaluate(s);
    if (score) valid_.fetch_add(1, std::memory_order_relaxed);
    return score;
  }
  std::int64_t valid() const { return valid_.load(); }

 private:
  const SearchContext& ctx_;
  mutable std::atomic<std::int64_t> valid_{0};
};

}  // namespace

std::vector<pricing::LayerSchedule> DirectiveExhaustive::search(
    const pricing::LayerProblem& problem, const SearchContext& ctx) const {
  const kapla::CostOracle oracle(problem);
  const CountingOracle counting(oracle, ctx);
  const auto start = std::chrono::steady_clock::now();
  const auto r = kapla::search_exhaustive(counting, {problem.options.opt_goal, ctx.num_threads});
  if (ctx.stats != nullptr) {
    ctx.stats->reported = true;
    ctx.stats->evaluated = r.evaluated;
    ctx.stats->valid = counting.valid();
    ctx.stats->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (!r.scheme || ctx.stop_requested()) return {};  // stopped: partial, the caller discards it
  auto sched = oracle.schedule(*r.scheme);
  if (!sched) return {};
  return {*sched};
}

StrategyEntry directive_exhaustive_entry() {
  StrategyEntry e;
  e.name = "directive-exhaustive";
  e.letter = 'S';
  e.label = "S (directive-exhaustive)";
  e.description = "exhaustive search over KAPLA directives";
  e.cost_weight = 9.31;
  e.rs_fold_variants = true;  // the directive space includes them (docs/kapla.md §3)
  e.parse = parse_no_params;
  e.describe = describe_no_params;
  e.make = [](const StrategyParams&, std::uint64_t) -> std::unique_ptr<LayerStrategy> {
    return std::make_unique<DirectiveExhaustive>();
  };
  return e;
}

}  // namespace kapla::search
