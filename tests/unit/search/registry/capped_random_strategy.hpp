// A strategy that exists only in the tests, added through the registry alone: R capped at a
// few samples per layer ("samples", default 8), with its own name and letter. It proves that a
// strategy needs its own file, one registration line and its test, and no other source file.
#pragma once

#include "search/strategy_registry.hpp"

namespace kapla::testing {

search::StrategyEntry capped_random_entry();

}  // namespace kapla::testing
