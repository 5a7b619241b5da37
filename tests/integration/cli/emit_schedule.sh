#!/usr/bin/env bash
# kapla schedule --emit: every emitted layer program of a few schedules (K and B; one node and
# inference segments on 16x16 nodes with on-chip forwarding) compiles, runs, and reports its
# counts equal to the model's and its output equal to the naive loop nest (docs/emit.md).
# Bad requests get a one-line error.
set -euo pipefail
: "${KAPLA:?}" "${DATA:?}" "${CXX:=c++}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check_dir() {  # DIR [WARNING FLAGS]: build and run every program in it
  local n=0
  for src in "$1"/*.cpp; do
    # shellcheck disable=SC2086
    "$CXX" -std=c++17 -O2 ${2:--w} -o "$work/prog" "$src"
    if ! out=$("$work/prog"); then
      echo "FAIL: $src"; echo "$out"; exit 1
    fi
    grep -q "equals the naive loop nest" <<<"$out" || { echo "no output check: $src"; exit 1; }
    n=$((n + 1))
  done
  [[ $n -gt 0 ]] || { echo "nothing emitted in $1"; exit 1; }
  echo "$1: $n programs OK"
}

"$KAPLA" --data-dir "$DATA" schedule -q --strategy K --network alex_net --hardware eyeriss \
  --batch 1 --emit "$work/alex" --emit-layer conv2_a --emit-layer pool2_a --emit-layer fc2 >/dev/null
[[ $(ls "$work/alex" | wc -l) -eq 3 ]]
check_dir "$work/alex"
"$KAPLA" --data-dir "$DATA" schedule -q --strategy K --network mlp_m --hardware cloud \
  --batch 16 --options inference --emit "$work/mlp" --json "$work/mlp.json" >/dev/null 2>&1
check_dir "$work/mlp"

# kapla emit from the schedule file writes the very programs schedule --emit wrote.
"$KAPLA" emit "$work/mlp.json" --out "$work/mlp_again" 2>/dev/null
diff -r "$work/mlp" "$work/mlp_again" || { echo "kapla emit differs from schedule --emit"; exit 1; }
# The HLS target (the unit pass as the row-stationary PE array, which counts the bus words):
# from the file and at search time, warning-free.
hls_flags="-Wall -Wextra -Wno-unknown-pragmas -Werror"
"$KAPLA" emit "$work/mlp.json" --out "$work/mlp_hls" --target hls 2>/dev/null
grep -q "#pragma HLS UNROLL" "$work/mlp_hls/fc2.cpp"
check_dir "$work/mlp_hls" "$hls_flags"
"$KAPLA" --data-dir "$DATA" schedule -q --strategy K --network alex_net --hardware eyeriss \
  --batch 1 --emit "$work/alex_hls" --emit-target hls --emit-layer conv2_a --emit-layer pool2_a \
  >/dev/null
check_dir "$work/alex_hls" "$hls_flags"
"$KAPLA" emit "$work/mlp.json" --out "$work/mlp_one" --layer fc2 2>/dev/null
[[ $(ls "$work/mlp_one") == fc2.cpp ]] || { ls "$work/mlp_one"; exit 1; }
# A file whose reported counts are not the scheme's (edited, or another kapla version), a
# file without scheme records, an unknown layer: one error line each, nothing emitted.
python3 - "$work/mlp.json" "$work/edited.json" "$work/bare.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["schedules"]["fc2"][0]["access"][0][1] += 1000
json.dump(d, open(sys.argv[2], "w"))
del d["scheme_records"]
json.dump(d, open(sys.argv[3], "w"))
d = json.load(open(sys.argv[1]))
d["scheme_records"]["fc2"]["inputs"]["scheme"]["bl_ts"][0][0] *= 2  # no longer the loop count
json.dump(d, open(sys.argv[3].replace("bare", "factors"), "w"))
PY
for args in "$work/edited.json --out $work/e1" "$work/bare.json --out $work/e2" \
            "$work/factors.json --out $work/e4" \
            "$work/mlp.json --out $work/e3 --layer nosuch" \
            "$work/mlp.json --out $work/e5 --target verilog"; do
  # shellcheck disable=SC2086
  if err=$("$KAPLA" emit $args 2>&1 >/dev/null); then echo "kapla emit $args: accepted"; exit 1; fi
  [[ $(wc -l <<<"$err") -eq 1 && $err == error:* ]] || { echo "not one error line: $err"; exit 1; }
  echo "refused: $err"
done
[[ ! -e $work/e1/fc2.cpp ]] || { echo "an edited file was emitted"; exit 1; }
"$KAPLA" --data-dir "$DATA" schedule -q --network mlp_s --hardware eyeriss --batch 4 \
  --emit "$work/mlp_b" >/dev/null 2>&1
check_dir "$work/mlp_b"

# Depthwise and input-gradient kinds: K on MobileNet's training graph.
"$KAPLA" --data-dir "$DATA" schedule -q --strategy K --network mobilenet_bp --hardware eyeriss \
  --batch 1 --emit "$work/mobile" --emit-layer dep_conv1 --emit-layer dep_conv13_back \
  --emit-layer point_conv13_back --emit-layer pooling13_back --emit-layer fc_back \
  --json "$work/mobile.json" >/dev/null
[[ $(ls "$work/mobile" | wc -l) -eq 5 ]]
check_dir "$work/mobile"
"$KAPLA" emit "$work/mobile.json" --out "$work/mobile_hls" --target hls --layer dep_conv1 \
  --layer dep_conv13_back --layer pooling13_back 2>/dev/null
check_dir "$work/mobile_hls" "$hls_flags"

# The systolic mapping (edge_systolic, as the inference jobs use it): conv1_a has more position
# pieces than ofmap rows and tiles above the model's mean-piece size (notes, not failures).
"$KAPLA" --data-dir "$DATA" schedule -q --strategy K --network alex_net --hardware edge_systolic \
  --batch 1 --options inference --emit "$work/systolic" --emit-layer conv1_a --emit-layer conv2_a \
  --emit-layer pool2_a --emit-layer fc1 >/dev/null
check_dir "$work/systolic" "$hls_flags"
"$CXX" -O2 -w -o "$work/prog" "$work/systolic/conv1_a.cpp"
"$work/prog" | grep -q "NOTE IFM: 40 of 95 row pieces"
# The HLS target writes the row-stationary array only: a systolic layer is refused by name.
if err=$("$KAPLA" --data-dir "$DATA" schedule -q --strategy K --network alex_net \
  --hardware edge_systolic --batch 1 --options inference --emit "$work/sys_hls" \
  --emit-target hls --emit-layer fc1 2>&1 >/dev/null); then
  echo "a systolic layer was emitted for the HLS target"; exit 1
fi
[[ $(wc -l <<<"$err") -eq 1 && $err == error:*systolic* ]] || { echo "not one error line: $err"; exit 1; }
echo "refused: $err"

# Two layer names with one file stem ("a/b", "a_b"): both written, the second with a suffix.
cat >"$work/clash.json" <<'NET'
{"name": "clash", "source": "emit test", "input": {"nofm": 64, "sofm": 1}, "externals": [],
 "layers": [{"name": "a/b", "type": "FC", "nifm": 64, "nofm": 32},
            {"name": "a_b", "type": "FC", "nifm": 32, "nofm": 16}]}
NET
"$KAPLA" --data-dir "$DATA" schedule -q --network "$work/clash.json" --hardware eyeriss \
  --batch 2 --emit "$work/clash" >/dev/null 2>&1
[[ -f $work/clash/a_b.cpp && -f $work/clash/a_b~2.cpp ]] || { ls "$work/clash"; exit 1; }
check_dir "$work/clash"

# A layer that is not there, and one whose kind (a weight-gradient layer) is not emitted yet:
# exit 1, one line.
for bad in nosuch fc4_back_w; do
  if err=$("$KAPLA" --data-dir "$DATA" schedule -q --strategy K --network mlp_l_bp \
    --hardware eyeriss --batch 1 --emit "$work/bad" --emit-layer $bad 2>&1 >/dev/null); then
    echo "--emit-layer $bad was accepted"; exit 1
  fi
  [[ $(wc -l <<<"$err") -eq 1 && $err == error:* ]] || { echo "not one error line: $err"; exit 1; }
  echo "refused: $err"
done
