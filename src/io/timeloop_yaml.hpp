// One layer to and from Timeloop's problem YAML (docs/onnx.md "Timeloop"), so that a user can
// move a layer between the two tools: "CNN-Layer" (C, M, R, S, N, P, Q, Wstride, Hstride; R/P
// the width of filter/output, S/Q the height) and "GEMM" (M x K times K x N, kapla's 1x1 conv
// of K -> N channels over 1 x M positions).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "model/layer.hpp"

namespace kapla::io {

/// Whether a path names a YAML file (.yaml / .yml).
bool is_yaml_path(const std::filesystem::path& file);

/// A Timeloop problem file as a one-layer network document. The batch (N) is not kept: kapla
/// takes it from the schedule. InputError "FILE: problem.KEY: reason" for anything else.
nlohmann::json import_timeloop_problem(const std::filesystem::path& file, const std::string& name);

/// A layer as a Timeloop problem (CNN-Layer for Conv and FC; GEMM for a one-head MatMul at
/// batch 1). InputError for a kind Timeloop's two shapes cannot express.
std::string export_timeloop_problem(const model::Layer& layer, const std::string& name,
                                    std::int64_t batch);

}  // namespace kapla::io
