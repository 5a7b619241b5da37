// A layer oracle that answers every query with another oracle's answer: the base of the
// wrappers that change one or two answers (S's bookkeeping in directive_exhaustive.cpp, the
// tests' restricted oracles). It forwards the queries every oracle must answer; the optional
// ones (bound_pricer, fit_memo, layout_free_memo) keep their defaults, so a wrapper does not
// hand out memos or bounds that would bypass what it changes.
#pragma once

#include "search/kapla/layer_oracle.hpp"

namespace kapla::search::kapla {

class ForwardingOracle : public LayerOracle {
 public:
  explicit ForwardingOracle(const LayerOracle& inner) : inner_(inner) {}
  const model::Layer& layer() const override { return inner_.layer(); }
  std::int64_t batch() const override { return inner_.batch(); }
  PhyDim2 node_dims() const override { return inner_.node_dims(); }
  PerLoopDim<std::int64_t> top_constraint() const override { return inner_.top_constraint(); }
  bool remainders() const override { return inner_.remainders(); }
  OnChipData on_chip_data() const override { return inner_.on_chip_data(); }
  const std::vector<mapping::PartitionScheme>& partitions() const override {
    return inner_.partitions();
  }
  NestList nests(const mapping::PartitionScheme& part) const override { return inner_.nests(part); }
  Capacity capacity(const mapping::PartitionScheme& part, int nest_index) const override {
    return inner_.capacity(part, nest_index);
  }
  std::optional<Score> evaluate(const CanonicalScheme& s) const override {
    return inner_.evaluate(s);
  }

 protected:
  const LayerOracle& inner() const { return inner_; }

 private:
  const LayerOracle& inner_;
};

}  // namespace kapla::search::kapla
