// HDF5 results reader, checked against the schema (see hdf5_reader.hpp).
#include "io/hdf5_reader.hpp"

#include <hdf5.h>
#include <charconv>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

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
      : file_name_(file_name),
        table_(table),
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
    const std::size_t widest = std::max(row_size_, H5Tget_size(type_.get()));
    const hid_t dxpl = transfer_plist(rows_ * widest);
    const bool read = dxpl >= 0 && (rows_ == 0 || H5Dread(ds_.get(), native_, H5S_ALL, H5S_ALL,
                                                          dxpl, buffer_.data()) >= 0);
    if (dxpl >= 0) H5Pclose(dxpl);
    if (!read) {
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
  bool has(const char* name) const { return H5Tget_member_index(native_, name) >= 0; }

  std::vector<double> f64(const char* name) const { return numbers<double>(name, H5T_FLOAT); }
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

// The table's rows as the schema's columns give them; columns newer than the file's version are
// left at their defaults, a table newer than the file is empty.
// `keys`, if given, receives the key column as stored (the tuples' keys are computed, not set).
template <class Row>
std::vector<Row> read_rows(hid_t file, const Table<Row>& table, int version,
                           const std::string& fname, std::vector<std::string>* keys = nullptr) {
  if (version < table.since) return {};
  const TableReader t(file, table.name, fname);
  if (keys != nullptr) *keys = t.str("key");
  std::vector<Row> rows(t.rows());
  for (const auto& c : table.columns) {
    if (version < c.since) continue;
    const char* name = c.name.c_str();
    auto fill = [&](const auto& values) {
      for (std::size_t i = 0; i < rows.size(); ++i) c.set(rows[i], Cell(values[i]));
    };
    try {
      switch (c.type) {
        case ColumnType::F64:
          fill(t.f64(name));
          break;
        case ColumnType::I64:
          fill(t.i64(name));
          break;
        case ColumnType::U64:
          fill(t.u64(name));
          break;
        case ColumnType::Str:
          fill(t.str(name));
          break;
      }
    } catch (const InputError& e) {
      const std::string what = e.what();
      if (what.rfind(fname, 0) == 0) throw;  // already names the file
      throw InputError(fname + ": table '" + table.name + "': column '" + c.name + "': " + what);
    }
  }
  return rows;
}

// True when the file holds HDF5's signature where the format allows it (offset 0, 512, 1024,
// ...) and, separately, kapla's schema attribute name. Read as bytes, not through libhdf5: its
// parser (1.10.8) reads out of bounds on some damaged files, so it only sees verified ones.
struct RawLook {
  bool hdf5 = false;
  bool names_kapla_schema = false;
};

bool has_hdf5_signature(std::ifstream& in) {
  static constexpr std::string_view kSignature("\x89HDF\r\n\x1a\n", 8);
  std::string head(kSignature.size(), '\0');
  for (std::streamoff at = 0;; at = at == 0 ? 512 : at * 2) {
    in.clear();
    in.seekg(at);
    if (!in.read(head.data(), static_cast<std::streamsize>(head.size()))) return false;
    if (head == kSignature) return true;
  }
}

RawLook look_at_bytes(std::ifstream& in) {
  RawLook look;
  look.hdf5 = has_hdf5_signature(in);
  // The name is searched in chunks that overlap by its length (a big foreign file is streamed).
  const std::string_view wanted(kAttrSchema);
  std::string window;
  std::vector<char> chunk(1 << 16);
  in.clear();
  in.seekg(0);
  while (!look.names_kapla_schema &&
         (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)) {
    window.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    look.names_kapla_schema = window.find(wanted) != std::string::npos;
    window.erase(0, window.size() - std::min(window.size(), wanted.size() - 1));
  }
  return look;
}

// The user block's checksum (result_schema.hpp). A file without the block is called foreign
// when it does not name kapla's schema attribute, corrupt when it does.
void verify_checksum(const fs::path& file) {
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(name + ": cannot be read");
  std::string block(kUserBlockBytes, '\0');
  in.read(block.data(), static_cast<std::streamsize>(block.size()));
  if (block.compare(0, kUserBlockMagic.size(), kUserBlockMagic) != 0) {
    const RawLook look = look_at_bytes(in);
    if (!look.hdf5) {
      throw InputError(name + ": not an HDF5 file (or its header is corrupt); refusing to use it");
    }
    if (!look.names_kapla_schema) {
      throw InputError(name + ": not a kapla results file (no '" + kAttrSchema + "' attribute)");
    }
    throw InputError(name + ": corrupt: its checksum block is missing; refusing to use it");
  }
  std::uint64_t size = 0;
  std::uint64_t written_hash = 0;
  bool has_hash = false;
  {
    std::istringstream header(block.substr(kUserBlockMagic.size()));
    std::string line;
    while (std::getline(header, line)) {
      if (line.rfind("size=", 0) == 0) {
        // from_chars, not stoull: a damaged block must be a one-line error, not an exception.
        const char* first = line.data() + 5;
        const char* last = line.data() + line.size();
        const auto [end, ec] = std::from_chars(first, last, size);
        if (ec != std::errc() || end != last) {
          throw InputError(name +
                           ": corrupt: its checksum block has a bad size; refusing to use it");
        }
      }
      if (line.rfind("fnv1a64=", 0) == 0) {
        // Compared as a number, not as text: a fuzzer's comparison tracing hands it the expected
        // text of a string compare and lets it forge the block, which no real damage does.
        const char* first = line.data() + 8;
        const char* last = line.data() + line.size();
        const auto [end, ec] = std::from_chars(first, last, written_hash, 16);
        has_hash = ec == std::errc() && end == last && last - first == 16;
      }
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
  if (!has_hash || hash != written_hash) {
    throw InputError(name +
                     ": corrupt: checksum mismatch (the file was damaged after it was "
                     "written); refusing to use it");
  }
}

// The whole /schedule_text dataset (version 9).
std::string read_schedule_text(hid_t file, const std::string& fname) {
  const std::string what = fname + ": '" + kScheduleTextDataset + "': ";
  const Handle ds(H5Dopen2(file, kScheduleTextDataset, H5P_DEFAULT), H5Dclose,
                  fname + ": corrupt or incomplete results (no '" + kScheduleTextDataset + "')");
  const Handle space(H5Dget_space(ds.get()), H5Sclose, what + "unreadable shape");
  const Handle type(H5Dget_type(ds.get()), H5Tclose, what + "unreadable type");
  if (H5Sget_simple_extent_ndims(space.get()) != 1 || H5Tget_class(type.get()) != H5T_INTEGER ||
      H5Tget_size(type.get()) != 1) {
    throw InputError(what + "not a 1-D byte array");
  }
  hsize_t dims[1] = {0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  std::string text(static_cast<std::size_t>(dims[0]), '\0');
  if (!text.empty() &&
      H5Dread(ds.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()) < 0) {
    throw InputError(what + "cannot be read (corrupt file, or an HDF5 without the deflate filter)");
  }
  return text;
}

int read_version(hid_t file, const std::string& name) {
  if (H5Aexists(file, kAttrSchema) <= 0) {
    throw InputError(name + ": not a kapla results file (no '" + kAttrSchema + "' attribute)");
  }
  const Handle attr(H5Aopen(file, kAttrSchema, H5P_DEFAULT), H5Aclose,
                    name + ": cannot read '" + kAttrSchema + "'");
  int version = -1;
  if (H5Aread(attr.get(), H5T_NATIVE_INT, &version) < 0) {
    throw InputError(name + ": cannot read '" + kAttrSchema + "' (corrupt file?)");
  }
  if (version < kOldestReadableSchema || version > kResultSchemaVersion) {
    throw InputError(name + ": kapla_schema version " + std::to_string(version) +
                     "; this kapla reads versions " + std::to_string(kOldestReadableSchema) +
                     " to " + std::to_string(kResultSchemaVersion));
  }
  return version;
}

ResultsFile read_checked(const fs::path& file, bool with_records, bool with_schedules) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const std::string name = file.string();
  std::error_code ec;
  if (!fs::exists(file, ec)) throw InputError(name + ": no such file");
  if (fs::is_directory(file, ec)) throw InputError(name + ": is a directory, not a results file");
  verify_checksum(file);  // before libhdf5 parses anything of it
  const Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                 name + ": cannot be opened as HDF5 (truncated or corrupt); refusing to use it");
  ResultsFile rf;
  rf.path = file;
  const int version = read_version(f.get(), name);
  rf.info.schema = version;
  rf.info.job_name = read_string_attribute(f.get(), kAttrJobName, name);
  rf.info.job_fingerprint = read_string_attribute(f.get(), kAttrJobFingerprint, name);
  rf.info.job_file = read_string_attribute(f.get(), kAttrJobFile, name);
  rf.info.kapla_version = read_string_attribute(f.get(), kAttrWriterVersion, name);

  // Always read every table: this is also the integrity check.
  std::vector<std::string> keys;
  rf.records = read_rows(f.get(), tuples_table(), version, name, &keys);
  std::map<std::string, std::size_t> row_of;
  for (std::size_t i = 0; i < rf.records.size(); ++i) {
    if (rf.records[i].tuple.key() != keys[i]) {
      throw InputError(name + ": corrupt results: key '" + keys[i] + "' does not match its fields");
    }
    if (!row_of.emplace(keys[i], i).second) {
      throw InputError(name + ": corrupt results: tuple '" + keys[i] + "' appears twice");
    }
  }
  auto record_of = [&](const std::string& k, const char* table) -> sweep::TupleRecord& {
    const auto it = row_of.find(k);
    if (it == row_of.end()) {
      throw InputError(name + ": corrupt results: table '" + table + "' names unknown tuple '" + k +
                       "'");
    }
    return rf.records[it->second];
  };
  for (auto& e : read_rows(f.get(), layers_table(), version, name)) {
    record_of(e.key, layers_table().name).result.layers.push_back(std::move(e.row));
  }
  for (auto& e : read_rows(f.get(), segments_table(), version, name)) {
    record_of(e.key, segments_table().name).result.segments.push_back(std::move(e.row));
  }
  for (auto& e : read_rows(f.get(), curves_table(), version, name)) {
    record_of(e.key, curves_table().name).result.stats.curve.push_back(e.row);
  }
  for (auto& e : read_rows(f.get(), resolved_table(), version, name)) {
    record_of(e.key, resolved_table().name).result.resolved.emplace_back(e.name, e.value);
  }
  if (with_schedules && version >= kSchedulesSchema) {
    const auto entries = read_rows(f.get(), schedules_table(), version, name);
    const std::string text = read_schedule_text(f.get(), name);
    for (const auto& e : entries) {
      if (e.offset < 0 || e.bytes <= 0 || static_cast<std::uint64_t>(e.offset) > text.size() ||
          static_cast<std::uint64_t>(e.bytes) > text.size() - static_cast<std::size_t>(e.offset)) {
        throw InputError(name + ": corrupt results: table 'schedules': tuple '" + e.key +
                         "': offset " + std::to_string(e.offset) + " and bytes " +
                         std::to_string(e.bytes) + " lie outside '" + kScheduleTextDataset + "' (" +
                         std::to_string(text.size()) + " bytes)");
      }
      record_of(e.key, schedules_table().name).result.schedule =
          text.substr(static_cast<std::size_t>(e.offset), static_cast<std::size_t>(e.bytes));
    }
  }
  std::vector<std::string> expected_keys;
  rf.info.expected = read_rows(f.get(), expected_table(), version, name, &expected_keys);
  for (std::size_t i = 0; i < expected_keys.size(); ++i) {
    if (rf.info.expected[i].tuple.key() != expected_keys[i]) {
      throw InputError(name + ": corrupt results: expected key '" + expected_keys[i] +
                       "' does not match its fields");
    }
  }
  for (const auto& r : rf.records) check_result_ranges(r, name);
  if (!with_records) rf.records.clear();
  return rf;
}

// The union of the inputs' expected tuples by key, in the order first seen; a tuple of a file
// older than schema 4 takes the strategy letter and label of a newer file's.
std::vector<ExpectedTuple> merge_expected(const std::vector<ResultsFile>& inputs) {
  std::vector<ExpectedTuple> out;
  std::map<std::string, std::size_t> seen;
  for (const auto& in : inputs) {
    for (const auto& e : in.info.expected) {
      const auto [it, fresh] = seen.emplace(e.tuple.key(), out.size());
      if (fresh)
        out.push_back(e);
      else
        take_strategy_label(out[it->second].tuple, e.tuple);
    }
  }
  return out;
}

}  // namespace

void take_strategy_label(sweep::Tuple& tuple, const sweep::Tuple& from) {
  if (tuple.strategy_letter.empty()) {
    tuple.strategy_letter = from.strategy_letter;
    tuple.strategy_label = from.strategy_label;
  }
}

void label_from_expected(ResultsFile& results) {
  std::map<std::string, const sweep::Tuple*> by_key;
  for (const auto& e : results.info.expected) by_key.emplace(e.tuple.key(), &e.tuple);
  for (auto& r : results.records) {
    if (const auto it = by_key.find(r.tuple.key()); it != by_key.end()) {
      take_strategy_label(r.tuple, *it->second);
    }
  }
}

bool looks_like_hdf5(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(kUserBlockMagic.size(), '\0');
  if (in.read(head.data(), static_cast<std::streamsize>(head.size())) && head == kUserBlockMagic)
    return true;
  return has_hdf5_signature(in);
}

ResultsFile read_results_file(const fs::path& file, Schedules schedules) {
  return read_checked(file, true, schedules == Schedules::Read);
}

ResultsFileInfo check_results_file(const fs::path& file) {
  return read_checked(file, false, true).info;
}

std::vector<ResultsFile> read_results(const fs::path& file_or_dir, Schedules schedules) {
  std::error_code ec;
  if (!fs::is_directory(file_or_dir, ec)) return {read_results_file(file_or_dir, schedules)};
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
  for (const auto& f : files) out.push_back(read_results_file(f, schedules));
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
      } else if (it->second->result.schedule.empty()) {
        it->second = &r;  // the same result, with its schedule recorded
      }
    }
  }
  for (const auto& [key, r] : by_key) merged.records.push_back(*r);
  merged.info.expected = merge_expected(inputs);
  label_from_expected(merged);
  return merged;
}

}  // namespace kapla::io
