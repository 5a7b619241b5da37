// Job files (jobs/*.json): parse -> validate -> sweep::SweepSpec. Strict: unknown keys are
// rejected with their path; every error is one line "FILE: FIELD: reason". Format: docs/sweep.md.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "sweep/job.hpp"

namespace kapla::io {

/// Reads a job file. Errors: InputError("FILE: FIELD: reason").
sweep::SweepSpec load_job_file(const std::filesystem::path& file);

/// Parses job text; `origin` names it in errors (and becomes source_file).
sweep::SweepSpec parse_job_text(std::string_view text, const std::string& origin);

/// The canonical text of resolved search options (what the fingerprint hashes).
std::string canonical_options(const model::SearchOptions& options);

}  // namespace kapla::io
