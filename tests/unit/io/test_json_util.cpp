// Strict JSON access: malformed text, duplicate keys, unknown keys, and typed values, each with
// the key path in the message.
#include "io/json_util.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "core/errors.hpp"
#include "core/terminal_text.hpp"
#include "temp_files.hpp"

namespace kapla::io {
namespace {

using nlohmann::json;
using testing::input_error_of;
using testing::TempDir;

TEST(JsonUtil, MalformedTextGivesLineAndColumn) {
  const std::string msg = input_error_of([] { parse_json_text("{\n  \"a\": 1,\n  ]\n}"); });
  EXPECT_EQ(msg.rfind("line 3, column 3: malformed JSON: syntax error", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_NE(input_error_of([] { parse_json_text(""); }).find("malformed JSON"), std::string::npos);
}

TEST(JsonUtil, DuplicateKeysAreRejectedWithTheirPath) {
  EXPECT_EQ(input_error_of([] { parse_json_text(R"({"a": 1, "a": 2})"); }), "a: duplicate key");
  EXPECT_EQ(input_error_of([] {
              parse_json_text(R"({"layers": [{"x": 1}, 5, [1, 2], {"name": "a", "name": "b"}]})");
            }),
            "layers[3].name: duplicate key");
  EXPECT_EQ(input_error_of([] { parse_json_text(R"({"o": {"p": {"q": 1, "q": 1}}})"); }),
            "o.p.q: duplicate key");
  // The same key in different objects is fine.
  EXPECT_NO_THROW(parse_json_text(R"([{"a": 1}, {"a": 2}])"));
}

TEST(JsonUtil, FilesPrefixTheirName) {
  TempDir dir;
  const auto bad = dir.write("bad.json", "{\"a\": }");
  EXPECT_EQ(input_error_of([&] { read_json_file(bad); }).rfind(bad.string() + ": line 1", 0), 0u);
  const auto missing = dir.path() / "missing.json";
  EXPECT_EQ(input_error_of([&] { read_json_file(missing); }),
            missing.string() + ": cannot open file");
}

TEST(JsonUtil, ObjectRejectsUnknownAndMissingKeys) {
  const json doc = json::parse(R"({"nofm": 3, "sofn": 8})");
  EXPECT_EQ(input_error_of([&] {
              JsonObject(doc, "input", {"nofm", "sofm"});
            }),
            "input.sofn: unknown key; allowed: nofm, sofm");
  const json partial = json::parse(R"({"nofm": 3})");
  const JsonObject o(partial, "input", {"nofm", "sofm"});
  EXPECT_EQ(o.positive_int("nofm"), 3);
  EXPECT_FALSE(o.has("sofm"));
  EXPECT_EQ(input_error_of([&] { o.positive_dim("sofm"); }), "input.sofm: missing required key");
  const json array = json::parse("[1]");
  EXPECT_EQ(input_error_of([&] { JsonObject(array, "input", {}); }),
            "input: must be an object, got an array");
  const json number = json::parse("3");
  EXPECT_EQ(input_error_of([&] { JsonObject(number, "", {}); }),
            "must be an object, got an integer");
}

TEST(JsonUtil, TypedValues) {
  EXPECT_EQ(as_positive_dim(json(7), "s"), (PhyDim2{7, 7}));
  EXPECT_EQ(as_positive_dim(json::parse("[3, 5]"), "s"), (PhyDim2{3, 5}));
  EXPECT_EQ(input_error_of([] { as_positive_dim(json::parse("[0, 7]"), "layers[3].sofm"); }),
            "layers[3].sofm: must be positive, got [0, 7]");
  EXPECT_EQ(input_error_of([] { as_positive_dim(json(-2), "s"); }), "s: must be positive, got -2");
  EXPECT_EQ(input_error_of([] { as_positive_dim(json::parse("[1.5, 2]"), "s"); }),
            "s: must be a positive integer or [h, w], got [1.5,2]");
  EXPECT_EQ(input_error_of([] { as_positive_pair(json(4), "GBUF.array"); }),
            "GBUF.array: must be [h, w] (two integers), got 4");
  EXPECT_EQ(input_error_of([] { as_int(json(2.0), "n"); }), "n: must be an integer, got 2.0");
  EXPECT_EQ(input_error_of([] { as_int(json::parse("18446744073709551615"), "n"); }),
            "n: is too large, got 18446744073709551615");
  EXPECT_EQ(as_number(json(3), "x"), 3.0);
  EXPECT_EQ(input_error_of([] { as_number(json("3"), "x"); }), "x: must be a number, got \"3\"");
  EXPECT_EQ(input_error_of([] { as_bool(json(0), "b"); }), "b: must be true or false, got 0");
  EXPECT_EQ(input_error_of([] { as_string(json(nullptr), "s"); }), "s: must be a string, got null");
  EXPECT_EQ(input_error_of([] { as_array(json::object(), "l"); }), "l: must be an array, got {}");
}

TEST(JsonUtil, Paths) {
  EXPECT_EQ(child_path("", "a"), "a");
  EXPECT_EQ(child_path("a", "b"), "a.b");
  EXPECT_EQ(index_path("layers", 3), "layers[3]");
  EXPECT_EQ(brief(json(std::string(100, 'x'))).size(), 60u);
}

TEST(JsonUtil, RethrowAtPrefixesFieldNames) {
  EXPECT_EQ(input_error_of([] { rethrow_at("layers[2]", InputError("nofm: must be positive")); }),
            "layers[2].nofm: must be positive");
  EXPECT_EQ(input_error_of([] { rethrow_at("layers[2]", InputError("something odd")); }),
            "layers[2]: something odd");
  EXPECT_EQ(input_error_of([] { rethrow_at("", InputError("x: y")); }), "x: y");
}

// Issue 17: a file of 200k nested objects grew the parser to 12 GB; it is refused at depth 64.
TEST(JsonUtil, DeepNestingIsRefusedEarly) {
  std::string deep;
  for (int i = 0; i < 200000; ++i) deep += "{\"a\":";
  const std::string msg = input_error_of([&] { parse_json_text(deep); });
  EXPECT_NE(msg.find("malformed JSON: nested deeper than 64 levels"), std::string::npos) << msg;
  std::string ok;
  for (int i = 0; i < 63; ++i) ok += "[";
  for (int i = 0; i < 63; ++i) ok += "]";
  EXPECT_NO_THROW(parse_json_text(ok));
}

// A number outside the double range was nlohmann's out_of_range: exit 3 "internal error".
TEST(JsonUtil, NumberOverflowIsMalformedInput) {
  const std::string msg = input_error_of([] { parse_json_text(R"({"nofm": 1E400})"); });
  EXPECT_EQ(msg, "malformed JSON: number overflow parsing '1E400'");
}

TEST(JsonUtil, DirectoriesFifosAndHugeFilesAreRefusedBeforeReading) {
  TempDir dir;
  EXPECT_EQ(input_error_of([&] { read_json_file(dir.path()); }),
            dir.path().string() + ": is a directory, not a file");
  const auto fifo = dir.path() / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO for reading blocks until a writer comes: it must not be opened at all.
  EXPECT_EQ(input_error_of([&] { read_json_file(fifo); }),
            fifo.string() + ": not a regular file (a FIFO, socket or device); give a file");
  const auto big = dir.write("big.json", "[]");
  std::filesystem::resize_file(big, kMaxInputFileBytes + 1);  // sparse: nothing is written
  EXPECT_NE(input_error_of([&] { read_json_file(big); }).find(": file too large ("),
            std::string::npos);
  EXPECT_EQ(input_error_of([&] { read_json_file(dir.path() / "none.json"); }),
            (dir.path() / "none.json").string() + ": cannot open file");
}

TEST(JsonUtil, ErrorLinesAreTerminalSafe) {
  EXPECT_EQ(terminal_safe("a\x1b[31mb\nc\td\x7f"), "a\\x1b[31mb c d\\x7f");
  EXPECT_EQ(terminal_safe("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 passes
}

}  // namespace
}  // namespace kapla::io
