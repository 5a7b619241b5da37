#!/usr/bin/env bash
# A 1000-design co-design sweep with the real kapla (issue 19): killed with SIGKILL once some
# tuples are recorded, it resumes with every recorded tuple kept (none rerun, none lost) and
# ends with exactly the tuples and values of an uninterrupted run.
source "$(dirname "$0")/lib.sh"
: "${KAPLA:?KAPLA must point to the kapla binary}"
write_codesign_job() {  # FILE OUTPUT
  cat > "$1" <<JOB
{
  "name": "codesign_1k_test",
  "networks": ["mlp_s"],
  "hardware": [{"base": "eyeriss_45nm", "batch": 1,
                "axes": {"pe_array": {"h": {"from": 2, "to": 11, "step": 1},
                                      "w": {"from": 2, "to": 11, "step": 1}},
                         "gbuf_bytes": {"from": 8192, "to": 131072, "ratio": 2},
                         "regf_bytes": [256, 512]}}],
  "strategies": ["kapla"],
  "output": "$2"
}
JOB
}
write_codesign_job "$T/job.json" "$T/ref.h5"
"$KAPLA" validate "$T/job.json" | grep -q "1000 tuples: .*(1000 designs expanded" ||
  fail "validate: $("$KAPLA" validate "$T/job.json")"
"$KAPLA" sweep "$T/job.json" --quiet --threads 1 || fail "reference run"
[[ $(ntuples "$T/ref.h5") == 1000 ]] || fail "reference run incomplete"

write_codesign_job "$T/kill.json" "$T/k.h5"
setsid "$KAPLA" sweep "$T/kill.json" --quiet --threads 1 & pid=$!
# Kill once at least two part files (each up to half a second of tuples) are recorded.
for _ in $(seq 1200); do
  (( $(compgen -G "$T/k.h5.parts/*~*.h5" | wc -l) >= 2 )) && break
  sleep 0.05
done
kill -KILL -- "-$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
recorded=$(ntuples "$T/k.h5.parts") || fail "parts unreadable after the kill"
echo "killed with $recorded of 1000 tuples recorded"
(( recorded > 0 && recorded < 1000 )) || fail "expected a partial run, got $recorded tuples"
"$KAPLA" sweep "$T/kill.json" --threads 1 2> "$T/resume.err" || fail "resume: $(cat "$T/resume.err")"
grep -q "1000 of 1000 tuples recorded .* $recorded resumed" "$T/resume.err" ||
  fail "resume did not keep the $recorded recorded tuples: $(tail -3 "$T/resume.err")"
same "$T/ref.h5" "$T/k.h5"
[[ ! -e $T/k.h5.parts ]] || fail "parts left after a complete run"
echo "PASS"
