#!/usr/bin/env bash
# kapla emit RESULTS.h5 --tuple KEY (docs/emit.md, "From a results file"): a sweep records each
# tuple's schedule document; emitting a tuple from the results file writes the very programs
# that emitting `kapla schedule --json` of the same tuple writes, after a resume and after
# `kapla merge` too. Bad requests and bad files get one error line and exit 1, nothing emitted.
set -euo pipefail
: "${KAPLA:?}" "${DATA:?}" "${CXX:=c++}"
PY=/usr/bin/python3  # Debian's, with h5py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
k() { "$KAPLA" --data-dir "$DATA" "$@"; }

# K and B on MLP-S (eyeriss, batch 2), seed 1; then seeds 1 and 2 resumed into the same file.
job() {  # SEEDS -> the job file's text
  echo "{\"name\": \"emit\", \"networks\": [\"mlp_s\"], \"hardware\": [{\"name\": \"eyeriss\",
    \"batch\": 2}], \"strategies\": [\"kapla\", \"exhaustive\"], \"seeds\": [$1],
    \"output\": \"unused.h5\"}"
}
job 1 >"$work/one.json"
job 1,2 >"$work/two.json"
k sweep --quiet "$work/one.json" --out "$work/r.h5"
k sweep --quiet "$work/two.json" --out "$work/r.h5"  # resumes: seed 1 kept, seed 2 added
k sweep --quiet "$work/one.json" --out "$work/again.h5"

for strategy in kapla exhaustive; do
  k schedule -q --network mlp_s --hardware eyeriss --batch 2 --strategy $strategy \
    --json "$work/$strategy.json" >/dev/null
  "$KAPLA" emit "$work/$strategy.json" --out "$work/json_$strategy" 2>/dev/null
  "$KAPLA" emit "$work/r.h5" --tuple "mlp_s:eyeriss:$strategy:b2:s1" --out "$work/h5_$strategy" \
    2>/dev/null  # the tuple of the first run, carried through the resume
  diff -r "$work/json_$strategy" "$work/h5_$strategy" ||
    { echo "emit from the results file differs from emit of schedule --json ($strategy)"; exit 1; }
  [[ $(ls "$work/h5_$strategy" | wc -l) -eq 3 ]]
done
echo "K and B: the results file emits what schedule --json emits"
# The recorded document is the --json file but for its search_seconds.
$PY - "$work/r.h5" "$work/kapla.json" <<'EOF'
import json, sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    text = f["schedule_text"][()].tobytes()
    rows = {r["key"].decode(): r for r in f["schedules"][()]}
    assert f["schedule_text"].compression == "gzip", f["schedule_text"].compression
row = rows["mlp_s:eyeriss:kapla:b2:s1"]
recorded = json.loads(text[row["offset"]:row["offset"] + row["bytes"]])
written = json.load(open(sys.argv[2]))
del written["search_seconds"]
assert recorded == written, "the recorded schedule is not the --json document"
EOF

# A selector as a user types it (strategy by letter, a unique prefix), one layer, the HLS target.
"$KAPLA" emit "$work/again.h5" --tuple mlp_s:eyeriss:K --layer fc2 --out "$work/one" 2>/dev/null
[[ $(ls "$work/one") == fc2.cpp ]] || { ls "$work/one"; exit 1; }
cmp "$work/one/fc2.cpp" "$work/json_kapla/fc2.cpp"
"$KAPLA" emit "$work/again.h5" --tuple mlp_s:eyeriss:exh --out "$work/hls" --target hls 2>/dev/null
"$KAPLA" emit "$work/exhaustive.json" --out "$work/hls_json" --target hls 2>/dev/null
diff -r "$work/hls" "$work/hls_json"
"$CXX" -std=c++17 -O2 -w -o "$work/prog" "$work/one/fc2.cpp"
"$work/prog" | grep -q '^OK$'

# kapla merge of two runs carries the schedules (the tuples both hold must agree, schedules
# included: the recorded document does not depend on the run).
"$KAPLA" merge "$work/again.h5" "$work/r.h5" -o "$work/merged.h5" 2>/dev/null
"$KAPLA" emit "$work/merged.h5" --tuple mlp_s:eyeriss:B:b2:s1 --out "$work/merged_b" 2>/dev/null
diff -r "$work/json_exhaustive" "$work/merged_b"
echo "resume and merge carry the schedules"

# A job that does not record schedules: smaller file, and emit says why it has none.
sed 's/"output"/"record_schedules": false, "output"/' "$work/one.json" >"$work/none.json"
k sweep --quiet "$work/none.json" --out "$work/none.h5"
[[ $(stat -c %s "$work/none.h5") -lt $(stat -c %s "$work/again.h5") ]]

# Bad files: foreign HDF5, damaged bytes, an old schema, a schedule row outside the text (with a
# valid checksum over it, as a forged file would have), a document that is not JSON.
$PY - "$work" <<'EOF'
import h5py, shutil, sys
w = sys.argv[1]
with h5py.File(w + "/foreign.h5", "w") as f:
    f["x"] = [1, 2]
def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h
def reseal(path):  # the user block's checksum (docs/hdf5_schema.md) over the edited file
    data = open(path, "rb").read()
    body = data[512:]
    block = b"KAPLA-RESULTS\nsize=%d\nfnv1a64=%016x\n" % (len(body), fnv1a(body))
    open(path, "wb").write(block.ljust(512, b"\0") + body)
for name, edit in [("outside", "offset"), ("garbled", "text")]:
    shutil.copy(w + "/again.h5", w + f"/{name}.h5")
    with h5py.File(w + f"/{name}.h5", "r+") as f:
        if edit == "offset":
            rows = f["schedules"][()]
            rows[0]["offset"] = len(f["schedule_text"]) + 5
            f["schedules"][...] = rows
        else:
            text = f["schedule_text"][()]
            text[0:4] = list(b"nope")
            f["schedule_text"][...] = text
    reseal(w + f"/{name}.h5")
data = bytearray(open(w + "/again.h5", "rb").read())
data[len(data) // 2] ^= 0xFF
open(w + "/damaged.h5", "wb").write(bytes(data))
EOF
old="$(dirname "$0")/../../data/results/schema4_mlp_s.h5"
expect_refusal() {  # PATTERN ARGS...: one error line matching PATTERN, exit 1, nothing emitted
  local pattern=$1 err rc=0
  shift
  rm -rf "$work/refused"
  err=$("$KAPLA" emit "$@" --out "$work/refused" 2>&1 >/dev/null) || rc=$?
  [[ $rc -eq 1 ]] || { echo "kapla emit $*: exit $rc ($err)"; exit 1; }
  [[ $(wc -l <<<"$err") -eq 1 && $err == error:* ]] || { echo "not one error line: $err"; exit 1; }
  [[ $err =~ $pattern ]] || { echo "kapla emit $*: '$err' does not match '$pattern'"; exit 1; }
  [[ -z $(ls -A "$work/refused" 2>/dev/null) ]] || { echo "emitted despite: $err"; exit 1; }
  echo "refused: $err"
}
r=$work/again.h5
expect_refusal "again.h5: --tuple: a results file holds many schedules; name one \(2 tuples" "$r"
expect_refusal "again.h5: --tuple 'mlp_m:eyeriss': no such tuple \(2 tuples" "$r" --tuple mlp_m:eyeriss
expect_refusal "again.h5: --tuple 'mlp_s:eyeriss': matches 2 tuples \(mlp_s:eyeriss:exhaustive:b2:s1, mlp_s:eyeriss:kapla:b2:s1\)" \
  "$r" --tuple mlp_s:eyeriss
expect_refusal "^error: --layer: no layer named 'conv1' in .*again.h5: tuple mlp_s:eyeriss:kapla:b2:s1$" \
  "$r" --tuple mlp_s:eyeriss:K --layer conv1
expect_refusal "foreign.h5: not a kapla results file \(no 'kapla_schema' attribute\)" \
  "$work/foreign.h5" --tuple mlp_s:eyeriss:K
expect_refusal "damaged.h5: corrupt: checksum mismatch" "$work/damaged.h5" --tuple mlp_s:eyeriss:K
expect_refusal "schema4_mlp_s.h5: kapla_schema version 4 predates recorded schedules \(version 9\)" \
  "$old" --tuple mlp_s
expect_refusal "outside.h5: corrupt results: table 'schedules': tuple 'mlp_s:eyeriss:exhaustive:b2:s1': offset [0-9]+ and bytes [0-9]+ lie outside 'schedule_text'" \
  "$work/outside.h5" --tuple mlp_s:eyeriss:K
expect_refusal "garbled.h5: tuple mlp_s:eyeriss:exhaustive:b2:s1: schedule: line 1, column [0-9]+: malformed JSON" \
  "$work/garbled.h5" --tuple mlp_s:eyeriss:B
expect_refusal "none.h5: tuple mlp_s:eyeriss:kapla:b2:s1: schedule: none recorded \(status ok: it ran with \"record_schedules\": false" \
  "$work/none.h5" --tuple mlp_s:eyeriss:K
expect_refusal "kapla.json: --tuple: a schedule file \(kapla schedule --json\) holds one schedule and no tuples" \
  "$work/kapla.json" --tuple mlp_s:eyeriss:K
echo "emit_results: OK"
