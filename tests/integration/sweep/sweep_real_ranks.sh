# The real strategies through `kapla sweep`: 1 rank vs 2 ranks and 1 vs 2 threads give
# identical results (B and K on two small networks, edge and cloud4x4).
source "$(dirname "$0")/lib.sh"
: "${KAPLA:?KAPLA must point to the kapla binary}"
cat > "$T/job.json" <<JOB
{"name": "real_small", "networks": ["mlp_s", "lstm_phoneme"],
 "hardware": [{"name": "edge", "batch": 1}, {"name": "cloud4x4", "batch": 16}],
 "strategies": ["exhaustive", "kapla"],
 "options": {"hw_gbuf_sharing": true, "partition_hybrid": true, "partition_batch": true,
             "partition_ifmaps": true, "partition_interlayer": true, "layer_pipeline_max_degree": 5},
 "output": "$T/unused.h5"}
JOB
"$KAPLA" sweep "$T/job.json" --out "$T/r1.h5" --threads 1 -q
"$KAPLA" sweep "$T/job.json" --out "$T/r1t2.h5" --threads 2 -q
mpirun_ -np 2 "$KAPLA" sweep "$T/job.json" --out "$T/r2.h5" --threads 1 -q
[[ $(ntuples "$T/r1.h5") == 8 ]] || fail "expected 8 tuples"
"$KAPLA" results --csv "$T/r1.h5" | grep -q ',ok,' || fail "no ok tuple"
same "$T/r1.h5" "$T/r1t2.h5"
same "$T/r1.h5" "$T/r2.h5"
"$KAPLA" results "$T/r2.h5"
echo "PASS"
