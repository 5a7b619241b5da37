# 1 rank, 2 ranks (mpirun, oversubscribed) and 1/2 threads give identical results; both ranks
# work; the CSV is diffable.
source "$(dirname "$0")/lib.sh"
write_job "$T/job.json"
"$DRIVER" sweep "$T/job.json" --out "$T/r1.h5" --threads 1 -q
"$DRIVER" sweep "$T/job.json" --out "$T/r1t2.h5" --threads 2 -q
mpirun_ -np 2 "$DRIVER" sweep "$T/job.json" --out "$T/r2.h5" --threads 1 2> "$T/r2.err"
mpirun_ -np 2 -x OMP_NUM_THREADS=2 "$DRIVER" sweep "$T/job.json" --out "$T/r2t2.h5" -q
[[ $(ntuples "$T/r1.h5") == 30 ]] || fail "expected 30 tuples"
same "$T/r1.h5" "$T/r1t2.h5"
same "$T/r1.h5" "$T/r2.h5"
same "$T/r1.h5" "$T/r2t2.h5"
cat "$T/r2.err"
grep -Eq '^  rank 1 \(.*\): [1-9][0-9]* tuples' "$T/r2.err" || fail "rank 1 did no work"
grep -Eq '^  rank 0 \(.*\): [1-9][0-9]* tuples' "$T/r2.err" || fail "rank 0 did no work"
# Ranks recorded in provenance: both appear.
# CSV: fixed header, sorted by key, equal apart from timing columns (search_seconds, threads).
"$DRIVER" results --csv "$T/r1.h5" > "$T/a.csv"
"$DRIVER" results --csv "$T/r2t2.h5" > "$T/b.csv"
head -1 "$T/a.csv" | grep -q '^network,hardware,strategy,batch,status,total_cost,total_time,search_seconds' \
  || fail "CSV header"
diff <(cut -d, -f1-7,9-14,16 "$T/a.csv") <(cut -d, -f1-7,9-14,16 "$T/b.csv") || fail "CSV differs"
[[ $(tail -n +2 "$T/a.csv" | cut -d, -f16) == $(tail -n +2 "$T/a.csv" | cut -d, -f16 | LC_ALL=C sort) ]] \
  || fail "CSV not sorted by key"
"$DRIVER" results "$T/r2.h5" | head -3

# 400 tuples of 2 ms (a design space of the fake network "tiny"): requests take chunks of
# about 25 tuples (runner.cpp kChunkSeconds); 2 ranks still run each exactly once.
cat > "$T/tiny.json" <<JOB
{"name": "tiny400", "networks": ["tiny_c0.002"],
 "hardware": [{"base": "eyeriss_45nm", "batch": 1,
               "axes": {"pe_array": {"h": {"from": 2, "to": 21, "step": 1},
                                     "w": {"from": 2, "to": 21, "step": 1}}}}],
 "strategies": ["kapla"], "output": "$T/tiny1.h5"}
JOB
KAPLA_FAKE_SECONDS_PER_COST=1 "$DRIVER" sweep "$T/tiny.json" --threads 1 -q
KAPLA_FAKE_SECONDS_PER_COST=1 mpirun_ -np 2 -x KAPLA_FAKE_SECONDS_PER_COST "$DRIVER" sweep \
  "$T/tiny.json" --out "$T/tiny2.h5" --threads 1 2> "$T/tiny2.err"
[[ $(ntuples "$T/tiny1.h5") == 400 ]] || fail "expected 400 tuples"
same "$T/tiny1.h5" "$T/tiny2.h5"
grep -E '^  rank [01] ' "$T/tiny2.err"
grep -Eq '^  rank 1 \(.*\): [1-9][0-9]* tuples' "$T/tiny2.err" || fail "rank 1 did no tiny tuple"
echo "PASS"
