#!/usr/bin/env bash
# Builds the project with ASan+UBSan (the KAPLA_SANITIZERS option) into build-sanitize/ and runs
# the unit and golden tests under it. Any sanitizer report fails the run: UBSan is made
# fatal (halt_on_error), ASan's leak check stays on. It takes 30+ minutes on 2 cores (a Debug-free
# -O1 build of everything plus the tests, which run 2-5x slower); see docs/hardening.md.
#   scripts/dev/sanitize.sh                 # build + ctest -L 'unit|golden' -LE slow
#   JOBS=1 scripts/dev/sanitize.sh          # when the machine is busy
#   LABELS='unit' scripts/dev/sanitize.sh   # a subset
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${BUILD_DIR:-$repo/build-sanitize}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
labels=${LABELS:-unit|golden}

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# RelWithDebInfo: optimised enough that the golden tests finish, with line numbers in reports.
cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DKAPLA_SANITIZERS=address;undefined" "${launcher[@]}" >/dev/null
start=$(date +%s)
# Only what the selected tests need: the test executables of tests/unit and tests/golden (their
# kapla_add_test names), not the benchmarks, the CLI or the integration drivers.
mapfile -t targets < <(grep -rhoE 'kapla_add_test\(NAME [A-Za-z0-9_]+' "$repo/tests/unit" \
  "$repo/tests/golden" | awk '{print $2}' | grep -v '_slow$' | sort -u)
cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}"
built=$(date +%s)
echo "sanitize: built in $((built - start)) s" >&2

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# OpenMPI and OpenMP keep allocations for the process lifetime; leak reports from them are noise
# that would hide ours, so leak checking is left to the unit tests (detect_leaks stays on).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1}
status=0
ctest --test-dir "$build_dir" -L "$labels" -LE slow -j "$jobs" --output-on-failure --timeout 3000 || status=$?
echo "sanitize: tests ($labels) took $(($(date +%s) - built)) s, exit $status" >&2
exit $status
