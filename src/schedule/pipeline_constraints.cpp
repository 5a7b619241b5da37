// Symbolic pipeline constraints. Spec: nn_dataflow-spec.md §9.6. The reference builds them with
// sympy; the rules below reproduce its substitution and simplification order, which decides
// which symbols survive and so the constraint enumeration order.
#include "schedule/pipeline_constraints.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <set>

#include "core/errors.hpp"
#include "core/math.hpp"

namespace kapla::schedule::detail {

namespace {

using ArgMap = std::map<Arg, ExprPtr>;
using Args = std::vector<std::vector<ArgMap>>;

ExprPtr get_or(const ArgMap& a, Arg k, const ExprPtr& dflt) {
  auto it = a.find(k);
  return it == a.end() ? dflt : it->second;
}

class Builder {
 public:
  Builder(const std::vector<std::vector<std::size_t>>& layers, const SegmentDeps& deps,
          const model::Network& net, std::int64_t batch,
          const std::vector<std::vector<mapping::Resource>>& alloc, bool with_opt)
      : layers_(layers),
        deps_(deps),
        net_(net),
        batch_(batch),
        alloc_(alloc),
        with_opt_(with_opt),
        size_gbuf_(alloc.front().front().size_gbuf) {}

  std::optional<SymbolicConstraints> run();

 private:
  int new_sym(std::string name, std::vector<std::int64_t> vals, bool is_bool = false) {
    const int id = static_cast<int>(sc_.names.size());
    sc_.names.push_back(std::move(name));
    sc_.values[id] = std::move(vals);
    if (is_bool) sc_.bool_syms.push_back(id);
    return id;
  }
  bool is_bool_sym(int s) const {
    return std::find(sc_.bool_syms.begin(), sc_.bool_syms.end(), s) != sc_.bool_syms.end();
  }
  ExprPtr const_of(int s, std::int64_t v) const {
    return is_bool_sym(s) ? make_bool(v != 0) : make_int(v);
  }
  // Divisors t of n with t <= total / (5% of one node's GBUF), or t == 1.
  std::vector<std::int64_t> top_vals(std::int64_t n, std::int64_t total) const {
    const double tmax = static_cast<double>(total) / (0.05 * static_cast<double>(size_gbuf_));
    std::vector<std::int64_t> out;
    for (auto t : divisors(n)) {
      if (static_cast<double>(t) <= tmax || t == 1) out.push_back(t);
    }
    return out;
  }
  std::vector<std::int64_t> topofm_vals(std::size_t l) const {
    return top_vals(net_.layer(l).nofm, net_.layer(l).total_ofmap_size(batch_));
  }
  std::vector<std::int64_t> topifm_vals(std::size_t l) const {
    return top_vals(net_.layer(l).nifm, net_.layer(l).total_ifmap_size(batch_));
  }

  bool simplify_one_pass(Args& args);
  void simplify(Args& args) {
    while (!simplify_one_pass(args)) {
    }
  }
  static Args substituted(const Args& args, const std::map<int, ExprPtr>& subs) {
    Args out = args;
    for (auto& row : out) {
      for (auto& a : row) {
        for (auto& [k, v] : a) v = substitute(v, subs);
      }
    }
    return out;
  }
  void lazify_topofm(Args& args);

  const std::vector<std::vector<std::size_t>>& layers_;
  const SegmentDeps& deps_;
  const model::Network& net_;
  std::int64_t batch_;
  const std::vector<std::vector<mapping::Resource>>& alloc_;
  bool with_opt_;
  std::int64_t size_gbuf_;
  SymbolicConstraints sc_;
};

bool Builder::simplify_one_pass(Args& args) {
  for (auto& row : args) {
    for (auto& a : row) {
      for (auto [fb, top] :
           {std::pair{Arg::Fbifm, Arg::Topifm}, std::pair{Arg::Fbofm, Arg::Topofm}}) {
        auto it = a.find(fb);
        if (it == a.end()) continue;
        if (is_true(it->second)) {
          a.erase(top);
        } else if (is_false(it->second)) {
          a.erase(it);
        }
      }
    }
  }
  std::map<int, ExprPtr> subs;
  bool any = false;
  for (const auto& [s, vals] : sc_.values) {
    if (vals.size() == 1) {
      subs[s] = const_of(s, vals[0]);
      any = true;
    }
  }
  std::map<int, int> counts;
  for (const auto& row : args) {
    for (const auto& a : row) {
      for (const auto& [k, v] : a) {
        std::set<int> fs;
        free_symbols(v, fs);
        for (int s : fs) ++counts[s];
      }
    }
  }
  for (const auto& [s, vals] : sc_.values) {
    if (!counts.count(s)) {
      subs[s] = nullptr;  // unused: just dropped
      any = true;
    }
  }
  for (const auto& [s, c] : counts) {
    KAPLA_ASSERT(sc_.values.count(s), "pipeline constraints: value uses a removed symbol");
    if (c <= 1) {
      subs[s] = sc_.names[static_cast<std::size_t>(s)].rfind("top", 0) == 0 ? make_int(0)
                                                                            : make_bool(false);
      any = true;
    }
  }
  if (!any) return true;
  args = substituted(args, subs);
  for (const auto& [s, v] : subs) sc_.values.erase(s);
  return false;
}

void Builder::lazify_topofm(Args& args) {
  std::map<int, std::size_t> sym2conv;
  std::map<int, std::vector<std::size_t>> sym2lrs;
  std::set<int> unqual;
  const ExprPtr zero = make_int(0);
  for (std::size_t sp = 0; sp < layers_.size(); ++sp) {
    for (std::size_t tm = 0; tm < layers_[sp].size(); ++tm) {
      const std::size_t l = layers_[sp][tm];
      const ArgMap& a = args[sp][tm];
      const ExprPtr topofm = get_or(a, Arg::Topofm, zero);
      if (pipelines_as_conv(net_.layer(l))) {
        std::set<int> fs;
        free_symbols(topofm, fs);
        free_symbols(get_or(a, Arg::Topifm, zero), fs);
        for (int s : fs) {
          if (unqual.count(s)) continue;
          if (sym2conv.count(s)) {
            sym2conv.erase(s);
            sym2lrs.erase(s);
            unqual.insert(s);
          } else if (topofm->kind == Expr::Kind::Sym && topofm->sym == s) {
            sym2conv[s] = l;
          }
        }
      } else if (topofm->kind == Expr::Kind::Sym && sym2conv.count(topofm->sym)) {
        sym2lrs[topofm->sym].push_back(l);
      }
    }
  }
  std::map<std::size_t, std::size_t> lr2conv;
  std::set<std::size_t> lconvs;
  for (const auto& [s, conv] : sym2conv) {
    auto it = sym2lrs.find(s);
    if (it == sym2lrs.end()) continue;
    for (std::size_t lr : it->second) {
      lr2conv[lr] = conv;
      lconvs.insert(conv);
    }
  }
  for (std::size_t sp = 0; sp < layers_.size(); ++sp) {
    for (std::size_t tm = 0; tm < layers_[sp].size(); ++tm) {
      const std::size_t l = layers_[sp][tm];
      if (lconvs.count(l)) {
        args[sp][tm].erase(Arg::Topofm);
      } else if (auto it = lr2conv.find(l); it != lr2conv.end()) {
        args[sp][tm].erase(Arg::Topofm);
        sc_.update_from[sp][tm] = it->second;
      }
    }
  }
  for (const auto& [s, conv] : sym2conv) sc_.values.erase(s);
}

std::optional<SymbolicConstraints> Builder::run() {
  const int topbat = new_sym("topbat_shr", divisors(batch_));
  const int fbofm_init = new_sym("fbofm_init", {0, 1}, true);
  const ExprPtr topbat_e = make_sym(topbat);
  const ExprPtr fbofm_init_e = make_sym(fbofm_init);
  const ExprPtr false_e = make_bool(false);
  const ExprPtr true_e = make_bool(true);

  Args args(layers_.size());
  sc_.update_from.resize(layers_.size());
  for (std::size_t sp = 0; sp < layers_.size(); ++sp) {
    args[sp].assign(layers_[sp].size(), ArgMap{{Arg::Topbat, topbat_e}});
    sc_.update_from[sp].assign(layers_[sp].size(), std::nullopt);
  }

  // Critical-path candidates in insertion order (the reference's set; ties between equally
  // long candidates are resolved here by insertion order, §9.6).
  std::vector<std::vector<int>> crit_cands{{0}};
  SegIndex last_conv{-1, 0};
  std::optional<ExprPtr> curr_fbofm;  // nullopt = the Python literal False (nothing to apply)
  for (std::size_t sp = 0; sp < layers_.size(); ++sp) {
    const int isp = static_cast<int>(sp);
    ExprPtr curr_topofm =
        make_sym(new_sym("topofm_" + std::to_string(sp) + "_s", topofm_vals(layers_[sp][0])));
    for (std::size_t tm = 0; tm < layers_[sp].size(); ++tm) {
      const int itm = static_cast<int>(tm);
      const std::size_t l = layers_[sp][tm];
      ArgMap* nsrc = nullptr;  // the neighbour source's arguments, and its layer
      std::size_t nsrc_layer = 0;
      if (const auto& nb = deps_.src[sp][tm].neighbour) {
        nsrc = &args[static_cast<std::size_t>(nb->sp)][static_cast<std::size_t>(nb->tm)];
        nsrc_layer = layers_[static_cast<std::size_t>(nb->sp)][static_cast<std::size_t>(nb->tm)];
        const auto snapshot = crit_cands;
        for (const auto& cand : snapshot) {
          if (cand.back() == nb->sp) {
            auto ext = cand;
            ext.push_back(isp);
            if (std::find(crit_cands.begin(), crit_cands.end(), ext) == crit_cands.end()) {
              crit_cands.push_back(ext);
            }
          }
        }
      }
      ArgMap& curr = args[sp][tm];
      if (pipelines_as_conv(net_.layer(l))) {
        if (curr_fbofm) {
          KAPLA_ASSERT(last_conv.sp >= 0, "pipeline constraints: fbofm without a conv");
          ArgMap& lsrc = last_conv.sp == isp ? args[sp][tm - 1]
                                             : args[static_cast<std::size_t>(last_conv.sp)].back();
          lsrc[Arg::Fbofm] = *curr_fbofm;
        }
        curr_fbofm.reset();
        curr_topofm = make_sym(
            new_sym("topofm_" + std::to_string(sp) + "_" + std::to_string(tm), topofm_vals(l)));
        curr[Arg::Topofm] = curr_topofm;
        if (isp == last_conv.sp) {
          // Inter-temporal: this group fully buffers ifmaps, the previous one ofmaps.
          curr[Arg::Fbifm] = true_e;
          args[sp][static_cast<std::size_t>(last_conv.tm)][Arg::Fbofm] = true_e;
          args[sp][tm - 1][Arg::Fbofm] = true_e;
        } else if (nsrc) {
          // Inter-spatial: forward fmap groups unless the source fully buffers its ofmaps. A
          // reshaped operand (other heads, other token layout; model::Network::forwards_on_chip)
          // has no channel groups in common with its source's: whole batch groups only.
          if (!with_opt_ || !net_.carries_unchanged(nsrc_layer, l)) (*nsrc)[Arg::Fbofm] = true_e;
          const ExprPtr s = get_or(*nsrc, Arg::Fbofm, false_e);
          curr[Arg::Fbifm] = make_eq(s, true);
          curr[Arg::Fbofm] = make_eq(s, false);
          curr_fbofm = make_eq(s, false);
          auto ns_topofm = nsrc->find(Arg::Topofm);
          KAPLA_ASSERT(ns_topofm != nsrc->end(), "pipeline constraints: source has no topofm");
          curr[Arg::Topifm] = make_piecewise(ns_topofm->second, make_eq(s, false),
                                             get_or(curr, Arg::Topifm, make_int(0)));
        } else if (last_conv.sp < 0) {
          curr[Arg::Fbofm] = fbofm_init_e;
          curr_fbofm = fbofm_init_e;
        }
        last_conv = {isp, itm};
      } else {
        if (nsrc) {
          const ExprPtr s = get_or(*nsrc, Arg::Fbofm, false_e);
          auto ns_topofm = nsrc->find(Arg::Topofm);
          KAPLA_ASSERT(ns_topofm != nsrc->end(), "pipeline constraints: source has no topofm");
          curr_topofm = make_piecewise(ns_topofm->second, make_eq(s, false), curr_topofm);
          for (int bt = last_conv.tm; bt < itm; ++bt) {
            args[sp][static_cast<std::size_t>(bt)][Arg::Topofm] = curr_topofm;
          }
        }
        curr[Arg::Topofm] = curr_topofm;
      }
      if (deps_.dst[sp][tm].neighbours.empty() && tm + 1 == layers_[sp].size()) {
        curr.erase(Arg::Fbofm);
      }
    }
  }
  simplify(args);

  // Choose fbofm_init: fewest fully buffered pairs on the critical path, then smallest fully
  // buffered size; values whose buffered fmaps exceed a vertex's GBUFs are infeasible.
  std::size_t crit = 0;
  for (std::size_t i = 1; i < crit_cands.size(); ++i) {
    if (crit_cands[i].size() > crit_cands[crit].size()) crit = i;
  }
  const auto& crit_path = crit_cands[crit];
  std::vector<std::int64_t> init_vals{0};
  if (auto it = sc_.values.find(fbofm_init); it != sc_.values.end()) init_vals = it->second;
  std::optional<std::int64_t> opt_val;
  std::pair<double, double> opt_key{std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::infinity()};
  std::int64_t num_sp_fbs = 0;
  for (auto val : init_vals) {
    const Args sub = substituted(args, {{fbofm_init, make_bool(val != 0)}});
    std::int64_t maxsz = 0;
    std::int64_t numfb = 0;
    bool ok = true;
    for (std::size_t sp = 0; sp < layers_.size() && ok; ++sp) {
      std::int64_t ms = 0;
      for (std::size_t tm = 0; tm < layers_[sp].size(); ++tm) {
        const auto& layer = net_.layer(layers_[sp][tm]);
        const auto& a = sub[sp][tm];
        const std::int64_t sz =
            (truthy(get_or(a, Arg::Fbofm, false_e)) ? layer.total_ofmap_size() : 0) +
            (truthy(get_or(a, Arg::Fbifm, false_e)) ? layer.total_ifmap_size() : 0);
        ms = std::max(ms, sz);
      }
      if (ms > alloc_[sp][0].proc_region.dim.size() * alloc_[sp][0].size_gbuf) {
        ok = false;
        break;
      }
      maxsz = std::max(maxsz, ms);
      const bool on_crit =
          std::find(crit_path.begin(), crit_path.end(), static_cast<int>(sp)) != crit_path.end();
      if (on_crit && truthy(get_or(sub[sp].back(), Arg::Fbofm, false_e))) ++numfb;
    }
    if (!ok) continue;
    const std::pair<double, double> key{static_cast<double>(numfb), static_cast<double>(maxsz)};
    if (key < opt_key) {
      opt_val = val;
      opt_key = key;
      num_sp_fbs = numfb;
    }
  }
  if (!opt_val) return std::nullopt;
  sc_.values[fbofm_init] = {*opt_val};
  simplify(args);

  // Layers sharing a memory source fetch it once and forward it: same topifm, or all fully
  // buffer their ifmaps when some of them already constrain ofmaps.
  for (const auto& list : deps_.ifm_fwd) {
    const auto fet_sp = static_cast<std::size_t>(list.front().sp);
    bool constrains_ofm = false;
    for (const auto& idx : list) {
      const auto& a = args[static_cast<std::size_t>(idx.sp)][0];
      if (truthy(get_or(a, Arg::Fbofm, false_e)) || truthy(get_or(a, Arg::Topofm, make_int(0)))) {
        constrains_ofm = true;
      }
    }
    ExprPtr topifm;
    if (!constrains_ofm) {
      topifm =
          make_sym(new_sym("topifm_" + std::to_string(fet_sp), topifm_vals(layers_[fet_sp][0])));
    }
    for (const auto& idx : list) {
      auto& a = args[static_cast<std::size_t>(idx.sp)][0];
      if (constrains_ofm) {
        a[Arg::Fbifm] = true_e;
      } else {
        a[Arg::Topifm] = topifm;
      }
    }
  }
  simplify(args);
  lazify_topofm(args);
  sc_.args = std::move(args);
  sc_.num_sp_fbs = num_sp_fbs;
  return std::move(sc_);
}

}  // namespace

std::optional<SymbolicConstraints> build_symbolic_constraints(
    const std::vector<std::vector<std::size_t>>& layers, const SegmentDeps& deps,
    const model::Network& net, std::int64_t batch,
    const std::vector<std::vector<mapping::Resource>>& alloc, bool with_opt) {
  return Builder(layers, deps, net, batch, alloc, with_opt).run();
}

std::vector<SegmentConstraint> enumerate_constraints(const SymbolicConstraints& sc,
                                                     double max_time_overhead) {
  // Symbols sorted by name as strings; each value list ascending.
  std::vector<int> syms;
  for (const auto& [s, v] : sc.values) syms.push_back(s);
  std::sort(syms.begin(), syms.end(), [&](int a, int b) {
    return sc.names[static_cast<std::size_t>(a)] < sc.names[static_cast<std::size_t>(b)];
  });
  std::vector<std::vector<std::int64_t>> vals;
  for (int s : syms) {
    auto v = sc.values.at(s);
    std::sort(v.begin(), v.end());
    if (sc.names[static_cast<std::size_t>(s)] == "topbat_shr") {
      const double min_topbat = 1. * static_cast<double>(sc.num_sp_fbs) / max_time_overhead;
      std::vector<std::int64_t> kept;
      for (auto t : v) {
        if (static_cast<double>(t) >= min_topbat) kept.push_back(t);
      }
      v = std::move(kept);
    }
    vals.push_back(std::move(v));
  }
  const bool dummy = syms.empty();
  std::vector<SegmentConstraint> out;
  for (const auto& v : vals) {
    if (v.empty()) return out;
  }
  std::vector<std::size_t> pos(syms.size(), 0);
  std::vector<char> is_bool(syms.size());
  for (std::size_t i = 0; i < syms.size(); ++i)
    is_bool[i] = std::find(sc.bool_syms.begin(), sc.bool_syms.end(), syms[i]) != sc.bool_syms.end();
  // The symbols' values of one combination, for evaluate(); substitute() where an argument does
  // not evaluate to a constant that way (the reference's semantics, kept in one place).
  std::vector<std::optional<ConstValue>> env(sc.names.size());
  std::map<int, ExprPtr> subs;
  auto substituted = [&](const ExprPtr& e) {
    if (subs.empty()) {
      for (std::size_t i = 0; i < syms.size(); ++i) {
        const auto v = env[static_cast<std::size_t>(syms[i])]->value;
        subs[syms[i]] = is_bool[i] ? make_bool(v != 0) : make_int(v);
      }
    }
    return substitute(e, subs);
  };
  // Each layer's arguments, looked up once (null where absent), not once per combination.
  using LayerArgs = std::array<const ExprPtr*, 5>;
  std::vector<std::vector<LayerArgs>> args(sc.args.size());
  for (std::size_t sp = 0; sp < sc.args.size(); ++sp) {
    for (const auto& a : sc.args[sp]) {
      LayerArgs la{};
      for (auto k : {Arg::Topbat, Arg::Topifm, Arg::Topofm, Arg::Fbifm, Arg::Fbofm}) {
        const auto it = a.find(k);
        la[static_cast<std::size_t>(k)] = it == a.end() ? nullptr : &it->second;
      }
      args[sp].push_back(la);
    }
  }
  auto as_int = [&](const LayerArgs& a, Arg k) -> std::int64_t {
    const ExprPtr* x = a[static_cast<std::size_t>(k)];
    if (x == nullptr) return 0;
    if (const auto v = evaluate(*x, env)) return v->value;
    const ExprPtr e = substituted(*x);
    KAPLA_ASSERT(is_const(e), "pipeline constraints: unresolved symbol in a constraint");
    return e->kind == Expr::Kind::Bool ? (e->bval ? 1 : 0) : e->ival;
  };
  auto is_truthy = [&](const LayerArgs& a, Arg k) {
    const ExprPtr* x = a[static_cast<std::size_t>(k)];
    if (x == nullptr) return false;
    if (const auto v = evaluate(*x, env)) return v->value != 0;
    return truthy(substituted(*x));
  };
  while (true) {
    subs.clear();
    SegmentConstraint c;
    c.hints.reserve(syms.size());
    for (std::size_t i = 0; i < syms.size(); ++i) {
      const auto v = vals[i][pos[i]];
      env[static_cast<std::size_t>(syms[i])] =
          ConstValue{is_bool[i] != 0, is_bool[i] ? (v != 0 ? 1 : 0) : v};
      c.hints.push_back(v);
    }
    if (dummy) c.hints = {1};
    bool rejected = false;
    c.layers.resize(sc.args.size());
    for (std::size_t sp = 0; sp < sc.args.size(); ++sp) {
      c.layers[sp].reserve(sc.args[sp].size());
      for (std::size_t tm = 0; tm < sc.args[sp].size(); ++tm) {
        const LayerArgs& a = args[sp][tm];
        SegmentLayerConstraint lc;
        lc.topbat = as_int(a, Arg::Topbat);
        lc.fbifm = is_truthy(a, Arg::Fbifm);
        if (!lc.fbifm) lc.topifm = as_int(a, Arg::Topifm);
        lc.fbofm = is_truthy(a, Arg::Fbofm);
        if (!lc.fbofm) lc.topofm = as_int(a, Arg::Topofm);
        if (lc.fbifm) lc.topifm = 1;
        if (lc.fbofm) lc.topofm = 1;
        // The reference's constraint class rejects this combination (raises).
        if (lc.topifm > 1 && lc.topofm > 1) rejected = true;
        lc.topofm_from_layer = sc.update_from[sp][tm];
        c.layers[sp].push_back(lc);
      }
    }
    if (!rejected) out.push_back(std::move(c));
    // Odometer: the last symbol varies fastest (itertools.product).
    std::size_t i = syms.size();
    while (i > 0) {
      --i;
      if (++pos[i] < vals[i].size()) break;
      pos[i] = 0;
      if (i == 0) return out;
    }
    if (syms.empty()) return out;
  }
}

bool pipelines_as_conv(const model::Layer& l) {
  return l.type == model::LayerType::Conv || l.type == model::LayerType::FC || l.is_matmul();
}

}  // namespace kapla::schedule::detail
