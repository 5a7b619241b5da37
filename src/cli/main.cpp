// kapla command-line entry point: global options, one registration line per subcommand, and
// the mapping of errors to exit codes (house-style §3.6): bad input 1, bug 3.
#include <exception>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli/commands.hpp"
#include "cli/context.hpp"
#include "core/errors.hpp"
#include "core/terminal_text.hpp"

namespace {

std::string one_line(const std::string& message) { return kapla::terminal_safe(message); }

// CLI11 says "A subcommand is required" for a mistyped one; name it instead. The first
// argument that is not an option (or --data-dir's value) is the subcommand.
void check_subcommand(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--data-dir") {
      ++i;
      continue;
    }
    if (arg.empty() || arg[0] == '-') continue;
    std::string known;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == arg) return;
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    throw kapla::InputError("unknown subcommand '" + arg + "'; known: " + known);
  }
}

// K makes and frees its per-search memos (hash tables of up to a few MB) thousands of times a
// network. glibc serves large blocks with mmap above a threshold that moves with the frees, and
// gives a freed heap top back to the kernel, so the next search's tables fault their pages in
// again: 46 k page faults on ViT-B/16 at cloud 64, of which 22 k are such refaults (measured,
// docs/benchmarks.md). A fixed threshold and a high trim threshold keep freed memory for reuse;
// the peak resident memory is the same.
void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kapla;
  keep_freed_memory();
  CLI::App app{"kapla: energy- and time-optimal dataflow schedules for NN accelerators", "kapla"};
  // Global options may follow the subcommand ("kapla list networks --data-dir DIR").
  app.fallthrough();
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kapla ") + KAPLA_VERSION);
  cli::Context ctx;
  app.add_option("--data-dir", ctx.data_dir,
                 "Data directory with networks/ and hardware/ (default: $KAPLA_DATA_DIR, else "
                 "the data/ of the source tree)");

  cli::register_list(app, ctx);
  cli::register_show(app, ctx);
  cli::register_validate(app, ctx);
  cli::register_sweep(app, ctx);
  cli::register_results(app, ctx);
  cli::register_merge(app, ctx);
  cli::register_schedule(app, ctx);
  cli::register_check_golden(app, ctx);
  cli::register_emit(app, ctx);
  cli::register_import(app);
  cli::register_export_timeloop(app, ctx);

  try {
    check_subcommand(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "error: " << one_line(e.what()) << " (run 'kapla --help' for usage)\n";
    return 1;
  } catch (const InputError& e) {
    std::cerr << "error: " << one_line(e.what()) << "\n";
    return 1;
  } catch (const InternalError& e) {
    std::cerr << "internal error: " << one_line(e.what()) << " (please report)\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << one_line(e.what()) << " (please report)\n";
    return 3;
  }
  return ctx.exit_code;
}
