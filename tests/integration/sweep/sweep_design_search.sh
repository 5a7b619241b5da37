#!/usr/bin/env bash
# The local search over designs end to end with the real kapla and K (docs/codesign.md, step
# 3), on a 64-design space of Thistle's Eyeriss (alex_net) where the grid is cheap: the search finds the
# grid's whole (area, energy) front, its optimum included, with fewer tuples; it chooses the
# same designs and results with 1 and 2 ranks, 1 and 2 threads, and after a SIGTERM or a
# SIGKILL in a later round and a rerun; another seed starts from other designs.
source "$(dirname "$0")/lib.sh"
: "${KAPLA:?KAPLA must point to the kapla binary}"
space() {  # SAMPLING
  cat <<JOB
{"name": "search_test", "networks": ["alex_net"],
 "hardware": [{"base": "eyeriss_45nm", "batch": 1,
               "axes": {"pe_array": {"h": [4, 8, 12, 16], "w": [4, 8, 12, 16]},
                        "gbuf_bytes": [32768, 131072], "regf_bytes": [256, 512]},
               "constraints": {"area_budget_mm2": 2.6}, "sampling": $1}],
 "strategies": ["kapla"], "output": "$T/unused.h5"}
JOB
}
search() { space "{\"local_search\": {\"objective\": \"energy\", \"initial\": 6, \"seed\": $1}}"; }
space '"grid"' > "$T/grid.json"
search 1 > "$T/s1.json"
search 2 > "$T/s2.json"

"$KAPLA" sweep "$T/grid.json" --out "$T/grid.h5" --threads 1 -q
"$KAPLA" sweep "$T/s1.json" --out "$T/r1.h5" --threads 1 2> "$T/log1" || fail "search: $(cat "$T/log1")"
grep -q "design search: round 1, [0-9]* new designs" "$T/log1" || fail "no round log: $(cat "$T/log1")"
grid=$(ntuples "$T/grid.h5")
found=$(ntuples "$T/r1.h5")
"$DRIVER" front-gap "$T/grid.h5" "$T/r1.h5" | tee "$T/gap"
grep -q "^front gap: 0.0000 %" "$T/gap" || fail "the search missed the grid's front"
ref_best=$(sed -n 's/^reference:.* best \([^,]*\),.*/\1/p' "$T/gap")
found_best=$(sed -n 's/^found: .* best \([^,]*\),.*/\1/p' "$T/gap")
[[ -n $ref_best && $ref_best == "$found_best" ]] || fail "optimum $found_best, grid's $ref_best"
(( found < grid )) || fail "the search priced $found of the grid's $grid designs"
echo "grid $grid tuples, search $found"
# Each tuple says its round in /resolved; round 0 holds the 6 initial designs.
rounds=$(/usr/bin/python3 - "$T/r1.h5" "$SRC" <<'PY'
import collections, sys
sys.path.insert(0, sys.argv[2] + "/scripts")
import kapla_results as kr
r = kr.table(sys.argv[1], "resolved")
r = r[r["name"] == "search.round"]
print(" ".join(f"{k}:{v}" for k, v in sorted(collections.Counter(r["value"].astype(int)).items())))
PY
)
echo "designs by round: $rounds"
[[ $rounds == 0:6\ * ]] || fail "round 0 should hold 6 designs: $rounds"

# Ranks and threads change nothing.
mpirun_ -np 2 "$KAPLA" sweep "$T/s1.json" --out "$T/r2.h5" --threads 1 -q
same "$T/r1.h5" "$T/r2.h5"
"$KAPLA" sweep "$T/s1.json" --out "$T/r1t2.h5" --threads 2 -q
same "$T/r1.h5" "$T/r1t2.h5"

# SIGTERM once round 2 has started: exit 4, then a rerun ends where the uninterrupted run did.
"$KAPLA" sweep "$T/s1.json" --out "$T/term.h5" --threads 1 2> "$T/logt" & pid=$!
for _ in $(seq 1200); do
  grep -q "design search: round 2" "$T/logt" && break
  sleep 0.02
done
kill -TERM "$pid" 2>/dev/null || true
rc=0; wait "$pid" || rc=$?
[[ $rc == 4 || $rc == 0 ]] || fail "SIGTERM: exit code $rc: $(cat "$T/logt")"
echo "SIGTERM in round 2: exit $rc, $(ntuples "$T/term.h5") tuples recorded"
"$KAPLA" sweep "$T/s1.json" --out "$T/term.h5" --threads 1 -q
same "$T/r1.h5" "$T/term.h5"

# SIGKILL in round 1 (mid-merge or mid-tuple alike), resumed under mpirun with 2 ranks.
setsid "$KAPLA" sweep "$T/s1.json" --out "$T/kill.h5" --threads 1 2> "$T/logk" & pid=$!
for _ in $(seq 1200); do
  grep -q "design search: round 1" "$T/logk" && break
  sleep 0.02
done
sleep 0.1
kill -KILL -- "-$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
mpirun_ -np 2 "$KAPLA" sweep "$T/s1.json" --out "$T/kill.h5" --threads 1 -q
same "$T/r1.h5" "$T/kill.h5"

# The seed chooses round 0: the same seed the same designs, another seed others.
"$KAPLA" sweep "$T/s1.json" --dry-run | grep -o 'eyeriss_45nm~[^:]*' > "$T/d1"
"$KAPLA" sweep "$T/s1.json" --dry-run | grep -o 'eyeriss_45nm~[^:]*' > "$T/d1b"
"$KAPLA" sweep "$T/s2.json" --dry-run | grep -o 'eyeriss_45nm~[^:]*' > "$T/d2"
[[ $(wc -l < "$T/d1") == 6 ]] || fail "round 0: $(cat "$T/d1")"
cmp -s "$T/d1" "$T/d1b" || fail "the same seed chose other designs"
cmp -s "$T/d1" "$T/d2" && fail "seeds 1 and 2 chose the same designs"
echo "PASS"
