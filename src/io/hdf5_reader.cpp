// HDF5 results reader, checked against the schema (see hdf5_reader.hpp).
#include "io/hdf5_reader.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <map>

#include "core/errors.hpp"
#include "io/hdf5_handle.hpp"
#include "io/result_ranges.hpp"

namespace kapla::io {
namespace {

namespace fs = std::filesystem;

// Owns an hid_t; a failed open becomes InputError("FILE: reason").
using Handle = Hdf5Handle;

// Reads a whole compound table in one H5Dread into its native layout, then hands out columns
// by name (one read per table: per-column reads made HDF5 spend most of its time comparing
// conversion paths).
class TableReader {
 public:
  TableReader(hid_t file, const char* table, const std::string& file_name)
      : file_name_(file_name), table_(table),
        ds_(H5Dopen2(file, table, H5P_DEFAULT), H5Dclose,
            file_name + ": corrupt or incomplete results (no table '" + table + "')"),
        type_(H5Dget_type(ds_.get()), H5Tclose, error("unreadable type")),
        space_(H5Dget_space(ds_.get()), H5Sclose, error("unreadable shape")) {
    if (H5Tget_class(type_.get()) != H5T_COMPOUND) throw InputError(error("not a table"));
    if (H5Sget_simple_extent_ndims(space_.get()) != 1) throw InputError(error("not 1-D"));
    hsize_t dims[1] = {0};
    H5Sget_simple_extent_dims(space_.get(), dims, nullptr);
    rows_ = static_cast<std::size_t>(dims[0]);
    native_ = H5Tget_native_type(type_.get(), H5T_DIR_ASCEND);
    if (native_ < 0) throw InputError(error("unreadable type"));
    row_size_ = H5Tget_size(native_);
    buffer_.assign(std::max<std::size_t>(1, rows_ * row_size_), 0);
    if (rows_ > 0 &&
        H5Dread(ds_.get(), native_, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer_.data()) < 0) {
      H5Tclose(native_);
      throw InputError(error("cannot read the table (corrupt file?)"));
    }
  }
  ~TableReader() {
    if (rows_ > 0) H5Dvlen_reclaim(native_, space_.get(), H5P_DEFAULT, buffer_.data());
    H5Tclose(native_);
  }
  TableReader(const TableReader&) = delete;
  TableReader& operator=(const TableReader&) = delete;

  std::size_t rows() const { return rows_; }

  std::vector<double> f64(const char* name) const {
    return numbers<double>(name, H5T_FLOAT);
  }
  std::vector<std::int64_t> i64(const char* name) const {
    return numbers<std::int64_t>(name, H5T_INTEGER);
  }
  std::vector<std::uint64_t> u64(const char* name) const {
    return numbers<std::uint64_t>(name, H5T_INTEGER);
  }
  std::vector<std::string> str(const char* name) const {
    const std::size_t offset = member(name, H5T_STRING, sizeof(char*));
    std::vector<std::string> out(rows_);
    for (std::size_t i = 0; i < rows_; ++i) {
      const char* p = nullptr;
      std::memcpy(&p, buffer_.data() + i * row_size_ + offset, sizeof p);
      out[i] = p ? p : "";
    }
    return out;
  }

 private:
  std::string error(const std::string& what) const {
    return file_name_ + ": table '" + table_ + "': " + what;
  }
  // Offset of a member of the expected class and size in the native row.
  std::size_t member(const char* name, H5T_class_t cls, std::size_t size) const {
    const int idx = H5Tget_member_index(native_, name);
    if (idx < 0) {
      throw InputError(error(std::string("no column '") + name +
                             "' (written by another kapla_schema version?)"));
    }
    const auto u = static_cast<unsigned>(idx);
    const hid_t mt = H5Tget_member_type(native_, u);
    const bool ok = H5Tget_class(mt) == cls && H5Tget_size(mt) == size &&
                    (cls != H5T_STRING || H5Tis_variable_str(mt) > 0);
    H5Tclose(mt);
    if (!ok) throw InputError(error(std::string("column '") + name + "' has another type"));
    return H5Tget_member_offset(native_, u);
  }
  template <class T>
  std::vector<T> numbers(const char* name, H5T_class_t cls) const {
    const std::size_t offset = member(name, cls, sizeof(T));
    std::vector<T> out(rows_);
    for (std::size_t i = 0; i < rows_; ++i) {
      std::memcpy(&out[i], buffer_.data() + i * row_size_ + offset, sizeof(T));
    }
    return out;
  }

  std::string file_name_;
  std::string table_;
  Handle ds_;
  Handle type_;
  Handle space_;
  hid_t native_ = -1;
  std::size_t rows_ = 0;
  std::size_t row_size_ = 0;
  std::vector<unsigned char> buffer_;
};

std::string read_string_attribute(hid_t file, const char* name, const std::string& fname) {
  if (H5Aexists(file, name) <= 0) {
    throw InputError(fname + ": corrupt or incomplete results (no '" + name + "' attribute)");
  }
  const Handle attr(H5Aopen(file, name, H5P_DEFAULT), H5Aclose,
                    fname + ": cannot read attribute '" + name + "'");
  const Handle ftype(H5Aget_type(attr.get()), H5Tclose, fname + ": bad attribute " + name);
  if (H5Tget_class(ftype.get()) != H5T_STRING || H5Tis_variable_str(ftype.get()) <= 0) {
    throw InputError(fname + ": attribute '" + name + "' is not a string");
  }
  const Handle mem(H5Tcopy(H5T_C_S1), H5Tclose, "type");
  H5Tset_size(mem.get(), H5T_VARIABLE);
  H5Tset_cset(mem.get(), H5T_CSET_UTF8);
  char* raw = nullptr;
  if (H5Aread(attr.get(), mem.get(), &raw) < 0) {
    throw InputError(fname + ": cannot read attribute '" + name + "' (corrupt file?)");
  }
  std::string out = raw ? raw : "";
  H5free_memory(raw);
  return out;
}

sweep::EnergyParts parts_of(const TableReader& t, std::vector<std::vector<double>>& cache,
                            std::size_t row) {
  if (cache.empty()) {
    for (auto part : sweep::kEnergyPartNames) {
      cache.push_back(t.f64(("energy_" + std::string(part)).c_str()));
    }
  }
  sweep::EnergyParts p{};
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = cache[i][row];
  return p;
}

// The user block's checksum (result_schema.hpp). A file without the block is checked for the
// schema attribute first, so a foreign HDF5 file is called foreign rather than corrupt.
void verify_checksum(const fs::path& file) {
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  std::string block(kUserBlockBytes, '\0');
  in.read(block.data(), static_cast<std::streamsize>(block.size()));
  if (block.compare(0, kUserBlockMagic.size(), kUserBlockMagic) != 0) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
      throw InputError(name + ": cannot be opened as HDF5 (truncated or corrupt); refusing to use it");
    }
    const bool has_schema = H5Aexists(f, kAttrSchema) > 0;
    H5Fclose(f);
    if (!has_schema) {
      throw InputError(name + ": not a kapla results file (no '" + kAttrSchema + "' attribute)");
    }
    throw InputError(name + ": corrupt: its checksum block is missing; refusing to use it");
  }
  std::uint64_t size = 0;
  std::string hash_text;
  {
    std::istringstream header(block.substr(kUserBlockMagic.size()));
    std::string line;
    while (std::getline(header, line)) {
      if (line.rfind("size=", 0) == 0) size = std::stoull(line.substr(5));
      if (line.rfind("fnv1a64=", 0) == 0) hash_text = line.substr(8, 16);
    }
  }
  std::uint64_t hash = sweep::fnv1a("");
  std::uint64_t seen = 0;
  std::vector<char> buf(1 << 16);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    const auto n = static_cast<std::size_t>(in.gcount());
    hash = sweep::fnv1a(std::string_view(buf.data(), n), hash);
    seen += n;
  }
  if (seen != size) {
    throw InputError(name + ": corrupt: " + std::to_string(seen + kUserBlockBytes) +
                     " bytes where " + std::to_string(size + kUserBlockBytes) +
                     " were written (truncated?); refusing to use it");
  }
  if (sweep::hex64(hash) != hash_text) {
    throw InputError(name + ": corrupt: checksum mismatch (the file was damaged after it was "
                     "written); refusing to use it");
  }
}

ResultsFile read_checked(const fs::path& file, bool with_records) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const std::string name = file.string();
  std::error_code ec;
  if (!fs::exists(file, ec)) throw InputError(name + ": no such file");
  if (fs::is_directory(file, ec)) throw InputError(name + ": is a directory, not a results file");
  const htri_t is_hdf5 = H5Fis_hdf5(file.c_str());
  if (is_hdf5 <= 0) {
    throw InputError(name + ": not an HDF5 file (or its header is corrupt); refusing to use it");
  }
  verify_checksum(file);
  const Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                 name + ": cannot be opened as HDF5 (truncated or corrupt); refusing to use it");
  if (H5Aexists(f.get(), kAttrSchema) <= 0) {
    throw InputError(name + ": not a kapla results file (no '" + kAttrSchema + "' attribute)");
  }
  ResultsFile rf;
  rf.path = file;
  {
    const Handle attr(H5Aopen(f.get(), kAttrSchema, H5P_DEFAULT), H5Aclose,
                      name + ": cannot read '" + kAttrSchema + "'");
    int version = -1;
    if (H5Aread(attr.get(), H5T_NATIVE_INT, &version) < 0) {
      throw InputError(name + ": cannot read '" + kAttrSchema + "' (corrupt file?)");
    }
    if (version != kResultSchemaVersion) {
      throw InputError(name + ": kapla_schema version " + std::to_string(version) +
                       "; this kapla reads version " + std::to_string(kResultSchemaVersion));
    }
    rf.info.schema = version;
  }
  rf.info.job_name = read_string_attribute(f.get(), kAttrJobName, name);
  rf.info.job_fingerprint = read_string_attribute(f.get(), kAttrJobFingerprint, name);
  rf.info.job_file = read_string_attribute(f.get(), kAttrJobFile, name);
  rf.info.kapla_version = read_string_attribute(f.get(), kAttrWriterVersion, name);

  // Always read every table: this is also the integrity check.
  const TableReader tuples(f.get(), kTableTuples, name);
  const TableReader layers(f.get(), kTableLayers, name);
  const TableReader segments(f.get(), kTableSegments, name);
  const TableReader curves(f.get(), kTableCurves, name);
  const TableReader resolved(f.get(), kTableResolved, name);

  const auto key = tuples.str("key");
  const auto network = tuples.str("network");
  const auto hardware = tuples.str("hardware");
  const auto strategy = tuples.str("strategy");
  const auto params = tuples.str("strategy_params");
  const auto batch = tuples.i64("batch");
  const auto seed = tuples.u64("seed");
  const auto search_seed = tuples.u64("search_seed");
  const auto status = tuples.str("status");
  const auto message = tuples.str("message");
  const auto total_cost = tuples.f64("total_cost");
  const auto energy = tuples.f64("energy");
  std::vector<std::vector<double>> energy_parts;
  const auto time = tuples.f64("time");
  const auto edp = tuples.f64("edp");
  const auto wall = tuples.f64("search_seconds");
  const auto cpu = tuples.f64("cpu_seconds");
  const auto threads = tuples.i64("threads");
  const auto evaluated = tuples.i64("evaluated");
  const auto valid = tuples.i64("valid");
  const auto pruned = tuples.i64("pruned");
  std::map<std::string, std::vector<std::string>> prov;
  for (const char* c : {"kapla_version", "git_hash", "compiler", "mpi_version", "hdf5_version",
                        "host", "slurm_job_id", "slurm_array_job_id", "slurm_array_task_id",
                        "command_line", "start_time", "end_time"}) {
    prov[c] = tuples.str(c);
  }
  const auto rank = tuples.i64("rank");

  std::map<std::string, std::size_t> row_of;
  for (std::size_t i = 0; i < tuples.rows(); ++i) {
    sweep::TupleRecord r;
    r.tuple.network = network[i];
    r.tuple.hardware = hardware[i];
    r.tuple.strategy = strategy[i];
    r.tuple.strategy_params = params[i];
    r.tuple.batch = batch[i];
    r.tuple.seed = seed[i];
    if (r.tuple.key() != key[i]) {
      throw InputError(name + ": corrupt results: key '" + key[i] + "' does not match its fields");
    }
    if (!row_of.emplace(key[i], i).second) {
      throw InputError(name + ": corrupt results: tuple '" + key[i] + "' appears twice");
    }
    r.search_seed = search_seed[i];
    try {
      r.result.status = sweep::parse_status(status[i]);
    } catch (const InputError& e) {
      throw InputError(name + ": tuple '" + key[i] + "': " + e.what());
    }
    r.result.message = message[i];
    r.result.total_cost = total_cost[i];
    r.result.energy = energy[i];
    r.result.energy_parts = parts_of(tuples, energy_parts, i);
    r.result.time = time[i];
    r.result.edp = edp[i];
    r.result.stats.wall_seconds = wall[i];
    r.result.stats.cpu_seconds = cpu[i];
    r.result.stats.threads = static_cast<int>(threads[i]);
    r.result.stats.evaluated = evaluated[i];
    r.result.stats.valid = valid[i];
    r.result.stats.pruned = pruned[i];
    auto& p = r.provenance;
    p.kapla_version = prov["kapla_version"][i];
    p.git_hash = prov["git_hash"][i];
    p.compiler = prov["compiler"][i];
    p.mpi_version = prov["mpi_version"][i];
    p.hdf5_version = prov["hdf5_version"][i];
    p.host = prov["host"][i];
    p.rank = rank[i];
    p.slurm_job_id = prov["slurm_job_id"][i];
    p.slurm_array_job_id = prov["slurm_array_job_id"][i];
    p.slurm_array_task_id = prov["slurm_array_task_id"][i];
    p.command_line = prov["command_line"][i];
    p.start_time = prov["start_time"][i];
    p.end_time = prov["end_time"][i];
    rf.records.push_back(std::move(r));
  }
  auto record_of = [&](const std::string& k, const char* table) -> sweep::TupleRecord& {
    const auto it = row_of.find(k);
    if (it == row_of.end()) {
      throw InputError(name + ": corrupt results: table '" + table + "' names unknown tuple '" +
                       k + "'");
    }
    return rf.records[it->second];
  };
  {
    const auto k = layers.str("key");
    const auto layer = layers.str("layer");
    const auto segment = layers.i64("segment");
    const auto e = layers.f64("energy");
    std::vector<std::vector<double>> cache;
    const auto t = layers.f64("time");
    const auto partition = layers.str("partition");
    const auto blocking = layers.str("blocking");
    const auto orders = layers.str("orders");
    const auto directives = layers.str("directives");
    for (std::size_t i = 0; i < layers.rows(); ++i) {
      sweep::LayerRow row{layer[i], segment[i], e[i], parts_of(layers, cache, i), t[i],
                          partition[i], blocking[i], orders[i], directives[i]};
      record_of(k[i], kTableLayers).result.layers.push_back(std::move(row));
    }
  }
  {
    const auto k = segments.str("key");
    const auto seg = segments.i64("segment");
    const auto names = segments.str("layers");
    const auto e = segments.f64("energy");
    const auto t = segments.f64("time");
    for (std::size_t i = 0; i < segments.rows(); ++i) {
      record_of(k[i], kTableSegments).result.segments.push_back({seg[i], names[i], e[i], t[i]});
    }
  }
  {
    const auto k = curves.str("key");
    const auto ev = curves.i64("evaluated");
    const auto s = curves.f64("seconds");
    const auto b = curves.f64("best_cost");
    for (std::size_t i = 0; i < curves.rows(); ++i) {
      record_of(k[i], kTableCurves).result.stats.curve.push_back({ev[i], s[i], b[i]});
    }
  }
  {
    const auto k = resolved.str("key");
    const auto n = resolved.str("name");
    const auto v = resolved.str("value");
    for (std::size_t i = 0; i < resolved.rows(); ++i) {
      record_of(k[i], kTableResolved).result.resolved.emplace_back(n[i], v[i]);
    }
  }
  for (const auto& r : rf.records) check_result_ranges(r, name);
  if (!with_records) rf.records.clear();
  return rf;
}

}  // namespace

ResultsFile read_results_file(const fs::path& file) { return read_checked(file, true); }

ResultsFileInfo check_results_file(const fs::path& file) { return read_checked(file, false).info; }

std::vector<ResultsFile> read_results(const fs::path& file_or_dir) {
  std::error_code ec;
  if (!fs::is_directory(file_or_dir, ec)) return {read_results_file(file_or_dir)};
  std::vector<fs::path> files;
  auto collect = [&](const fs::path& dir) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string n = entry.path().filename().string();
      if (entry.is_regular_file() && entry.path().extension() == ".h5" &&
          n.find(".tmp.") == std::string::npos) {
        files.push_back(entry.path());
      }
    }
  };
  collect(file_or_dir);
  for (const auto& entry : fs::directory_iterator(file_or_dir)) {
    if (entry.is_directory() && entry.path().extension() == ".parts") collect(entry.path());
  }
  if (files.empty()) {
    throw InputError(file_or_dir.string() + ": no results files (*.h5) in this directory");
  }
  std::sort(files.begin(), files.end());
  std::vector<ResultsFile> out;
  for (const auto& f : files) out.push_back(read_results_file(f));
  return out;
}

ResultsFile merge_results(const std::vector<ResultsFile>& inputs) {
  KAPLA_ASSERT(!inputs.empty(), "merge_results: no inputs");
  ResultsFile merged;
  merged.info = inputs.front().info;
  std::map<std::string, const sweep::TupleRecord*> by_key;
  std::map<std::string, const fs::path*> origin;
  for (const auto& in : inputs) {
    if (in.info.job_fingerprint != merged.info.job_fingerprint) {
      throw InputError(in.path.string() + ": job '" + in.info.job_name +
                       "' used other options (fingerprint " + in.info.job_fingerprint + ") than " +
                       inputs.front().path.string() + " (" + merged.info.job_fingerprint +
                       "); refusing to merge");
    }
    if (in.info.job_name != merged.info.job_name &&
        ("+" + merged.info.job_name + "+").find("+" + in.info.job_name + "+") ==
            std::string::npos) {
      merged.info.job_name += "+" + in.info.job_name;
      merged.info.job_file.clear();  // several jobs: no single job file
    }
    for (const auto& r : in.records) {
      const std::string key = r.tuple.key();
      const auto [it, fresh] = by_key.emplace(key, &r);
      if (fresh) {
        origin[key] = &in.path;
      } else if (auto d = sweep::first_difference(*it->second, r)) {
        throw InputError(in.path.string() + ": tuple '" + key + "' differs from " +
                         origin[key]->string() + " (" + *d + "); refusing to merge");
      }
    }
  }
  for (const auto& [key, r] : by_key) merged.records.push_back(*r);
  return merged;
}

}  // namespace kapla::io
