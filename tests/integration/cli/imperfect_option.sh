#!/usr/bin/env bash
# Issue 18.2: the imperfect option. --imperfect and the options/job key are validated strictly
# (one line, exit 1); none is the reference's space (the same totals as without the option);
# B with spatial is never worse than with none (a superset) and here better, on a 7x7 conv on
# 4x4 nodes, and B with full never worse than with spatial; a sweep records the mode in /resolved and in the tuple key (:ispatial), and
# `kapla sweep --imperfect` changes the fingerprint, so a none results file is not resumed.
# Needs KAPLA and DATA, and Debian's python3-h5py (/usr/bin/python3).
set -euo pipefail
: "${KAPLA:?}" "${DATA:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kapla_imperfect.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$T/net.json" <<'NET'
{"name": "one_conv7", "source": "test", "input": {"nofm": 64, "sofm": 7}, "externals": [],
 "layers": [{"name": "conv", "type": "Conv", "nifm": 64, "nofm": 10, "sofm": 7, "sfil": 3}]}
NET
run() { "$KAPLA" --data-dir "$DATA" schedule -q --network "$T/net.json" --hardware cloud4x4 \
  --batch 1 --strategy exhaustive "$@"; }
total() { run "$@" | awk '$1 == "total_cost" { print $2 }'; }
refused() {  # what, expected message, command...
  local what=$1 want=$2 rc=0; shift 2
  "$@" > /dev/null 2> "$T/err" || rc=$?
  [[ $rc == 1 ]] || fail "$what: exit code $rc, expected 1"
  [[ $(cat "$T/err") == "$want" ]] || fail "$what: got '$(cat "$T/err")', expected '$want'"
  echo "ok: $what: $want"
}
refused "--imperfect bogus" "error: --imperfect: must be one of none, spatial, full, perfect; got 'bogus'" \
  run --imperfect bogus
echo '{"opt_goal": "e", "imperfect": "Spatial"}' > "$T/bad.json"
refused "options file" "error: $T/bad.json: imperfect: must be one of none, spatial, full, perfect; got \
'Spatial'" run --options "$T/bad.json"

none=$(total) spatial=$(total --imperfect spatial)
[[ $(total --imperfect none) == "$none" ]] || fail "--imperfect none changes the total"
/usr/bin/python3 -c "import sys; n, s = map(float, sys.argv[1:]); assert s < n, (s, n)" \
  "$none" "$spatial" || fail "B spatial $spatial is not below B none $none"
echo "ok: B none $none, spatial $spatial"
full=$(total --imperfect full)
/usr/bin/python3 -c "import sys; s, f = map(float, sys.argv[1:]); assert f <= s, (f, s)" \
  "$spatial" "$full" || fail "B full $full is above B spatial $spatial"
echo "ok: B full $full <= spatial $spatial"
run --imperfect full | grep -q "imperfect full" || fail "the header does not say full"
# A schedule with a remainder is priced again from its scheme record (which says full) and
# emitted with a guarded last block: the program builds, runs, counts what the model counts and
# computes the naive nest's output. (conv5_2_a on eyeriss: 2048 input channels in 40 blocks of
# 52, the last of 20.) The same record without imperfect full is refused in one line.
cat > "$T/c52a.json" <<'NET'
{"name": "c52a", "source": "test", "input": {"nofm": 2048, "sofm": 7}, "externals": [],
 "layers": [{"name": "conv", "type": "Conv", "nifm": 2048, "nofm": 512, "sofm": 7, "sfil": 1}]}
NET
echo '{"sw_gbuf_bypass": [false, false, false], "opt_goal": "ed"}' > "$T/ed.json"
"$KAPLA" --data-dir "$DATA" schedule -q --network "$T/c52a.json" --hardware eyeriss --batch 1 \
  --options "$T/ed.json" --imperfect full --json "$T/s.json" > /dev/null
"$KAPLA" --data-dir "$DATA" emit "$T/s.json" --out "$T/emit" 2> /dev/null
grep -q 'x2\[0\] < trips2(0, x0\[0\] \* T\[1\]\[0\] + x1\[0\])' "$T/emit/conv.cpp" ||
  fail "the emitted nest has no guarded last block"
c++ -std=c++17 -O2 -o "$T/conv" "$T/emit/conv.cpp"
"$T/conv" > "$T/out" || { cat "$T/out"; fail "the emitted remainder nest does not match the model"; }
grep -q "equals the naive loop nest" "$T/out" && [[ $(tail -1 "$T/out") == OK ]] ||
  fail "the emitted remainder nest's output"
echo "ok: emit a remainder: $(grep -c 'counted=' "$T/out") counts equal the model's, output equal"
/usr/bin/python3 - "$T/s.json" "$T/s_none.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["scheme_records"]["conv"]["inputs"]["options"]["imperfect"]
json.dump(d, open(sys.argv[2], "w"))
PY
refused "emit a remainder outside full" "error: $T/s_none.json: scheme_records.conv: bl_ts of \
loop IFM cover its loop count 2048 with a remainder, which needs options.imperfect full" \
  "$KAPLA" --data-dir "$DATA" emit "$T/s_none.json" --out "$T/emit2"
run --imperfect spatial | grep -q "imperfect spatial" || fail "the header does not say spatial"

cat > "$T/job.json" <<JOB
{"name": "imp", "networks": ["$T/net.json"], "hardware": [{"name": "cloud4x4", "batch": 1}],
 "strategies": ["exhaustive"], "options": {"opt_goal": "e"}, "output": "$T/none.h5"}
JOB
"$KAPLA" --data-dir "$DATA" sweep "$T/job.json" --quiet
"$KAPLA" --data-dir "$DATA" sweep "$T/job.json" --quiet --imperfect spatial --out "$T/sp.h5"
/usr/bin/python3 - "$T/none.h5" "$T/sp.h5" "$none" "$spatial" <<'PY' || fail "sweep results"
import sys, h5py
def read(path):
    with h5py.File(path, "r") as f:
        totals = {k.decode(): float(v) for k, v in zip(f["tuples"]["key"], f["tuples"]["total_cost"])}
        mode = {k.decode(): v.decode() for k, n, v in
                zip(f["resolved"]["key"], f["resolved"]["name"], f["resolved"]["value"])
                if n == b"options.imperfect"}
    return totals, mode
for path, want_total, suffix, want_mode in ((sys.argv[1], sys.argv[3], "", "none"),
                                            (sys.argv[2], sys.argv[4], ":ispatial", "spatial")):
    totals, mode = read(path)
    assert len(totals) == 1, totals
    key, total = next(iter(totals.items()))
    assert key.endswith("net.json:cloud4x4:exhaustive:b1:s1" + suffix), key
    assert mode[key] == want_mode, mode
    assert "%.12g" % total == "%.12g" % float(want_total), (total, want_total)
    print("ok: sweep", key, mode[key], total)
PY
rc=0
"$KAPLA" --data-dir "$DATA" sweep "$T/job.json" --quiet --imperfect spatial 2> "$T/err" || rc=$?
[[ $rc == 1 && $(wc -l < "$T/err") == 1 ]] && grep -q fingerprint "$T/err" ||
  { cat "$T/err"; fail "a none results file resumed under --imperfect spatial (exit $rc)"; }
echo "ok: resume refused: $(cat "$T/err")"
refused "sweep --imperfect bogus" "error: --imperfect: must be one of none, spatial, full, perfect; got \
'bogus'" "$KAPLA" --data-dir "$DATA" sweep "$T/job.json" --quiet --imperfect bogus
