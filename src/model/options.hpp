// Search options (nn_dataflow Option, plus kapla's rule-variant switch). A validated value.
// Spec: nn_dataflow-spec.md §10.1, kapla-spec.md §7.2.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/enum_array.hpp"

namespace kapla::model {

/// What the search minimises (nn_dataflow -g): energy, delay, or energy-delay product.
enum class Goal : std::uint8_t { Energy, Delay, EnergyDelay };

/// Which reference's rules the cost model follows where the two differ (REGF refetch rule,
/// read-write data category): upstream TANGRAM nn_dataflow, or the KAPLA fork of it.
enum class CostModelVariant : std::uint8_t { Kapla, Tangram };

/// Imperfect factorization (Ruby, docs/imperfect.md): which splits may leave a remainder
/// beyond the reference's space. None: nn_dataflow's partitions (factors multiply to the node
/// grid, splits within approx_dividable's overhead). Spatial: node partitions may also use a
/// sub-grid (idle nodes) and any split whose pieces are all non-empty. Full: spatial, and the
/// temporal blocking of every strategy also takes blocks with a smaller last block (Ruby-T).
/// Perfect (kapla's baseline for Ruby's comparison, docs/imperfect.md) is narrower than the
/// reference's space: the row-stationary mapper takes only folds and replicas that divide the
/// layer's dimensions (Timeloop's perfect factorisation on the PE array).
enum class Imperfect : std::uint8_t { None, Spatial, Full, Perfect };

/// The member initialisers are the reference library's Option() (GBUF bypass off), which the
/// parity tests construct. What a user gets by default is default_options() below.
struct SearchOptions {
  /// GBUF bypass allowed per data category (FIL, IFM, OFM).
  PerDataCategory<bool> sw_gbuf_bypass{{false, false, false}};
  bool sw_solve_loopblocking = false;
  bool hw_access_forwarding = false;
  bool hw_gbuf_sharing = false;
  bool hw_gbuf_save_writeback = false;
  bool partition_hybrid = false;
  bool partition_batch = false;
  bool partition_ifmaps = false;
  bool partition_interlayer = false;
  double layer_pipeline_time_ovhd = std::numeric_limits<double>::infinity();
  double layer_pipeline_max_degree = std::numeric_limits<double>::infinity();
  bool layer_pipeline_opt = true;
  Goal opt_goal = Goal::Energy;
  int ntops = 1;
  CostModelVariant cost_model = CostModelVariant::Kapla;
  /// kapla's extension: the row-stationary mapper also offers nests with more temporal folds
  /// of the ofmap rows, whose freed PE rows replicate over input channels (sums accumulated in
  /// the array) or output channels (cost/map_strategy.hpp, docs/kapla.md §3). Unset = the
  /// strategy's default, filled in by search::options_for from its registry entry (on for K
  /// and S, off for B, R and M); the user-facing defaults below leave it unset. Off here, so
  /// that SearchOptions{} stays the reference's Option (parity tests), and an unset value that
  /// reaches the cost model without a strategy means off (fold_variants_on).
  std::optional<bool> rs_fold_variants = false;
  /// kapla's extension: imperfect factorization (Ruby-S / Ruby-T); none = the reference's space;
  /// perfect = Timeloop's perfect factorisation on the PE array (narrower than none).
  Imperfect imperfect = Imperfect::None;

  friend bool operator==(const SearchOptions&, const SearchOptions&) = default;
};

/// kapla's one set of defaults, used by every user-facing entry point (`kapla schedule`, job
/// files with or without "options", options files): nn_dataflow's command line
/// (nn_dataflow_search.py), i.e. GBUF bypass allowed for every data category and the rest as
/// the reference Option. nn_dataflow's CLI is what its published results were run with.
SearchOptions default_options();

/// Every field of SearchOptions as ("options.<field>", text) pairs in declaration order, so
/// the results' /resolved table and `kapla schedule --help` can show all that changes a
/// result. Booleans are true/false, sw_gbuf_bypass is "[FIL,IFM,OFM]" of booleans.
/// An unset rs_fold_variants is "strategy".
std::vector<std::pair<std::string, std::string>> describe(const SearchOptions& o);

/// Whether the row-stationary mapper adds its fold variants: rs_fold_variants, unset = off
/// (nn_dataflow's mapper; the entry points resolve it per strategy before it gets here).
bool fold_variants_on(const SearchOptions& o);

std::string_view goal_name(Goal g);
/// The goal's primary figure: e -> energy, d -> time, ed -> energy * time.
double goal_scalar(double energy, double time, Goal g);
/// Whether (energy_a, time_a) is better than (energy_b, time_b) under the goal, with
/// nn_dataflow's keys: e -> (energy, time), d -> (time, energy), ed -> energy * time alone.
bool goal_less(double energy_a, double time_a, double energy_b, double time_b, Goal g);
/// "e", "d" or "ed"; throws InputError otherwise.
Goal parse_goal(std::string_view s);
std::string_view variant_name(CostModelVariant v);
/// "none", "spatial", "full" or "perfect".
std::string_view imperfect_name(Imperfect m);
/// The inverse of imperfect_name; throws InputError("imperfect: ...") otherwise.
Imperfect parse_imperfect(std::string_view s);
/// "kapla" or "tangram"; throws InputError otherwise.
CostModelVariant parse_variant(std::string_view s);

/// The KAPLA code's option sets (kapla-spec §7.2, options/option_{training,inference}.json):
/// "training" = no inter-layer pipelining, no save-writeback; "inference" = pipelining with
/// max degree 5. Both: GBUF sharing, hybrid/batch/ifmaps partitioning, no bypass, goal e;
/// rs_fold_variants unset (the strategy's default). Throws InputError for another name.
SearchOptions kapla_option_preset(std::string_view name);

/// Throws InputError for impossible combinations (the reference's Option checks: e.g. the
/// analytical loop-blocking solver cannot be combined with GBUF sharing).
void validate(const SearchOptions& opts);

}  // namespace kapla::model
