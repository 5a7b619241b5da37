// Strategy S's search (kapla-spec.md §5.2 over the lowered space; see docs/kapla.md).
#include "search/kapla/exhaustive.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/function_ref.hpp"
#include "core/inline_vector.hpp"
#include "core/math.hpp"
#include "core/words_hash.hpp"
#include "cost/loop_blocking.hpp"
#include "cost/loop_blocking_search.hpp"
#include "search/kapla/blocking_floors.hpp"
#include "search/kapla/bound_pricer.hpp"

namespace kapla::search::kapla {

namespace {

// Factorizations of `cnt` into (top, gbuf, regf) whose top matches the constraint, as flat
// triples (the cost model's factorize3): one allocation per list rather than one per tuple,
// which was ~6 % of K's time on ResNet-50's fallbacks. With `remainders` a loop free of the
// constraint also takes B's covers with a smaller last block (cost::loop_blockings3), so S
// searches the directives' space with Ruby-T tiles; a constrained loop stays exact, as the
// segment's blocks must be equal.
using Triples = std::vector<std::array<std::int64_t, 3>>;
struct FactorList {
  Triples triples;
  // Per triple, which of the list's distinct top factors it has (in order of first appearance):
  // the enumerator remembers the valid top-level orders per top factors.
  std::vector<std::uint32_t> top_index;
  std::size_t num_tops = 0;
};
Triples factors(std::int64_t cnt, std::int64_t top, bool remainders) {
  if (top <= 0) return cost::loop_blockings3(cnt, remainders);
  // factorize3's triples with the first factor `top`, in its order (the second ascending),
  // without listing the others first.
  Triples out;
  if (cnt % top != 0) return out;
  for (const std::int64_t b : divisors(cnt / top)) out.push_back({top, b, cnt / top / b});
  return out;
}

// The factorizations one search needs, each made once: they depend on the loop, its count,
// the constraint and the remainders flag only, and the partitions of a layer share most of
// their loop counts (K's fallbacks on BERT-base made them 131 771 times over 17 293
// partitions, 4 % of K's instructions). Thread-safe; entries are never removed, so a
// reference stays valid.
class FactorLists {
 public:
  explicit FactorLists(const LayerOracle& o)
      : top_(o.top_constraint()), remainders_(o.remainders()) {}
  const FactorList& of(LoopDim l, std::int64_t cnt) {
    const std::lock_guard<std::mutex> lock(mu_);
    auto& slot = lists_[{static_cast<int>(l), cnt}];
    if (!slot) {
      FactorList f;
      f.triples = factors(cnt, top_[l], remainders_);
      std::vector<std::int64_t> tops;
      for (const auto& t : f.triples) {
        auto it = std::find(tops.begin(), tops.end(), t[0]);
        if (it == tops.end()) it = tops.insert(tops.end(), t[0]);
        f.top_index.push_back(static_cast<std::uint32_t>(it - tops.begin()));
      }
      f.num_tops = tops.size();
      slot = std::make_unique<const FactorList>(std::move(f));
    }
    return *slot;
  }

 private:
  PerLoopDim<std::int64_t> top_;
  bool remainders_;
  std::mutex mu_;
  std::map<std::pair<int, std::int64_t>, std::unique_ptr<const FactorList>> lists_;
};

// Calls `visit(s, pairs)` on every blocking the exhaustive search prices on `part` (s holds
// the partition, the nest and the factors) with the order pairs it prices that blocking with,
// in its order; returns how many blockings the fast capacity check rejected.
std::int64_t visit_blockings(
    const LayerOracle& o, const mapping::PartitionScheme& part, FactorLists& lists,
    const FunctionRef<void(const CanonicalScheme&, const OrderPairs&)>& visit) {
  std::int64_t fit_fail = 0;
  const auto nests_ref = o.nests(part);
  const auto& nests = *nests_ref;
  const auto orders = loop_orders();
  const auto top = o.top_constraint();
  // The cost model rejects a top level whose order breaks the constraint (BAT outermost, ...):
  // such schemes are not visited. On BERT-base's attention they were most of the fallbacks'.
  const cost::TopBlockingConstraint valid_top{top[LoopDim::Bat], top[LoopDim::Ifm],
                                              top[LoopDim::Ofm]};
  // Nor a top level that fetches on-chip data (a pipelined segment's) into GBUF more than
  // once, which the cost model rejects whatever the levels below (the fetch counts into GBUF
  // depend on the top level alone).
  const OnChipData on_chip = o.on_chip_data();
  auto on_chip_once = [&](const NodeNest& n, const Blocking& b, const PerLoopDim<int>& o0) {
    if (!on_chip.ifmaps && !on_chip.ofmaps) return true;
    return cost::on_chip_refetch(cost::top_fetch_counts(n.data_loops, n.rw_data, b.bl_ts[0], o0),
                                 n.rw_data, !on_chip.ifmaps,
                                 !on_chip.ofmaps) == cost::InvalidReason::None;
  };
  // Whether an order is canonical for a level depends on which of its loops are trivial
  // only: the canonical orders per nontrivial_loops, in loop_orders()' order.
  std::array<InlineVector<PerLoopDim<int>, 6>, 8> canonical;
  for (std::size_t m = 0; m < canonical.size(); ++m) {
    PerLoopDim<std::int64_t> t{};
    for (auto l : all_values<LoopDim>()) t[l] = (m >> static_cast<int>(l)) & 1 ? 2 : 1;
    for (const auto& ord : orders)
      if (is_canonical_order(t, ord)) canonical[m].push_back(ord);
  }
  OrderPairs pairs;
  CanonicalScheme s;
  s.part = part;
  // The valid top-level orders depend on the top-level factors alone: remembered per top
  // factor of the batch loop while those of the other two loops stay (they change in the
  // outer loops only), as the checks cost more than the rest of a blocking's visit.
  struct TopOrders {
    bool known = false;
    InlineVector<PerLoopDim<int>, 6> orders;
  };
  std::vector<TopOrders> tops_by_bat;
  for (std::size_t ni = 0; ni < nests.size(); ++ni) {
    const auto& n = nests[ni];
    const auto cap = o.capacity(part, static_cast<int>(ni));
    const auto& fi = lists.of(LoopDim::Ifm, n.loopcnt[LoopDim::Ifm]).triples;
    const auto& fo = lists.of(LoopDim::Ofm, n.loopcnt[LoopDim::Ofm]).triples;
    const auto& fb = lists.of(LoopDim::Bat, n.loopcnt[LoopDim::Bat]);
    s.nest_index = static_cast<int>(ni);
    auto& t0 = s.blocking.bl_ts[0];
    for (const auto& a : fi)
      for (const auto& b : fo) {
        if (tops_by_bat.empty() || a[0] != t0[LoopDim::Ifm] || b[0] != t0[LoopDim::Ofm])
          tops_by_bat.assign(fb.num_tops, {});
        for (std::size_t k = 0; k < fb.triples.size(); ++k) {
          const auto& c = fb.triples[k];
          for (std::size_t j = 0; j < 3; ++j)
            s.blocking.bl_ts[j] = PerLoopDim<std::int64_t>{{a[j], b[j], c[j]}};
          if (!fits(n, s.blocking, cap)) {
            ++fit_fail;
            continue;
          }
          auto& top_orders = tops_by_bat[fb.top_index[k]];
          if (!top_orders.known) {
            top_orders.known = true;
            top_orders.orders.clear();
            for (const auto& o0 : canonical[nontrivial_loops(t0)])
              if (valid_top.is_valid_top_bl(t0, o0) && on_chip_once(n, s.blocking, o0))
                top_orders.orders.push_back(o0);
          }
          pairs.clear();
          const auto& inner = canonical[nontrivial_loops(s.blocking.bl_ts[1])];
          for (const auto& o0 : top_orders.orders)
            for (const auto& o1 : inner) pairs.push_back({o0, o1});
          if (!pairs.empty()) visit(s, pairs);
        }
      }
    tops_by_bat.clear();  // the next nest's lists differ
  }
  return fit_fail;
}

}  // namespace

std::int64_t for_each_scheme(const LayerOracle& o, const mapping::PartitionScheme& part,
                             const std::function<void(const CanonicalScheme&)>& visit) {
  FactorLists lists(o);
  return visit_blockings(o, part, lists, [&](CanonicalScheme s, const OrderPairs& pairs) {
    for (const auto& pr : pairs) {
      s.blocking.bl_ords = pr;
      visit(s);
    }
  });
}

namespace {

struct PartResult {
  std::optional<CanonicalScheme> scheme;
  Score score;
  std::int64_t evaluated = 0;
  std::int64_t fit_fail = 0;
};

// With a bound (BoundPricer), a scheme is priced only if its bound beats both the best found
// so far on its partition and `earlier`, the best of some partitions before it in partition
// order: the bound without the NoC placement until a scheme of the partition is priced (which
// places it), the bound with its hops from then on, the floors below too. A scheme skipped so is no
// better than a scheme found before it in the search's order, so it is not the answer (the answer
// is the first scheme with the best price, ties going to the first partition and, within one, to
// the first found); the partition's own best may then differ, but never wins. Skipped schemes count
// as evaluated, so the counts do not depend on the bound.
//
// The bound reads a scheme's loop orders only through its fetch counts, and a blocking's
// order pairs (up to 36) have a few distinct ones: each is bounded once per blocking. Where
// the bound grows with the fetch counts (no category may bypass GBUF), whole blockings are
// bounded first (blocking_floors.hpp): every blocking with the same nest and top-level
// factors, then the blocking at its least fetch counts, skipped where the floor does not beat the
// best, as no scheme's bound under it would. On GPT-2's attention fallbacks the schemes' bounds had
// been ~80 % of the instructions.
PartResult search_partition(const LayerOracle& o, const BoundPricer* bounds,
                            const mapping::PartitionScheme& part, FactorLists& lists,
                            model::Goal goal, const std::optional<Score>& earlier) {
  PartResult r;
  const auto nests = o.nests(part);
  const bool floors = bounds != nullptr && bounds->bound_grows_with_fetch();
  // Beaten: a score that does not beat the best so far (with `earlier`) cannot be the answer.
  auto beaten = [&](const Score& lb) {
    return (earlier && !better(lb, *earlier, goal)) || (r.scheme && !better(lb, r.score, goal));
  };
  auto price = [&](const CanonicalScheme& s) {
    const auto sc = o.evaluate(s);
    if (sc && (!r.scheme || better(*sc, r.score, goal))) {
      r.scheme = s;
      r.score = *sc;
    }
  };
  struct Known {  // the bounds of a blocking's pairs with the same fetch counts
    cost::FetchCounts fetch;
    std::array<std::optional<std::optional<Score>>, 2> bound;  // [with the hops, on chip]
  };
  InlineVector<cost::FetchCounts, 36> fetch;
  InlineVector<Known, 36> known;
  // The floors of the blockings with the same nest and top-level factors (nullopt: none
  // known), first of them all, then of those with the same non-trivial GBUF-level loops.
  struct TopFloors {
    PerDataCategory<std::int64_t> least{};  // least_top_fetch
    bool with_hops = false;                 // the floors below count the NoC hops
    std::optional<Score> all;
    std::array<std::optional<std::optional<Score>>, 8> by_gbuf_loops;  // by nontrivial_loops
  };
  std::unordered_map<std::array<std::int64_t, 4>, TopFloors, WordsHash> top_floors;
  r.fit_fail = visit_blockings(o, part, lists, [&](CanonicalScheme s, const OrderPairs& pairs) {
    r.evaluated += static_cast<std::int64_t>(pairs.size());
    if (bounds == nullptr) {
      for (const auto& pr : pairs) s.blocking.bl_ords = pr, price(s);
      return;
    }
    const auto& n = (*nests)[static_cast<std::size_t>(s.nest_index)];
    s.blocking.bl_ords = pairs[0];  // the floors read no orders, but take a valid scheme
    const bool bounded = r.scheme || earlier;
    // Once a scheme of the partition is priced, its NoC placement is known: the bounds count
    // its hops, which are most of what the bound on chip misses (GPT-2 prefill's fallbacks
    // place 2707 partitions, and 1951 of them have no scheme whose bound with the hops beats
    // the earlier partitions'). A bound with the hops is valid exactly where it is on chip.
    const bool on_chip = !r.scheme;
    if (floors && bounded) {
      const auto& t0 = s.blocking.bl_ts[0];
      auto [it, fresh] = top_floors.try_emplace(
          {s.nest_index, t0[LoopDim::Ifm], t0[LoopDim::Ofm], t0[LoopDim::Bat]});
      auto& top = it->second;
      if (fresh) top.least = least_top_fetch(n, s, pairs);
      if (fresh || top.with_hops == on_chip) {
        top.with_hops = !on_chip;
        top.all = top_level_floor(*bounds, n, s, top.least, false, on_chip);
        top.by_gbuf_loops = {};
      }
      if (top.all && beaten(*top.all)) return;
      auto& same = top.by_gbuf_loops[nontrivial_loops(s.blocking.bl_ts[1])];
      if (!same) same = top_level_floor(*bounds, n, s, top.least, true, on_chip);
      if (*same && beaten(**same)) return;
    }
    fetch.clear();
    for (const auto& pr : pairs) {
      s.blocking.bl_ords = pr;
      fetch.push_back(fetch_counts_of(n, s.blocking));
    }
    if (floors && bounded) {
      const auto floor = bounds->evaluate_bound_at_fetch(s, least_fetch(fetch), on_chip);
      if (!floor || beaten(*floor)) return;  // invalid at the least counts: so is every pair
    }
    known.clear();
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      s.blocking.bl_ords = pairs[i];
      if (r.scheme || earlier) {
        auto it = std::find_if(known.begin(), known.end(),
                               [&](const Known& k) { return k.fetch == fetch[i]; });
        if (it == known.end()) {
          known.push_back(Known{fetch[i], {}});
          it = known.end() - 1;
        }
        // With the hops once the partition is placed (r.scheme may be set within this loop).
        auto& slot = it->bound[r.scheme ? 0 : 1];
        if (!slot) slot = bounds->evaluate_bound(s, !r.scheme);
        if (!*slot || beaten(**slot)) continue;  // invalid: so is the price
      }
      price(s);
    }
  });
  return r;
}

}  // namespace

ExhaustiveResult search_exhaustive(const LayerOracle& o, const ExhaustiveOptions& opt) {
  const auto& parts = o.partitions();
  const int np = static_cast<int>(parts.size());
  std::vector<PartResult> res(parts.size());
  const auto* bounds = opt.bound ? o.bound_pricer() : nullptr;
  // Which partitions are done (res[j] final), guarded by mu: each partition starts from the
  // best of the earlier ones done by then (all of them on one thread).
  std::mutex mu;
  std::vector<char> done(parts.size(), 0);
  FactorLists lists(o);
#pragma omp parallel for schedule(dynamic) num_threads(opt.num_threads > 0 ? opt.num_threads : 1)
  for (int i = 0; i < np; ++i) {
    const auto k = static_cast<std::size_t>(i);
    std::optional<Score> earlier;
    if (bounds != nullptr) {
      const std::lock_guard<std::mutex> lock(mu);
      for (std::size_t j = 0; j < k; ++j)
        if (done[j] && res[j].scheme && (!earlier || better(res[j].score, *earlier, opt.goal)))
          earlier = res[j].score;
    }
    auto r = search_partition(o, bounds, parts[k], lists, opt.goal, earlier);
    const std::lock_guard<std::mutex> lock(mu);
    res[k] = std::move(r);
    done[k] = 1;
  }
  ExhaustiveResult out;
  for (const auto& r : res) {  // partition order: ties go to the first, as B
    out.evaluated += r.evaluated;
    out.fit_fail += r.fit_fail;
    if (r.scheme && (!out.scheme || better(r.score, out.score, opt.goal))) {
      out.scheme = r.scheme;
      out.score = r.score;
    }
  }
  return out;
}

}  // namespace kapla::search::kapla
