// A small stand-in for the one cost model, for the solver's own logic tests: nn_dataflow's
// fetch rule (spec §7.3) over a hand-made nested loop, priced DRAM x200 + GBUF x6 + REGF x1.
#pragma once

#include <vector>

#include "core/math.hpp"
#include "model/layer.hpp"
#include "search/kapla/layer_oracle.hpp"

namespace kapla::search::kapla::testing {

class FakeOracle final : public LayerOracle {
 public:
  FakeOracle(model::Layer layer, std::int64_t batch, PhyDim2 nodes, std::int64_t regf,
             std::int64_t gbuf)
      : layer_(layer), batch_(batch), nodes_(nodes), regf_(regf), gbuf_(gbuf) {
    // Partitions: every split of the nodes between OUTP (h) and BATP/OFMP (w).
    for (auto h : divisors(nodes.h))
      for (auto w : divisors(nodes.w)) {
        mapping::PartitionScheme p;
        p.pdims[ParallelDim::Outp] = {h, w};
        p.pdims[ParallelDim::Batp] = {nodes.h / h, nodes.w / w};
        if (batch % p.pdims[ParallelDim::Batp].size() == 0) parts_.push_back(p);
      }
  }
  const model::Layer& layer() const override { return layer_; }
  std::int64_t batch() const override { return batch_; }
  PhyDim2 node_dims() const override { return nodes_; }
  PerLoopDim<std::int64_t> top_constraint() const override { return top_; }
  bool remainders() const override { return false; }
  OnChipData on_chip_data() const override { return {}; }
  const std::vector<mapping::PartitionScheme>& partitions() const override { return parts_; }
  NestList nests(const mapping::PartitionScheme& p) const override {
    std::vector<NodeNest> out;
    for (std::int64_t r : {1, 2}) {
      NodeNest n;
      n.loopcnt = {{ceil_div(layer_.nifm, r), ceil_div(layer_.nofm, p.size(ParallelDim::Outp)),
                    ceil_div(batch_, p.size(ParallelDim::Batp))}};
      n.usize_gbuf = {{9, 16, 4}};
      n.usize_regf = {{3, 3, 1}};
      n.data_loops = {{mapping::LoopSet{LoopDim::Ifm, LoopDim::Ofm},
                       mapping::LoopSet{LoopDim::Ifm, LoopDim::Bat},
                       mapping::LoopSet{LoopDim::Ofm, LoopDim::Bat}}};
      n.repl_ifm = r;
      out.push_back(n);
    }
    return std::make_shared<const std::vector<NodeNest>>(std::move(out));
  }
  Capacity capacity(const mapping::PartitionScheme&, int) const override {
    return {regf_, gbuf_, {{1, 1, 1}}};
  }
  std::optional<Score> evaluate(const CanonicalScheme& s) const override {
    const auto n = (*nests(s.part))[static_cast<std::size_t>(s.nest_index)];
    if (!fits(n, s.blocking, capacity(s.part, s.nest_index))) return std::nullopt;
    const auto& t = s.blocking.bl_ts;
    double e = 0;
    for (auto d : all_values<DataCategory>()) {
      double fetch[2];
      for (int bl = 0; bl < 2; ++bl) {
        const auto& ord = s.blocking.bl_ords[static_cast<std::size_t>(bl)];
        int inn = -1;
        for (auto l : all_values<LoopDim>())
          if (n.data_loops[d].contains(l) && t[static_cast<std::size_t>(bl)][l] > 1 &&
              (inn < 0 || ord[l] < ord[static_cast<LoopDim>(inn)]))
            inn = static_cast<int>(l);
        if (inn < 0) {
          fetch[bl] = bl > 0 ? fetch[bl - 1] : 1;
          continue;
        }
        double f = 1;
        for (auto l : all_values<LoopDim>()) {
          if (n.data_loops[d].contains(l)) continue;
          const int start = bl + (ord[l] > ord[static_cast<LoopDim>(inn)] ? 1 : 0);
          for (int k = 0; k < start; ++k)
            f *= static_cast<double>(t[static_cast<std::size_t>(k)][l]);
        }
        fetch[bl] = d == DataCategory::Ofm ? 2 * f - 1 : f;
      }
      double total = static_cast<double>(n.usize_gbuf[d]);
      for (auto l : all_values<LoopDim>())
        if (n.data_loops[d].contains(l)) total *= static_cast<double>(n.loopcnt[l]);
      e += total * (200 * fetch[0] + 6 * fetch[1]) * static_cast<double>(s.part.size());
    }
    double lcnt = 1;
    for (auto l : all_values<LoopDim>()) lcnt *= static_cast<double>(n.loopcnt[l]);
    return Score{e + lcnt * static_cast<double>(s.part.size()), lcnt};
  }
  PerLoopDim<std::int64_t> top_{{0, 0, 0}};

 private:
  model::Layer layer_;
  std::int64_t batch_;
  PhyDim2 nodes_;
  std::int64_t regf_, gbuf_;
  std::vector<mapping::PartitionScheme> parts_;
};

}  // namespace kapla::search::kapla::testing
