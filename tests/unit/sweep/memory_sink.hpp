// An in-memory ResultSink for sweep tests: records by key, counts writes and finishes, and
// fails the test when a tuple is written twice.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sweep/result_sink.hpp"

namespace kapla::sweep::testing {

class MemorySink final : public ResultSink {
 public:
  std::set<std::string> existing_keys() override {
    std::set<std::string> k;
    for (const auto& [key, r] : records) k.insert(key);
    return k;
  }
  void write(const TupleRecord& r) override {
    ++writes;
    ASSERT_TRUE(records.emplace(r.tuple.key(), r).second) << "written twice: " << r.tuple.key();
  }
  void finish() override { ++finishes; }
  std::vector<TupleRecord> recorded() override {
    std::vector<TupleRecord> out;
    for (const auto& [key, r] : records) out.push_back(r);
    return out;
  }
  std::map<std::string, TupleRecord> records;
  int writes = 0;
  int finishes = 0;
};

}  // namespace kapla::sweep::testing
