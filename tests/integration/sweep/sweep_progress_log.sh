#!/usr/bin/env bash
# A sweep whose stderr is a file (a Slurm log) writes timestamped progress lines while it runs,
# rate-limited by --progress-interval; --verbose writes one per finished tuple; --quiet none.
source "$(dirname "$0")/lib.sh"
write_job "$T/job.json" "$T/out.h5"
stamp='^\[20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z\] '
"$DRIVER" sweep "$T/job.json" 2> "$T/log"
grep -Eq "${stamp}sweep: 0/30 tuples done, 1 running, 0s elapsed, ETA \?$" "$T/log" ||
  fail "no first progress line: $(cat "$T/log")"
grep -Eq "${stamp}sweep: 30 of 30 tuples recorded" "$T/log" || fail "no summary: $(cat "$T/log")"
# The fake tuples take 2-200 ms: with the default 10 s interval only a few lines appear.
n=$(grep -Ec "${stamp}sweep: [0-9]+/30 tuples done" "$T/log")
[ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "expected 1-3 rate-limited lines, got $n"
rm -f "$T/out.h5"
"$DRIVER" sweep "$T/job.json" --verbose 2> "$T/log"
n=$(grep -Ec "${stamp}sweep: [0-9]+/30 tuples done" "$T/log")
[ "$n" -ge 30 ] || fail "--verbose: expected a line per finished tuple, got $n"
grep -Eq "${stamp}sweep: 30/30 tuples done, 0 running" "$T/log" || fail "--verbose: no last line"
rm -f "$T/out.h5"
"$DRIVER" sweep "$T/job.json" --quiet 2> "$T/log"
[ ! -s "$T/log" ] || fail "--quiet wrote: $(cat "$T/log")"
echo "ok"
