#!/usr/bin/env bash
# Issue 18.1: K and S search the row-stationary fold variants by default, B does not; an explicit
# setting wins for every strategy (--rs-fold-variants / --no-rs-fold-variants, an options file,
# a job file); a sweep records the space each tuple searched in /resolved and gives the same
# totals as `kapla schedule`; a results file written in the other space is not resumed (one-line
# error) while one written in the same space is. On a one-conv network whose 32 ofmap rows fold
# onto the edge preset's 16 columns, where the variants give less energy (exact totals).
# Needs KAPLA and DATA, and Debian's python3-h5py (/usr/bin/python3).
set -euo pipefail
: "${KAPLA:?}" "${DATA:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kapla_folds.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$T/net.json" <<'NET'
{"name": "one_conv", "source": "test", "input": {"nofm": 16, "sofm": 34}, "externals": [],
 "layers": [{"name": "conv1", "type": "Conv", "nifm": 16, "nofm": 32, "sofm": 32, "sfil": 3}]}
NET
folds=4.49205868108e-05 k_plain=4.5711196448e-05 b_plain=5.1850398368e-05
total() {  # strategy, extra flags...
  local s=$1; shift
  "$KAPLA" --data-dir "$DATA" schedule -q --network "$T/net.json" --hardware edge --batch 1 \
    --strategy "$s" "$@" | awk '$1 == "total_cost" { print $2 }'
}
expect() {  # what, got, want
  [[ $2 == "$3" ]] || fail "$1: total $2, expected $3"
  echo "ok: $1: $2"
}
for s in kapla directive-exhaustive; do
  expect "$s by default" "$(total $s)" "$folds"
  expect "$s --rs-fold-variants" "$(total $s --rs-fold-variants)" "$folds"
  expect "$s --no-rs-fold-variants" "$(total $s --no-rs-fold-variants)" "$k_plain"
done
expect "exhaustive by default" "$(total exhaustive)" "$b_plain"
expect "exhaustive --no-rs-fold-variants" "$(total exhaustive --no-rs-fold-variants)" "$b_plain"
expect "exhaustive --rs-fold-variants" "$(total exhaustive --rs-fold-variants)" "$folds"
# An options file: the key set wins, the key left out leaves each strategy its default; a flag
# after it wins over the file.
echo '{"opt_goal": "e", "rs_fold_variants": false}' > "$T/off.json"
echo '{"opt_goal": "e"}' > "$T/unset.json"
expect "kapla --options {rs_fold_variants: false}" "$(total kapla --options "$T/off.json")" "$k_plain"
expect "kapla --options {} " "$(total kapla --options "$T/unset.json")" "$folds"
expect "kapla --options {false} --rs-fold-variants" \
  "$(total kapla --options "$T/off.json" --rs-fold-variants)" "$folds"

job() {  # file, options text
  cat > "$1" <<JOB
{"name": "folds", "networks": ["$T/net.json"], "hardware": [{"name": "edge", "batch": 1}],
 "strategies": ["exhaustive", "kapla", "directive-exhaustive"], "options": {"opt_goal": "e"$2},
 "output": "$T/out.h5"}
JOB
}
# Each tuple's /resolved says which space it searched, and its total is kapla schedule's.
job "$T/default.json" ""
"$KAPLA" --data-dir "$DATA" sweep "$T/default.json" --quiet
/usr/bin/python3 - "$T/out.h5" "$folds" "$b_plain" <<'PY' || fail "default sweep's results"
import sys, h5py
path, folds, b_plain = sys.argv[1], sys.argv[2], sys.argv[3]
with h5py.File(path, "r") as f:
    totals = {k.decode(): float(v) for k, v in zip(f["tuples"]["key"], f["tuples"]["total_cost"])}
    space = {k.decode(): v.decode() for k, n, v in
             zip(f["resolved"]["key"], f["resolved"]["name"], f["resolved"]["value"])
             if n == b"options.rs_fold_variants"}
want = {"exhaustive": ("false", b_plain), "kapla": ("true", folds),
        "directive-exhaustive": ("true", folds)}
assert len(totals) == 3, totals
for key, total in totals.items():
    flag, value = want[key.split(":")[-3]]
    assert space[key] == flag, (key, space[key])
    assert "%.12g" % total == "%.12g" % float(value), (key, total, value)
    print("ok: sweep", key, space[key], total)
PY
# Resume: the same space resumes; the other space (the file written before K and S searched the
# variants by default, or the reverse) is refused with one line.
refused() {  # what, job
  local rc=0
  "$KAPLA" --data-dir "$DATA" sweep "$2" --quiet 2> "$T/err" > /dev/null || rc=$?
  [[ $rc == 1 ]] || fail "$1: exit code $rc, expected 1"
  [[ $(wc -l < "$T/err") == 1 ]] || { cat "$T/err"; fail "$1: message is not one line"; }
  grep -q "fingerprint" "$T/err" || { cat "$T/err"; fail "$1: message lacks 'fingerprint'"; }
  echo "ok: $1: $(cat "$T/err")"
}
job "$T/explicit_on.json" ', "rs_fold_variants": true'
job "$T/explicit_off.json" ', "rs_fold_variants": false'
refused "resume a default-space file without the variants" "$T/explicit_off.json"
rm "$T/out.h5"
"$KAPLA" --data-dir "$DATA" sweep "$T/explicit_off.json" --quiet  # as before issue 18
"$KAPLA" --data-dir "$DATA" sweep "$T/explicit_off.json" --quiet  # resumes
refused "resume a file of nn_dataflow's mapper under the new default" "$T/default.json"
refused "resume a file of nn_dataflow's mapper with the variants on" "$T/explicit_on.json"
echo "PASS"
