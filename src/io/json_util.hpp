// Strict, typed access to JSON for the io readers. Every error is an InputError of the form
// "KEY.PATH: reason" (the file name is prefixed by the reader that knows it), objects reject keys
// they do not expect, and parsing rejects duplicate keys, which nlohmann would silently merge.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/phy_dim2.hpp"

namespace kapla::io {

/// Input files are read whole; a larger one is refused before it is read.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{64} << 20;
/// Deeper nesting than any kapla file needs (a job is 4 deep); refused while parsing, so a file
/// of 200k nested objects cannot grow the parser's stack or memory.
inline constexpr std::size_t kMaxJsonDepth = 64;

/// Parses JSON text. Malformed text gives "line L, column C: malformed JSON: ..."; a repeated
/// key gives "KEY.PATH: duplicate key"; nesting beyond kMaxJsonDepth and numbers outside the
/// double range (1E400) are malformed too.
nlohmann::json parse_json_text(std::string_view text);

/// The whole content of a regular file of at most `max_bytes`. Directories, FIFOs and devices are
/// refused before they are opened (a FIFO would block). Errors: "FILE: reason".
std::string read_text_file(const std::filesystem::path& file,
                           std::uintmax_t max_bytes = kMaxInputFileBytes);

/// Reads and parses a file; errors (unreadable file included) are prefixed with "FILE: ".
nlohmann::json read_json_file(const std::filesystem::path& file);

/// Throws InputError("PATH: reason"), or just "reason" for the top level (empty path).
[[noreturn]] void fail(const std::string& path, const std::string& reason);

/// "a" + "b" -> "a.b"; "" + "b" -> "b".
std::string child_path(const std::string& path, std::string_view key);
/// "layers" + 3 -> "layers[3]".
std::string index_path(const std::string& path, std::size_t index);

/// Re-throws an error raised while reading the value at `path`. Model factories report
/// "FIELD: reason"; that becomes "PATH.FIELD: reason", anything else "PATH: reason".
[[noreturn]] void rethrow_at(const std::string& path, const std::exception& error);

/// A short rendering of a value for messages (long values are cut).
std::string brief(const nlohmann::json& value);

/// A JSON object at a key path, viewed (not copied). The constructor rejects non-objects and
/// keys outside `allowed`.
class JsonObject {
 public:
  JsonObject(const nlohmann::json& value, std::string path,
             const std::vector<std::string_view>& allowed);
  /// For objects whose allowed keys depend on a field (a layer's type): call check_keys once
  /// that field has been read.
  JsonObject(const nlohmann::json& value, std::string path);
  // It keeps a reference: a temporary would dangle.
  JsonObject(nlohmann::json&&, std::string, const std::vector<std::string_view>&) = delete;
  JsonObject(nlohmann::json&&, std::string) = delete;
  /// "PATH.key: unknown key; allowed: ..." for the first key outside `allowed`.
  void check_keys(const std::vector<std::string_view>& allowed) const;

  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const { return child_path(path_, key); }
  bool has(std::string_view key) const;
  /// The value of a required key; "PATH.key: missing required key" otherwise.
  const nlohmann::json& at(std::string_view key) const;

  // Typed required fields.
  std::string string(std::string_view key) const;
  std::int64_t positive_int(std::string_view key) const;
  PhyDim2 positive_dim(std::string_view key) const;
  double number(std::string_view key) const;
  bool boolean(std::string_view key) const;

 private:
  const nlohmann::json& value_;
  std::string path_;
};

// Typed conversions of one value at `path`.
std::string as_string(const nlohmann::json& value, const std::string& path);
std::int64_t as_int(const nlohmann::json& value, const std::string& path);
/// An integer >= 1.
std::int64_t as_positive_int(const nlohmann::json& value, const std::string& path);
/// A size: one integer for a square, or [h, w]; both entries >= 1.
PhyDim2 as_positive_dim(const nlohmann::json& value, const std::string& path);
/// Exactly [h, w] with both entries >= 1 (the reference hardware format has no shorthand).
PhyDim2 as_positive_pair(const nlohmann::json& value, const std::string& path);
double as_number(const nlohmann::json& value, const std::string& path);
bool as_bool(const nlohmann::json& value, const std::string& path);
const nlohmann::json::array_t& as_array(const nlohmann::json& value, const std::string& path);

}  // namespace kapla::io
