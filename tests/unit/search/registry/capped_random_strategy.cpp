// The tests' capped random strategy (see capped_random_strategy.hpp).
#include "capped_random_strategy.hpp"

#include <string>

#include "search/random_sampling.hpp"

namespace kapla::testing {
namespace {

struct CappedParams {
  std::int64_t samples = 8;
  friend bool operator==(const CappedParams&, const CappedParams&) = default;
};

class CappedRandom final : public search::LayerStrategy {
 public:
  CappedRandom(std::int64_t samples, std::uint64_t seed)
      : inner_(search::RandomSamplingOptions{{seed, samples, 0}}) {}
  std::string_view name() const override { return "capped-random"; }
  char label() const override { return 'T'; }
  std::vector<pricing::LayerSchedule> search(const pricing::LayerProblem& problem,
                                             const search::SearchContext& ctx) const override {
    return inner_.search(problem, ctx);
  }

 private:
  search::RandomSampling inner_;
};

}  // namespace

search::StrategyEntry capped_random_entry() {
  search::StrategyEntry e;
  e.name = "capped-random";
  e.letter = 'T';
  e.label = "T (capped random)";
  e.description = "tests only: random sampling capped at a few samples per layer";
  e.parse = [](const search::ParamSource& src) {
    src.allow({"samples"});
    CappedParams p;
    if (src.has("samples")) p.samples = src.positive_int("samples");
    return search::StrategyParams::of(p);
  };
  e.describe = [](const search::StrategyParams& p, std::uint64_t seed) -> search::DescribedParams {
    return {{"strategy.seed", std::to_string(seed)},
            {"strategy.samples", std::to_string(p.get<CappedParams>().samples)}};
  };
  e.make = [](const search::StrategyParams& p,
              std::uint64_t seed) -> std::unique_ptr<search::LayerStrategy> {
    return std::make_unique<CappedRandom>(p.get<CappedParams>().samples, seed);
  };
  return e;
}

}  // namespace kapla::testing
