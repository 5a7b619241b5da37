// Job files (jobs/*.json): parse -> validate -> sweep::SweepSpec. Strict: unknown keys are
// rejected with their path; every error is one line "FILE: FIELD: reason". Format: docs/sweep.md.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "search/strategy_registry.hpp"
#include "sweep/job.hpp"

namespace kapla::io {

/// Reads a job file. Errors: InputError("FILE: FIELD: reason").
/// Strategies are looked up in `registry` (kapla's own unless a test brings its own). The base
/// hardware of design spaces comes from the catalog of io::data_dir(data_dir_override).
sweep::SweepSpec load_job_file(
    const std::filesystem::path& file,
    const search::StrategyRegistry& registry = search::builtin_strategies(),
    const std::optional<std::filesystem::path>& data_dir_override = {});

/// Parses job text; `origin` names it in errors (and becomes source_file).
sweep::SweepSpec parse_job_text(
    std::string_view text, const std::string& origin,
    const search::StrategyRegistry& registry = search::builtin_strategies(),
    const std::optional<std::filesystem::path>& data_dir_override = {});

/// The hash of everything that changes a tuple's values besides its axes: the options each
/// strategy searches with and the time limit (SweepSpec::fingerprint). A caller that changes
/// spec.options after loading (kapla sweep --imperfect) recomputes it with this.
std::string job_fingerprint(const sweep::SweepSpec& spec, const search::StrategyRegistry& registry);

/// The canonical text of resolved search options (what the fingerprint hashes).
std::string canonical_options(const model::SearchOptions& options);

}  // namespace kapla::io
