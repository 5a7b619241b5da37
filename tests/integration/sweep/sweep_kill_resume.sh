# A run killed with SIGKILL at random points and resumed ends with exactly the tuples and
# values of an uninterrupted run; SIGTERM stops cleanly (exit 4) and resumes; also under mpirun
# with a different rank count on resume.
source "$(dirname "$0")/lib.sh"
export KAPLA_FAKE_SECONDS_PER_COST=0.005   # ~3.5 s per full run
write_job "$T/job.json"
"$DRIVER" sweep "$T/job.json" --out "$T/ref.h5" -q
[[ $(ntuples "$T/ref.h5") == 30 ]] || fail "reference run incomplete"

seed=${KILL_SEED:-$RANDOM}
RANDOM=$seed
echo "kill points from seed $seed"
for i in 1 2 3 4 5; do
  out="$T/k$i.h5"
  point=$(awk -v r=$((RANDOM % 3800)) 'BEGIN { printf "%.3f", 0.2 + r / 1000 }')
  setsid "$DRIVER" sweep "$T/job.json" --out "$out" -q & pid=$!
  sleep "$point"
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # Whatever survived is readable (no corrupt file anywhere).
  recorded=0
  if [[ -d $out.parts ]] && ls "$out.parts"/*.h5 >/dev/null 2>&1; then
    recorded=$(ntuples "$out.parts") || fail "parts unreadable after kill $i"
  fi
  echo "kill $i at ${point}s: $recorded tuples recorded"
  "$DRIVER" sweep "$T/job.json" --out "$out" -q
  same "$T/ref.h5" "$out"
  [[ ! -e $out.parts ]] || fail "parts left after a complete run"
  ls "$T" | grep -q '\.tmp\.' && fail "temporary file left"
done

# A kill during the final merge leaves "<out>.tmp.<pid>.<n>" beside the output (random kill
# points rarely hit that window, so it is staged here): the resumed run removes it.
out="$T/merge.h5"
: > "$out.tmp.99999.1"
"$DRIVER" sweep "$T/job.json" --out "$out" -q
same "$T/ref.h5" "$out"
[[ ! -e $out.tmp.99999.1 ]] || fail "half-written merge left beside the output"

# SIGTERM (as Slurm's --signal): clean stop with exit code 4, a valid partial file, then resume.
out="$T/term.h5"
"$DRIVER" sweep "$T/job.json" --out "$out" -q & pid=$!
# After the first tuple is recorded (a fixed delay sent it before any under load). Part names
# end in "~<hash>.h5"; job_expected.h5, written at the start, holds no tuple.
for _ in $(seq 600); do
  compgen -G "$out.parts/*~*.h5" >/dev/null && break
  sleep 0.05
done
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
[[ $rc == 4 ]] || fail "SIGTERM: exit code $rc, expected 4"
n=$(ntuples "$out")
echo "SIGTERM: $n tuples in the final file"
(( n > 0 && n < 30 )) || fail "SIGTERM: expected a partial file, got $n tuples"
"$DRIVER" sweep "$T/job.json" --out "$out" -q
same "$T/ref.h5" "$out"

# mpirun -np 2 killed, resumed with 1 rank; and killed again, resumed with 2.
if command -v "${MPIEXEC:-mpirun}" >/dev/null; then
  out="$T/mpi.h5"
  setsid "${MPIEXEC:-mpirun}" --oversubscribe -np 2 "$DRIVER" sweep "$T/job.json" --out "$out" -q & pid=$!
  sleep 1.5
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "mpi kill: $(ls "$out.parts" 2>/dev/null | grep -c '\.h5$' || true) parts"
  "$DRIVER" sweep "$T/job.json" --out "$out" -q
  same "$T/ref.h5" "$out"
fi
echo "PASS"
