# Every bad input of issue 17 (numbers that overflowed, hangs, memory bombs, CLI/file
# disagreements, unclear messages) ends in exit 1 with one line "error: ..." naming the file or
# flag and the field, within seconds, with no raw control character on the terminal.
# Needs KAPLA (the kapla binary) and DATA (its data directory) in the environment.
set -euo pipefail
: "${KAPLA:?}" "${DATA:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kapla_hardening.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
# bad REGEX ARGS...: exit 1, one line matching ^error: .*REGEX, no control bytes, in 20 s.
bad() {
  local expect=$1 rc=0
  shift
  timeout 20 "$KAPLA" "$@" > "$T/out" 2> "$T/err" < /dev/null || rc=$?
  [[ $rc == 1 ]] || { cat "$T/err"; fail "exit $rc (want 1): kapla $*"; }
  [[ $(wc -l < "$T/err") == 1 ]] || { cat "$T/err"; fail "not one line: kapla $*"; }
  grep -Eq -- "^error: .*$expect" "$T/err" || { cat "$T/err"; fail "want /$expect/: kapla $*"; }
  if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$T/err"; then fail "control byte: kapla $*"; fi
  [[ $(wc -c < "$T/err") -lt 400 ]] || fail "longer than 400 characters: kapla $*"
  n=$((n + 1))
}
net() {  # FILE LAYER_JSON: a one-layer network
  printf '{"name": "n", "source": "test", "input": {"nofm": 3, "sofm": 8}, "externals": [], "layers": [%s]}' "$2" > "$1"
}
hw() {  # FILE NODES PE_ARRAY [GBUF]: a hardware file
  sed -e "s/\"nodes\": \[1, 1\]/\"nodes\": $2/" -e "s/\"pe_array\": \[14, 12\]/\"pe_array\": $3/" \
      -e "s/\"gbuf_bytes\": 110592/\"gbuf_bytes\": ${4:-110592}/" "$DATA/hardware/eyeriss.json" > "$1"
}
sched() { echo --data-dir "$DATA" schedule --network mlp_s --batch 4; }
flags="--nodes 1 1 --array 16 16 --regf 512 --gbuf 131072"

# 2. Numbers that validate accepted and the cost model overflowed on.
hw "$T/pe.json" "[1, 1]" "[3037000500, 3037000500]"
bad "pe.json: pe_array: must be positive and at most 1024" validate "$T/pe.json"
bad "pe.json: pe_array: " $(sched) --hardware "$T/pe.json"
hw "$T/nodes.json" "[65536, 65536]" "[14, 12]"
bad "nodes.json: nodes: must be positive and at most 64" validate "$T/nodes.json"
hw "$T/nodes2.json" "[4294967296, 1]" "[14, 12]"
bad "nodes2.json: nodes: " $(sched) --hardware "$T/nodes2.json"
hw "$T/gbuf.json" "[1, 1]" "[14, 12]" 1125899906842624
bad "gbuf.json: gbuf_bytes: must be positive and at most 1099511627776" validate "$T/gbuf.json"
net "$T/nofm.json" '{"name": "fc", "type": "FC", "nifm": 192, "nofm": 9223372036854775807}'
bad "nofm.json: layers\[0\]\.nofm: must be positive and at most 1048576" validate "$T/nofm.json"
net "$T/fil.json" '{"name": "fc", "type": "FC", "nifm": 3, "nofm": 8, "sfil": 2147483648}'
bad "fil.json: layers\[0\]\.sfil: " validate "$T/fil.json"
net "$T/macs.json" '{"name": "c", "type": "Conv", "nifm": 65536, "nofm": 65536, "sofm": 64, "sfil": 3}'
bad "macs.json: layers\[0\]\.MACs: .*exceed the limit 68719476736" validate "$T/macs.json"
net "$T/big.json" '{"name": "fc", "type": "FC", "nifm": 3, "nofm": 1E400}'
bad "big.json: .*malformed JSON: number overflow" validate "$T/big.json"

# 3. Hangs: huge batches, huge node arrays (above), a FIFO.
bad "--batch: must be positive and at most 1048576, got 9223372036854775807" \
  $(sched | sed 's/ 4$/ 9223372036854775807/') $flags
bad "--batch: must be positive and at most 1048576, got 4611686018427387904" \
  $(sched | sed 's/ 4$/ 4611686018427387904/') $flags
# Beyond 64 bits: quoted as written, not as CLI11's saturated 2^63 - 1.
bad "--batch: out of range for a 64-bit integer: 9223372036854775808" \
  $(sched | sed 's/ 4$/ 9223372036854775808/') $flags
bad "--batch: out of range for a 64-bit integer: -99999999999999999999" \
  --data-dir "$DATA" show mlp_s --batch -99999999999999999999
# The other integer options of schedule: a seed beyond 2^64 - 1 was taken as 2^64 - 1 without
# a word; a budget beyond 2^63 - 1 was quoted as 2^63 - 1.
bad "--seed: out of range for a 64-bit integer: 18446744073709551616" \
  $(sched) $flags --strategy R --seed 18446744073709551616
bad "--budget: out of range for a 64-bit integer: 9223372036854775808" \
  $(sched) $flags --strategy R --budget 9223372036854775808
mkfifo "$T/fifo.json"
bad "fifo.json: not a regular file" validate "$T/fifo.json"
bad "fifo.json: not a regular file" $(sched) --hardware "$T/fifo.json"

# 4. A memory bomb: 200k nested objects.
python3 -c 'import sys; sys.stdout.write("{\"a\":" * 200000)' > "$T/deep.json"
bad "deep.json: .*malformed JSON: nested deeper than 64 levels" validate "$T/deep.json"

# 5. The CLI and files agree.
bad "--op-cost: must be a non-negative number at most 1e\+30, got nan" $(sched) $flags --op-cost nan
bad "--op-cost: must be a non-negative number" $(sched) $flags --op-cost -1
bad "--op-cost: " $(sched) --hardware eyeriss --op-cost -1
bad "--hier-cost DRAM: " $(sched) $flags --hier-cost inf 6 2 1
bad "--batch: must be positive and at most 1048576, got 1048577" \
  $(sched | sed 's/ 4$/ 1048577/') $flags
bad "--batch: must be positive and at most 1048576, got 1048577" \
  --data-dir "$DATA" show mlp_s --batch 1048577
bad "--layer-pipeline-max-degree: must be a non-negative number at most 1e\+10 \(or inf\)" \
  $(sched) $flags --layer-pipeline-max-degree 9223372036854775807
bad "-t/--top: must be positive and at most 1024" $(sched) $flags -t 5000
job() {  # FILE EXTRA_TOP_LEVEL_JSON
  printf '{"name": "j", "networks": ["mlp_s"], "hardware": [{"name": "eyeriss", "batch": 1}], "strategies": ["exhaustive"], "output": "%s" %s}' "$T/o.h5" "$2" > "$1"
}
# 1. The silently wrong result: a time limit past steady_clock's range timed out every tuple.
job "$T/limit.json" ', "tuple_time_limit_seconds": 1e10'
bad "limit.json: tuple_time_limit_seconds \(0 = no limit\): must be a non-negative number at most 1e\+08" \
  --data-dir "$DATA" sweep "$T/limit.json"
job "$T/degree.json" ', "options": {"layer_pipeline_max_degree": 9223372036854775807}'
bad "degree.json: options.layer_pipeline_max_degree: must be a non-negative number at most 1e\+10" \
  --data-dir "$DATA" sweep "$T/degree.json"
job "$T/batch.json" ''
sed -i 's/"batch": 1/"batch": 1099511627776/' "$T/batch.json"
bad "batch.json: hardware\[0\].batch: must be positive and at most 1048576" \
  --data-dir "$DATA" sweep "$T/batch.json"

# Issue 19's design spaces and the job's axes: counts that wrapped or were built before checked.
r='{"from": 1, "to": 4096, "step": 1}'
printf '{"name": "j", "networks": ["mlp_s"], "hardware": [{"base": "eyeriss_45nm", "batch": 1, "axes": {"nodes": {"h": %s, "w": [1]}, "pe_array": {"h": %s, "w": [1]}, "gbuf_bytes": %s, "regf_bytes": %s, "array_bus_width_bits": %s, "dram_bandwidth_bytes_per_cycle": %s}}], "strategies": ["kapla"], "output": "%s"}' \
  "$r" "$r" "$r" "$r" "$r" "$r" "$T/o.h5" > "$T/grid.json"
bad "grid.json: hardware\[0\]\.axes: the grid has more than 2\^63 designs, more than 100000" \
  --data-dir "$DATA" validate "$T/grid.json"
python3 -c 'import json, sys; json.dump({"name": "j", "networks": ["mlp_s"], "batch": 1,
  "hardware": ["h%d" % i for i in range(1000)], "strategies": ["kapla"],
  "seeds": list(range(1001)), "output": sys.argv[1]}, sys.stdout)' "$T/o.h5" > "$T/tuples.json"
bad "tuples.json: axes: 1001000 tuples .*, more than 1000000" --data-dir "$DATA" validate "$T/tuples.json"

# 6. Clear messages.
bad "is a directory" validate "$T"
bad "--gbuf: must hold at least one word \(2 bytes\), got 0" $(sched) --nodes 1 1 --array 16 16 --regf 512 --gbuf 0
bad "--regf: must hold at least one word" $(sched) --nodes 1 1 --array 16 16 --regf 0 --gbuf 512
bad "--gbuf: must hold at least one word \(2 bytes\), got -5" $(sched) --nodes 1 1 --array 16 16 --regf 512 --gbuf -5
bad "--gbuf: missing \(give --hardware" $(sched) --nodes 1 1 --array 16 16 --regf 512
bad "--stop-grace: must be a non-negative number at most 1e\+08, got -1" sweep "$T/limit.json" --stop-grace -1
bad "unknown subcommand 'frobnicate'; known: list, show, validate" frobnicate
bad "--data-dir: /nonexistent: not a directory" --data-dir /nonexistent list networks
net "$T/esc.json" '{"name": "c\u001b[31m1", "type": "FC", "nifm": 3, "nofm": 8}'
bad "esc.json: .*must not contain control characters" validate "$T/esc.json"
printf '{"name": "n", "source": "test", "input": {"nofm": 3, "sofm": 8}, "externals": [], "layers": [], "\\u001b[2Jx": 1}' > "$T/esckey.json"
bad 'esckey.json: \\x1b\[2Jx: unknown key' validate "$T/esckey.json"
echo "PASS: $n bad inputs, each one line with exit 1"
