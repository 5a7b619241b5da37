// HDF5 results: write -> read round trip, crash-safe sink, refusal of corrupt/foreign files.
#include <gtest/gtest.h>
#include <gmock/gmock.h>
#include <hdf5.h>

#include <filesystem>
#include <functional>
#include <limits>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"
#include "fake_runner.hpp"
#include "io/hdf5_reader.hpp"
#include "io/hdf5_sink.hpp"

namespace kapla::io {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class Hdf5Results : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kapla_h5_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::vector<sweep::TupleRecord> records(std::vector<std::string> networks) {
    sweep::SweepSpec spec;
    spec.networks = std::move(networks);
    spec.hardware = {{"edge", {1}}};
    spec.strategies = {{"random", "", {}}, {"kapla", "{\"x\":1}", {}}};
    sweep::testing::FakeRunner fake;
    std::vector<sweep::TupleRecord> out;
    for (const auto& t : sweep::expand_tuples(spec)) {
      sweep::TupleRecord r;
      r.tuple = t;
      r.search_seed = sweep::tuple_seed(t);
      sweep::RunContext ctx;
      ctx.seed = r.search_seed;
      r.result = fake.run(t, ctx);
      r.result.stats.wall_seconds = 0.25;
      r.provenance = sweep::process_provenance(3, "kapla sweep x", "Open MPI v4.1.4");
      r.provenance.start_time = sweep::utc_now();
      r.provenance.end_time = sweep::utc_now();
      out.push_back(r);
    }
    return out;
  }
  static ResultsFileInfo info(std::string fingerprint = "00000000000000aa") {
    ResultsFileInfo i;
    i.job_name = "unit";
    i.job_fingerprint = std::move(fingerprint);
    i.job_file = "{\"name\": \"unit\"}";
    i.kapla_version = "test";
    return i;
  }
  static std::string bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
  }
  static std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  }
  fs::path dir_;
};

TEST_F(Hdf5Results, round_trip_keeps_every_field) {
  ResultsFile rf;
  rf.info = info();
  rf.records = records({"n1", "nosol", "n2"});
  const fs::path file = dir_ / "r.h5";
  write_results_file(file, rf);
  const ResultsFile back = read_results_file(file);
  EXPECT_EQ(back.info.job_name, "unit");
  EXPECT_EQ(back.info.job_fingerprint, rf.info.job_fingerprint);
  EXPECT_EQ(back.info.job_file, rf.info.job_file);
  ASSERT_EQ(back.records.size(), rf.records.size());
  EXPECT_EQ(sweep::first_difference(rf.records, back.records), std::nullopt);
  const auto& a = rf.records.front();
  const auto& b = back.records.front();
  EXPECT_EQ(b.provenance.host, a.provenance.host);
  EXPECT_EQ(b.provenance.rank, 3);
  EXPECT_EQ(b.provenance.mpi_version, "Open MPI v4.1.4");
  EXPECT_EQ(b.provenance.start_time, a.provenance.start_time);
  EXPECT_EQ(b.result.stats.wall_seconds, 0.25);
  EXPECT_FALSE(b.result.layers.empty());
  EXPECT_EQ(b.result.layers.front().partition, a.result.layers.front().partition);
  EXPECT_EQ(b.result.stats.curve.size(), 4u);
}

TEST_F(Hdf5Results, empty_file_round_trips) {
  ResultsFile rf;
  rf.info = info();
  write_results_file(dir_ / "e.h5", rf);
  EXPECT_TRUE(read_results_file(dir_ / "e.h5").records.empty());
}

// Issue 17: a damaged file with a forged checksum showed an EDP of 1.93e29 in `kapla results`.
// Values the writer never writes are refused on read, naming the tuple and the field.
TEST_F(Hdf5Results, refuses_values_the_writer_never_writes) {
  auto write_then_read = [&](const std::function<void(sweep::TupleRecord&)>& damage) {
    ResultsFile rf;
    rf.info = info();
    rf.records = records({"n1"});
    damage(rf.records.front());
    write_results_file(dir_ / "d.h5", rf);  // a valid checksum over the damaged values
    return error_of([&] { (void)read_results_file(dir_ / "d.h5"); });
  };
  EXPECT_EQ(write_then_read([](sweep::TupleRecord&) {}), "(no error)");
  EXPECT_THAT(write_then_read([](sweep::TupleRecord& r) { r.result.edp = 1.93e29; }),
              HasSubstr("d.h5: tuple 'n1:edge:random:b1:s1': edp: is not energy x time"));
  EXPECT_THAT(write_then_read([](sweep::TupleRecord& r) { r.result.time = -1; }),
              HasSubstr(": time: not a finite non-negative number (damaged results file?)"));
  EXPECT_THAT(write_then_read([](sweep::TupleRecord& r) {
                r.result.energy_parts[2] = std::numeric_limits<double>::quiet_NaN();
              }),
              HasSubstr(": energy_" + std::string(sweep::kEnergyPartNames[2]) +
                        ": not a finite non-negative number"));
  EXPECT_THAT(write_then_read([](sweep::TupleRecord& r) { r.result.stats.threads = -3; }),
              HasSubstr(": threads: out of range [1, 4096], got -3"));
  EXPECT_THAT(write_then_read([](sweep::TupleRecord& r) {
                r.result.layers.front().energy = -std::numeric_limits<double>::infinity();
              }),
              HasSubstr(".energy: not a finite non-negative number"));
}

TEST_F(Hdf5Results, refuses_foreign_and_corrupt_files) {
  // Not HDF5 at all.
  { std::ofstream(dir_ / "text.h5") << "hello"; }
  EXPECT_THAT(error_of([&] { read_results_file(dir_ / "text.h5"); }), HasSubstr("not an HDF5"));
  // HDF5 without the schema attribute.
  {
    const hid_t f = H5Fcreate((dir_ / "foreign.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
  }
  EXPECT_THAT(error_of([&] { read_results_file(dir_ / "foreign.h5"); }),
              HasSubstr("not a kapla results file (no 'kapla_schema' attribute)"));
  // A truncated kapla file.
  ResultsFile rf;
  rf.info = info();
  rf.records = records({"n1", "n2"});
  write_results_file(dir_ / "good.h5", rf);
  const std::string all = bytes(dir_ / "good.h5");
  for (std::size_t keep : {all.size() / 2, all.size() - 100, std::size_t{600}}) {
    { std::ofstream(dir_ / "cut.h5", std::ios::binary) << all.substr(0, keep); }
    const std::string err = error_of([&] { read_results_file(dir_ / "cut.h5"); });
    EXPECT_THAT(err, HasSubstr("cut.h5: ")) << keep;
    EXPECT_NE(err, "(no error)") << keep;
  }
}

TEST_F(Hdf5Results, sink_refuses_a_foreign_output_and_leaves_it_untouched) {
  { std::ofstream(dir_ / "out.h5") << "precious data"; }
  Hdf5Sink sink(dir_ / "out.h5", info());
  EXPECT_THAT(error_of([&] { sink.existing_keys(); }), HasSubstr("not an HDF5"));
  EXPECT_EQ(bytes(dir_ / "out.h5"), "precious data");
  // Another job's results.
  ResultsFile other;
  other.info = info("00000000000000bb");
  write_results_file(dir_ / "other.h5", other);
  const std::string before = bytes(dir_ / "other.h5");
  Hdf5Sink sink2(dir_ / "other.h5", info());
  EXPECT_THAT(error_of([&] { sink2.existing_keys(); }), HasSubstr("fingerprint"));
  EXPECT_EQ(bytes(dir_ / "other.h5"), before);
}

TEST_F(Hdf5Results, sink_writes_parts_then_merges_them) {
  const auto recs = records({"n1", "n2"});
  const fs::path out = dir_ / "sub" / "out.h5";
  {
    Hdf5Sink sink(out, info());
    EXPECT_TRUE(sink.existing_keys().empty());
    sink.write(recs[0]);
    sink.write(recs[1]);
    EXPECT_FALSE(fs::exists(out));
  }
  {
    // Killed before finish: a restarted sink sees both and ignores a stale temporary file.
    { std::ofstream(Hdf5Sink::parts_dir(out) / "x.h5.tmp.1.1") << "half"; }
    Hdf5Sink sink(out, info());
    EXPECT_EQ(sink.existing_keys().size(), 2u);
    EXPECT_FALSE(fs::exists(Hdf5Sink::parts_dir(out) / "x.h5.tmp.1.1"));
    sink.write(recs[2]);
    sink.finish();
  }
  EXPECT_FALSE(fs::exists(Hdf5Sink::parts_dir(out)));
  const auto rf = read_results_file(out);
  ASSERT_EQ(rf.records.size(), 3u);
  EXPECT_TRUE(std::is_sorted(rf.records.begin(), rf.records.end(),
                             [](const auto& a, const auto& b) { return a.tuple.key() < b.tuple.key(); }));
  Hdf5Sink again(out, info());
  EXPECT_EQ(again.existing_keys().size(), 3u);
  again.write(recs[3]);
  again.finish();
  EXPECT_EQ(read_results_file(out).records.size(), 4u);
}

TEST_F(Hdf5Results, merge_refuses_conflicts_and_other_jobs) {
  ResultsFile a;
  a.info = info();
  a.records = records({"n1"});
  ResultsFile b = a;
  b.records.front().result.energy += 1;
  EXPECT_THAT(error_of([&] { merge_results({a, b}); }), HasSubstr("refusing to merge"));
  ResultsFile c = a;
  c.info.job_fingerprint = "00000000000000cc";
  EXPECT_THAT(error_of([&] { merge_results({a, c}); }), HasSubstr("refusing to merge"));
  ResultsFile d = a;  // same values, other timing: fine
  d.records.front().result.stats.wall_seconds = 99;
  EXPECT_EQ(merge_results({a, d}).records.size(), a.records.size());
}

}  // namespace
}  // namespace kapla::io
