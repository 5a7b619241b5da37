// HDF5 results writer and the sweep's crash-safe sink (see hdf5_sink.hpp).
#include "io/hdf5_sink.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <type_traits>
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

hid_t member_type(ColumnType t, hid_t str) {
  switch (t) {
    case ColumnType::F64:
      return H5T_NATIVE_DOUBLE;
    case ColumnType::I64:
      return H5T_NATIVE_INT64;
    case ColumnType::U64:
      return H5T_NATIVE_UINT64;
    case ColumnType::Str:
      return str;
  }
  return str;
}

void write_string_attribute(hid_t obj, const char* name, const std::string& value) {
  const auto type = handle(string_type(), H5Tclose, "string type");
  const auto space = handle(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  const auto attr = handle(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                           H5Aclose, std::string("attribute ") + name);
  const char* p = value.c_str();
  check(H5Awrite(attr.get(), type.get(), &p), std::string("writing attribute ") + name);
}

void write_strings_attribute(hid_t obj, const char* name, const std::vector<std::string>& values) {
  const auto type = handle(string_type(), H5Tclose, "string type");
  const hsize_t dims[1] = {values.size()};
  const auto space = handle(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  const auto attr = handle(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                           H5Aclose, std::string("attribute ") + name);
  std::vector<const char*> p;
  for (const auto& v : values) p.push_back(v.c_str());
  check(H5Awrite(attr.get(), type.get(), p.data()), std::string("writing attribute ") + name);
}

void write_int_attribute(hid_t obj, const char* name, int value) {
  const auto space = handle(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
  const auto attr =
      handle(H5Acreate2(obj, name, H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
             std::string("attribute ") + name);
  check(H5Awrite(attr.get(), H5T_NATIVE_INT, &value), std::string("writing attribute ") + name);
}

// Writes `rows` as one compound dataset with the table's columns (8-byte numbers, variable-length
// UTF-8 strings), and the table's description and its columns' units and descriptions as
// attributes.
template <class Row>
void write_table(hid_t file, const Table<Row>& table, const std::vector<Row>& rows) {
  const auto& columns = table.columns;
  const auto str = handle(string_type(), H5Tclose, "string type");
  std::size_t size = 0;
  std::vector<std::size_t> offsets;
  for (const auto& c : columns) {
    offsets.push_back(size);
    size += c.type == ColumnType::Str ? sizeof(const char*) : 8;
  }
  const auto type = handle(H5Tcreate(H5T_COMPOUND, size), H5Tclose, "compound type");
  for (std::size_t i = 0; i < columns.size(); ++i) {
    check(H5Tinsert(type.get(), columns[i].name.c_str(), offsets[i],
                    member_type(columns[i].type, str.get())),
          "H5Tinsert");
  }
  // The cells own the strings whose pointers go into the buffer.
  std::vector<Cell> cells;
  cells.reserve(rows.size() * columns.size());
  std::vector<unsigned char> buffer(std::max<std::size_t>(1, rows.size() * size));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const Cell& cell = cells.emplace_back(columns[i].get(rows[r]));
      KAPLA_ASSERT(cell.index() == static_cast<std::size_t>(columns[i].type),
                   std::string("table ") + table.name + ": column " + columns[i].name +
                       " gave a value of another type");
      unsigned char* dst = buffer.data() + r * size + offsets[i];
      std::visit(
          [dst](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
              const char* p = v.c_str();
              std::memcpy(dst, &p, sizeof p);
            } else {
              std::memcpy(dst, &v, sizeof(T));
            }
          },
          cell);
    }
  }
  const hsize_t dims[1] = {rows.size()};
  const auto space = handle(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  const auto dcpl = handle(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dataset properties");
  check(H5Pset_obj_track_times(dcpl.get(), false), "H5Pset_obj_track_times");
  const auto ds = handle(
      H5Dcreate2(file, table.name, type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
      H5Dclose, std::string("creating table ") + table.name);
  if (!rows.empty()) {
    const auto dxpl = handle(transfer_plist(buffer.size()), H5Pclose, "transfer properties");
    check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, dxpl.get(), buffer.data()),
          std::string("writing table ") + table.name);
  }
  std::vector<std::string> units, descriptions;
  for (const auto& c : columns) {
    units.push_back(c.unit);
    descriptions.push_back(c.description);
  }
  write_string_attribute(ds.get(), kAttrTableDescription, table.description);
  write_strings_attribute(ds.get(), kAttrColumnUnits, units);
  write_strings_attribute(ds.get(), kAttrColumnDescriptions, descriptions);
}

// The recorded schedules' bytes (result_schema.hpp, kScheduleTextDataset): deflated when the
// library has the filter (Debian's has; a schedule document shrinks about tenfold, and
// neighbouring tuples' documents share most of their text).
void write_schedule_text(hid_t file, const std::string& text) {
  const hsize_t dims[1] = {text.size()};
  const auto space = handle(H5Screate_simple(1, dims, nullptr), H5Sclose, "dataspace");
  const auto dcpl = handle(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dataset properties");
  check(H5Pset_obj_track_times(dcpl.get(), false), "H5Pset_obj_track_times");
  if (!text.empty() && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
    const hsize_t chunk[1] = {std::min<hsize_t>(text.size(), kScheduleChunkBytes)};
    check(H5Pset_chunk(dcpl.get(), 1, chunk), "H5Pset_chunk");
    check(H5Pset_deflate(dcpl.get(), kScheduleDeflateLevel), "H5Pset_deflate");
  }
  const auto ds = handle(H5Dcreate2(file, kScheduleTextDataset, H5T_STD_U8LE, space.get(),
                                    H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                         H5Dclose, std::string("creating ") + kScheduleTextDataset);
  if (!text.empty()) {
    check(H5Dwrite(ds.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()),
          std::string("writing ") + kScheduleTextDataset);
  }
  write_string_attribute(ds.get(), kAttrTableDescription,
                         "the recorded schedules (kapla schedule --json documents, compact) one "
                         "after the other; /schedules gives each tuple's offset and bytes");
}

void write_tables(hid_t file, const ResultsFile& results) {
  std::vector<LayerEntry> layers;
  std::vector<SegmentEntry> segments;
  std::vector<CurveEntry> curves;
  std::vector<ResolvedEntry> resolved;
  std::vector<ScheduleEntry> schedules;
  std::string schedule_text;
  for (const auto& rec : results.records) {
    const std::string key = rec.tuple.key();
    const auto& r = rec.result;
    for (std::size_t i = 0; i < r.layers.size(); ++i) {
      layers.push_back({key, static_cast<std::int64_t>(i), r.layers[i]});
    }
    for (const auto& s : r.segments) segments.push_back({key, s});
    for (std::size_t i = 0; i < r.stats.curve.size(); ++i) {
      curves.push_back({key, static_cast<std::int64_t>(i), r.stats.curve[i]});
    }
    for (const auto& [name, value] : r.resolved) resolved.push_back({key, name, value});
    if (!r.schedule.empty()) {
      schedules.push_back({key, static_cast<std::int64_t>(schedule_text.size()),
                           static_cast<std::int64_t>(r.schedule.size())});
      schedule_text += r.schedule;
    }
  }
  write_table(file, tuples_table(), results.records);
  write_table(file, layers_table(), layers);
  write_table(file, segments_table(), segments);
  write_table(file, curves_table(), curves);
  write_table(file, resolved_table(), resolved);
  write_table(file, expected_table(), results.info.expected);
  write_table(file, schedules_table(), schedules);
  write_schedule_text(file, schedule_text);
}

void fsync_path(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return;  // best effort for directories on odd filesystems
  ::fsync(fd);
  ::close(fd);
}

std::string temp_suffix() {
  static std::atomic<int> counter = 0;  // parts are written by the BatchedWriter's thread
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
      write_tables(f.get(), results);
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
    : output_(std::move(output)),
      info_(std::move(info)),
      writer_([this](const std::vector<sweep::TupleRecord>& r) { write_part(r); },
              std::chrono::milliseconds(500)) {}

fs::path Hdf5Sink::parts_dir(const fs::path& output) {
  return fs::path(output.string() + ".parts");
}

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
                       "' with other options or budget (fingerprint " + rf.info.job_fingerprint +
                       ", this job " + info_.job_fingerprint + "); use another --out or remove it");
    }
    for (const auto& r : rf.records) keys.insert(r.tuple.key());
  };
  std::error_code ec;
  if (fs::exists(output_, ec)) {
    if (fs::is_directory(output_, ec)) {
      throw InputError(output_.string() + ": is a directory; the output must be a file path");
    }
    take(read_results_file(output_, Schedules::Skip));  // keys only
  }
  const fs::path parts = parts_dir(output_);
  if (fs::is_directory(parts, ec)) {
    std::vector<fs::path> stale;
    for (const auto& entry : fs::directory_iterator(parts)) {
      const std::string name = entry.path().filename().string();
      if (is_temp_name(name)) {
        stale.push_back(entry.path());
      } else if (entry.path().extension() == ".h5") {
        take(read_results_file(entry.path(), Schedules::Skip));
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
    if (entry.path().filename().string().rfind(prefix, 0) == 0)
      stale_merges.push_back(entry.path());
  }
  for (const auto& p : stale_merges) fs::remove(p, ec);
  return keys;
}

namespace {

void create_parts_dir(const fs::path& parts) {
  std::error_code ec;
  fs::create_directories(parts, ec);
  if (ec) throw InputError(parts.string() + ": cannot create directory: " + ec.message());
}

}  // namespace

void Hdf5Sink::begin() {
  // The job's /expected table is written once per run, not into every part: a part that
  // carried it grew with the job (640 KB per tuple at 1000 designs, 6 MB at 10^4) and the
  // merge read it once per part.
  ResultsFile manifest;
  manifest.info = info_;
  const fs::path parts = parts_dir(output_);
  create_parts_dir(parts);
  write_results_file(parts / kExpectedPartName, manifest);
}

void Hdf5Sink::write(const sweep::TupleRecord& record) { writer_.add(record); }

void Hdf5Sink::flush() { writer_.drain(); }

void Hdf5Sink::write_part(const std::vector<sweep::TupleRecord>& records) const {
  ResultsFile part;
  part.info = info_;
  part.info.expected.clear();  // in the run's manifest (begin)
  part.records = records;
  for (auto& r : part.records) r.provenance.hdf5_version = hdf5_library_version();
  const fs::path parts = parts_dir(output_);
  create_parts_dir(parts);
  write_results_file(parts / part_name(records.front().tuple.key()), part);
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
  if (expected != nullptr) {
    merged.info = *expected;
    label_from_expected(merged);
  }
  write_results_file(output, merged);
  for (const auto& p : part_files) fs::remove(p, ec);
  fs::remove(parts, ec);  // only if empty (a concurrent writer's part would stay)
  return merged.records.size();
}

}  // namespace

void Hdf5Sink::finish() {
  writer_.drain();
  merge_into_output(output_, &info_);
}

std::vector<sweep::TupleRecord> Hdf5Sink::recorded() { return read_results_file(output_).records; }

std::size_t finish_output(const fs::path& output) { return merge_into_output(output, nullptr); }

}  // namespace kapla::io
