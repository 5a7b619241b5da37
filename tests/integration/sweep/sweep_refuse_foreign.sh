# Corrupt or foreign HDF5 given to resume or merge is refused with a one-line message, and no
# data is overwritten.
source "$(dirname "$0")/lib.sh"
write_job "$T/job.json"
check_refused() {  # what file expected_text -- command...
  local what=$1 file=$2 expect=$3; shift 4
  local before; before=$(sha "$file")
  local rc=0
  "$@" 2> "$T/err" > /dev/null || rc=$?
  [[ $rc == 1 ]] || fail "$what: exit code $rc, expected 1"
  [[ $(wc -l < "$T/err") == 1 ]] || { cat "$T/err"; fail "$what: message is not one line"; }
  grep -q -- "$expect" "$T/err" || { cat "$T/err"; fail "$what: message lacks '$expect'"; }
  [[ $(sha "$file") == "$before" ]] || fail "$what: $file was modified"
  echo "ok: $what: $(cat "$T/err")"
}
"$DRIVER" write-foreign "$T/foreign.h5"
check_refused "resume into foreign HDF5" "$T/foreign.h5" "not a kapla results file" -- \
  "$DRIVER" sweep "$T/job.json" --out "$T/foreign.h5"
[[ ! -e $T/foreign.h5.parts ]] || fail "parts created next to a foreign file"
echo "just text" > "$T/text.h5"
check_refused "resume into a text file" "$T/text.h5" "not an HDF5 file" -- \
  "$DRIVER" sweep "$T/job.json" --out "$T/text.h5"
"$DRIVER" sweep "$T/job.json" --out "$T/good.h5" -q
size=$(stat -c %s "$T/good.h5")
head -c $((size / 2)) "$T/good.h5" > "$T/cut.h5"
check_refused "resume into a truncated file" "$T/cut.h5" "cut.h5" -- \
  "$DRIVER" sweep "$T/job.json" --out "$T/cut.h5"
# A corrupted byte range in the middle.
cp "$T/good.h5" "$T/bad.h5"
dd if=/dev/urandom of="$T/bad.h5" bs=1 seek=$((size / 3)) count=4096 conv=notrunc status=none
check_refused "read a file damaged in the middle" "$T/bad.h5" "checksum mismatch" -- \
  "$DRIVER" results "$T/bad.h5"
check_refused "resume into a file damaged in the middle" "$T/bad.h5" "checksum mismatch" -- \
  "$DRIVER" sweep "$T/job.json" --out "$T/bad.h5"
check_refused "merge with a foreign input" "$T/good.h5" "not a kapla results file" -- \
  "$DRIVER" merge "$T/good.h5" "$T/foreign.h5" -o "$T/good.h5"
check_refused "merge into a foreign output" "$T/foreign.h5" "not a kapla results file" -- \
  "$DRIVER" merge "$T/good.h5" -o "$T/foreign.h5"
check_refused "merge a truncated input" "$T/good.h5" "cut.h5" -- \
  "$DRIVER" merge "$T/cut.h5" -o "$T/good.h5"
# Another job's options into an existing output.
write_job "$T/job2.json" "$T/good.h5" '"opt_goal": "ed"'
check_refused "resume with other options" "$T/good.h5" "fingerprint" -- \
  "$DRIVER" sweep "$T/job2.json"
# merge of two good files works and is idempotent.
"$DRIVER" merge "$T/good.h5" "$T/good.h5" -o "$T/merged.h5" 2>/dev/null
same "$T/good.h5" "$T/merged.h5"
echo "PASS"
