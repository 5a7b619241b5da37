// HDF5 results writer and the sweep's crash-safe sink (see hdf5_sink.hpp).
#include "io/hdf5_sink.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <unordered_map>
#include <variant>

#include "core/errors.hpp"
#include "io/hdf5_handle.hpp"
#include "io/hdf5_reader.hpp"

namespace kapla::io {
namespace {

namespace fs = std::filesystem;

// Owns an hid_t and closes it with the right H5*close.
// The writer's handles name the HDF5 step that failed.
Hdf5Handle handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) {
  return Hdf5Handle(id, close, "HDF5: " + what + " failed");
}

void check(herr_t rc, const std::string& what) {
  if (rc < 0) throw InputError("HDF5: " + what + " failed");
}

hid_t string_type() {
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

// A table built column by column, written as one compound dataset.
class TableWriter {
 public:
  enum class Kind { F64, I64, U64, Str };
  using Values = std::variant<std::vector<double>, std::vector<std::int64_t>,
                              std::vector<std::uint64_t>, std::vector<std::string>>;

  TableWriter& column(const std::string& name, Kind kind) {
    index_[name] = columns_.size();
    Values v;
    switch (kind) {
      case Kind::F64: v = std::vector<double>{}; break;
      case Kind::I64: v = std::vector<std::int64_t>{}; break;
      case Kind::U64: v = std::vector<std::uint64_t>{}; break;
      case Kind::Str: v = std::vector<std::string>{}; break;
    }
    columns_.push_back({name, kind, std::move(v)});
    return *this;
  }
  void put(const std::string& name, double v) { std::get<0>(at(name).values).push_back(v); }
  void put(const std::string& name, std::int64_t v) { std::get<1>(at(name).values).push_back(v); }
  void put(const std::string& name, std::uint64_t v) { std::get<2>(at(name).values).push_back(v); }
  void put(const std::string& name, const std::string& v) {
    std::get<3>(at(name).values).push_back(v);
  }

  void write(hid_t file, const char* table) const {
    std::size_t rows = 0;
    for (const auto& c : columns_) {
      const std::size_t n = std::visit([](const auto& v) { return v.size(); }, c.values);
      if (&c == &columns_.front()) rows = n;
      KAPLA_ASSERT(n == rows, std::string("table ") + table + ": column " + c.name +
                                  " has a different length");
    }
    const auto str = handle(string_type(), H5Tclose, "string type");
    std::size_t size = 0;
    std::vector<std::size_t> offsets;
    for (const auto& c : columns_) {
      offsets.push_back(size);
      size += c.kind == Kind::Str ? sizeof(const char*) : 8;
    }
    const auto type = handle(H5Tcreate(H5T_COMPOUND, size), H5Tclose, "compound type");
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const hid_t member = columns_[i].kind == Kind::F64   ? H5T_NATIVE_DOUBLE
                           : columns_[i].kind == Kind::I64 ? H5T_NATIVE_INT64
                           : columns_[i].kind == Kind::U64 ? H5T_NATIVE_UINT64
                                                           : str.get();
      check(H5Tinsert(type.get(), columns_[i].name.c_str(), offsets[i], member), "H5Tinsert");
    }
    std::vector<unsigned char> buffer(std::max<std::size_t>(1, rows * size));
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      for (std::size_t r = 0; r < rows; ++r) {
        unsigned char* dst = buffer.data() + r * size + offsets[i];
        std::visit(
            [&](const auto& v) {
              using T = std::decay_t<decltype(v[0])>;
              if constexpr (std::is_same_v<T, std::string>) {
                const char* p = v[r].c_str();
                std::memcpy(dst, &p, sizeof p);
              } else {
                std::memcpy(dst, &v[r], sizeof(T));
              }
            },
            columns_[i].values);
      }
    }
    const hsize_t dims[1] = {rows};
    const auto space = handle(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
    const auto dcpl = handle(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dataset properties");
    check(H5Pset_obj_track_times(dcpl.get(), false), "H5Pset_obj_track_times");
    const auto ds = handle(H5Dcreate2(file, table, type.get(), space.get(), H5P_DEFAULT, dcpl.get(),
                               H5P_DEFAULT),
                    H5Dclose, std::string("creating table ") + table);
    if (rows > 0) {
      check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()),
            std::string("writing table ") + table);
    }
  }

 private:
  struct Column {
    std::string name;
    Kind kind;
    Values values;
  };
  Column& at(const std::string& name) {
    const auto it = index_.find(name);
    KAPLA_ASSERT(it != index_.end(), "TableWriter: no column " + name);
    return columns_[it->second];
  }
  std::vector<Column> columns_;
  std::unordered_map<std::string, std::size_t> index_;
};

void write_string_attribute(hid_t obj, const char* name, const std::string& value) {
  const auto type = handle(string_type(), H5Tclose, "string type");
  const auto space = handle(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  const auto attr = handle(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                    H5Aclose, std::string("attribute ") + name);
  const char* p = value.c_str();
  check(H5Awrite(attr.get(), type.get(), &p), std::string("writing attribute ") + name);
}

void write_int_attribute(hid_t obj, const char* name, int value) {
  const auto space = handle(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  const auto attr = handle(H5Acreate2(obj, name, H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                    H5Aclose, std::string("attribute ") + name);
  check(H5Awrite(attr.get(), H5T_NATIVE_INT, &value), std::string("writing attribute ") + name);
}

using Kind = TableWriter::Kind;

void add_energy_columns(TableWriter& t) {
  t.column("energy", Kind::F64);
  for (auto part : sweep::kEnergyPartNames) t.column("energy_" + std::string(part), Kind::F64);
}

void put_energy(TableWriter& t, double energy, const sweep::EnergyParts& parts) {
  t.put("energy", energy);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    t.put("energy_" + std::string(sweep::kEnergyPartNames[i]), parts[i]);
  }
}

void write_tables(hid_t file, const std::vector<sweep::TupleRecord>& records) {
  TableWriter tuples;
  tuples.column("key", Kind::Str).column("network", Kind::Str).column("hardware", Kind::Str)
      .column("strategy", Kind::Str).column("strategy_params", Kind::Str)
      .column("batch", Kind::I64).column("seed", Kind::U64).column("search_seed", Kind::U64)
      .column("status", Kind::Str).column("message", Kind::Str)
      .column("total_cost", Kind::F64);
  add_energy_columns(tuples);
  tuples.column("time", Kind::F64).column("edp", Kind::F64)
      .column("search_seconds", Kind::F64).column("cpu_seconds", Kind::F64)
      .column("threads", Kind::I64).column("evaluated", Kind::I64).column("valid", Kind::I64)
      .column("pruned", Kind::I64);
  for (const char* s : {"kapla_version", "git_hash", "compiler", "mpi_version", "hdf5_version",
                        "host"}) {
    tuples.column(s, Kind::Str);
  }
  tuples.column("rank", Kind::I64);
  for (const char* s : {"slurm_job_id", "slurm_array_job_id", "slurm_array_task_id",
                        "command_line", "start_time", "end_time"}) {
    tuples.column(s, Kind::Str);
  }
  TableWriter layers;
  layers.column("key", Kind::Str).column("layer_index", Kind::I64).column("layer", Kind::Str)
      .column("segment", Kind::I64);
  add_energy_columns(layers);
  layers.column("time", Kind::F64).column("partition", Kind::Str).column("blocking", Kind::Str)
      .column("orders", Kind::Str).column("directives", Kind::Str);
  TableWriter segments;
  segments.column("key", Kind::Str).column("segment", Kind::I64).column("layers", Kind::Str)
      .column("energy", Kind::F64).column("time", Kind::F64);
  TableWriter curves;
  curves.column("key", Kind::Str).column("point", Kind::I64).column("evaluated", Kind::I64)
      .column("seconds", Kind::F64).column("best_cost", Kind::F64);
  TableWriter resolved;
  resolved.column("key", Kind::Str).column("name", Kind::Str).column("value", Kind::Str);

  for (const auto& rec : records) {
    const std::string key = rec.tuple.key();
    const auto& r = rec.result;
    const auto& p = rec.provenance;
    tuples.put("key", key);
    tuples.put("network", rec.tuple.network);
    tuples.put("hardware", rec.tuple.hardware);
    tuples.put("strategy", rec.tuple.strategy);
    tuples.put("strategy_params", rec.tuple.strategy_params);
    tuples.put("batch", std::int64_t{rec.tuple.batch});
    tuples.put("seed", std::uint64_t{rec.tuple.seed});
    tuples.put("search_seed", std::uint64_t{rec.search_seed});
    tuples.put("status", std::string(sweep::status_name(r.status)));
    tuples.put("message", r.message);
    tuples.put("total_cost", r.total_cost);
    put_energy(tuples, r.energy, r.energy_parts);
    tuples.put("time", r.time);
    tuples.put("edp", r.edp);
    tuples.put("search_seconds", r.stats.wall_seconds);
    tuples.put("cpu_seconds", r.stats.cpu_seconds);
    tuples.put("threads", std::int64_t{r.stats.threads});
    tuples.put("evaluated", std::int64_t{r.stats.evaluated});
    tuples.put("valid", std::int64_t{r.stats.valid});
    tuples.put("pruned", std::int64_t{r.stats.pruned});
    tuples.put("kapla_version", p.kapla_version);
    tuples.put("git_hash", p.git_hash);
    tuples.put("compiler", p.compiler);
    tuples.put("mpi_version", p.mpi_version);
    tuples.put("hdf5_version", p.hdf5_version);
    tuples.put("host", p.host);
    tuples.put("rank", std::int64_t{p.rank});
    tuples.put("slurm_job_id", p.slurm_job_id);
    tuples.put("slurm_array_job_id", p.slurm_array_job_id);
    tuples.put("slurm_array_task_id", p.slurm_array_task_id);
    tuples.put("command_line", p.command_line);
    tuples.put("start_time", p.start_time);
    tuples.put("end_time", p.end_time);
    for (std::size_t i = 0; i < r.layers.size(); ++i) {
      const auto& l = r.layers[i];
      layers.put("key", key);
      layers.put("layer_index", static_cast<std::int64_t>(i));
      layers.put("layer", l.layer);
      layers.put("segment", std::int64_t{l.segment});
      put_energy(layers, l.energy, l.energy_parts);
      layers.put("time", l.time);
      layers.put("partition", l.partition);
      layers.put("blocking", l.blocking);
      layers.put("orders", l.orders);
      layers.put("directives", l.directives);
    }
    for (const auto& s : r.segments) {
      segments.put("key", key);
      segments.put("segment", std::int64_t{s.segment});
      segments.put("layers", s.layers);
      segments.put("energy", s.energy);
      segments.put("time", s.time);
    }
    for (std::size_t i = 0; i < r.stats.curve.size(); ++i) {
      const auto& c = r.stats.curve[i];
      curves.put("key", key);
      curves.put("point", static_cast<std::int64_t>(i));
      curves.put("evaluated", std::int64_t{c.evaluated});
      curves.put("seconds", c.seconds);
      curves.put("best_cost", c.best_cost);
    }
    for (const auto& [name, value] : r.resolved) {
      resolved.put("key", key);
      resolved.put("name", name);
      resolved.put("value", value);
    }
  }
  tuples.write(file, kTableTuples);
  layers.write(file, kTableLayers);
  segments.write(file, kTableSegments);
  curves.write(file, kTableCurves);
  resolved.write(file, kTableResolved);
}

void fsync_path(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return;  // best effort for directories on odd filesystems
  ::fsync(fd);
  ::close(fd);
}

std::string temp_suffix() {
  static int counter = 0;
  return ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++counter);
}

bool is_temp_name(const std::string& name) { return name.find(".tmp.") != std::string::npos; }

// Writes the checksum of everything after the user block into the user block.
void seal(const fs::path& file) {
  std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
  if (!io) throw InputError(file.string() + ": cannot reopen to write its checksum");
  io.seekg(static_cast<std::streamoff>(kUserBlockBytes));
  std::uint64_t hash = sweep::fnv1a("");
  std::uint64_t size = 0;
  std::vector<char> buf(1 << 16);
  while (io.read(buf.data(), static_cast<std::streamsize>(buf.size())) || io.gcount() > 0) {
    const auto n = static_cast<std::size_t>(io.gcount());
    hash = sweep::fnv1a(std::string_view(buf.data(), n), hash);
    size += n;
  }
  io.clear();
  std::string block = std::string(kUserBlockMagic) + "size=" + std::to_string(size) +
                      "\nfnv1a64=" + sweep::hex64(hash) + "\n";
  block.resize(kUserBlockBytes, '\0');
  io.seekp(0);
  io.write(block.data(), static_cast<std::streamsize>(block.size()));
  io.flush();
  if (!io) throw InputError(file.string() + ": cannot write its checksum");
}

}  // namespace

std::string hdf5_library_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

void write_results_file(const fs::path& file, const ResultsFile& results) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not stderr dumps
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path tmp = fs::path(file.string() + temp_suffix());
  try {
    {
      const auto fapl = handle(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access properties");
      // Oldest format that has what we use: readable by any HDF5 1.8+ (and h5py).
      check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_EARLIEST, H5F_LIBVER_V18),
            "H5Pset_libver_bounds");
      const auto fcpl = handle(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "file creation properties");
      check(H5Pset_userblock(fcpl.get(), kUserBlockBytes), "H5Pset_userblock");
      const auto f = handle(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose,
                     "creating " + tmp.string());
      write_int_attribute(f.get(), kAttrSchema, kResultSchemaVersion);
      write_string_attribute(f.get(), kAttrJobName, results.info.job_name);
      write_string_attribute(f.get(), kAttrJobFingerprint, results.info.job_fingerprint);
      write_string_attribute(f.get(), kAttrJobFile, results.info.job_file);
      write_string_attribute(f.get(), kAttrWriterVersion, results.info.kapla_version);
      write_tables(f.get(), results.records);
      check(H5Fflush(f.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
    }
    seal(tmp);
    fsync_path(tmp, false);
    fs::rename(tmp, file);
    fsync_path(dir, true);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
}

Hdf5Sink::Hdf5Sink(fs::path output, ResultsFileInfo info)
    : output_(std::move(output)), info_(std::move(info)) {}

fs::path Hdf5Sink::parts_dir(const fs::path& output) { return fs::path(output.string() + ".parts"); }

std::string Hdf5Sink::part_name(const std::string& key) {
  std::string safe;
  for (char c : key) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    safe += ok ? c : (c == ':' ? '~' : '_');
  }
  if (safe.size() > 150) safe.resize(150);
  return safe + "~" + sweep::hex64(sweep::fnv1a(key)).substr(0, 8) + ".h5";
}

std::set<std::string> Hdf5Sink::existing_keys() {
  std::set<std::string> keys;
  auto take = [&](const ResultsFile& rf) {
    if (rf.info.job_fingerprint != info_.job_fingerprint) {
      throw InputError(rf.path.string() + ": written by job '" + rf.info.job_name +
                       "' with other options or budget (fingerprint " +
                       rf.info.job_fingerprint + ", this job " + info_.job_fingerprint +
                       "); use another --out or remove it");
    }
    for (const auto& r : rf.records) keys.insert(r.tuple.key());
  };
  std::error_code ec;
  if (fs::exists(output_, ec)) {
    if (fs::is_directory(output_, ec)) {
      throw InputError(output_.string() + ": is a directory; the output must be a file path");
    }
    take(read_results_file(output_));
  }
  const fs::path parts = parts_dir(output_);
  if (fs::is_directory(parts, ec)) {
    std::vector<fs::path> stale;
    for (const auto& entry : fs::directory_iterator(parts)) {
      const std::string name = entry.path().filename().string();
      if (is_temp_name(name)) {
        stale.push_back(entry.path());
      } else if (entry.path().extension() == ".h5") {
        take(read_results_file(entry.path()));
      }
    }
    for (const auto& p : stale) fs::remove(p, ec);  // half-written by a killed run
  }
  // A run killed while merging leaves "<output>.tmp.<pid>.<n>" beside the output; its parts
  // are still in the parts directory, so the half-written merge is only litter.
  const fs::path dir = output_.has_parent_path() ? output_.parent_path() : fs::path(".");
  const std::string prefix = output_.filename().string() + ".tmp.";
  std::vector<fs::path> stale_merges;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) stale_merges.push_back(entry.path());
  }
  for (const auto& p : stale_merges) fs::remove(p, ec);
  return keys;
}

void Hdf5Sink::write(const sweep::TupleRecord& record) {
  ResultsFile one;
  one.info = info_;
  one.records.push_back(record);
  one.records.back().provenance.hdf5_version = hdf5_library_version();
  const fs::path parts = parts_dir(output_);
  std::error_code ec;
  fs::create_directories(parts, ec);
  if (ec) throw InputError(parts.string() + ": cannot create directory: " + ec.message());
  write_results_file(parts / part_name(record.tuple.key()), one);
}

namespace {

std::size_t merge_into_output(const fs::path& output, const ResultsFileInfo* expected) {
  std::vector<ResultsFile> inputs;
  std::vector<fs::path> part_files;
  std::error_code ec;
  if (fs::exists(output, ec)) inputs.push_back(read_results_file(output));
  const fs::path parts = Hdf5Sink::parts_dir(output);
  if (fs::is_directory(parts, ec)) {
    for (const auto& entry : fs::directory_iterator(parts)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".h5" && !is_temp_name(name)) {
        part_files.push_back(entry.path());
      }
    }
    std::sort(part_files.begin(), part_files.end());
    for (const auto& p : part_files) inputs.push_back(read_results_file(p));
  }
  if (inputs.empty()) {
    if (expected == nullptr) {
      throw InputError(output.string() + ": no results and no " + parts.string() + "/");
    }
    ResultsFile empty;
    empty.info = *expected;
    write_results_file(output, empty);
    return 0;
  }
  ResultsFile merged = merge_results(inputs);
  if (expected != nullptr) merged.info = *expected;
  write_results_file(output, merged);
  for (const auto& p : part_files) fs::remove(p, ec);
  fs::remove(parts, ec);  // only if empty (a concurrent writer's part would stay)
  return merged.records.size();
}

}  // namespace

void Hdf5Sink::finish() { merge_into_output(output_, &info_); }

std::size_t finish_output(const fs::path& output) { return merge_into_output(output, nullptr); }

}  // namespace kapla::io
