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
echo "PASS"
