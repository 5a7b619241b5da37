#!/usr/bin/env bash
# Builds the libFuzzer harnesses of kapla's parsers (tests/fuzz: clang, ASan+UBSan, the parsers
# only) and runs each for RUNS executions from a seed corpus of the shipped files:
#   scripts/dev/fuzz.sh                 # 1000000 executions per harness (docs/hardening.md)
#   scripts/dev/fuzz.sh 5000            # what CI runs (ctest: fuzz_parsers)
#   HARNESSES="job hdf5" scripts/dev/fuzz.sh 100000
#   MAX_SECONDS=600 scripts/dev/fuzz.sh      # stop each harness after 600 s at the latest
#   FUZZ_SEED=7 scripts/dev/fuzz.sh     # another mutation sequence (default 1: CI is repeatable)
# Any input must end in success or one InputError; a crash, another exception, a sanitizer
# report, more than 2 GB or 10 s for one input fails the run, and libFuzzer writes the input to
# $BUILD_DIR/crash-*. Prints one line per harness: executions, seconds, corpus size.
# Needs clang and libclang-rt-14-dev (Debian); exits 77 (skipped) without them.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs=${1:-1000000}
build_dir=${BUILD_DIR:-$repo/build-fuzz}
harnesses=${HARNESSES:-network hardware job options golden hdf5}

if ! command -v clang++ >/dev/null || \
   ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz: clang++ with libFuzzer (clang, libclang-rt-14-dev) not installed; skipped" >&2
  exit 77
fi

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# The parsers' callees come from the main build's libraries (tests/fuzz/CMakeLists.txt).
main_build=${KAPLA_BUILD_DIR:-$repo/build}
if [[ ! -f $build_dir/CMakeCache.txt ]]; then
  CC=clang CXX=clang++ cmake -S "$repo/tests/fuzz" -B "$build_dir" "${launcher[@]}" \
    -DKAPLA_BUILD_DIR="$main_build" >/dev/null
fi
cmake --build "$build_dir" -j "${JOBS:-2}" >/dev/null

# Seeds: every shipped file of the harness's kind (copied: libFuzzer adds to the first dir).
seeds=$build_dir/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{network,hardware,job,options,golden,hdf5}
cp "$repo"/data/networks/*.json "$repo"/tests/data/cli/*.json "$seeds/network/"
cp "$repo"/data/hardware/*.json "$repo"/tests/data/reference_hardware/*.json "$seeds/hardware/"
cp "$repo"/jobs/*.json "$seeds/job/"
cat > "$seeds/options/inference.json" <<'JSON'
{"sw_gbuf_bypass": [false, false, false], "sw_solve_loopblocking": false,
 "hw_access_forwarding": false, "hw_gbuf_sharing": true, "hw_gbuf_save_writeback": true,
 "partition_hybrid": true, "partition_batch": true, "partition_ifmaps": true,
 "partition_interlayer": true, "layer_pipeline_time_ovhd": 1e10, "layer_pipeline_max_degree": 5,
 "layer_pipeline_opt": true, "opt_goal": "e", "ntops": 1, "nprocesses": 8, "verbose": true}
JSON
printf '{"layer_pipeline_max_degree": "inf", "opt_goal": "ed", "ntops": 3}' > "$seeds/options/small.json"
for f in "$repo"/tests/data/golden/*/*.jsonl; do
  i=0
  head -n 3 "$f" | while IFS= read -r line; do
    i=$((i + 1))
    printf '%s' "$line" > "$seeds/golden/$(basename "$f" .jsonl)_$i.json"
  done
done
# A real results file (alpha on edge, schema 5), committed rather than written by a sweep here:
# a fresh file's timestamps would change the mutations and make the CI run unrepeatable.
cp "$repo"/tests/fuzz/seeds/hdf5/*.h5 "$seeds/hdf5/"
# Inputs that once failed (tests/fuzz/regressions/<harness>/): every run replays them first.
for d in "$repo"/tests/fuzz/regressions/*/; do
  cp "$d"* "$seeds/$(basename "$d")/"
done


# FRESH_CORPUS=1 (ctest) starts from the seeds alone, so that a run is repeatable.
if [[ ${FRESH_CORPUS:-0} == 1 ]]; then rm -rf "$build_dir/corpus"; fi
status=0
cd "$build_dir"
for h in $harnesses; do
  corpus=$build_dir/corpus/$h
  mkdir -p "$corpus"
  start=$(date +%s%N)
  rc=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  LSAN_OPTIONS=suppressions=$repo/tests/fuzz/lsan_suppressions.txt UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "./fuzz_$h" -seed="${FUZZ_SEED:-1}" -runs="$runs" -max_total_time="${MAX_SECONDS:-0}" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 "$corpus" "$seeds/$h" > "$build_dir/fuzz_$h.log" 2>&1 || rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build_dir/fuzz_$h.log" | grep -o '[0-9]*$' || echo "?")
  printf 'fuzz %-8s %10s executions %8s s  corpus %5d  exit %d\n' "$h" "$execs" "$secs" \
    "$(ls "$corpus" | wc -l)" "$rc"
  if [[ $rc != 0 ]]; then
    status=1
    grep -m5 -E 'ERROR|runtime error|uncaught|deadly|Test unit written' "$build_dir/fuzz_$h.log" >&2 || true
  fi
done
exit $status
