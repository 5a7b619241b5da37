#!/usr/bin/env bash
# Issue 20.4: `kapla import` writes a network file that validates and schedules to the same
# totals as `--network MODEL.onnx` directly; bad models get one line and exit 1.
# Needs KAPLA, DATA and ONNX (the directory of the committed test models).
set -euo pipefail
: "${KAPLA:?}" "${DATA:?}" "${ONNX:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kapla_onnx.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
k() { "$KAPLA" --data-dir "$DATA" "$@"; }

k import "$ONNX/torchvision_alexnet.onnx" --out "$T/alexnet.json" --name alexnet 2> "$T/summary"
grep -q "^import: .* -> network alexnet: 11 (Conv 5, FC 3, Pooling 3) layers; .*714983360 MACs" \
  "$T/summary" || fail "summary: $(cat "$T/summary")"
[[ $(k validate "$T/alexnet.json") == "ok: $T/alexnet.json (network alexnet, 11 layers)" ]] ||
  fail "validate of the written file"
[[ $(k validate "$ONNX/torchvision_alexnet.onnx") == *"network torchvision_alexnet, 11 layers"* ]] ||
  fail "validate of the model"
k import -q "$ONNX/torchvision_alexnet.onnx" --name alexnet > "$T/stdout.json"
cmp -s "$T/stdout.json" "$T/alexnet.json" || fail "stdout and --out differ"

totals() { k schedule -q --network "$1" --hardware edge --batch 1 --strategy K |
           awk '$1 ~ /^total_/'; }
direct=$(totals "$ONNX/torchvision_alexnet.onnx")
from_file=$(totals "$T/alexnet.json")
[[ -n $direct && $direct == "$from_file" ]] || fail "totals differ: $direct vs $from_file"
echo "ok: K on the model and on its file: $(head -1 <<<"$direct")"

expect_error() {  # file, expected stderr line
  local rc=0
  k import "$1" > /dev/null 2> "$T/err" || rc=$?
  [[ $rc == 1 ]] || fail "$1: exit $rc, expected 1"
  [[ $(wc -l < "$T/err") == 1 && $(cat "$T/err") == "$2" ]] || fail "$1: $(cat "$T/err")"
  echo "ok: $2"
}
printf 'not a model' > "$T/bad.onnx"
expect_error "$T/bad.onnx" "error: $T/bad.onnx: not an ONNX model (protobuf ModelProto with a graph)"
expect_error "$ONNX/unsupported_topk.onnx" \
  "error: $ONNX/unsupported_topk.onnx: node 'head/TopK' (TopK): unsupported operator (docs/onnx.md lists what kapla imports)"
expect_error "$T/alexnet.json" "error: $T/alexnet.json: not an ONNX model or a Timeloop problem (the file name must end in .onnx, .yaml or .yml)"

# Issue 20.5: one layer to Timeloop and back (kapla export-timeloop, kapla import LAYER.yaml).
k export-timeloop --network alex_net --layer conv3_a --batch 64 --out "$T/conv3_a.yaml"
grep -q "^    N: 64$" "$T/conv3_a.yaml" || fail "export-timeloop: $(cat "$T/conv3_a.yaml")"
k import -q "$T/conv3_a.yaml" --out "$T/conv3_a.json"
macs=$(k show "$T/conv3_a.json" | awk '$1 == "total_macs" { print $2 }')
# Timeloop's C*M*R*S*P*Q per sample: 256*192*3*3*13*13 (the zoo's conv3_a).
[[ $macs == $((256 * 192 * 3 * 3 * 13 * 13)) ]] || fail "round trip MACs $macs"
echo "ok: alex_net conv3_a through Timeloop YAML: $macs MACs per sample"
