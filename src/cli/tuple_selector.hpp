// Which tuple of a results file a command means (`kapla emit RESULTS.h5 --tuple SELECTOR`): its
// key as `kapla results --csv` prints it, a unique prefix of it ("mlp_s:edge:kapla"), or the
// same with the strategy's letter ("mlp_s:edge:K").
#pragma once

#include <string>

#include "io/result_schema.hpp"

namespace kapla::cli {

/// The one record `selector` names; InputError "FILE: --tuple 'SELECTOR': reason" when none
/// or several do (the latter listing them).
const sweep::TupleRecord& select_tuple(const io::ResultsFile& results, const std::string& selector);

}  // namespace kapla::cli
