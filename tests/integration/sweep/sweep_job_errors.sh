# Malformed job files give exit code 1 and one line "error: FILE: FIELD: reason".
source "$(dirname "$0")/lib.sh"
check() {  # expected_regex json_text
  local expect=$1 text=$2 rc=0
  printf '%s' "$text" > "$T/bad.json"
  "$DRIVER" sweep "$T/bad.json" 2> "$T/err" > /dev/null || rc=$?
  [[ $rc == 1 ]] || fail "exit code $rc for: $text"
  [[ $(wc -l < "$T/err") == 1 ]] || { cat "$T/err"; fail "not one line: $text"; }
  grep -Eq -- "$expect" "$T/err" || { cat "$T/err"; fail "expected /$expect/"; }
  echo "ok: $(cat "$T/err")"
}
base='"name": "x", "networks": ["a"], "hardware": [{"name": "edge", "batch": 1}], "strategies": ["exhaustive"], "output": "o.h5"'
check "^error: $T/bad.json: netwroks: unknown key" "{$base, \"netwroks\": []}"
check "^error: $T/bad.json: options.opt_goal: " "{$base, \"options\": {\"opt_goal\": \"x\"}}"
check "^error: $T/bad.json: hardware\[0\].batch: " '{"name": "x", "networks": ["a"], "hardware": [{"name": "edge", "batch": -1}], "strategies": ["s"], "output": "o"}'
check "^error: $T/bad.json: line [0-9]+, column [0-9]+: malformed JSON" "{$base,"
check "^error: $T/bad.json: output: missing required key" '{"name": "x", "networks": ["a"], "hardware": [{"name": "edge", "batch": 1}], "strategies": ["s"]}'
check "^error: $T/bad.json: strategies\[0\].parms: unknown key" '{"name": "x", "networks": ["a"], "hardware": [{"name": "edge", "batch": 1}], "strategies": [{"name": "r", "parms": {}}], "output": "o"}'
check "^error: $T/bad.json: tuple bad_net:edge:exhaustive:b1:s1: unknown network" '{"name": "x", "networks": ["bad_net"], "hardware": [{"name": "edge", "batch": 1}], "strategies": ["exhaustive"], "output": "o"}'

rm -f "$T/bad.json"; rc=0; "$DRIVER" sweep "$T/missing.json" 2> "$T/err" || rc=$?
[[ $rc == 1 ]] && grep -q "cannot open file" "$T/err" || fail "missing job file"
echo "PASS"
