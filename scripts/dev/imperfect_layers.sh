#!/usr/bin/env bash
# Issue 18 part 3 (docs/imperfect.md): DeepBench layers, five ResNet-50 layers and Ruby's
# D = 113 / 127 example as one-layer networks, B and K for EDP with imperfect none / spatial /
# full, and their padded copies (scripts/pad_network.py) with imperfect none, on three
# hardware: eyeriss (14x12), cloud4x4 (4x4 nodes of 8x8) and the 16x16 array of
# jobs/imperfect_array_sweep.json. Writes results/imperfect/layers/, then prints the tables
# (scripts/dev/imperfect_tables.py layers-h5).
#   bash scripts/dev/imperfect_layers.sh          (KAPLA=path/to/kapla to use another binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
K=${KAPLA:-build/src/kapla}
OUT=results/imperfect/layers
NETS=$OUT/nets
rm -rf "$OUT"
mkdir -p "$NETS"

# One-layer networks: the DeepBench layers, five ResNet-50 layers, D x D channels at 14x14.
for n in data/networks/deepbench_conv.json data/networks/deepbench_gemm.json \
         docs/data/imperfect/resnet50_{conv1,conv4_0_a,conv5_2_a,conv5_2_b,fc}.json; do
  python3 scripts/pad_network.py "$n" "$NETS/plain" --split >/dev/null
done
for d in 113 127; do
  printf '{"name": "d%s", "source": "Ruby'"'"'s padding example (D = 113 or 127 pads to 128): a 1x1 conv of D -> D channels on a 14x14 fmap (docs/imperfect.md)", "input": {"nofm": %s, "sofm": 14}, "externals": [], "layers": [{"name": "d%s", "type": "Conv", "nifm": %s, "nofm": %s, "sofm": 14, "sfil": 1}]}\n' \
    "$d" "$d" "$d" "$d" "$d" > "$NETS/plain/d$d.json"
done

# Padded copies: "array" pads channels to the PE array's height and ofmap rows to its width
# (the row-stationary mapper spreads ofmap rows over the columns and replicates over channels
# down the rows); "16" pads channels and ofmap rows to 16.
pad() {  # tag multiples...
  local tag=$1; shift
  local args=()
  for m in "$@"; do args+=(--multiple "$m"); done
  for n in "$NETS"/plain/*.json; do
    python3 scripts/pad_network.py "$n" "$NETS/$tag" --split "${args[@]}" >/dev/null
  done
}
pad array_eyeriss nifm=14 nofm=14 hofm=12
pad array_cloud4x4 nifm=8 nofm=8 hofm=8
pad 16 nifm=16 nofm=16 hofm=16

job() {  # name dir hardware-json options mode
  local files
  files=$(ls "$2"/*.json | sed 's/.*/"&"/' | paste -sd, -)
  printf '{"name": "%s", "networks": [%s], "hardware": [%s], "strategies": ["exhaustive", "kapla"], "seeds": [1], "options": %s, "output": "%s/%s.h5"}\n' \
    "$1" "$files" "$3" "$4" "$OUT" "$1" > "$OUT/$1.json"
  # A layer with no schedule (nothing fits) is a tuple of its own; the sweep goes on.
  "$K" sweep "$OUT/$1.json" --imperfect "$5" --threads 1 -q || echo "sweep $1: exit $?" >&2
}
ED='{"opt_goal": "ed"}'
HYBRID=$(cat docs/data/imperfect/options_ed_hybrid.json)
EYERISS='{"name": "eyeriss", "batch": 1}'
CLOUD='{"name": "cloud4x4", "batch": 1}'
PE16='{"base": "eyeriss_45nm", "batch": 1, "axes": {"pe_array": [[16, 16]]}}'
for mode in none spatial full; do
  job "eyeriss_$mode" "$NETS/plain" "$EYERISS" "$ED" $mode
  job "cloud4x4_$mode" "$NETS/plain" "$CLOUD" "$HYBRID" $mode
  job "pe16x16_$mode" "$NETS/plain" "$PE16" "$ED" $mode
done
job eyeriss_pad_array "$NETS/array_eyeriss" "$EYERISS" "$ED" none
job eyeriss_pad16 "$NETS/16" "$EYERISS" "$ED" none
job cloud4x4_pad_array "$NETS/array_cloud4x4" "$CLOUD" "$HYBRID" none
job cloud4x4_pad16 "$NETS/16" "$CLOUD" "$HYBRID" none
job pe16x16_pad16 "$NETS/16" "$PE16" "$ED" none

/usr/bin/python3 scripts/dev/imperfect_tables.py layers-h5 "$OUT" "$NETS/plain"
