#!/usr/bin/env bash
# The one energy breakdown appears unchanged in `kapla schedule --json` (network and layers),
# in the HDF5 layers and tuples tables of a sweep of the same tuple, and in
# `kapla check-golden --breakdown`; its parts sum to the total cost within 1e-12 relative.
# Needs KAPLA (the kapla binary) and SRC (the source tree); Debian's python3 with h5py.
set -euo pipefail
: "${KAPLA:?}" "${SRC:?}"
PY=/usr/bin/python3
T=$(mktemp -d "${TMPDIR:-/tmp}/kapla_energy.XXXXXX")
trap 'rm -rf "$T"' EXIT
cat > "$T/job.json" <<JOB
{
  "name": "energy",
  "networks": ["mlp_s"],
  "hardware": [{"name": "edge", "batch": 1}],
  "strategies": ["exhaustive", "kapla"],
  "seeds": [1],
  "options": {"sw_gbuf_bypass": [true, true, true]},
  "output": "$T/out.h5"
}
JOB
"$KAPLA" sweep "$T/job.json" --out "$T/out.h5" > "$T/sweep.log"
for s in exhaustive kapla; do
  "$KAPLA" schedule --network mlp_s --hardware edge --batch 1 --strategy "$s" \
    --json "$T/$s.json" > /dev/null
done
"$KAPLA" check-golden --breakdown --kind scheme_eval \
  "$SRC/tests/data/golden/kapla/scheme_evals.jsonl" > "$T/golden.txt"
"$PY" - "$T" "$SRC/tests/data/golden/kapla/scheme_evals.jsonl" <<'PYEOF'
import json, sys, h5py
t, golden_file = sys.argv[1], sys.argv[2]
parts = ["op", "noc", "static", "dram", "gbuf", "itcn", "regf"]
def close(total, values):
    return abs(sum(values) - total) <= 1e-12 * abs(total)
with h5py.File(t + "/out.h5", "r") as f:
    tuples, layers = f["tuples"][()], f["layers"][()]
def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)
checked = 0
for strategy in ["exhaustive", "kapla"]:
    js = json.load(open(f"{t}/{strategy}.json"))
    [row] = [r for r in tuples if text(r["strategy"]) == strategy]
    key = text(row["key"])
    e = js["energy"]
    assert close(js["total_cost"], [e[p] for p in parts]), (strategy, "json parts do not sum")
    assert row["energy"] == js["total_cost"], (strategy, row["energy"], js["total_cost"])
    for p in parts:
        assert row["energy_" + p] == e[p], (strategy, p, row["energy_" + p], e[p])
    rows = {text(r["layer"]): r for r in layers if text(r["key"]) == key}
    assert len(rows) == len(js["schedules"]), (strategy, "layer count")
    for name, sched in js["schedules"].items():
        le = sched[0]["energy"]
        r = rows[name]
        assert close(sched[0]["cost"], [le[p] for p in parts]), (strategy, name, "layer sum")
        assert r["energy"] == sched[0]["cost"], (strategy, name)
        for p in parts:
            assert r["energy_" + p] == le[p], (strategy, name, p, r["energy_" + p], le[p])
        checked += 1
# check-golden --breakdown: one line per valid record, parts summing to the cost and equal to
# the reference's split (the golden parity tests prove the 1e-9 match field by field).
refs = {}
for line in open(golden_file):
    rec = json.loads(line)
    if rec.get("valid"):
        refs[rec["id"]] = rec["result"]
lines = [l.split() for l in open(t + "/golden.txt") if " energy " in l]
assert len(lines) == len(refs), (len(lines), len(refs))
for w in lines:
    rid, cost = w[0], float(w[2])
    e = dict(zip(w[4::2], map(float, w[5::2])))
    assert list(e) == parts, e
    assert close(cost, e.values()), (rid, "check-golden parts do not sum")
    ref = refs[rid]
    for mine, theirs in [(e["op"], ref["cost_op"]), (e["noc"], ref["cost_noc"]),
                         (e["static"], ref["cost_static"]), (e["dram"], ref["cost_dram"]),
                         (e["itcn"], ref["cost_itcn"]), (e["regf"], ref["cost_regf"]),
                         (cost, ref["cost"])]:
        assert abs(mine - theirs) <= 1e-9 * max(abs(mine), abs(theirs)), (rid, mine, theirs)
print(f"ok: {checked} layers in json and HDF5, {len(lines)} check-golden records")
PYEOF
