// The HDF5 results tables, column by column (see result_schema.hpp). To add a column: add one
// line here (with `since` = the new kResultSchemaVersion) and describe it in
// docs/hdf5_schema.md; the writer, the reader and the scripts follow.
#include "io/result_schema.hpp"

#include <string>
#include <type_traits>
#include <utility>

#include "core/errors.hpp"

namespace kapla::io {
namespace {

using sweep::TupleRecord;

// Units, named once.
constexpr const char* kEnergyUnit = "hardware energy unit (J for the shipped presets)";
constexpr const char* kCycles = "cycles";
constexpr const char* kSeconds = "s";
constexpr const char* kCount = "count";
constexpr const char* kFraction = "fraction";

template <class T>
constexpr ColumnType type_of() {
  if constexpr (std::is_floating_point_v<T>)
    return ColumnType::F64;
  else if constexpr (std::is_same_v<T, std::string>)
    return ColumnType::Str;
  else if constexpr (std::is_unsigned_v<T>)
    return ColumnType::U64;
  else
    return ColumnType::I64;
}

template <class T>
Cell to_cell(const T& v) {
  constexpr ColumnType t = type_of<T>();
  if constexpr (t == ColumnType::F64)
    return static_cast<double>(v);
  else if constexpr (t == ColumnType::Str)
    return v;
  else if constexpr (t == ColumnType::U64)
    return static_cast<std::uint64_t>(v);
  else
    return static_cast<std::int64_t>(v);
}

template <class T>
T from_cell(const Cell& c) {
  constexpr ColumnType t = type_of<T>();
  if constexpr (t == ColumnType::F64)
    return static_cast<T>(std::get<double>(c));
  else if constexpr (t == ColumnType::Str)
    return std::get<std::string>(c);
  else if constexpr (t == ColumnType::U64)
    return static_cast<T>(std::get<std::uint64_t>(c));
  else
    return static_cast<T>(std::get<std::int64_t>(c));
}

/// A column stored as a plain member: `ref` is a generic lambda returning a reference to the
/// member of a (const or mutable) row, used for writing and for reading alike.
template <class Row, class Ref>
Column<Row> field(std::string name, std::string unit, std::string description, Ref ref,
                  int since = kOldestReadableSchema) {
  using T = std::decay_t<decltype(ref(std::declval<Row&>()))>;
  Column<Row> c;
  c.name = std::move(name);
  c.type = type_of<T>();
  c.unit = std::move(unit);
  c.description = std::move(description);
  c.get = [ref](const Row& r) { return to_cell<T>(ref(r)); };
  c.set = [ref](Row& r, const Cell& v) { ref(r) = from_cell<T>(v); };
  c.since = since;
  return c;
}

/// `energy` and its parts `energy_<part>` of any row that has `energy` and `energy_parts`.
template <class Row, class Ref>
void add_energy(std::vector<Column<Row>>& cols, const std::string& of, Ref ref) {
  cols.push_back(field<Row>(
      "energy", kEnergyUnit, "energy of " + of + " (= its total cost)", [ref](auto& r) -> auto& {
        return ref(r).energy;
      }));
  for (std::size_t i = 0; i < sweep::kEnergyPartNames.size(); ++i) {
    const std::string part(sweep::kEnergyPartNames[i]);
    cols.push_back(field<Row>(
        "energy_" + part, kEnergyUnit, part + " part of the energy",
        [ ref, i ](auto& r) -> auto& { return ref(r).energy_parts[i]; }));
  }
}

/// The tuple key, computed from the row's tuple on writing. On reading it is ignored here:
/// the reader checks it against the row's fields and joins the other tables on it.
template <class Row, class TupleOf>
Column<Row> key_of(TupleOf tuple_of) {
  Column<Row> c;
  c.name = "key";
  c.type = ColumnType::Str;
  c.description =
      "tuple key network:hardware:strategy:b<batch>:s<seed>[:p<params hash>][:i<imperfect>]";
  c.get = [tuple_of](const Row& r) -> Cell { return tuple_of(r).key(); };
  c.set = [](Row&, const Cell&) {};
  return c;
}

/// The key column of the per-tuple tables (layers, segments, curves, resolved).
template <class Row>
Column<Row> entry_key() {
  return field<Row>(
      "key", "", "tuple key (joins /tuples)", [](auto& r) -> auto& { return r.key; });
}

/// A design point's parameters (schema 5, docs/codesign.md): "" and zeros unless the tuple's
/// hardware is a point of a design space, so rows of older files (which had none) are right.
template <class Row, class TupleOf>
void add_design(std::vector<Column<Row>>& cols, TupleOf t) {
  constexpr int kSince = 5;
  auto col = [&](const char* name, const char* unit, const std::string& what, auto ref) {
    cols.push_back(field<Row>(name, unit, what, ref, kSince));
  };
  const std::string zero = " (0 unless a design point)";
  col(
      "design_base", "",
      "base hardware of the design space (\"\" unless a design point)", [t](auto& r) -> auto& {
        return t(r).design.base;
      });
  col(
      "design_nodes_h", kCount,
      "node array rows" + zero, [t](auto& r) -> auto& { return t(r).design.nodes_h; });
  col(
      "design_nodes_w", kCount,
      "node array columns" + zero, [t](auto& r) -> auto& { return t(r).design.nodes_w; });
  col(
      "design_pe_h", kCount,
      "PE array rows per node" + zero, [t](auto& r) -> auto& { return t(r).design.pe_h; });
  col(
      "design_pe_w", kCount,
      "PE array columns per node" + zero, [t](auto& r) -> auto& { return t(r).design.pe_w; });
  col(
      "design_gbuf_bytes", "bytes",
      "global buffer per node" + zero, [t](auto& r) -> auto& { return t(r).design.gbuf_bytes; });
  col(
      "design_regf_bytes", "bytes",
      "register file per PE" + zero, [t](auto& r) -> auto& { return t(r).design.regf_bytes; });
  col(
      "design_array_bus_width_bits", "bits",
      "array bus width, 0 = unlimited (also 0 unless a design point)", [t](auto& r) -> auto& {
        return t(r).design.array_bus_width_bits;
      });
  col(
      "design_dram_bandwidth", "bytes/cycle",
      "DRAM bandwidth, inf = unlimited" + zero, [t](auto& r) -> auto& {
        return t(r).design.dram_bandwidth_bytes_per_cycle;
      });
  col(
      "design_area_mm2", "mm^2",
      "chip area by the technology model (0 unless a design point with a technology)",
      [t](auto& r) -> auto& { return t(r).design.area_mm2; });
  cols.push_back(field<Row>(
      "design_min_pe_utilisation", kFraction,
      "the space's PE-utilisation floor; a design with a tuple below it is infeasible (0 = "
      "none, and 0 unless a design point)",
      [t](auto& r) -> auto& { return t(r).design.min_pe_utilisation; }, 8));
}

/// The tuple's axes, shared by /tuples and /expected.
template <class Row, class TupleOf>
void add_axes(std::vector<Column<Row>>& cols, TupleOf t) {
  cols.push_back(key_of<Row>(t));
  cols.push_back(field<Row>(
      "network", "",
      "network name, as in the job file", [t](auto& r) -> auto& { return t(r).network; }));
  cols.push_back(field<Row>(
      "hardware", "", "hardware name or file, as in the job file", [t](auto& r) -> auto& {
        return t(r).hardware;
      }));
  cols.push_back(field<Row>(
      "strategy", "", "strategy registry name", [t](auto& r) -> auto& { return t(r).strategy; }));
  cols.push_back(field<Row>(
      "strategy_params", "",
      "the strategy's params as canonical JSON, \"\" if none", [t](auto& r) -> auto& {
        return t(r).strategy_params;
      }));
  cols.push_back(field<Row>(
      "strategy_letter", "", "the strategy's letter (its registry entry)",
      [t](auto& r) -> auto& { return t(r).strategy_letter; }, 4));
  cols.push_back(field<Row>(
      "strategy_label", "",
      "display label: the letter, with the params if any "
      "(R[max_evaluations=100])",
      [t](auto& r) -> auto& { return t(r).strategy_label; }, 4));
  cols.push_back(field<Row>(
      "batch", "", "batch size", [t](auto& r) -> auto& { return t(r).batch; }));
  add_design(cols, t);
  Column<Row> imperfect;  // the job's options.imperfect: part of the key unless none
  imperfect.name = "imperfect";
  imperfect.type = ColumnType::Str;
  imperfect.description = "imperfect factorization searched: none, spatial or full";
  imperfect.get = [t](const Row& r) -> Cell {
    return std::string(model::imperfect_name(t(r).imperfect));
  };
  imperfect.set = [t](Row& r, const Cell& v) {
    t(r).imperfect = model::parse_imperfect(std::get<std::string>(v));
  };
  imperfect.since = 6;
  cols.push_back(std::move(imperfect));
  cols.push_back(field<Row>(
      "seed", "", "the job's seed for this tuple (the seeds axis)", [t](auto& r) -> auto& {
        return t(r).seed;
      }));
}

std::vector<Column<TupleRecord>> tuple_columns() {
  std::vector<Column<TupleRecord>> c;
  add_axes(
      c, [](auto& r) -> auto& { return r.tuple; });
  using R = TupleRecord;
  c.push_back(field<R>(
      "search_seed", "", "seed given to the search: mix(seed, hash(key))",
      [](auto& r) -> auto& { return r.search_seed; }));
  Column<R> status;
  status.name = "status";
  status.type = ColumnType::Str;
  status.description = "ok, no_solution, timeout or failed";
  status.get = [](const R& r) -> Cell { return std::string(sweep::status_name(r.result.status)); };
  status.set = [](R& r, const Cell& v) {
    r.result.status = sweep::parse_status(std::get<std::string>(v));
  };
  c.push_back(std::move(status));
  c.push_back(field<R>(
      "message", "", "why, for any status but ok",
      [](auto& r) -> auto& { return r.result.message; }));
  c.push_back(field<R>(
      "total_cost", kEnergyUnit, "nn_dataflow's total cost of the best schedule (its energy)",
      [](auto& r) -> auto& { return r.result.total_cost; }));
  add_energy(
      c, "the network schedule", [](auto& r) -> auto& { return r.result; });
  c.push_back(field<R>(
      "time", kCycles, "total time of the network schedule",
      [](auto& r) -> auto& { return r.result.time; }));
  c.push_back(field<R>(
      "edp", std::string(kEnergyUnit) + " x cycles", "energy * time",
      [](auto& r) -> auto& { return r.result.edp; }));
  c.push_back(field<R>(
      "macs", kCount, "multiply-accumulates of the network at the batch (0 before version 7)",
      [](auto& r) -> auto& { return r.result.macs; }, 7));
  c.push_back(field<R>(
      "pe_utilisation", kFraction,
      "macs / (nodes x PEs per node x time): the PE-cycles doing a MAC (0 without a schedule, "
      "and before version 8)",
      [](auto& r) -> auto& { return r.result.pe_utilisation; }, 8));
  c.push_back(field<R>(
      "search_seconds", kSeconds, "wall-clock time of the search (run-dependent)",
      [](auto& r) -> auto& { return r.result.stats.wall_seconds; }));
  c.push_back(field<R>(
      "cpu_seconds", kSeconds, "process CPU time during the tuple, all threads (run-dependent)",
      [](auto& r) -> auto& { return r.result.stats.cpu_seconds; }));
  c.push_back(field<R>(
      "threads", kCount, "OpenMP threads of the search (run-dependent)",
      [](auto& r) -> auto& { return r.result.stats.threads; }));
  c.push_back(field<R>(
      "evaluated", kCount, "cost-model evaluations by the strategy",
      [](auto& r) -> auto& { return r.result.stats.evaluated; }));
  c.push_back(field<R>(
      "valid", kCount, "valid network schedules kept (<= ntops)",
      [](auto& r) -> auto& { return r.result.stats.valid; }));
  c.push_back(field<R>(
      "pruned", kCount, "(segment, constraint) pairs dropped by inter-layer pruning",
      [](auto& r) -> auto& { return r.result.stats.pruned; }));
  auto prov = [&c](const char* name, const char* what, auto ref) {
    c.push_back(field<R>(name, "", std::string(what) + " (run-dependent)", ref));
  };
  prov(
      "kapla_version", "version of the kapla binary",
      [](auto& r) -> auto& { return r.provenance.kapla_version; });
  prov(
      "git_hash", "git commit of the binary",
      [](auto& r) -> auto& { return r.provenance.git_hash; });
  prov(
      "compiler", "compiler of the binary", [](auto& r) -> auto& { return r.provenance.compiler; });
  prov(
      "mpi_version", "MPI library, \"\" without MPI",
      [](auto& r) -> auto& { return r.provenance.mpi_version; });
  prov(
      "hdf5_version", "HDF5 library", [](auto& r) -> auto& { return r.provenance.hdf5_version; });
  prov(
      "host", "host the tuple ran on", [](auto& r) -> auto& { return r.provenance.host; });
  c.push_back(field<R>(
      "rank", "", "MPI rank the tuple ran on (run-dependent)",
      [](auto& r) -> auto& { return r.provenance.rank; }));
  prov(
      "slurm_job_id", "SLURM_JOB_ID, \"\" outside Slurm",
      [](auto& r) -> auto& { return r.provenance.slurm_job_id; });
  prov(
      "slurm_array_job_id", "SLURM_ARRAY_JOB_ID, \"\" outside Slurm",
      [](auto& r) -> auto& { return r.provenance.slurm_array_job_id; });
  prov(
      "slurm_array_task_id", "SLURM_ARRAY_TASK_ID, \"\" outside Slurm",
      [](auto& r) -> auto& { return r.provenance.slurm_array_task_id; });
  prov(
      "command_line", "command line of the run",
      [](auto& r) -> auto& { return r.provenance.command_line; });
  prov(
      "start_time", "start, ISO 8601 UTC",
      [](auto& r) -> auto& { return r.provenance.start_time; });
  prov(
      "end_time", "end, ISO 8601 UTC", [](auto& r) -> auto& { return r.provenance.end_time; });
  return c;
}

std::vector<Column<LayerEntry>> layer_columns() {
  using R = LayerEntry;
  std::vector<Column<R>> c{entry_key<R>()};
  c.push_back(field<R>(
      "layer_index", "", "position in scheduling order", [](auto& r) -> auto& { return r.index; }));
  c.push_back(field<R>(
      "layer", "", "layer name", [](auto& r) -> auto& { return r.row.layer; }));
  c.push_back(field<R>(
      "segment", "", "pipeline segment index", [](auto& r) -> auto& { return r.row.segment; }));
  add_energy(
      c, "the layer", [](auto& r) -> auto& { return r.row; });
  c.push_back(field<R>(
      "time", kCycles, "the layer's time", [](auto& r) -> auto& { return r.row.time; }));
  c.push_back(field<R>(
      "macs", kCount,
      "the layer's multiply-accumulates at the batch; 0 for kinds without MACs (pooling, "
      "element-wise) and before version 7",
      [](auto& r) -> auto& { return r.row.macs; }, 7));
  c.push_back(field<R>(
      "partition", "", "node partition in nesting order, e.g. OUTP=2x2 OFMP=1x1",
      [](auto& r) -> auto& { return r.row.partition; }));
  c.push_back(field<R>(
      "blocking", "", "blocking factors IFM,OFM,BAT per level, outermost first, '/' between levels",
      [](auto& r) -> auto& { return r.row.blocking; }));
  c.push_back(field<R>(
      "orders", "", "loop orders per blocking level, outer to inner, '/' between",
      [](auto& r) -> auto& { return r.row.orders; }));
  return c;
}

std::vector<Column<SegmentEntry>> segment_columns() {
  using R = SegmentEntry;
  return {entry_key<R>(),
          field<R>(
              "segment", "", "segment index", [](auto& r) -> auto& { return r.row.segment; }),
          field<R>(
              "layers", "", "the segment's layers, space-separated",
              [](auto& r) -> auto& { return r.row.layers; }),
          field<R>(
              "energy", kEnergyUnit, "sum of the layers' energy",
              [](auto& r) -> auto& { return r.row.energy; }),
          field<R>(
              "time", kCycles, "the segment's time", [](auto& r) -> auto& { return r.row.time; })};
}

std::vector<Column<CurveEntry>> curve_columns() {
  using R = CurveEntry;
  return {entry_key<R>(),
          field<R>(
              "point", "", "index along the curve", [](auto& r) -> auto& { return r.point; }),
          field<R>(
              "evaluated", kCount, "cost-model evaluations so far (cumulative)",
              [](auto& r) -> auto& { return r.row.evaluated; }),
          field<R>(
              "seconds", kSeconds, "since the start of the search (run-dependent)",
              [](auto& r) -> auto& { return r.row.seconds; }),
          field<R>(
              "best_cost", kEnergyUnit,
              "SUM OVER LAYERS of each layer's best cost so far: a lower bound of the "
              "tuple's total_cost, not a network schedule's cost",
              [](auto& r) -> auto& { return r.row.best_cost; })};
}

std::vector<Column<ResolvedEntry>> resolved_columns() {
  using R = ResolvedEntry;
  return {entry_key<R>(),
          field<R>(
              "name", "", "hardware.*, options.*, strategy.* or stats.* name",
              [](auto& r) -> auto& { return r.name; }),
          field<R>(
              "value", "", "its value as text", [](auto& r) -> auto& { return r.value; })};
}

std::vector<Column<ScheduleEntry>> schedule_columns() {
  using R = ScheduleEntry;
  return {entry_key<R>(),
          field<R>(
              "offset", "bytes", "where the tuple's schedule document starts in /schedule_text",
              [](auto& r) -> auto& { return r.offset; }),
          field<R>(
              "bytes", "bytes", "its length", [](auto& r) -> auto& { return r.bytes; })};
}

std::vector<Column<ExpectedTuple>> expected_columns() {
  using R = ExpectedTuple;
  std::vector<Column<R>> c;
  add_axes(
      c, [](auto& r) -> auto& { return r.tuple; });
  c.push_back(field<R>(
      "job_name", "", "the job that asked for the tuple",
      [](auto& r) -> auto& { return r.job_name; }));
  return c;
}

}  // namespace

const Table<TupleRecord>& tuples_table() {
  static const Table<TupleRecord> t{"tuples", "one row per tuple that ran, sorted by key",
                                    tuple_columns()};
  return t;
}

const Table<LayerEntry>& layers_table() {
  static const Table<LayerEntry> t{
      "layers", "one row per scheduled layer of each tuple, sorted by (key, layer_index)",
      layer_columns()};
  return t;
}

const Table<SegmentEntry>& segments_table() {
  static const Table<SegmentEntry> t{
      "segments", "one row per pipeline segment of each tuple, sorted by (key, segment)",
      segment_columns()};
  return t;
}

const Table<CurveEntry>& curves_table() {
  static const Table<CurveEntry> t{
      "curves",
      "best-so-far points of the sampling strategies (R, M), sorted by (key, point); best_cost "
      "is a sum of per-layer bests, a lower bound of total_cost",
      curve_columns()};
  return t;
}

const Table<ResolvedEntry>& resolved_table() {
  static const Table<ResolvedEntry> t{
      "resolved", "the resolved hardware, options, strategy options and search counters per tuple",
      resolved_columns()};
  return t;
}

const Table<ExpectedTuple>& expected_table() {
  static const Table<ExpectedTuple> t{
      "expected", "every tuple the job(s) asked for, in job order, whether it ran or not",
      expected_columns(), 3};
  return t;
}

const Table<ScheduleEntry>& schedules_table() {
  static const Table<ScheduleEntry> t{
      "schedules",
      "one row per tuple with a recorded schedule, sorted by key: its kapla schedule --json "
      "document (without search_seconds) in /schedule_text",
      schedule_columns(), kSchedulesSchema};
  return t;
}

}  // namespace kapla::io
