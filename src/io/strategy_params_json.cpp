// Strategy params from JSON (see strategy_params_json.hpp).
#include "io/strategy_params_json.hpp"

#include "core/errors.hpp"
#include "io/json_util.hpp"

namespace kapla::io {

using nlohmann::json;

JsonParamSource::JsonParamSource(const json& value, std::string path)
    : value_(value), path_(std::move(path)) {
  (void)JsonObject(value_, path_);  // refuses a non-object
}

void JsonParamSource::allow(const std::vector<std::string_view>& allowed) const {
  JsonObject(value_, path_).check_keys(allowed);
}

bool JsonParamSource::has(std::string_view key) const { return JsonObject(value_, path_).has(key); }

bool JsonParamSource::boolean(std::string_view key) const {
  return JsonObject(value_, path_).boolean(key);
}

std::int64_t JsonParamSource::integer(std::string_view key) const {
  const JsonObject obj(value_, path_);
  return as_int(obj.at(key), obj.path_of(key));
}

std::int64_t JsonParamSource::positive_int(std::string_view key) const {
  return JsonObject(value_, path_).positive_int(key);
}

double JsonParamSource::number(std::string_view key) const {
  return JsonObject(value_, path_).number(key);
}

std::string JsonParamSource::string(std::string_view key) const {
  return JsonObject(value_, path_).string(key);
}

void JsonParamSource::fail(std::string_view key, const std::string& reason) const {
  io::fail(child_path(path_, key), reason);
}

void JsonParamSource::rethrow(const std::exception& error) const { rethrow_at(path_, error); }

search::StrategyParams parse_strategy_params(const search::StrategyEntry& entry, const json& params,
                                             const std::string& path) {
  return entry.parse(JsonParamSource(params, path));
}

json params_from_texts(const std::vector<std::string>& texts, const std::string& path) {
  json out = json::object();
  for (const auto& text : texts) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) fail(path, "must be KEY=VALUE, got '" + text + "'");
    const std::string key = text.substr(0, eq);
    const std::string value = text.substr(eq + 1);
    // The one bounded JSON parser (1E400 refused); what does not parse stays a string, so a
    // bad number is refused by the entry as "must be a number".
    json v;
    try {
      v = parse_json_text(value);
    } catch (const InputError&) {
      v = value;
    }
    if (v.is_structured() || v.is_null()) v = value;
    out[key] = std::move(v);
  }
  return out;
}

std::string strategy_label(char letter, const json& params) {
  std::string texts;
  for (const auto& [key, value] : params.items()) {  // json objects iterate in key order
    if (!texts.empty()) texts += ',';
    texts += key + '=' + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return texts.empty() ? std::string(1, letter) : std::string(1, letter) + '[' + texts + ']';
}

}  // namespace kapla::io
