// The value checks the results reader applies to every record it reads: a damaged file whose
// checksum was forged must not feed absurd numbers (an EDP of 1e29, a negative time, a batch of
// 2^62) to `kapla results`, merges or the report. Ranges are the writer's own invariants.
#pragma once

#include <string>

#include "sweep/record.hpp"
#include "sweep/tuple_runner.hpp"

namespace kapla::io {

/// Throws InputError("WHERE: tuple 'KEY': FIELD: reason") for a value the writer never writes:
/// a batch or thread count outside model/limits.hpp, a negative count, a negative, infinite or
/// NaN energy, time or seconds, or (status ok) an EDP that is not energy x time.
void check_result_ranges(const sweep::TupleRecord& record, const std::string& where);

}  // namespace kapla::io
