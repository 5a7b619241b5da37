// The strategy registry: one entry per strategy carries everything the rest of kapla knows
// about it (name, letter, label, params, construction, the sweep's cost weight), so adding a
// strategy is one source file with its entry, one line in registry.cpp and one test. A registry
// is a value: builtin_strategies() builds kapla's own, and a test may add its own entries.
// Params are opaque here (StrategyParams): only the entry that parsed them looks inside, so
// nothing above search/ compiles against a strategy's option struct.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "model/options.hpp"

namespace kapla::search {

class LayerStrategy;  // search/strategy.hpp

/// Strict, typed read access to a strategy's params as the user wrote them (a job file's
/// "params", `kapla schedule --params/--param`). search/ sees no JSON: io implements this over a
/// JSON object (io/strategy_params_json.hpp). Every error is an InputError "PATH.KEY: reason".
class ParamSource {
 public:
  virtual ~ParamSource() = default;
  /// Refuses the first key outside `allowed` ("PATH.key: unknown key; allowed: ...").
  virtual void allow(const std::vector<std::string_view>& allowed) const = 0;
  virtual bool has(std::string_view key) const = 0;
  virtual bool boolean(std::string_view key) const = 0;
  virtual std::int64_t integer(std::string_view key) const = 0;
  /// An integer >= 1.
  virtual std::int64_t positive_int(std::string_view key) const = 0;
  virtual double number(std::string_view key) const = 0;
  virtual std::string string(std::string_view key) const = 0;
  /// Throws "PATH.key: reason".
  [[noreturn]] virtual void fail(std::string_view key, const std::string& reason) const = 0;
  /// Re-throws a validation error ("FIELD: reason") at this source's path.
  [[noreturn]] virtual void rethrow(const std::exception& error) const = 0;
};

/// A strategy's parsed params: an immutable value of the entry's own type, compared by that
/// type's ==. Empty for strategies without params.
class StrategyParams {
 public:
  StrategyParams() = default;
  template <class T>
  static StrategyParams of(T value) {
    StrategyParams p;
    p.value_ = std::make_shared<const T>(std::move(value));
    p.type_ = &typeid(T);
    p.equal_ = [](const void* a, const void* b) {
      return *static_cast<const T*>(a) == *static_cast<const T*>(b);
    };
    return p;
  }
  bool empty() const { return value_ == nullptr; }
  /// The value; InternalError if it is empty or of another type (a bug: params given to an
  /// entry that did not make them).
  template <class T>
  const T& get() const {
    if (type_ == nullptr || *type_ != typeid(T)) {
      throw InternalError("strategy params of another strategy");
    }
    return *static_cast<const T*>(value_.get());
  }
  friend bool operator==(const StrategyParams& a, const StrategyParams& b) {
    if (a.empty() || b.empty()) return a.empty() == b.empty();
    return *a.type_ == *b.type_ && a.equal_(a.value_.get(), b.value_.get());
  }

 private:
  std::shared_ptr<const void> value_;
  const std::type_info* type_ = nullptr;
  bool (*equal_)(const void*, const void*) = nullptr;
};

/// ("strategy.<knob>", text) pairs, as the results' /resolved table stores them.
using DescribedParams = std::vector<std::pair<std::string, std::string>>;

/// Everything about one strategy.
struct StrategyEntry {
  std::string name;         // "exhaustive"
  char letter = '?';        // 'B': the paper's tables and the plots
  std::string label;        // display label, e.g. "B (exhaustive)"
  std::string description;  // one line for `kapla list strategies`
  /// Tuple time relative to K's, fitted by scripts/fit_tuple_estimate.py to measured tuple
  /// times (docs/data/tuple_times.csv); the sweep's estimate (longest-first dispatch,
  /// --dry-run, the ETA) multiplies it in.
  double cost_weight = 1;
  /// The strategy's own default for the options a user leaves unset (options_for below): the
  /// row-stationary fold variants are part of the directive space, so K and S search them by
  /// default; B stays nn_dataflow's enumeration, and R and M sample B's space.
  bool rs_fold_variants = false;
  /// Strict parse (unknown keys and bad values refused, naming the key). An empty source gives
  /// the defaults.
  std::function<StrategyParams(const ParamSource&)> parse;
  /// The params as ("strategy.<knob>", text) pairs, "strategy.seed" first for seeded
  /// strategies; every other pair parses back to the same params. Part of old results' keys:
  /// keep the text byte-identical.
  std::function<DescribedParams(const StrategyParams&, std::uint64_t seed)> describe;
  /// The strategy for these params and run seed (seedless strategies ignore it). Validates;
  /// InputError naming the field.
  std::function<std::unique_ptr<LayerStrategy>(const StrategyParams&, std::uint64_t seed)> make;
};

class StrategyRegistry {
 public:
  /// InternalError if the name or the letter is taken (two entries must not answer to one).
  void add(StrategyEntry entry);
  /// In registration order.
  const std::vector<StrategyEntry>& entries() const { return entries_; }
  /// By name or letter (case-insensitive letter); InputError listing the known ones otherwise.
  const StrategyEntry& find(std::string_view name_or_letter) const;

 private:
  std::vector<StrategyEntry> entries_;
};

/// The options a strategy searches with: the user's, with every option left unset (see
/// model::SearchOptions) taken from the strategy's entry. An explicit setting always wins. The
/// one place where per-strategy defaults are applied: `kapla schedule`, the sweep's runner and
/// the job fingerprint call it.
model::SearchOptions options_for(const StrategyEntry& entry, model::SearchOptions options);

/// kapla's strategies, in table order (B, S, R, M, K); registry.cpp, one line each.
StrategyRegistry builtin_strategies();

/// A ParamSource with no keys: parse(NoParams{}) gives an entry's defaults.
class NoParams final : public ParamSource {
 public:
  void allow(const std::vector<std::string_view>&) const override {}
  bool has(std::string_view) const override { return false; }
  bool boolean(std::string_view key) const override { missing(key); }
  std::int64_t integer(std::string_view key) const override { missing(key); }
  std::int64_t positive_int(std::string_view key) const override { missing(key); }
  double number(std::string_view key) const override { missing(key); }
  std::string string(std::string_view key) const override { missing(key); }
  [[noreturn]] void fail(std::string_view key, const std::string& reason) const override {
    throw InputError(std::string(key) + ": " + reason);
  }
  [[noreturn]] void rethrow(const std::exception& error) const override {
    throw InputError(error.what());
  }

 private:
  [[noreturn]] void missing(std::string_view key) const { fail(key, "missing required key"); }
};

/// The text of a described number (17 significant digits: parses back to the same double) and
/// of a flag ("true", "false"). Not core/number_text.hpp's shortest form: results files store
/// these texts and resume compares them, so they stay byte-identical to what older runs wrote.
std::string number_text(double v);
std::string flag_text(bool b);

/// Runs `check`; an InputError it throws comes back as "FIELD: what" (a validation error named
/// after the strategy's part, as the results and job errors have always named it).
template <class Check>
void validate_as(std::string_view field, Check&& check) {
  try {
    check();
  } catch (const InputError& e) {
    throw InputError(std::string(field) + ": " + e.what());
  }
}

/// The end of an entry's parse: `o` validated (validate(o), found beside the options type),
/// its error re-thrown at the source's path as "PATH.FIELD: ...", then wrapped as params.
template <class Options>
StrategyParams validated_params(const ParamSource& src, std::string_view field, Options o) {
  try {
    validate_as(field, [&] { validate(o); });
  } catch (const InputError& e) {
    src.rethrow(e);
  }
  return StrategyParams::of(std::move(o));
}

/// The parse and describe of a strategy without params (every key refused; nothing described).
StrategyParams parse_no_params(const ParamSource& src);
DescribedParams describe_no_params(const StrategyParams&, std::uint64_t);

/// A builtin strategy by name or letter with its default params and seed 1 (tests, tools).
std::unique_ptr<LayerStrategy> make_layer_strategy(std::string_view name_or_letter);

}  // namespace kapla::search
