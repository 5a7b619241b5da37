// The schedule document: the reference CLI's JSON (nn_dataflow_search.py, docs/schedule_json.md)
// plus kapla's per-layer scheme records. `kapla schedule --json` writes it (with its
// search_seconds); a sweep records it compact, per tuple, in the results file
// (docs/hdf5_schema.md, /schedules); `kapla emit` reads it from either. One writer, so the
// two can never drift apart.
#pragma once

#include <nlohmann/json.hpp>

#include "schedule/scheduled_network.hpp"

namespace kapla::io {

/// Every field of docs/schedule_json.md but `search_seconds` (a run's wall time, which a
/// results file keeps in /tuples: the recorded document depends on the search alone).
nlohmann::ordered_json schedule_json(const schedule::ScheduledNetwork& s);

}  // namespace kapla::io
