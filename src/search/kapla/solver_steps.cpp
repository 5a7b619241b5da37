// Shared steps of K's greedy (see solver_steps.hpp).
#include "search/kapla/solver_steps.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "search/kapla/fit_memo.hpp"

namespace kapla::search::kapla::detail {

DataTotals data_totals(const model::Layer& layer, std::int64_t batch) {
  DataTotals t{};
  t[DataCategory::Fil] = static_cast<double>(layer.total_filter_size());
  t[DataCategory::Ifm] = static_cast<double>(layer.total_ifmap_size(batch));
  t[DataCategory::Ofm] = static_cast<double>(layer.total_ofmap_size(batch));
  return t;
}

DataTotals node_data_totals(const NodeNest& n) {
  DataTotals t{};
  for (auto d : all_values<DataCategory>())
    t[d] = static_cast<double>(data_factor(n, n.loopcnt, d) * n.usize_gbuf[d]);
  return t;
}

// Index of the nest whose input-channel replication is the largest not above `want_ifm`
// (first such in the map strategy's order), else 0.
int pick_nest(const std::vector<NodeNest>& nests, std::int64_t want_ifm) {
  int best = 0;
  std::int64_t best_r = 0;
  for (std::size_t i = 0; i < nests.size(); ++i) {
    const auto r = nests[i].repl_ifm;
    if (r <= want_ifm && r > best_r) best = static_cast<int>(i), best_r = r;
  }
  return best;
}

namespace {
// log2 of a positive count; node counts are mostly powers of two, whose log2 is the bit
// position (exact, and the snap and the descent ask for it ~10^5 times per layer search).
double log2_count(std::int64_t n) {
  const auto u = static_cast<std::uint64_t>(n);
  // u & (u - 1) rather than std::has_single_bit: without -mpopcnt (the portable x86-64
  // baseline) the latter is a libgcc call, ~2 % of K's instructions.
  if (u != 0 && (u & (u - 1)) == 0) return static_cast<double>(std::countr_zero(u));
  return std::log2(static_cast<double>(n));
}
}  // namespace

double log_gap(std::int64_t a, std::int64_t b) { return std::fabs(log2_count(a) - log2_count(b)); }

// The partitions of B's list nearest to the wanted node stacking: first by the per-kind
// sizes (sum of log2 gaps), then by the per-direction factors; up to kMaxSnap of them, in
// B's order. Sizes decide the data split; the directions only the NoC distances, which the
// cost model then prices.
constexpr std::size_t kMaxSnap = 8;
std::vector<std::size_t> snap_partitions(const std::vector<mapping::PartitionScheme>& parts,
                                         const PerParallelDim<PhyDim2>& want) {
  KAPLA_ASSERT(!parts.empty(), "snap_partitions: B's partition list is empty");
  double best_size = std::numeric_limits<double>::infinity();
  std::vector<double> size_gap(parts.size()), dir_gap(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    double gs = 0, gd = 0;
    for (auto p : all_values<ParallelDim>()) {
      gs += log_gap(parts[i].pdims[p].size(), want[p].size());
      gd += log_gap(parts[i].pdims[p].h, want[p].h) + log_gap(parts[i].pdims[p].w, want[p].w);
    }
    size_gap[i] = gs;
    dir_gap[i] = gd;
    best_size = std::min(best_size, gs);
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < parts.size() && out.size() < kMaxSnap; ++i)
    if (size_gap[i] <= best_size + 1e-9) out.push_back(i);
  // The per-direction nearest, if the size criterion did not already include it.
  std::size_t bd = 0;
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (dir_gap[i] < dir_gap[bd] - 1e-12) bd = i;
  if (std::find(out.begin(), out.end(), bd) == out.end()) out.push_back(bd);
  return out;
}

}  // namespace kapla::search::kapla::detail

namespace kapla::search::kapla {
std::vector<std::size_t> LayerOracle::nearest_partitions(
    const PerParallelDim<PhyDim2>& want) const {
  return detail::snap_partitions(partitions(), want);
}
}  // namespace kapla::search::kapla

namespace kapla::search::kapla::detail {

namespace {

// Where the GBUF fill (step 6) starts from a REGF tile t2, and what it may still take per
// loop; nullopt if t2 does not divide the loops below the constraint.
struct GbufFill {
  PerLoopDim<std::int64_t> start{{1, 1, 1}};
  PerLoopDim<std::int64_t> remaining{{1, 1, 1}};
};

// Reserved: a constrained loop's top factor must equal the constraint (kapla-spec.md §3.2 f),
// so the GBUF tile takes all of what is below it first; the free loops grow around it.
std::optional<GbufFill> gbuf_fill(const NodeNest& n, const PerLoopDim<std::int64_t>& top,
                                  const PerLoopDim<std::int64_t>& t2, bool reserve_top) {
  GbufFill g;
  for (auto l : all_values<LoopDim>()) {
    const auto inner = top[l] > 0 ? n.loopcnt[l] / top[l] : n.loopcnt[l];
    if (inner % t2[l] != 0) return std::nullopt;
    g.remaining[l] = inner / t2[l];
    if (reserve_top && top[l] > 0) std::swap(g.start[l], g.remaining[l]);
  }
  return g;
}

// The top level takes what the GBUF and REGF tiles leave (the constraint's, if any).
Blocking blocking_of(const NodeNest& n, const PerLoopDim<std::int64_t>& t1,
                     const PerLoopDim<std::int64_t>& t2, const PerLoopDim<int>& ord_gbuf,
                     const PerLoopDim<int>& ord_regf) {
  Blocking b;
  for (auto l : all_values<LoopDim>()) {
    b.bl_ts[2][l] = t2[l];
    b.bl_ts[1][l] = t1[l];
    b.bl_ts[0][l] = n.loopcnt[l] / (t2[l] * t1[l]);
  }
  b.bl_ords = {ord_gbuf, ord_regf};
  return b;
}

}  // namespace

namespace {

// Steps (5)-(6) on nest `ni` of one partition: REGF tensor, GBUF tensor and top factors with
// the capacities `cap` and the constraint, and how the fit ended. Reads nothing of the
// partition (FitMemo's key says what it reads).
FitMemo::Entry fit_nest(const LayerOracle& o, const mapping::PartitionScheme& part, int ni,
                        const NodeNest& n, const Capacity& cap, const PerLoopDim<int>& ord_gbuf,
                        const PerLoopDim<int>& ord_regf, bool reserve_top) {
  using Outcome = FitMemo::Outcome;
  const auto top = o.top_constraint();
  PerLoopDim<std::int64_t> inner{};
  for (auto l : all_values<LoopDim>()) {
    if (top[l] > 0 && n.loopcnt[l] % top[l] != 0) return {std::nullopt, Outcome::ConstraintFail};
    inner[l] = top[l] > 0 ? n.loopcnt[l] / top[l] : n.loopcnt[l];
  }
  // A REGF tile fits if the GBUF fill can start from it (GBUF tile = REGF tile): which
  // categories GBUF must hold depends on the whole blocking, so check that one.
  const auto t2 = fill_tensor(
      {{1, 1, 1}}, inner, ord_regf, n.data_loops, n.rw_data, node_data_totals(n),
      [&](const PerLoopDim<std::int64_t>& t) {
        return fits_tiles(n, {{1, 1, 1}}, t, cap, [&] {
          return blocking_of(n, {{1, 1, 1}}, t, ord_gbuf, ord_regf);
        });
      },
      fits_tiles_order(cap));
  if (!t2) return {std::nullopt, Outcome::CapacityFail};
  SolveStats gbuf_stats;
  auto c = fit_gbuf(o, part, ni, n, cap, *t2, ord_gbuf, ord_regf, gbuf_stats, reserve_top);
  if (c) return {c->blocking, Outcome::Fit};
  return {std::nullopt, gbuf_stats.capacity_fail > 0 ? Outcome::CapacityFail : Outcome::NoGbufFill};
}

}  // namespace

// The nest with the chosen PE replication, then fit_nest, remembered where the oracle offers.
std::optional<CanonicalScheme> fit_on_partition(const LayerOracle& o,
                                                const mapping::PartitionScheme& part,
                                                std::int64_t repl_ifm,
                                                const PerLoopDim<int>& ord_gbuf,
                                                const PerLoopDim<int>& ord_regf, SolveStats& stats,
                                                int forced_nest, bool reserve_top) {
  const auto nests_ref = o.nests(part);
  const auto& nests = *nests_ref;
  if (nests.empty() || forced_nest >= static_cast<int>(nests.size())) return std::nullopt;
  const int ni = forced_nest >= 0 ? forced_nest : pick_nest(nests, repl_ifm);
  const NodeNest& n = nests[static_cast<std::size_t>(ni)];
  const Capacity cap = o.capacity(part, ni);
  auto fit = [&] { return fit_nest(o, part, ni, n, cap, ord_gbuf, ord_regf, reserve_top); };
  const FitMemo* memo = o.fit_memo();
  const auto e =
      memo != nullptr
          ? memo->remembered(
                FitMemo::key(n, cap, o.top_constraint(), ord_gbuf, ord_regf, reserve_top), fit)
          : fit();
  if (e.outcome == FitMemo::Outcome::ConstraintFail) ++stats.constraint_fail;
  if (e.outcome == FitMemo::Outcome::CapacityFail) ++stats.capacity_fail;
  if (!e.blocking) return std::nullopt;
  CanonicalScheme s{part, ni, *e.blocking};
  s.blocking.bl_ords = {ord_gbuf, ord_regf};  // the memo's entry may come from other orders
  return s;
}

// Step (6) from a chosen REGF tensor: the GBUF tensor (fill_tensor with the GBUF capacity and
// buffer-sharing groups), then the top factors (the constraint's, or what remains).
std::optional<CanonicalScheme> fit_gbuf(const LayerOracle& o, const mapping::PartitionScheme& part,
                                        int nest_index, const NodeNest& n, const Capacity& cap,
                                        const PerLoopDim<std::int64_t>& t2v,
                                        const PerLoopDim<int>& ord_gbuf,
                                        const PerLoopDim<int>& ord_regf, SolveStats& stats,
                                        bool reserve_top) {
  const auto top = o.top_constraint();
  const auto g = gbuf_fill(n, top, t2v, reserve_top);
  if (!g) return std::nullopt;
  // The REGF tile is t2v for every GBUF tile tried: its REGF fit is decided here, once.
  if (regf_occupancy(n, t2v) > cap.regf_words) {
    ++stats.capacity_fail;
    return std::nullopt;
  }
  // The cost model's own capacity check on the whole blocking: the GBUF tile's loops and
  // orders decide which categories it reuses, and those that may bypass and are not reused
  // take no GBUF space (nn_dataflow §7.4 step 6).
  const auto t1 = fill_tensor(
      g->start, g->remaining, ord_gbuf, n.data_loops, n.rw_data, node_data_totals(n),
      [&](const PerLoopDim<std::int64_t>& t) {
        return gbuf_tiles_fit(n, t, t2v, cap,
                              [&] { return blocking_of(n, t, t2v, ord_gbuf, ord_regf); });
      },
      fits_tiles_order(cap));
  if (!t1) {
    ++stats.capacity_fail;
    return std::nullopt;
  }
  CanonicalScheme s;
  s.part = part;
  s.nest_index = nest_index;
  s.blocking = blocking_of(n, *t1, t2v, ord_gbuf, ord_regf);
  return s;
}

double size_gap(const mapping::PartitionScheme& a, const mapping::PartitionScheme& b) {
  double g = 0;
  for (auto p : all_values<ParallelDim>()) g += log_gap(a.pdims[p].size(), b.pdims[p].size());
  return g;
}

}  // namespace kapla::search::kapla::detail
