// Builds model::Network values from the zoo tables in tests/data (nn_zoo.json,
// nn_zoo_kapla.json), so the schedule tests need nothing outside tests/data.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/network.hpp"

namespace kapla::test {

/// The parsed zoo file (tests/data/<file>); cached per file name.
const nlohmann::json& zoo_table(const std::string& file);
/// All network names of a zoo file, in file order.
std::vector<std::string> zoo_network_names(const std::string& file);
/// A zoo record converted to a network document and built by io::parse_network.
model::Network zoo_network(const std::string& file, const std::string& name);
/// Looks the name up in nn_zoo.json, then nn_zoo_kapla.json.
model::Network zoo_network(const std::string& name);

}  // namespace kapla::test
