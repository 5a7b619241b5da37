// Strict JSON parsing and typed field access with key paths in every error.
#include "io/json_util.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "core/errors.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;

// One open object or array while parsing, to name the path of a duplicate key.
struct OpenContainer {
  bool is_array = false;
  std::string path;
  std::size_t count = 0;  // arrays: elements seen so far
  std::string key;        // objects: the key being read
  std::set<std::string> keys;
};

std::string path_of_next_child(const std::vector<OpenContainer>& open) {
  if (open.empty()) return "";
  const OpenContainer& top = open.back();
  return top.is_array ? index_path(top.path, top.count - 1) : child_path(top.path, top.key);
}

// Turns nlohmann's "[json.exception.parse_error.101] parse error at line 3, column 5: reason"
// into "line 3, column 5: malformed JSON: reason".
std::string describe_parse_error(const json::parse_error& e) {
  const std::string what = e.what();
  const std::string marker = "parse error at ";
  const auto at = what.find(marker);
  if (at == std::string::npos) return "malformed JSON: " + what;
  const std::string rest = what.substr(at + marker.size());
  const auto colon = rest.find(": ");
  if (colon == std::string::npos) return "malformed JSON: " + rest;
  return rest.substr(0, colon) + ": malformed JSON: " + rest.substr(colon + 2);
}

// "[json.exception.out_of_range.406] reason" -> "reason".
std::string without_tag(const std::string& what) {
  const auto end = what.find("] ");
  return what.front() == '[' && end != std::string::npos ? what.substr(end + 2) : what;
}

std::string kind_of(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  return "an object";
}

bool is_field_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '[' ||
           c == ']';
  });
}

std::string dim_text(std::int64_t h, std::int64_t w) {
  std::ostringstream os;  // not "[" + to_string(h): GCC 12 warns falsely (-Wrestrict) on that
  os << '[' << h << ", " << w << ']';
  return os.str();
}

std::string join(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

}  // namespace

json parse_json_text(std::string_view text) {
  std::vector<OpenContainer> open;
  // The callback keeps every value; it only watches the structure for duplicate keys.
  json::parser_callback_t watch = [&open](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start: {
        if (open.size() >= kMaxJsonDepth) {
          throw InputError(path_of_next_child(open) + ": malformed JSON: nested deeper than " +
                           std::to_string(kMaxJsonDepth) + " levels");
        }
        OpenContainer c;
        if (!open.empty() && open.back().is_array) ++open.back().count;
        c.path = path_of_next_child(open);
        c.is_array = event == json::parse_event_t::array_start;
        open.push_back(std::move(c));
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!open.empty()) open.pop_back();
        break;
      case json::parse_event_t::key: {
        OpenContainer& top = open.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) fail(child_path(top.path, top.key), "duplicate key");
        break;
      }
      case json::parse_event_t::value:
        if (!open.empty() && open.back().is_array) ++open.back().count;
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), watch);
  } catch (const json::parse_error& e) {
    throw InputError(describe_parse_error(e));
  } catch (const json::exception& e) {
    // E.g. out_of_range "number overflow parsing '1E400'": not a number kapla can hold.
    throw InputError("malformed JSON: " + without_tag(e.what()));
  }
}

std::string read_text_file(const std::filesystem::path& file, std::uintmax_t max_bytes) {
  const std::string name = file.string();
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) throw InputError(name + ": cannot open file");
  if (std::filesystem::is_directory(status)) {
    throw InputError(name + ": is a directory, not a file");
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw InputError(name + ": not a regular file (a FIFO, socket or device); give a file");
  }
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw InputError(name + ": cannot read file");
  if (size > max_bytes) {
    throw InputError(name + ": file too large (" + std::to_string(size) + " bytes; at most " +
                     std::to_string(max_bytes) + ")");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(name + ": cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(name + ": cannot read file");
  return text.str();
}

json read_json_file(const std::filesystem::path& file) {
  const std::string text = read_text_file(file);
  try {
    return parse_json_text(text);
  } catch (const InputError& e) {
    throw InputError(file.string() + ": " + e.what());
  }
}

void fail(const std::string& path, const std::string& reason) {
  throw InputError(path.empty() ? reason : path + ": " + reason);
}

std::string child_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string index_path(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

void rethrow_at(const std::string& path, const std::exception& error) {
  const std::string what = error.what();
  if (path.empty()) throw InputError(what);
  const auto colon = what.find(": ");
  if (colon != std::string::npos && is_field_name(std::string_view(what).substr(0, colon))) {
    throw InputError(path + "." + what);
  }
  throw InputError(path + ": " + what);
}

std::string brief(const json& value) {
  constexpr std::size_t kMaxChars = 60;
  std::string text = value.dump();
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars - 3) + "...";
  return text;
}

JsonObject::JsonObject(const json& value, std::string path,
                       const std::vector<std::string_view>& allowed)
    : JsonObject(value, std::move(path)) {
  check_keys(allowed);
}

JsonObject::JsonObject(const json& value, std::string path)
    : value_(value), path_(std::move(path)) {
  if (!value_.is_object()) fail(path_, "must be an object, got " + kind_of(value_));
}

void JsonObject::check_keys(const std::vector<std::string_view>& allowed) const {
  for (auto it = value_.begin(); it != value_.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      fail(path_of(it.key()), "unknown key; allowed: " + join(allowed));
    }
  }
}

bool JsonObject::has(std::string_view key) const { return value_.contains(key); }

const json& JsonObject::at(std::string_view key) const {
  const auto it = value_.find(key);
  if (it == value_.end()) fail(path_of(key), "missing required key");
  return *it;
}

std::string JsonObject::string(std::string_view key) const {
  return as_string(at(key), path_of(key));
}

std::int64_t JsonObject::positive_int(std::string_view key) const {
  return as_positive_int(at(key), path_of(key));
}

PhyDim2 JsonObject::positive_dim(std::string_view key) const {
  return as_positive_dim(at(key), path_of(key));
}

double JsonObject::number(std::string_view key) const { return as_number(at(key), path_of(key)); }

bool JsonObject::boolean(std::string_view key) const { return as_bool(at(key), path_of(key)); }

std::string as_string(const json& value, const std::string& path) {
  if (!value.is_string()) fail(path, "must be a string, got " + brief(value));
  return value.get<std::string>();
}

std::int64_t as_int(const json& value, const std::string& path) {
  if (!value.is_number_integer()) fail(path, "must be an integer, got " + brief(value));
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail(path, "is too large, got " + brief(value));
  }
  return value.get<std::int64_t>();
}

std::int64_t as_positive_int(const json& value, const std::string& path) {
  const std::int64_t v = as_int(value, path);
  if (v <= 0) fail(path, "must be positive, got " + std::to_string(v));
  return v;
}

PhyDim2 as_positive_dim(const json& value, const std::string& path) {
  if (value.is_number_integer()) {
    const std::int64_t v = as_int(value, path);
    if (v <= 0) fail(path, "must be positive, got " + std::to_string(v));
    return {v, v};
  }
  if (!value.is_array() || value.size() != 2 || !value[0].is_number_integer() ||
      !value[1].is_number_integer()) {
    fail(path, "must be a positive integer or [h, w], got " + brief(value));
  }
  return as_positive_pair(value, path);
}

PhyDim2 as_positive_pair(const json& value, const std::string& path) {
  if (!value.is_array() || value.size() != 2 || !value[0].is_number_integer() ||
      !value[1].is_number_integer()) {
    fail(path, "must be [h, w] (two integers), got " + brief(value));
  }
  const std::int64_t h = as_int(value[0], index_path(path, 0));
  const std::int64_t w = as_int(value[1], index_path(path, 1));
  if (h <= 0 || w <= 0) fail(path, "must be positive, got " + dim_text(h, w));
  return {h, w};
}

double as_number(const json& value, const std::string& path) {
  if (!value.is_number()) fail(path, "must be a number, got " + brief(value));
  return value.get<double>();
}

bool as_bool(const json& value, const std::string& path) {
  if (!value.is_boolean()) fail(path, "must be true or false, got " + brief(value));
  return value.get<bool>();
}

const json::array_t& as_array(const json& value, const std::string& path) {
  if (!value.is_array()) fail(path, "must be an array, got " + brief(value));
  return value.get_ref<const json::array_t&>();
}

}  // namespace kapla::io
