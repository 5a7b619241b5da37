// `kapla schedule`'s text for people (see schedule_text.hpp).
#include "cli/schedule_text.hpp"

#include <cstdio>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "pricing/schedule_geometry.hpp"
#include "schedule/layer_text.hpp"
#include "schedule/resource_builder.hpp"
#include "search/strategy_registry.hpp"
#include "sweep/progress_log.hpp"

namespace kapla::cli {
namespace {

std::string g6(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

std::string percent(double part, double whole) {
  if (!(whole > 0)) return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * part / whole);
  return buf;
}

// Energy by kind of a layer or a network: MAC, one per memory level, NoC, static.
struct EnergyParts {
  double op = 0;
  PerMemLevel<double> access{};
  double noc = 0;
  double stat = 0;
  double total() const {
    double t = op + noc + stat;
    for (double a : access) t += a;
    return t;
  }
};

EnergyParts energy_of(const pricing::LayerSchedule& s, const model::UnitCosts& c) {
  EnergyParts e;
  e.op = s.cost_op;
  const auto acc = s.total_accesses();
  for (auto m : all_values<MemLevel>()) e.access[m] = acc[m] * c.mem_hier[m];
  e.noc = s.cost_noc;
  e.stat = s.cost_static;
  return e;
}

void put_energy(std::ostream& out, const EnergyParts& e, double total) {
  out << "MAC " << g6(e.op) << " (" << percent(e.op, total) << ")";
  for (auto m : all_values<MemLevel>()) {
    out << ", " << name_of(m) << ' ' << g6(e.access[m]) << " (" << percent(e.access[m], total)
        << ")";
  }
  out << ", NoC " << g6(e.noc) << " (" << percent(e.noc, total) << "), static " << g6(e.stat)
      << " (" << percent(e.stat, total) << ")";
}

// How the layer's logical PE set becomes the physical one (nn_dataflow-spec.md §6.2): folded
// in time when larger than the array (each fold a pass over the smaller set), replicated over
// the spare PEs, and, for row stationary, a set too wide for the array wrapped onto spare rows
// (the physical set is then taller than folds and replicas explain).
void put_array_mapping(std::ostream& out, const cost::MapGeometry& g, const model::Hardware& hw) {
  const bool systolic = hw.array_mapping == model::ArrayMapping::Systolic;
  out << "  PE mapping " << g.dim_lpeset << " logical PEs ("
      << (systolic ? "ofmap pixels x ofmaps" : "filter rows x ofmap rows") << "), time folds "
      << g.fold << " of " << g.dim_flpeset << ", replicas " << g.repl;
  const std::int64_t stacked = g.dim_flpeset.h * g.repl.h;
  if (stacked > 0 && g.dim_ppeset.h > stacked && g.dim_ppeset.h % stacked == 0) {
    out << ", rows wrapped " << g.dim_ppeset.h / stacked << "x";
  }
  out << " -> " << g.dim_ppeset << " of the " << hw.pe_array << " PEs ("
      << "mapping utilisation " << percent(g.util, 1) << ")\n";
}

// Blocking levels of nn_dataflow's loop blocking: trips outside the GBUF (refills from DRAM),
// outside the REGF (refills from the GBUF), and inside the REGF.
constexpr const char* kBlockingLevels[] = {"DRAM>GBUF", "GBUF>REGF", "REGF"};

}  // namespace

std::string defaults_help() {
  std::ostringstream os;
  os << "Defaults (kapla's one set, also for job files without \"options\"; nn_dataflow's "
        "command line):\n  strategy exhaustive (B), cost model kapla, threads 1";
  for (const auto& [name, value] : model::describe(model::default_options())) {
    os << "\n  " << name << " = " << value;
  }
  // The options left to each strategy (search::options_for), from the registry.
  os << "\n  strategy defaults: rs_fold_variants";
  const auto registry = search::builtin_strategies();
  for (const auto& e : registry.entries()) {
    os << ' ' << e.letter << '=' << (e.rs_fold_variants ? "true" : "false");
  }
  return os.str();
}

std::string_view energy_unit(const model::Hardware& hw) {
  return hw.energy_in_joules ? "J" : "relative";
}

void print_schedule(std::ostream& out, const ScheduleView& v, const schedule::NetworkScheme& best) {
  const std::string unit(energy_unit(v.hw));
  EnergyParts net_energy;
  for (std::size_t l : best.order()) {
    const auto e = energy_of(*best.get(l), v.costs);
    net_energy.op += e.op;
    for (auto m : all_values<MemLevel>()) net_energy.access[m] += e.access[m];
    net_energy.noc += e.noc;
    net_energy.stat += e.stat;
  }
  const double total = best.total_cost();
  out << "\nenergy (" << unit << ", total " << g6(total) << "): ";
  put_energy(out, net_energy, total);
  out << "\ntime (cycles): " << g6(best.total_time()) << "\n";

  // Segments: the layers scheduled together; several spatial stages run pipelined.
  std::map<int, std::vector<std::size_t>> segments;
  for (std::size_t l : best.order()) segments[best.get(l)->sched_seq[0]].push_back(l);
  const auto& timings = best.segment_timings();
  out << "\nsegments (" << segments.size() << ")\n";
  for (const auto& [index, layers] : segments) {
    std::set<int> stages;
    for (std::size_t l : layers) stages.insert(best.get(l)->sched_seq[1]);
    out << "  segment " << index << ":";
    for (std::size_t l : layers) out << ' ' << v.net.layer_name(l);
    out << "  [" << layers.size() << (layers.size() == 1 ? " layer" : " layers");
    if (stages.size() > 1) out << ", pipelined over " << stages.size() << " spatial stages";
    if (layers.size() > stages.size()) out << ", temporal sharing within a stage";
    if (index >= 0 && static_cast<std::size_t>(index) < timings.size()) {
      const auto& t = timings[static_cast<std::size_t>(index)];
      out << ", time " << g6(t.time()) << " cycles (DRAM " << g6(t.dram_time()) << ")";
    }
    out << "]\n";
  }

  out << "\nlayers (energy in " << unit << ", time in cycles)\n";
  const double pes = static_cast<double>(v.hw.pe_array.h * v.hw.pe_array.w);
  pricing::LayerProblem problem;  // what the mapping depends on (not the layouts or constraints)
  problem.batch = v.batch;
  problem.resource = schedule::build_resource(v.hw);
  problem.options = v.options;
  for (std::size_t l : best.order()) {
    const auto& s = *best.get(l);
    out << v.net.layer_name(l) << "  (segment " << s.sched_seq[0] << ", stage " << s.sched_seq[1]
        << '.' << s.sched_seq[2] << ")\n";
    out << "  time       " << g6(s.time) << " (processing " << g6(s.proc_time) << ", array bus "
        << g6(s.bus_time) << ", DRAM " << g6(s.dram_time) << ")\n";
    const double busy = s.proc_time * static_cast<double>(s.num_nodes) * pes;
    out << "  PE array   "
        << (v.hw.array_mapping == model::ArrayMapping::Systolic ? "systolic" : "row stationary")
        << ", " << s.num_nodes << (s.num_nodes == 1 ? " node" : " nodes") << " of "
        << v.hw.pe_array.h << 'x' << v.hw.pe_array.w << " PEs, utilisation " << percent(s.ops, busy)
        << " (MACs / (processing cycles x PEs))\n";
    pricing::set_layer(problem, v.net.layer(l), v.batch);
    if (const auto g = pricing::schedule_geometry(problem, s)) put_array_mapping(out, *g, v.hw);
    out << "  partition  " << schedule::partition_text(s.part) << "\n";
    out << "  blocking   IFM,OFM,BAT trips per level:";
    for (std::size_t lvl = 0; lvl < s.tvals.size(); ++lvl) {
      out << ' ' << kBlockingLevels[lvl] << ' ' << s.tvals[lvl][LoopDim::Ifm] << ','
          << s.tvals[lvl][LoopDim::Ofm] << ',' << s.tvals[lvl][LoopDim::Bat];
    }
    const std::string orders = schedule::orders_text(s);
    const auto slash = orders.find('/');
    out << "\n  loop order outer to inner: " << kBlockingLevels[0] << ' ' << orders.substr(0, slash)
        << "; " << kBlockingLevels[1] << ' '
        << (slash == std::string::npos ? "" : orders.substr(slash + 1)) << "\n";
    const auto e = energy_of(s, v.costs);
    out << "  energy     " << g6(s.cost) << ": ";
    put_energy(out, e, s.cost);
    const auto acc = s.total_accesses();
    out << "\n  accesses   words:";
    for (auto m : all_values<MemLevel>()) out << ' ' << name_of(m) << ' ' << g6(acc[m]);
    out << "; NoC hops " << g6(s.total_noc_hops()) << "\n";
  }
}

ScheduleProgress::ScheduleProgress(Mode mode, std::ostream& err, const model::Network& net,
                                   double log_interval, double heartbeat)
    : mode_(mode), err_(err), net_(net), log_interval_(log_interval), heartbeat_(heartbeat) {
  last_draw_ = t0_;
  if (mode_ != Mode::Quiet) beat_ = std::thread([this] { beat(); });
}

ScheduleProgress::~ScheduleProgress() { stop(); }

std::string ScheduleProgress::counts() const {
  // Unknown until the first segment is searched (the search reports after each).
  if (last_.segments_total == 0) return "no segment searched yet";
  std::ostringstream s;
  s << last_.layers_done << '/' << last_.layers_total << " layers, " << last_.segments_done << '/'
    << last_.segments_total << " segments";
  return s.str();
}

std::string ScheduleProgress::elapsed_text(Clock::time_point now) const {
  return sweep::duration_text(std::chrono::duration<double>(now - t0_).count());
}

void ScheduleProgress::draw_live(Clock::time_point now) {
  last_draw_ = now;
  drawn_ = true;
  err_ << "\r\033[Kschedule: " << counts() << ", " << elapsed_text(now) << std::flush;
}

void ScheduleProgress::write_log_line(Clock::time_point now, const std::string& body) {
  last_draw_ = now;
  err_ << sweep::log_prefix(std::chrono::system_clock::now()) << "schedule: " << body << ", "
       << elapsed_text(now) << " elapsed\n"
       << std::flush;
}

void ScheduleProgress::operator()(const schedule::SearchProgress& p) {
  if (mode_ == Mode::Quiet) return;
  const std::lock_guard<std::mutex> lock(mu_);
  last_ = p;
  last_.segment = nullptr;  // not kept: only this call may read it
  const auto now = Clock::now();
  if (mode_ == Mode::Live) {
    if (drawn_ && now - last_draw_ < std::chrono::milliseconds(200)) return;
    draw_live(now);
    return;
  }
  if (std::chrono::duration<double>(now - last_draw_).count() < log_interval_) return;
  std::ostringstream body;
  body << "segment " << p.segments_done << '/' << p.segments_total << " searched (";
  if (p.segment != nullptr) {
    bool first = true;
    for (const auto& stage : p.segment->layers()) {
      for (std::size_t l : stage) {
        body << (first ? "" : " ") << net_.layer_name(l);
        first = false;
      }
    }
  }
  body << "), " << p.layers_done << '/' << p.layers_total << " layers done";
  write_log_line(now, body.str());
}

void ScheduleProgress::beat() {
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(mode_ == Mode::Live ? 1.0 : heartbeat_));
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    // Until a period after the last line; a report in between moves that on.
    if (wake_.wait_until(lock, last_draw_ + period, [&] { return stopping_; })) return;
    const auto now = Clock::now();
    if (now - last_draw_ < period) continue;
    if (mode_ == Mode::Live) {
      draw_live(now);
      continue;
    }
    write_log_line(now, "searching, " + counts());
  }
}

void ScheduleProgress::stop() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (beat_.joinable()) beat_.join();
}

void ScheduleProgress::finish() {
  stop();
  if (mode_ == Mode::Live && drawn_) err_ << "\r\033[K" << std::flush;
}

}  // namespace kapla::cli
