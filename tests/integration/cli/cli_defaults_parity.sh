#!/usr/bin/env bash
# One set of defaults: the same tuple through `kapla schedule --json` and through a one-tuple
# sweep whose job file has no "options" gives the same total, for every strategy (R and M get
# the sweep's search seed, read from its /resolved table). Needs KAPLA and DATA, and Debian's
# python3-h5py (/usr/bin/python3, whatever python3 is first on PATH).
set -euo pipefail
: "${KAPLA:?}" "${DATA:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kapla_defaults.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
net=mlp_s hw=edge batch=1
for strategy in exhaustive directive-exhaustive random guided kapla; do
  cat > "$T/job.json" <<JOB
{"name": "one", "networks": ["$net"], "hardware": [{"name": "$hw", "batch": $batch}],
 "strategies": ["$strategy"], "output": "$T/$strategy.h5"}
JOB
  "$KAPLA" --data-dir "$DATA" sweep "$T/job.json" --quiet
  out=$(/usr/bin/python3 - "$T/$strategy.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    total = f["tuples"]["total_cost"][0]
    res = {n.decode(): v.decode() for n, v in zip(f["resolved"]["name"], f["resolved"]["value"])}
print(repr(float(total)), res.get("strategy.seed", "1"))
PY
) || fail "$strategy: cannot read the sweep's results"
  read -r sweep_total seed <<<"$out"
  "$KAPLA" --data-dir "$DATA" schedule --network "$net" --hardware "$hw" --batch "$batch" \
    --strategy "$strategy" --seed "$seed" --json "$T/$strategy.json" > /dev/null
  cli_total=$(/usr/bin/python3 -c 'import json,sys; print(repr(float(json.load(open(sys.argv[1]))["total_cost"])))' "$T/$strategy.json")
  [ "$cli_total" = "$sweep_total" ] ||
    fail "$strategy: kapla schedule total $cli_total, sweep total $sweep_total"
  echo "$strategy: $cli_total (seed $seed)"
done
