// Partition geometry, per-node layer, buffer-sharing groups, ofmap layout, filter nodes and
// unit NoC hops against every fixed-scheme golden record (nn_dataflow and KAPLA families).
// Spec: nn_dataflow-spec.md §8.1-§8.7, §8.9.1; §12.4. Golden format: tests/data/golden/README.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "io/golden_record.hpp"
#include "mapping/buffer_sharing_scheme.hpp"
#include "mapping/data_layout_ops.hpp"
#include "mapping/data_loops.hpp"
#include "mapping/gen_partition.hpp"
#include "mapping/noc_hops.hpp"
#include "mapping/part_layer.hpp"
#include "model/layer.hpp"

namespace kapla {
namespace {

using nlohmann::json;
namespace golden = io::golden;

/// Pass/fail counts per compared field, with the first few failure messages.
struct Tally {
  std::map<std::string, std::pair<int, int>> counts;  // field -> (pass, fail)
  int reported = 0;
  void record(const std::string& id, const std::string& field, bool ok, const std::string& why) {
    auto& c = counts[field];
    (ok ? c.first : c.second) += 1;
    if (!ok && reported++ < 20) ADD_FAILURE() << "record " << id << ": " << field << ": " << why;
  }
};

std::string str(const json& j) { return j.dump(); }

/// The first mismatching p_layer field, or "" if all match.
std::string compare_p_layer(const model::Layer& p, const json& want) {
  std::ostringstream os;
  auto chk = [&](const char* name, std::int64_t got) {
    if (!want.contains(name) || !os.str().empty()) return;
    const auto w = want.at(name).get<std::int64_t>();
    if (w != got) os << name << ": got " << got << ", want " << w;
  };
  const std::string type = want.at("type").get<std::string>();
  if (golden::parse_layer(want).type != p.type)
    return "type: got " + std::string(model::type_name(p.type)) + ", want " + type;
  chk("nifm", p.nifm);
  chk("nofm", p.nofm);
  chk("hofm", p.sofm.h);
  chk("wofm", p.sofm.w);
  chk("hifm", p.sifm.h);
  chk("wifm", p.sifm.w);
  chk("htrd", p.strd.h);
  chk("wtrd", p.strd.w);
  if (p.has_filter()) {
    chk("hfil", p.sfil.h);
    chk("wfil", p.sfil.w);
  } else {
    chk("nreg", p.nreg);
    chk("hreg", p.sreg.h);
    chk("wreg", p.sreg.w);
    chk("ntrd", p.ntrd);
  }
  chk("rw_data", static_cast<std::int64_t>(index_of(p.rw_data)));
  chk("total_ops_batch1", p.total_ops(1));
  return os.str();
}

void check_file(const std::string& rel) {
  const auto records = golden::read_jsonl(std::string(KAPLA_TEST_DATA_DIR) + "/golden/" + rel);
  ASSERT_FALSE(records.empty()) << rel;
  Tally t;
  for (const json& rec : records) {
    const std::string id = rec.at("id").get<std::string>();
    const std::string model_field = rec.at("model").get<std::string>();
    const json& in = rec.at("inputs");
    const json& der = rec.at("derived");
    const model::Layer layer = golden::parse_layer(in.at("layer"));
    const auto batch = in.at("batch_size").get<std::int64_t>();
    const mapping::Resource res = golden::parse_resource(in.at("resource"));
    const model::SearchOptions opts = golden::parse_options(in.at("options"), model_field);
    const mapping::PartitionScheme part = golden::parse_part(in.at("scheme").at("part"));

    // Position in gen_partition (guaranteed = True).
    {
      const auto parts = mapping::gen_partition(layer, batch, res.proc_region.dim, opts, true);
      const auto it = std::find(parts.begin(), parts.end(), part);
      const long idx = it == parts.end() ? -1 : static_cast<long>(it - parts.begin());
      const long want = in.at("scheme").at("part_index_in_gen_partition").get<long>();
      t.record(id, "part_index_in_gen_partition", idx == want,
               "got " + std::to_string(idx) + " of " + std::to_string(parts.size()) + ", want " +
                   std::to_string(want));
    }

    // Per-node layer.
    const mapping::PartLayer pl = mapping::part_layer(layer, batch, part);
    {
      const std::string why = compare_p_layer(pl.p_layer, der.at("p_layer"));
      t.record(id, "p_layer", why.empty(), why);
      const auto pb = der.at("p_batch_size").get<std::int64_t>();
      t.record(id, "p_batch_size", pl.p_batch == pb,
               "got " + std::to_string(pl.p_batch) + ", want " + std::to_string(pb));
      const double po = golden::to_double(der.at("p_occupancy"));
      std::ostringstream os;
      os.precision(17);
      os << "got " << pl.p_occupancy << ", want " << po;
      t.record(id, "p_occupancy", golden::rel_equal(pl.p_occupancy, po), os.str());
    }

    // Buffer-sharing groups, with the data loops of the per-node layer.
    {
      const auto dl = mapping::data_loops(pl.p_layer);
      if (der.contains("nld") && der.at("nld").is_object() &&
          der.at("nld").contains("data_loops")) {
        bool same = true;
        for (auto d : all_values<DataCategory>()) {
          std::vector<int> got_l, want_l;
          for (auto x : all_values<LoopDim>())
            if (dl[d].contains(x)) got_l.push_back(static_cast<int>(index_of(x)));
          for (const auto& l : der.at("nld").at("data_loops").at(index_of(d)))
            want_l.push_back(l.get<int>());
          if (got_l != want_l) same = false;
        }
        t.record(id, "data_loops", same, "nld.data_loops " + str(der.at("nld").at("data_loops")));
      }
      const mapping::BufShrScheme bs = mapping::make_bufshr_scheme(res.proc_region, part, dl);
      const json& wb = der.at("bufshr_scheme");
      std::string why;
      for (auto d : all_values<DataCategory>()) {
        const auto i = index_of(d);
        const PhyDim2 wd{wb.at("dims").at(i).at(0).get<std::int64_t>(),
                         wb.at("dims").at(i).at(1).get<std::int64_t>()};
        const mapping::Dist2 wn{golden::to_double(wb.at("nbr_dists").at(i).at(0)),
                                golden::to_double(wb.at("nbr_dists").at(i).at(1))};
        const auto ws = wb.at("size").at(i).get<std::int64_t>();
        if (why.empty() && !(bs.dims[d] == wd))
          why = "dims[" + std::to_string(i) + "] " + str(wb.at("dims").at(i));
        if (why.empty() && !(golden::rel_equal(bs.nbr_dists[d].h, wn.h) &&
                             golden::rel_equal(bs.nbr_dists[d].w, wn.w)))
          why = "nbr_dists[" + std::to_string(i) + "]: got (" + std::to_string(bs.nbr_dists[d].h) +
                ", " + std::to_string(bs.nbr_dists[d].w) + "), want " +
                str(wb.at("nbr_dists").at(i));
        if (why.empty() && bs.size(d) != ws) why = "size[" + std::to_string(i) + "]";
      }
      t.record(id, "bufshr_scheme", why.empty(), why);
    }

    // Rotation and wide-fetch hops of the chosen buffer-sharing scheme (§8.9.2-§8.9.3):
    // rot = nhops_rotate_all(d, M, U) * R; wide = nhops_wide_fetch_once(d, M, W) * (buf - comb).
    if (rec.at("valid").get<bool>() && !rec.at("result").at("lbs").at("bufshr_sweep").is_null()) {
      const json& r = rec.at("result");
      const mapping::BufShrScheme bs =
          mapping::make_bufshr_scheme(res.proc_region, part, mapping::data_loops(pl.p_layer));
      const DataCategory rw = pl.p_layer.rw_data;
      std::string why_rot, why_wide;
      for (auto d : all_values<DataCategory>()) {
        const auto i = index_of(d);
        const auto m = r.at("bufshr_subgrp_size").at(i).get<std::int64_t>();
        const auto rounds = r.at("bufshr_rot_round_cnt").at(i).get<std::int64_t>();
        const auto units = r.at("bufshr_rot_unit_cnt").at(i).get<std::int64_t>();
        const double width = golden::to_double(r.at("bufshr_wide_fetch_width").at(i));
        const auto buf = r.at("fetch").at(1).at(i).get<std::int64_t>();
        const double rot =
            bs.nhops_rotate_all(d, m, static_cast<double>(units)) * static_cast<double>(rounds);
        double comb = d == rw
                          ? static_cast<double>(buf > 2 * rounds - 1 ? 2 * rounds : 2 * rounds - 1)
                          : static_cast<double>(rounds);
        comb *= 1. * static_cast<double>(units - 1) / static_cast<double>(units);
        const double wide =
            bs.nhops_wide_fetch_once(d, m, width) * (static_cast<double>(buf) - comb);
        const double want_rot = golden::to_double(r.at("bufshr_rot_fetch").at(i));
        const double want_wide = golden::to_double(r.at("bufshr_wide_fetch").at(i));
        std::ostringstream os;
        os.precision(17);
        if (why_rot.empty() && !golden::rel_equal(rot, want_rot)) {
          os << name_of(d) << ": got " << rot << ", want " << want_rot;
          why_rot = os.str();
        }
        if (why_wide.empty() && !golden::rel_equal(wide, want_wide)) {
          os << name_of(d) << ": got " << wide << ", want " << want_wide;
          why_wide = os.str();
        }
      }
      t.record(id, "bufshr_rot_fetch", why_rot.empty(), why_rot);
      t.record(id, "bufshr_wide_fetch", why_wide.empty(), why_wide);
    }

    // Ofmap layout and filter nodes.
    const mapping::DataLayout ofl = mapping::ofmap_layout(layer, batch, part, res.dst_data_region);
    t.record(id, "ofmap_layout", ofl == golden::parse_layout(der.at("ofmap_layout")),
             "want " + str(der.at("ofmap_layout").at("parts")));
    const std::vector<PhyDim2> fnodes = mapping::filter_nodes(res.dram_region);
    {
      std::vector<PhyDim2> want;
      for (const auto& n : der.at("filter_nodes"))
        want.push_back({n.at(0).get<std::int64_t>(), n.at(1).get<std::int64_t>()});
      t.record(id, "filter_nodes", fnodes == want, str(der.at("filter_nodes")));
    }

    // Unit hops (valid records only).
    if (rec.at("valid").get<bool>()) {
      const mapping::DataLayout ifl = golden::parse_layout(in.at("ifmap_layout"));
      const auto nh = mapping::unit_nhops_to_proc_region(layer, batch, res.proc_region, part,
                                                         fnodes, ifl, ofl, opts);
      const json& want = rec.at("result").at("unit_nhops");
      std::string why;
      for (auto d : all_values<DataCategory>()) {
        const double w = golden::to_double(want.at(index_of(d)));
        if (why.empty() && !golden::rel_equal(nh[d], w)) {
          std::ostringstream os;
          os.precision(17);
          os << name_of(d) << ": got " << nh[d] << ", want " << w;
          why = os.str();
        }
      }
      t.record(id, "unit_nhops", why.empty(), why);
    }
  }
  std::cout << "[parity] " << rel << " (" << records.size() << " records)\n";
  for (const auto& [field, c] : t.counts)
    std::cout << "  " << field << ": " << c.first << " pass, " << c.second << " fail\n";
}

TEST(PartitionParity, NnDataflowSchemeEvals) { check_file("nn_dataflow/scheme_evals.jsonl"); }
TEST(PartitionParity, KaplaSchemeEvals) { check_file("kapla/scheme_evals.jsonl"); }
TEST(PartitionParity, KaplaSystolicSchemeEvals) { check_file("kapla/scheme_evals_systolic.jsonl"); }

}  // namespace
}  // namespace kapla
