// kapla-spec.md §1.4 steps A-E, J. The CSP of the reference (equal-offset PE groups) is a
// direct enumeration with a set of offset vectors, as §1.4 F suggests.
#include "estimator.hpp"

#include <algorithm>
#include <set>
#include <vector>

namespace kapla::search::kapla {
namespace {

bool has_tensor(const DirectiveSchedule& s, DataCategory d) {
  return !(d == DataCategory::Fil &&
           (s.kind == KindClass::Local || s.kind == KindClass::LocalBackH));
}

bool touches(const DirectiveSchedule& s, const std::array<DimStep, 2>& p, int n, DataCategory d) {
  const auto dims = tensor_dims(s.mapping)[d];
  for (int i = 0; i < n; ++i)
    if (dims.contains(p[static_cast<std::size_t>(i)].dim)) return true;
  return false;
}

double product_counts(const LevelDirectives& lv) {
  double p = 1;
  for (const auto& u : lv.updates) p *= static_cast<double>(u.count);
  return p;
}

}  // namespace

double unit_access(const DirectiveSchedule& s, const LevelDirectives& lv, DataCategory d) {
  if (!has_tensor(s, d)) return 0;
  const auto dims = tensor_dims(s.mapping)[d];
  double total = 1;
  for (std::size_t i = 0; i < kNumDims; ++i) {
    const auto dim = static_cast<Dim>(i);
    if (!dims.contains(dim)) continue;
    if (dim == Dim::C && d == DataCategory::Fil && is_channelwise_class(s.kind)) continue;
    const double b = static_cast<double>(lv.tensor[dim] > 0 ? lv.tensor[dim] : 1);
    double sum = b;  // {b: 1} unless an update moves this dim
    bool first = true;
    for (const auto& u : lv.updates) {
      for (int k = 0; k < u.num_pairs; ++k) {
        const auto& p = u.pairs[static_cast<std::size_t>(k)];
        if (p.dim != dim) continue;
        const double c = static_cast<double>(u.count);
        if (first) {
          const double fresh = std::min(static_cast<double>(p.step), b);
          sum = fresh == b ? b * c : b + fresh * (c - 1);
          first = false;
        } else {
          sum *= c;
        }
      }
    }
    total *= sum;
  }
  return total;
}

double refetch(const DirectiveSchedule& s, const LevelDirectives& lv, DataCategory d) {
  double rd = 1;
  bool seen_relevant = false;
  for (const auto& u : lv.updates) {  // innermost first
    if (u.count <= 1) continue;
    if (touches(s, u.pairs, u.num_pairs, d)) {
      seen_relevant = true;
    } else if (seen_relevant) {
      rd *= static_cast<double>(u.count);
    }
  }
  return rd;
}

double distinct_copies(const DirectiveSchedule& s, DataCategory d) {
  const auto dims = tensor_dims(s.mapping)[d];
  const auto& stacks = s.regf.stacks;
  std::vector<std::int64_t> idx(stacks.size(), 0);
  std::set<std::vector<std::int64_t>> offsets;
  while (true) {
    std::vector<std::int64_t> off(kNumDims, 0);
    for (std::size_t i = 0; i < stacks.size(); ++i)
      for (int k = 0; k < stacks[i].num_pairs; ++k) {
        const auto& p = stacks[i].pairs[static_cast<std::size_t>(k)];
        if (dims.contains(p.dim)) off[static_cast<std::size_t>(p.dim)] += p.step * idx[i];
      }
    offsets.insert(off);
    std::size_t i = 0;
    for (; i < stacks.size(); ++i) {
      if (++idx[i] < stacks[i].repl) break;
      idx[i] = 0;
    }
    if (i == stacks.size()) break;
  }
  return static_cast<double>(offsets.size());
}

Estimate estimate(const DirectiveSchedule& s, const model::UnitCosts& costs) {
  Estimate e;
  double nodes = 1, pes = 1;
  for (const auto& st : s.gbuf.stacks) nodes *= static_cast<double>(st.repl);
  for (const auto& st : s.regf.stacks) pes *= static_cast<double>(st.repl);
  const double iters =
      product_counts(s.regf) * product_counts(s.gbuf) * static_cast<double>(s.regf_ops_iter);
  for (auto d : all_values<DataCategory>()) {
    if (!has_tensor(s, d)) continue;
    const bool rw = d == s.rw_data;
    // Step C: DRAM <-> GBUF, divided over the nodes sharing d (stacks irrelevant to d).
    double share = 1;
    for (const auto& st : s.gbuf.stacks)
      if (!touches(s, st.pairs, st.num_pairs, d)) share *= static_cast<double>(st.repl);
    const double rg = refetch(s, s.gbuf, d);
    const double fg = rw ? 2 * rg - 1 : rg;
    e.access[MemLevel::Dram][d] = unit_access(s, s.gbuf, d) * fg * nodes / share;
    // Step D: GBUF -> REGF.
    bool trivial = true;
    for (const auto* lv : {&s.gbuf, &s.regf})
      for (const auto& u : lv->updates)
        if (u.count > 1 && touches(s, u.pairs, u.num_pairs, d)) trivial = false;
    const double upper = trivial ? 1 : product_counts(s.gbuf);
    double fr = refetch(s, s.regf, d) * upper;
    if (rw) fr = 2 * fr - 1;
    const double ur = unit_access(s, s.regf, d);
    e.access[MemLevel::Gbuf][d] = ur * distinct_copies(s, d) * nodes * fr;
    e.access[MemLevel::Itcn][d] = ur * pes * nodes * fr;
    // Step E.
    e.access[MemLevel::Regf][d] = static_cast<double>(s.unit_ops) * iters * pes * nodes *
                                  s.occupancy * (d == DataCategory::Ofm ? 2 : 1);
  }
  e.ops = static_cast<double>(s.unit_ops) * iters * pes * nodes * s.occupancy;
  e.proc_time = static_cast<double>(s.unit_ops) * iters;
  e.energy = e.ops * costs.mac_op;
  for (auto m : all_values<MemLevel>())
    for (auto d : all_values<DataCategory>()) e.energy += e.access[m][d] * costs.mem_hier[m];
  return e;
}

}  // namespace kapla::search::kapla
