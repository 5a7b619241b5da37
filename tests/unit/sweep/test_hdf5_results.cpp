// HDF5 results: write -> read round trip, crash-safe sink, refusal of corrupt/foreign files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "fake_runner.hpp"
#include "io/hdf5_reader.hpp"
#include "io/hdf5_sink.hpp"
#include "io/job_json.hpp"

namespace kapla::io {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

/// Two strategies on edge, batch 1: random (R) and kapla with params (K[x=1]).
sweep::SweepSpec unit_spec(std::vector<std::string> networks) {
  sweep::SweepSpec spec;
  spec.networks = std::move(networks);
  spec.hardware = {{"edge", {1}, {}, {}}};
  spec.strategies = {{"random", "", {}, "R", "R"}, {"kapla", "{\"x\":1}", {}, "K", "K[x=1]"}};
  return spec;
}

std::vector<ExpectedTuple> expected_of(const sweep::SweepSpec& spec, const std::string& job) {
  std::vector<ExpectedTuple> out;
  for (const auto& t : sweep::expand_tuples(spec)) out.push_back({job, t});
  return out;
}

std::vector<ExpectedTuple> expected_of(std::vector<std::string> networks) {
  return expected_of(unit_spec(std::move(networks)), "unit");
}

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
    sweep::testing::FakeRunner fake;
    std::vector<sweep::TupleRecord> out;
    for (const auto& t : sweep::expand_tuples(unit_spec(std::move(networks)))) {
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
  /// dir_/r.h5: network n1's tuples, run and expected.
  fs::path write_n1() const {
    ResultsFile rf;
    rf.info = info();
    rf.info.expected = expected_of({"n1"});
    rf.records = records({"n1"});
    write_results_file(dir_ / "r.h5", rf);
    return dir_ / "r.h5";
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
  // The recorded schedule documents (version 9), byte for byte; a tuple without a schedule
  // (no_solution) has none; a reader that skips them gets every other field.
  EXPECT_FALSE(b.result.schedule.empty());
  for (std::size_t i = 0; i < rf.records.size(); ++i) {
    EXPECT_EQ(back.records[i].result.schedule, rf.records[i].result.schedule);
    EXPECT_EQ(back.records[i].result.schedule.empty(),
              back.records[i].result.status != sweep::TupleStatus::Ok);
  }
  ResultsFile skipped = read_results_file(file, Schedules::Skip);
  for (auto& r : skipped.records) {
    EXPECT_TRUE(r.result.schedule.empty());
    r.result.schedule =
        back.records[static_cast<std::size_t>(&r - skipped.records.data())].result.schedule;
  }
  EXPECT_EQ(sweep::first_difference(skipped.records, back.records), std::nullopt);
  // first_difference sees a schedule that differs (a merge refuses such a pair).
  auto other = back.records;
  other.front().result.schedule += " ";
  EXPECT_THAT(sweep::first_difference(other, back.records).value_or(""),
              HasSubstr("recorded schedule differs"));
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
    const hid_t f =
        H5Fcreate((dir_ / "foreign.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
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

// Found by fuzzing: a checksum block whose size is not a number threw std::invalid_argument
// (terminate) instead of the one-line refusal.
TEST_F(Hdf5Results, refuses_a_checksum_block_with_a_bad_size) {
  ResultsFile rf;
  rf.info = info();
  write_results_file(dir_ / "good.h5", rf);
  std::string all = bytes(dir_ / "good.h5");
  const auto at = all.find("size=");
  ASSERT_NE(at, std::string::npos);
  for (const char* bad : {"x", "-", " "}) {
    std::string damaged = all;
    damaged.replace(at + 5, 1, bad);
    { std::ofstream(dir_ / "bad.h5", std::ios::binary) << damaged; }
    EXPECT_THAT(error_of([&] { read_results_file(dir_ / "bad.h5"); }),
                HasSubstr("bad.h5: corrupt: its checksum block has a bad size"))
        << bad;
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
  EXPECT_TRUE(
      std::is_sorted(rf.records.begin(), rf.records.end(),
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
  // Schedules: two must agree; a record without one (not recorded) takes the other's.
  ResultsFile e = a;
  e.records.front().result.schedule = "{}";
  EXPECT_THAT(error_of([&] {
                merge_results({a, e});
              }),
              HasSubstr("recorded schedule differs: " +
                        std::to_string(a.records.front().result.schedule.size()) +
                        " vs 2 bytes); refusing to merge"));
  ResultsFile none = a;
  for (auto& r : none.records) r.result.schedule.clear();
  for (const auto& order : {std::vector<ResultsFile>{none, a}, std::vector<ResultsFile>{a, none}}) {
    const auto merged = merge_results(order);
    ASSERT_EQ(merged.records.size(), a.records.size());
    for (const auto& m : merged.records) {
      for (const auto& r : a.records) {
        if (r.tuple.key() == m.tuple.key()) {
          EXPECT_EQ(m.result.schedule, r.result.schedule);
        }
      }
    }
  }
}

// The expected tuples of a spec over `networks` (what `kapla sweep` writes to /expected).
std::vector<std::string> keys_of(const std::vector<ExpectedTuple>& expected) {
  std::vector<std::string> keys;
  for (const auto& e : expected) keys.push_back(e.tuple.key());
  return keys;
}

TEST_F(Hdf5Results, every_table_stores_its_columns_units_and_descriptions) {
  write_n1();
  const hid_t f = H5Fopen((dir_ / "r.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  for (const char* table : {"tuples", "layers", "segments", "curves", "resolved", "expected"}) {
    const hid_t ds = H5Dopen2(f, table, H5P_DEFAULT);
    ASSERT_GE(ds, 0) << table;
    const hid_t type = H5Dget_type(ds);
    const int members = H5Tget_nmembers(type);
    EXPECT_GT(members, 1) << table;
    EXPECT_GT(H5Aexists(ds, kAttrTableDescription), 0) << table;
    for (const char* attr : {kAttrColumnUnits, kAttrColumnDescriptions}) {
      ASSERT_GT(H5Aexists(ds, attr), 0) << table << " " << attr;
      const hid_t a = H5Aopen(ds, attr, H5P_DEFAULT);
      const hid_t space = H5Aget_space(a);
      hsize_t n = 0;
      H5Sget_simple_extent_dims(space, &n, nullptr);
      EXPECT_EQ(n, static_cast<hsize_t>(members)) << table << " " << attr;
      H5Sclose(space);
      H5Aclose(a);
    }
    H5Tclose(type);
    H5Dclose(ds);
  }
  H5Fclose(f);
  for (const auto& c : layers_table().columns) EXPECT_NE(c.name, "directives");
}

TEST_F(Hdf5Results, expected_tuples_round_trip_and_merge_in_first_seen_order) {
  ResultsFile a;
  a.info = info();
  a.info.expected = expected_of({"n2", "n1"});
  a.records = records({"n2"});
  write_results_file(dir_ / "a.h5", a);
  const ResultsFile back = read_results_file(dir_ / "a.h5");
  EXPECT_EQ(keys_of(back.info.expected), keys_of(a.info.expected));
  EXPECT_EQ(back.info.expected.front().job_name, "unit");
  EXPECT_EQ(back.info.expected.back().tuple.strategy_params, "{\"x\":1}");
  ResultsFile b;
  b.info = info();
  b.info.expected = expected_of({"n1", "n3"});
  const auto merged = merge_results({back, b});
  EXPECT_EQ(keys_of(merged.info.expected), keys_of(expected_of({"n2", "n1", "n3"})));
}

fs::path schema2_file() { return fs::path(KAPLA_TEST_DATA_DIR) / "results" / "schema2_mlp_s.h5"; }

TEST_F(Hdf5Results, a_schema2_file_still_loads) {
  const ResultsFile old = read_results_file(schema2_file());
  EXPECT_EQ(old.info.schema, 2);
  EXPECT_EQ(old.info.job_name, "schema2_mlp_s");
  EXPECT_TRUE(old.info.expected.empty());
  ASSERT_EQ(old.records.size(), 2u);
  EXPECT_EQ(old.records[0].tuple.key(), "mlp_s:edge:exhaustive:b1:s1");
  EXPECT_EQ(old.records[0].result.total_cost, 0.00026064883178821815);
  EXPECT_EQ(old.records[0].result.stats.evaluated, 924);
  EXPECT_EQ(old.records[1].tuple.strategy, "random");
  for (const auto& r : old.records) {
    EXPECT_FALSE(r.result.layers.empty());
    EXPECT_FALSE(r.result.segments.empty());
    EXPECT_FALSE(r.result.resolved.empty());
  }
  EXPECT_FALSE(old.records[1].result.stats.curve.empty());
  EXPECT_FALSE(old.records[0].result.layers.front().partition.empty());
}

TEST_F(Hdf5Results, a_schema2_output_resumes_into_the_current_schema) {
  const fs::path out = dir_ / "old.h5";
  fs::copy_file(schema2_file(), out);
  const ResultsFile old = read_results_file(out);
  ResultsFileInfo i = info(old.info.job_fingerprint);
  i.job_name = old.info.job_name;
  i.expected = expected_of({"n1"});
  Hdf5Sink sink(out, i);
  const auto keys = sink.existing_keys();
  EXPECT_EQ(keys, (std::set<std::string>{"mlp_s:edge:exhaustive:b1:s1",
                                         "mlp_s:edge:random:b1:s1:pc7585b96"}));
  sink.write(records({"n1"}).front());
  sink.finish();
  const ResultsFile now = read_results_file(out);
  EXPECT_EQ(now.info.schema, kResultSchemaVersion);
  ASSERT_EQ(now.records.size(), 3u);
  EXPECT_EQ(keys_of(now.info.expected), keys_of(i.expected));
  // Sorted by key: the two old tuples ("mlp_s:...") come before the new one ("n1:...").
  const std::vector<sweep::TupleRecord> kept(now.records.begin(), now.records.begin() + 2);
  EXPECT_EQ(sweep::first_difference(old.records, kept), std::nullopt);
}

TEST_F(Hdf5Results, strategy_letter_and_label_are_written_and_read_back) {
  const ResultsFile back = read_results_file(write_n1());
  std::vector<std::string> rows, expected;
  for (const auto& r : back.records) {
    rows.push_back(r.tuple.key() + " " + r.tuple.strategy_letter + " " + r.tuple.strategy_label);
  }
  for (const auto& e : back.info.expected) {
    expected.push_back(e.tuple.strategy_letter + " " + e.tuple.strategy_label);
  }
  // The keys carry no label.
  const std::string params_hash = sweep::hex64(sweep::fnv1a("{\"x\":1}")).substr(0, 8);
  EXPECT_EQ(rows, (std::vector<std::string>{"n1:edge:random:b1:s1 R R",
                                            "n1:edge:kapla:b1:s1:p" + params_hash + " K K[x=1]"}));
  EXPECT_EQ(expected, (std::vector<std::string>{"R R", "K K[x=1]"}));  // job order
}

fs::path schema3_file(const char* ext) {
  return fs::path(KAPLA_TEST_DATA_DIR) / "results" / (std::string("schema3_mlp_s.") + ext);
}

const std::vector<std::string> kSchema3Keys = {"mlp_s:edge:exhaustive:b1:s1",
                                               "mlp_s:edge:random:b1:s1:pc7585b96"};

/// The tuples of the job that wrote schema3_mlp_s.h5, as this kapla's parse gives them.
std::vector<ExpectedTuple> schema3_job() {
  const sweep::SweepSpec spec = load_job_file(schema3_file("json"));
  return expected_of(spec, spec.name);
}

TEST_F(Hdf5Results, a_schema3_file_still_loads) {
  const ResultsFile old = read_results_file(schema3_file("h5"));
  EXPECT_EQ(old.info.schema, 3);
  EXPECT_EQ(old.info.job_name, "schema3_mlp_s");
  EXPECT_EQ(keys_of(old.info.expected), kSchema3Keys);
  ASSERT_EQ(old.records.size(), 2u);
  EXPECT_EQ(old.records[0].result.total_cost, 0.00025674388203041824);
  EXPECT_EQ(old.records[1].result.stats.evaluated, 120);
  for (const auto& r : old.records) {
    EXPECT_EQ(r.tuple.strategy_letter, "");  // schema 3 has no such column
    EXPECT_FALSE(r.result.layers.empty());
    EXPECT_FALSE(r.result.resolved.empty());
  }
  EXPECT_FALSE(old.records[1].result.stats.curve.empty());
}

std::vector<std::string> labels_of(const ResultsFile& rf) {
  std::vector<std::string> out;
  for (const auto& r : rf.records) {
    out.push_back(r.tuple.strategy_letter + " " + r.tuple.strategy_label);
  }
  for (const auto& e : rf.info.expected) {
    out.push_back(e.tuple.strategy_letter + " " + e.tuple.strategy_label);
  }
  return out;
}

const std::vector<std::string> kSchema3Labels = {"B B", "R R[max_evaluations=40]", "B B",
                                                 "R R[max_evaluations=40]"};

TEST_F(Hdf5Results, a_schema3_output_resumes_into_the_current_schema_with_the_jobs_labels) {
  const fs::path out = dir_ / "old.h5";
  fs::copy_file(schema3_file("h5"), out);
  const ResultsFile old = read_results_file(out);
  ResultsFileInfo i = info(old.info.job_fingerprint);
  i.job_name = old.info.job_name;
  i.expected = schema3_job();
  Hdf5Sink sink(out, i);
  const auto keys = sink.existing_keys();
  EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.end()), kSchema3Keys);  // nothing to run
  sink.finish();
  const ResultsFile now = read_results_file(out);
  EXPECT_EQ(now.info.schema, kResultSchemaVersion);
  EXPECT_EQ(labels_of(now), kSchema3Labels);
  EXPECT_EQ(sweep::first_difference(old.records, now.records), std::nullopt);
}

TEST_F(Hdf5Results, a_schema3_file_merged_with_a_newer_one_takes_its_labels) {
  const ResultsFile old = read_results_file(schema3_file("h5"));
  ResultsFile newer;  // the same job's /expected, as this kapla writes it
  newer.info = info(old.info.job_fingerprint);
  newer.info.job_name = old.info.job_name;
  newer.info.expected = schema3_job();
  write_results_file(dir_ / "new.h5", newer);
  const ResultsFile merged = merge_results({old, read_results_file(dir_ / "new.h5")});
  EXPECT_EQ(keys_of(merged.info.expected), kSchema3Keys);
  EXPECT_EQ(labels_of(merged), kSchema3Labels);
}

fs::path schema4_file(const char* ext) {
  return fs::path(KAPLA_TEST_DATA_DIR) / "results" / (std::string("schema4_mlp_s.") + ext);
}

// Schema 5 added the design_* columns; a version 4 file has none, and its tuples are no design
// points, which is what the columns' defaults say.
TEST_F(Hdf5Results, a_schema4_file_still_loads_resumes_and_merges) {
  const ResultsFile old = read_results_file(schema4_file("h5"));
  EXPECT_EQ(old.info.schema, 4);
  EXPECT_EQ(keys_of(old.info.expected), kSchema3Keys);  // the same job, renamed
  ASSERT_EQ(old.records.size(), 2u);
  EXPECT_EQ(old.records[0].result.total_cost, 0.00025674388203041824);
  EXPECT_EQ(old.records[1].tuple.strategy_label, "R[max_evaluations=40]");
  for (const auto& r : old.records) {
    EXPECT_EQ(r.tuple.design, sweep::DesignParams{});
    EXPECT_EQ(r.result.macs, 0);             // schema 7's macs columns read as their default
    EXPECT_EQ(r.result.pe_utilisation, 0);   // schema 8's, likewise
    EXPECT_TRUE(r.result.schedule.empty());  // and schema 9 recorded no schedules
    for (const auto& l : r.result.layers) EXPECT_EQ(l.macs, 0);
  }
  // Resume: nothing to run, the file is rewritten in the current version, rows unchanged.
  const fs::path out = dir_ / "old.h5";
  fs::copy_file(schema4_file("h5"), out);
  ResultsFileInfo i = info(old.info.job_fingerprint);
  i.job_name = old.info.job_name;
  const sweep::SweepSpec spec = load_job_file(schema4_file("json"));
  i.expected = expected_of(spec, spec.name);
  Hdf5Sink sink(out, i);
  EXPECT_EQ(sink.existing_keys().size(), 2u);
  sink.finish();
  const ResultsFile now = read_results_file(out);
  EXPECT_EQ(now.info.schema, kResultSchemaVersion);
  EXPECT_EQ(sweep::first_difference(old.records, now.records), std::nullopt);
  // Merge with a newer file of the same job.
  ResultsFile newer;
  newer.info = i;
  write_results_file(dir_ / "new.h5", newer);
  const ResultsFile merged = merge_results({old, read_results_file(dir_ / "new.h5")});
  EXPECT_EQ(sweep::first_difference(old.records, merged.records), std::nullopt);
}

TEST_F(Hdf5Results, design_parameters_round_trip) {
  ResultsFile rf;
  rf.info = info();
  rf.records = records({"n1"});
  const sweep::DesignParams d{"eyeriss_45nm", 2, 1, 16, 8, 65536, 512, 64, 25.6, 2.06581248, 0.5};
  rf.records[0].tuple.hardware = "eyeriss_45nm~nodes2x1~pe16x8";
  rf.records[0].tuple.design = d;
  rf.records[0].result.pe_utilisation = 0.3125;
  rf.info.expected = {{"unit", rf.records[0].tuple}};
  write_results_file(dir_ / "d.h5", rf);
  const ResultsFile back = read_results_file(dir_ / "d.h5");
  EXPECT_EQ(sweep::first_difference(rf.records, back.records), std::nullopt);
  bool found = false;
  for (const auto& r : back.records) {
    if (r.tuple.hardware != "eyeriss_45nm~nodes2x1~pe16x8") {
      EXPECT_EQ(r.tuple.design, sweep::DesignParams{});
      continue;
    }
    found = true;
    EXPECT_EQ(r.tuple.design, d);
    EXPECT_EQ(r.result.pe_utilisation, 0.3125);  // schema 8, with the floor
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(back.info.expected.size(), 1u);
  EXPECT_EQ(back.info.expected[0].tuple.design, d);
  // The comparison of runs sees a design difference.
  auto other = back.records;
  for (auto& r : other) r.tuple.design.area_mm2 += 1;
  EXPECT_NE(sweep::first_difference(back.records, other), std::nullopt);
}

TEST_F(Hdf5Results, every_column_reads_back_what_it_wrote) {
  const auto recs = records({"n1"});
  for (const auto& c : tuples_table().columns) {
    if (c.name == "key") continue;
    sweep::TupleRecord copy;
    c.set(copy, c.get(recs[1]));
    EXPECT_EQ(c.get(copy), c.get(recs[1])) << c.name;
    EXPECT_FALSE(c.description.empty()) << c.name;
  }
}

}  // namespace
}  // namespace kapla::io
