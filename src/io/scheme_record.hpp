// One layer scheme with the inputs it is priced under, as a JSON record: what
// `kapla schedule --json` writes per layer ("emit" in docs/schedule_json.md) and `kapla emit`
// reads back. The format is the golden scheme_eval record's "inputs" (layer, batch_size,
// resource, cost, options, scheme; tests/data/golden/README.md) plus its "model" and
// "array_mapping", so one set of parsers (golden_record.hpp) reads both.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "cost/loop_blocking.hpp"
#include "mapping/partition_scheme.hpp"
#include "pricing/layer_problem.hpp"

namespace kapla::io {

struct SchemeRecord {
  /// The layer's problem as the emitted program reads it: the constraint is not kept (it only
  /// decides whether a scheme is allowed) and the ifmap layout is empty (it prices NoC hops).
  pricing::LayerProblem problem;
  mapping::PartitionScheme part;
  int nld_index = 0;
  cost::LoopBlocking blocking;
};

nlohmann::json scheme_record_json(const SchemeRecord& record);

/// InputError "ORIGIN: reason" when a field is missing or malformed.
SchemeRecord parse_scheme_record(const nlohmann::json& j, const std::string& origin);

}  // namespace kapla::io
