# Shared set-up for the sweep script tests: a temp dir (removed on exit), a job file for the
# fake runner, and helpers. Needs DRIVER (kapla_sweep_driver) in the environment.
set -euo pipefail
: "${DRIVER:?DRIVER must point to kapla_sweep_driver}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kapla_sweep_test.XXXXXX")
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
export KAPLA_FAKE_SECONDS_PER_COST=${KAPLA_FAKE_SECONDS_PER_COST:-0.002}

# 5 networks x 2 hardware x 3 strategies = 30 tuples, costs 1..100 (fake runner).
write_job() {  # FILE [OUTPUT] [EXTRA_OPTIONS_JSON]
  cat > "$1" <<JOB
{
  "name": "fake30",
  "description": "fake-runner sweep for tests",
  "networks": ["alpha", "beta_c30", "gamma", "delta_c5", "nosol_x"],
  "hardware": [{"name": "edge", "batch": 1}, {"name": "cloud", "batch": 64}],
  "strategies": ["exhaustive", "random", "kapla"],
  "seeds": [1],
  "options": {${3:-}},
  "output": "${2:-$T/out.h5}"
}
JOB
}

fail() { echo "FAIL: $*" >&2; exit 1; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
# Runs the driver's compare; fails the test on a difference.
same() { "$DRIVER" compare "$1" "$2" || fail "results differ: $1 vs $2"; }
ntuples() { "$DRIVER" results --csv "$1" | tail -n +2 | wc -l; }
mpirun_() { "${MPIEXEC:-mpirun}" --oversubscribe "$@"; }
