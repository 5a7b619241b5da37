// Indexing, sampling and neighbour moves over one layer's scheme space (see scheme_space.hpp).
// Spec: nn_dataflow-spec.md §7.1 (blocking factors from factorize(loopcnt, 3), order pairs),
// §8.2 (partitions), §9.2 (partition -> map strategy -> blocking).
#include "search/scheme_space.hpp"

#include <algorithm>
#include <exception>
#include <numeric>

#include "core/errors.hpp"
#include "core/math.hpp"
#include "cost/loop_blocking_search.hpp"
#include "mapping/gen_partition.hpp"
#include "pricing/fixed_scheme.hpp"

namespace kapla::search {

// ---- Seeds and random numbers ------------------------------------------------------------

namespace {

std::uint64_t hash_in(std::uint64_t h, std::int64_t v) {
  return mix_seed(h, static_cast<std::uint64_t>(v));
}
std::uint64_t hash_in(std::uint64_t h, PhyDim2 d) { return hash_in(hash_in(h, d.h), d.w); }

constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

std::uint64_t problem_key(const pricing::LayerProblem& p) {
  const auto& l = p.layer;
  std::uint64_t h = 0x6B61706C61ULL;  // "kapla"
  h = hash_in(h, static_cast<std::int64_t>(l.type));
  h = hash_in(h, l.nifm);
  h = hash_in(h, l.nofm);
  h = hash_in(h, l.sofm);
  h = hash_in(h, l.sifm);
  h = hash_in(h, l.strd);
  h = hash_in(h, l.sfil);
  h = hash_in(h, l.nreg);
  h = hash_in(h, l.sreg);
  h = hash_in(h, l.ntrd);
  h = hash_in(h, static_cast<std::int64_t>(l.rw_data));
  h = hash_in(h, p.batch);
  h = hash_in(h, p.resource.proc_region.dim);
  h = hash_in(h, p.resource.proc_region.origin);
  h = hash_in(h, static_cast<std::int64_t>(p.resource.src_data_region.type));
  h = hash_in(h, static_cast<std::int64_t>(p.resource.dst_data_region.type));
  h = hash_in(h, p.resource.dim_array);
  h = hash_in(h, p.resource.size_gbuf);
  h = hash_in(h, p.resource.size_regf);
  // Hashed only when not the default, so row-stationary seeds stay as they were.
  if (p.resource.array_mapping != model::ArrayMapping::RowStationary)
    h = hash_in(h, static_cast<std::int64_t>(p.resource.array_mapping));
  h = hash_in(h, p.constraint.topbat);
  h = hash_in(h, p.constraint.topifm);
  h = hash_in(h, p.constraint.topofm);
  h = hash_in(h, (p.constraint.fbifm ? 1 : 0) + (p.constraint.fbofm ? 2 : 0));
  return h;
}

Rng::Rng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& s : s_) {
    x = splitmix64(x);
    s = x;
  }
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint64_t Rng::uniform(std::uint64_t n) {
  KAPLA_ASSERT(n > 0, "Rng::uniform: empty range");
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  for (;;) {
    const std::uint64_t x = next();
    if (x < limit) return x % n;
  }
}

double Rng::uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

// ---- Points ------------------------------------------------------------------------------

const std::array<PerLoopDim<int>, 6>& loop_permutations() {
  static const std::array<PerLoopDim<int>, 6> perms{{
      {{0, 1, 2}},
      {{0, 2, 1}},
      {{1, 0, 2}},
      {{1, 2, 0}},
      {{2, 0, 1}},
      {{2, 1, 0}},
  }};
  return perms;
}

namespace {

int perm_index(const PerLoopDim<int>& ord) {
  const auto& perms = loop_permutations();
  for (int i = 0; i < 6; ++i)
    if (perms[i] == ord) return i;
  return -1;
}

constexpr std::uint64_t kOrderPairs = 36;

}  // namespace

// ---- The space ---------------------------------------------------------------------------

SchemeSpace::SchemeSpace(SpaceShape shape, PerLoopDim<std::int64_t> top, bool remainders)
    : shape_(std::move(shape)), top_(top), remainders_(remainders) {
  build();
}

SchemeSpace SchemeSpace::of_problem(const pricing::LayerProblem& problem) {
  const auto& res = problem.resource;
  const auto parts = mapping::gen_partition(problem.layer, problem.batch, res.proc_region.dim,
                                            problem.options, /*guaranteed=*/true);
  SpaceShape shape;
  std::vector<std::vector<cost::NestedLoopDesc>> nlds;
  for (const auto& part : parts) {
    auto setup = pricing::setup_partition(problem, part);
    std::vector<PerLoopDim<std::int64_t>> counts;
    counts.reserve(setup.map.nlds.size());
    for (const auto& n : setup.map.nlds) counts.push_back(n.loopcnt);
    shape.push_back(std::move(counts));
    nlds.push_back(std::move(setup.map.nlds));
  }
  PerLoopDim<std::int64_t> top{};
  top[LoopDim::Ifm] = problem.constraint.topifm;
  top[LoopDim::Ofm] = problem.constraint.topofm;
  top[LoopDim::Bat] = problem.constraint.topbat;
  SchemeSpace space(std::move(shape), top, problem.options.imperfect == model::Imperfect::Full);
  space.parts_ = parts;
  space.nlds_ = std::move(nlds);
  return space;
}

int SchemeSpace::factor_list_id(LoopDim l, std::int64_t n) {
  const std::pair<int, std::int64_t> key{static_cast<int>(l), n};
  for (std::size_t i = 0; i < factor_keys_.size(); ++i)
    if (factor_keys_[i] == key) return static_cast<int>(i);
  std::vector<std::array<std::int64_t, 3>> list;
  if (n >= 1) {
    for (const auto& f : factorize(n, 3)) {
      if (top_[l] != 0 && f[0] != top_[l]) continue;
      list.push_back({f[0], f[1], f[2]});
    }
    // imperfect: full adds B's covers with a remainder after the exact factors (a constrained
    // loop keeps exact factors, as in B).
    if (remainders_ && top_[l] == 0)
      for (const auto& f : cost::loop_blockings3(n, true))
        if (f[0] * f[1] * f[2] != n) list.push_back(f);
  }
  factor_keys_.push_back(key);
  factor_lists_.push_back(std::move(list));
  return static_cast<int>(factor_lists_.size() - 1);
}

void SchemeSpace::build() {
  nests_.clear();
  nest_slot_.assign(shape_.size(), {});
  size_ = 0;
  for (std::size_t pi = 0; pi < shape_.size(); ++pi) {
    nest_slot_[pi].assign(shape_[pi].size(), -1);
    for (std::size_t ni = 0; ni < shape_[pi].size(); ++ni) {
      Nest n;
      n.part = static_cast<int>(pi);
      n.nld = static_cast<int>(ni);
      n.count = kOrderPairs;
      for (auto l : all_values<LoopDim>()) {
        n.factors[l] = factor_list_id(l, shape_[pi][ni][l]);
        n.count *= factor_lists_[n.factors[l]].size();
      }
      if (n.count == 0) continue;
      n.first = size_;
      size_ += n.count;
      nest_slot_[pi][ni] = static_cast<int>(nests_.size());
      nests_.push_back(n);
    }
  }
}

std::optional<int> SchemeSpace::nest_of(int part, int nld) const {
  if (part < 0 || part >= num_partitions()) return std::nullopt;
  if (nld < 0 || nld >= num_nlds(part)) return std::nullopt;
  const int slot = nest_slot_[part][nld];
  if (slot < 0) return std::nullopt;
  return slot;
}

SchemePoint SchemeSpace::at(std::uint64_t index) const {
  KAPLA_ASSERT(index < size_, "SchemeSpace::at: index out of range");
  auto it = std::upper_bound(nests_.begin(), nests_.end(), index,
                             [](std::uint64_t i, const Nest& n) { return i < n.first; });
  const Nest& n = *(it - 1);
  std::uint64_t r = index - n.first;
  SchemePoint p;
  p.part_index = n.part;
  p.nld_index = n.nld;
  // Mixed radix, most significant first: IFM, OFM, BAT factor tuples, ord0, ord1.
  const auto ord1 = r % 6;
  r /= 6;
  const auto ord0 = r % 6;
  r /= 6;
  std::array<std::uint64_t, 3> fi{};
  for (int k = 2; k >= 0; --k) {
    const auto& list = factors(n, static_cast<LoopDim>(k));
    fi[k] = r % list.size();
    r /= list.size();
  }
  for (auto l : all_values<LoopDim>()) {
    const auto& f = factors(n, l)[fi[kapla::index_of(l)]];
    for (int lv = 0; lv < 3; ++lv) p.bl_ts[lv][l] = f[lv];
  }
  p.bl_ords[0] = loop_permutations()[ord0];
  p.bl_ords[1] = loop_permutations()[ord1];
  return p;
}

std::optional<std::uint64_t> SchemeSpace::index_of(const SchemePoint& p) const {
  const auto slot = nest_of(p.part_index, p.nld_index);
  if (!slot) return std::nullopt;
  const Nest& n = nests_[*slot];
  std::uint64_t r = 0;
  for (auto l : all_values<LoopDim>()) {
    const auto& list = factors(n, l);
    const std::array<std::int64_t, 3> f{p.bl_ts[0][l], p.bl_ts[1][l], p.bl_ts[2][l]};
    const auto it = std::find(list.begin(), list.end(), f);
    if (it == list.end()) return std::nullopt;
    r = r * list.size() + static_cast<std::uint64_t>(it - list.begin());
  }
  const int o0 = perm_index(p.bl_ords[0]);
  const int o1 = perm_index(p.bl_ords[1]);
  if (o0 < 0 || o1 < 0) return std::nullopt;
  r = (r * 6 + static_cast<std::uint64_t>(o0)) * 6 + static_cast<std::uint64_t>(o1);
  return n.first + r;
}

SchemePoint SchemeSpace::sample(Rng& rng) const {
  KAPLA_ASSERT(size_ > 0, "SchemeSpace::sample: empty space");
  return at(rng.uniform(size_));
}

// Keeps the REGF and GBUF factors as far as the new loop counts allow (gcd), the top factor
// takes the rest (or the constrained value); the result is in the new nest's factor lists.
SchemePoint SchemeSpace::with_nest(const SchemePoint& p, int part, int nld) const {
  SchemePoint q = p;
  q.part_index = part;
  q.nld_index = nld;
  const auto& cnt = loopcnt(part, nld);
  for (auto l : all_values<LoopDim>()) {
    const std::int64_t n = cnt[l];
    std::int64_t t0 = 0, t1 = 0, t2 = 0;
    if (top_[l] != 0) {
      t0 = top_[l];
      const std::int64_t rest = n / t0;
      t2 = std::gcd(p.bl_ts[2][l], rest);
      t1 = rest / t2;
    } else {
      t2 = std::gcd(p.bl_ts[2][l], n);
      t1 = std::gcd(p.bl_ts[1][l], n / t2);
      t0 = n / (t1 * t2);
    }
    q.bl_ts[0][l] = t0;
    q.bl_ts[1][l] = t1;
    q.bl_ts[2][l] = t2;
  }
  return q;
}

namespace {

std::int64_t smallest_prime_factor(std::int64_t n) {
  for (std::int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return d;
  return n;
}

std::vector<std::int64_t> distinct_primes(std::int64_t n) {
  std::vector<std::int64_t> out;
  while (n > 1) {
    const auto p = smallest_prime_factor(n);
    out.push_back(p);
    while (n % p == 0) n /= p;
  }
  return out;
}

}  // namespace

bool SchemeSpace::move_factor(SchemePoint& p, Rng& rng) const {
  if (remainders_) return move_block(p, rng);
  // (loop, from level, to level) triples; level 0 is fixed for constrained loops.
  std::vector<std::array<int, 3>> moves;
  for (auto l : all_values<LoopDim>()) {
    for (int a = 0; a < 3; ++a) {
      if (p.bl_ts[a][l] <= 1 || (a == 0 && top_[l] != 0)) continue;
      for (int b = 0; b < 3; ++b) {
        if (b == a || (b == 0 && top_[l] != 0)) continue;
        moves.push_back({static_cast<int>(l), a, b});
      }
    }
  }
  if (moves.empty()) return false;
  const auto m = moves[rng.uniform(moves.size())];
  const auto l = static_cast<LoopDim>(m[0]);
  const auto primes = distinct_primes(p.bl_ts[m[1]][l]);
  const auto prime = primes[rng.uniform(primes.size())];
  p.bl_ts[m[1]][l] /= prime;
  p.bl_ts[m[2]][l] *= prime;
  return true;
}

// With remainders a prime moved between levels rarely gives another cover in the lists: the
// local move is to a nearby triple of one loop's list instead (the list is ascending in the
// REGF block t2, then the GBUF trip count t1, after the exact factors).
bool SchemeSpace::move_block(SchemePoint& p, Rng& rng) const {
  const auto slot = nest_of(p.part_index, p.nld_index);
  if (!slot) return false;
  const Nest& n = nests_[*slot];
  std::vector<LoopDim> loops;
  for (auto l : all_values<LoopDim>())
    if (factors(n, l).size() > 1) loops.push_back(l);
  if (loops.empty()) return false;
  const auto l = loops[rng.uniform(loops.size())];
  const auto& list = factors(n, l);
  const std::array<std::int64_t, 3> f{p.bl_ts[0][l], p.bl_ts[1][l], p.bl_ts[2][l]};
  const auto at = static_cast<std::int64_t>(std::find(list.begin(), list.end(), f) - list.begin());
  constexpr std::int64_t kReach = 2;
  const auto size = static_cast<std::int64_t>(list.size());
  const std::int64_t lo = std::max<std::int64_t>(0, at - kReach);
  const std::int64_t hi = std::min<std::int64_t>(size - 1, at + kReach);
  auto k = lo + static_cast<std::int64_t>(rng.uniform(static_cast<std::uint64_t>(hi - lo)));
  if (k >= at) ++k;  // any other triple within reach
  for (int lv = 0; lv < 3; ++lv) p.bl_ts[lv][l] = list[static_cast<std::size_t>(k)][lv];
  return true;
}

SchemePoint SchemeSpace::neighbour(const SchemePoint& p, Rng& rng,
                                   const NeighbourWeights& w) const {
  KAPLA_ASSERT(contains(p), "SchemeSpace::neighbour: point not in the space");
  const std::array<double, 4> weights{std::max(0.0, w.blocking), std::max(0.0, w.order),
                                      std::max(0.0, w.nld), std::max(0.0, w.partition)};
  const double total = weights[0] + weights[1] + weights[2] + weights[3];
  if (total <= 0) return p;
  // A few attempts: a drawn move kind may not apply to this point (or give the same point).
  for (int attempt = 0; attempt < 16; ++attempt) {
    double u = rng.uniform01() * total;
    int kind = 0;
    while (kind < 3 && u >= weights[kind]) u -= weights[kind++];
    while (weights[kind] <= 0) kind = (kind + 3) % 4;  // u landed on a zero-width kind's edge
    SchemePoint q = p;
    switch (kind) {
      case 0:
        if (!move_factor(q, rng)) continue;
        break;
      case 1: {
        const int level = static_cast<int>(rng.uniform(2));
        const auto a = static_cast<LoopDim>(rng.uniform(3));
        auto b = static_cast<LoopDim>(rng.uniform(2));
        if (kapla::index_of(b) >= kapla::index_of(a))
          b = static_cast<LoopDim>(kapla::index_of(b) + 1);
        std::swap(q.bl_ords[level][a], q.bl_ords[level][b]);
        break;
      }
      case 2: {
        std::vector<int> others;
        for (int ni = 0; ni < num_nlds(p.part_index); ++ni)
          if (ni != p.nld_index && nest_of(p.part_index, ni)) others.push_back(ni);
        if (others.empty()) continue;
        q = with_nest(p, p.part_index, others[rng.uniform(others.size())]);
        break;
      }
      default: {
        std::vector<int> others;
        for (int pi = 0; pi < num_partitions(); ++pi) {
          if (pi == p.part_index) continue;
          for (int ni = 0; ni < num_nlds(pi); ++ni)
            if (nest_of(pi, ni)) {
              others.push_back(pi);
              break;
            }
        }
        if (others.empty()) continue;
        const int pi = others[rng.uniform(others.size())];
        int ni = p.nld_index;
        if (!nest_of(pi, ni)) {
          std::vector<int> valid;
          for (int k = 0; k < num_nlds(pi); ++k)
            if (nest_of(pi, k)) valid.push_back(k);
          ni = valid[rng.uniform(valid.size())];
        }
        q = with_nest(p, pi, ni);
        break;
      }
    }
    if (!(q == p)) {
      KAPLA_ASSERT(contains(q), "SchemeSpace::neighbour: move left the space");
      return q;
    }
  }
  return p;
}

double goal_scalar(const pricing::LayerSchedule& s, model::Goal goal) {
  return model::goal_scalar(s.cost, s.time, goal);
}

SchemeEvaluator cost_model_evaluator(const pricing::LayerProblem& problem,
                                     const SchemeSpace& space) {
  KAPLA_ASSERT(space.has_nlds(), "cost_model_evaluator: space was not built from a problem");
  // B's pricing of one fixed scheme (nn_dataflow Scheduling: loop blocking -> _get_result).
  return
      [eval = pricing::FixedSchemeEvaluator(problem, space.partitions())](const SchemePoint& pt) {
        return eval.evaluate(static_cast<std::size_t>(pt.part_index),
                             pricing::FixedScheme{pt.nld_index, {pt.bl_ts, pt.bl_ords}});
      };
}

std::vector<std::optional<pricing::LayerSchedule>> evaluate_batch(
    const std::vector<SchemePoint>& points, const SchemeEvaluator& evaluate, int num_threads) {
  const auto n = static_cast<std::int64_t>(points.size());
  std::vector<std::optional<pricing::LayerSchedule>> out(points.size());
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic) \
    num_threads(num_threads < 1 ? 1 : num_threads) if (num_threads > 1 && n > 1)
  for (std::int64_t i = 0; i < n; ++i) {
    try {
      out[static_cast<std::size_t>(i)] = evaluate(points[static_cast<std::size_t>(i)]);
    } catch (...) {
#pragma omp critical(kapla_evaluate_batch_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return out;
}

bool TopSchedules::offer(const SchemePoint& p, const pricing::LayerSchedule& s) {
  for (const auto& it : items_)
    if (it.first == p) return false;  // already kept (a revisit prices the same)
  auto pos = items_.begin();
  while (pos != items_.end() && !goal_less(s, pos->second, goal_)) ++pos;
  if (pos - items_.begin() >= k_) return false;
  const bool is_best = pos == items_.begin();
  items_.insert(pos, {p, s});
  if (static_cast<int>(items_.size()) > k_) items_.pop_back();
  return is_best;
}

std::vector<pricing::LayerSchedule> TopSchedules::schedules() const {
  std::vector<pricing::LayerSchedule> out;
  for (const auto& it : items_) out.push_back(it.second);
  return out;
}

std::vector<SchemePoint> TopSchedules::points() const {
  std::vector<SchemePoint> out;
  for (const auto& it : items_) out.push_back(it.first);
  return out;
}

}  // namespace kapla::search
