#!/usr/bin/env bash
# `kapla sweep JOB --dry-run`: every tuple with the runner's estimate, the total, a warning
# above --warn-hours; nothing runs and no output is written.
source "$(dirname "$0")/lib.sh"
write_job "$T/job.json" "$T/out.h5"
"$DRIVER" sweep "$T/job.json" --dry-run --warn-hours 100 > "$T/plan" 2> "$T/err" || fail "dry run failed: $(cat "$T/err")"
[ ! -e "$T/out.h5" ] || fail "a dry run wrote the output"
[ ! -s "$T/err" ] || fail "unexpected warning: $(cat "$T/err")"
head -1 "$T/plan" | grep -Eq "^tuple +estimated CPU time +up to$" || fail "header: $(head -1 "$T/plan")"
[ "$(grep -c ':s1 ' "$T/plan")" = 30 ] || fail "expected 30 tuples: $(cat "$T/plan")"
# The fake runner's estimate of beta_c30 is 30 (seconds here).
grep -Eq "^beta_c30:edge:exhaustive:b1:s1 +30s +5m21s$" "$T/plan" || fail "beta_c30 estimate: $(cat "$T/plan")"
tail -1 "$T/plan" | grep -Eq "^total: 30 tuples, estimated [0-9hms]+ CPU time on one thread, up to [0-9hms]+ " ||
  fail "total line: $(tail -1 "$T/plan")"
"$DRIVER" sweep "$T/job.json" --dry-run --warn-hours 0.01 > /dev/null 2> "$T/err"
grep -Eq "^warning: .*job.json: up to [0-9hms]+ of CPU time, more than --warn-hours 0.01 " "$T/err" ||
  fail "no warning: $(cat "$T/err")"
echo ok
