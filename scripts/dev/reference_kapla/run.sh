#!/usr/bin/env bash
# Runs the reference KAPLA (github.com/tsinghua-ideal/kapla) on one network, one process,
# under a CPU-time limit, for back-to-back speed comparisons with kapla (docs/benchmarks.md):
#   scripts/dev/reference_kapla/run.sh CHECKOUT NET CPU_LIMIT_S [--back-prop] > NET.out
# CHECKOUT is a clone of the reference; NET one of its nns/ names (alex_net, mobilenet_bp, ...).
# Prints "cpu_s=U+S wall_s=W status=ok|killed" on stderr's last line; a run killed by the
# limit means the reference needs more than the limit.
# Needs Debian's python3-numpy and python3-sympy. The reference's two PyPI-only imports are
# replaced by the stand-ins beside this script (fastcache -> functools.lru_cache, a small
# backtracking python-constraint Problem), and sitecustomize.py adapts one sympy 1.4 ->
# 1.11 difference. The options files are edited in the checkout to one process
# (nprocesses 1) and verbose off; the reference still prints its schedules.
set -euo pipefail
checkout=$1 net=$2 limit=$3 bp=${4:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$checkout"
sed -i 's/"nprocesses": [0-9]*/"nprocesses": 1/; s/"verbose": true/"verbose": false/' \
  nn_dataflow/options/option_inference.json nn_dataflow/options/option_training.json
tfile=$(mktemp)
set +e
(
  ulimit -t "$limit"
  PYTHONPATH="$here:." /usr/bin/time -f "%U %S %e" -o "$tfile" \
    /usr/bin/python3 -m nn_dataflow.solver.kapla_solver "$net" 64 eyeriss $bp
)
rc=$?
set -e
read -r u s w < <(tail -1 "$tfile")
rm -f "$tfile"
status=ok
[[ $rc -ne 0 ]] && status=killed
echo "cpu_s=$u+$s wall_s=$w status=$status" >&2
