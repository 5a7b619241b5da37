// An optional capability of a layer oracle: the one cost model's price of a canonical scheme
// with the NoC term left out (unit hops of zero). It skips the partition's NoC placement
// (ifmap/filter/ofmap hop counts over the node array), which is most of the cost of pricing
// a scheme on a partition seen for the first time, so K can screen every partition-size group
// of B's list and place only the promising ones. Never used for a reported number.
#pragma once

#include <optional>

#include "search/kapla/layer_oracle.hpp"

namespace kapla::search::kapla {

class OnChipPricer {
 public:
  virtual ~OnChipPricer() = default;
  /// Energy and time of `s` without the NoC hops; nullopt if the scheme is invalid.
  virtual std::optional<Score> evaluate_on_chip(const CanonicalScheme& s) const = 0;
};

}  // namespace kapla::search::kapla
