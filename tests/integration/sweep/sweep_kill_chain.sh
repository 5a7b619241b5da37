# One sweep killed with SIGKILL at 20 random points in a row (each resume killed again before it
# can finish), then resumed to the end: the result is identical to an uninterrupted run, and no
# kill leaves an unreadable part. (sweep_kill_resume.sh resumes to the end after each kill.)
source "$(dirname "$0")/lib.sh"
export KAPLA_FAKE_SECONDS_PER_COST=0.005   # ~3.5 s per full run
write_job "$T/job.json"
"$DRIVER" sweep "$T/job.json" --out "$T/ref.h5" -q

seed=${KILL_SEED:-$RANDOM}
RANDOM=$seed
echo "kill points from seed $seed"
out="$T/chain.h5"
for i in $(seq 1 20); do
  point=$(awk -v r=$((RANDOM % 600)) 'BEGIN { printf "%.3f", 0.05 + r / 1000 }')
  setsid "$DRIVER" sweep "$T/job.json" --out "$out" -q & pid=$!
  sleep "$point"
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [[ -d $out.parts ]] && ls "$out.parts"/*.h5 >/dev/null 2>&1; then
    "$DRIVER" results --csv "$out.parts" > /dev/null || fail "parts unreadable after kill $i"
  fi
  echo "kill $i at ${point}s: $(ls "$out.parts" 2>/dev/null | grep -c '\.h5$' || true) parts"
done
"$DRIVER" sweep "$T/job.json" --out "$out" -q
same "$T/ref.h5" "$out"
[[ ! -e $out.parts ]] || fail "parts left after a complete run"
echo "PASS"
