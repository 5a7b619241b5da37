// A layer schedule's scheme as short readable strings, shared by the results (HDF5 columns
// partition/blocking/orders) and `kapla schedule`'s printout, so both read the same.
#pragma once

#include <string>

#include "mapping/partition_scheme.hpp"
#include "pricing/layer_schedule.hpp"

namespace kapla::schedule {

/// "OUTP=2x2 OFMP=1x1 BATP=1x1 INPP=1x1" in nesting order (top first).
std::string partition_text(const mapping::PartitionScheme& p);
/// Blocking factors per level, "IFM,OFM,BAT" per level separated by '/': e.g. "4,2,1/1,8,4/2,1,2".
std::string blocking_text(const pricing::LayerSchedule& s);
/// Loop orders per blocking level (GBUF, REGF) separated by '/': loop names from outer to inner.
std::string orders_text(const pricing::LayerSchedule& s);

}  // namespace kapla::schedule
