// Parses the golden parity records (reference outputs; format in tests/data/golden/README.md)
// into kapla input values, for `kapla check-golden` and the parity tests.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "mapping/data_layout.hpp"
#include "mapping/partition_scheme.hpp"
#include "mapping/resource.hpp"
#include "model/hardware.hpp"
#include "model/layer.hpp"
#include "model/options.hpp"
#include "pricing/layer_problem.hpp"

namespace kapla::io::golden {

/// A double from a golden field: numbers, or the strings "inf", "-inf", "nan".
double to_double(const nlohmann::json& j);

/// A layer record {type: "ConvLayer", nifm, nofm, hofm, ...} (reference class names).
model::Layer parse_layer(const nlohmann::json& j);
mapping::NodeRegion parse_region(const nlohmann::json& j);
mapping::Resource parse_resource(const nlohmann::json& j);
model::UnitCosts parse_cost(const nlohmann::json& j);
/// The reference Option; the cost-model variant follows the record's "model" field.
model::SearchOptions parse_options(const nlohmann::json& j, const std::string& model_field);
mapping::PartitionScheme parse_part(const nlohmann::json& j);
mapping::DataLayout parse_layout(const nlohmann::json& j);

/// A fixed scheme: partition, nested-loop descriptor index, blocking factors and orders.
struct FixedScheme {
  mapping::PartitionScheme part;
  int nld_index = 0;
  /// bl_ts[level][loop]: level 0 = outermost (DRAM), 1 = GBUF, 2 = REGF.
  std::array<PerLoopDim<std::int64_t>, 3> bl_ts{};
  /// bl_ords[level][loop]: position of the loop at levels 0 and 1, 0 = innermost.
  std::array<PerLoopDim<int>, 2> bl_ords{};
};
FixedScheme parse_fixed_scheme(const nlohmann::json& j);

/// The per-layer problem of a scheme_eval or layer_schedule record: its inputs, the variant of
/// its "model" and its "array_mapping" (row stationary unless "systolic").
pricing::LayerProblem parse_layer_problem(const nlohmann::json& record);

/// The cost-model variant of a record's "model" field ("kapla-fork@..." -> Kapla).
model::CostModelVariant variant_of(const std::string& model_field);

/// The inputs of a network_run record (kind "network_run", status "ok"), read from the tool's
/// printed result: namedtuple Resource with list-form NodeRegions, Cost, Option.
struct NetworkRunInputs {
  std::string net;
  std::int64_t batch = 0;
  mapping::Resource resource;
  model::UnitCosts cost;
  model::SearchOptions options;
};
NetworkRunInputs parse_network_run(const nlohmann::json& record);
/// A NodeRegion in the reference tool's list form [dim, origin, dist, type, wtot, wbeg].
mapping::NodeRegion parse_region_list(const nlohmann::json& j);

/// Reads every record of a .jsonl file. Errors: InputError("FILE: line N: reason").
std::vector<nlohmann::json> read_jsonl(const std::string& path);

/// Runs `parse` on a record's JSON; a missing key or a wrong type (nlohmann's exceptions, and
/// the parsers' own runtime_errors) becomes InputError("record: reason"), as bad input is.
template <class F>
decltype(auto) parsing_record(F&& parse) {
  try {
    return parse();
  } catch (const InputError&) {
    throw;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("record: ") + e.what());
  } catch (const std::runtime_error& e) {
    throw InputError(std::string("record: ") + e.what());
  }
}

/// Parses one line of a golden file and every input its kind carries (layer, batch, resource,
/// cost, options, ifmap layout and fixed scheme; network runs' resource, cost and options), as
/// check-golden reads them before evaluating: the fuzzing entry point of this parser.
void parse_record_line(std::string_view line);

/// |a - b| <= rel * max(|a|, |b|); exact for zero; NaN equals NaN; inf equals inf.
bool rel_equal(double a, double b, double rel = 1e-9);

}  // namespace kapla::io::golden
