// A strategy's params read from JSON (job files, `kapla schedule --params/--param`): the
// search::ParamSource that registry entries parse from, with io's strict messages.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/strategy_registry.hpp"

namespace kapla::io {

class JsonParamSource final : public search::ParamSource {
 public:
  /// `value` must outlive this view; InputError "PATH: must be an object" otherwise.
  JsonParamSource(const nlohmann::json& value, std::string path);
  JsonParamSource(nlohmann::json&&, std::string) = delete;
  void allow(const std::vector<std::string_view>& allowed) const override;
  bool has(std::string_view key) const override;
  bool boolean(std::string_view key) const override;
  std::int64_t integer(std::string_view key) const override;
  std::int64_t positive_int(std::string_view key) const override;
  double number(std::string_view key) const override;
  std::string string(std::string_view key) const override;
  [[noreturn]] void fail(std::string_view key, const std::string& reason) const override;
  [[noreturn]] void rethrow(const std::exception& error) const override;

 private:
  const nlohmann::json& value_;
  std::string path_;
};

/// Parses a strategy's params with its registry entry; errors name PATH.KEY.
search::StrategyParams parse_strategy_params(const search::StrategyEntry& entry,
                                             const nlohmann::json& params, const std::string& path);

/// KEY=VALUE texts (`--param`, or described pairs) as a JSON object: VALUE is read as JSON when
/// it is a JSON scalar (true, 3, 0.5, "x") and as a string otherwise (paper). A repeated key
/// takes the last value; a text without '=' is an InputError at `path`.
nlohmann::json params_from_texts(const std::vector<std::string>& texts, const std::string& path);

/// The label that tables and plots print for a strategy of a job: its registry letter when it
/// has no params, else the letter and its params as KEY=VALUE (as `--param` takes them) in key
/// order, "R[max_evaluations=100]". Stored in the results (strategy_label); not part of the
/// tuple key, which identifies results written before labels existed.
std::string strategy_label(char letter, const nlohmann::json& params);

}  // namespace kapla::io
