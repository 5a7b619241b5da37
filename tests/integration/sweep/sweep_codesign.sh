#!/usr/bin/env bash
# A hardware design space end to end with the real kapla (docs/codesign.md): validate shows the
# expanded count, the sweep runs every design with K, `kapla results` shows the design columns
# (hand-computed area of Thistle's Eyeriss at 1 KiB REGF), and a rerun resumes with nothing to do.
source "$(dirname "$0")/lib.sh"
: "${KAPLA:?KAPLA must point to the kapla binary}"
cat > "$T/job.json" <<JOB
{
  "name": "codesign_test",
  "networks": ["mlp_s"],
  "hardware": [{"base": "eyeriss_45nm", "batch": 1,
                "axes": {"pe_array": [[8, 8], [14, 12]], "regf_bytes": [512, 1024]},
                "constraints": {"area_budget_mm2": 2.4}}],
  "strategies": ["kapla"],
  "output": "$T/out.h5"
}
JOB
"$KAPLA" validate "$T/job.json" | grep -q "4 tuples: .*(4 designs expanded from hardware spaces)" ||
  fail "validate: $("$KAPLA" validate "$T/job.json")"
"$KAPLA" sweep "$T/job.json" --quiet --threads 1 2> "$T/err" || fail "sweep: $(cat "$T/err")"
"$KAPLA" results "$T/out.h5" > "$T/table"
head -1 "$T/table" | grep -Eq " area_mm2 +nodes +pe_array +gbuf_bytes +regf_bytes +bus_bits +dram_bw +min_pe_util +pe_util$" ||
  fail "header: $(head -1 "$T/table")"
# 168 x (1239.5 + 512 x 19.874) + 65536 x 6.806 um^2 = 2.363756 mm^2.
grep -Eq "^mlp_s +eyeriss_45nm~pe14x12~regf1k +kapla +1 +ok .* 2\.36376 +1x1 +14x12 +131072 +1024 +0 +inf +0 +0\.[0-9]+$" "$T/table" ||
  fail "design row: $(cat "$T/table")"
[ "$(grep -c ' ok ' "$T/table")" = 4 ] || fail "expected 4 ok tuples: $(cat "$T/table")"
"$KAPLA" results --csv "$T/out.h5" | head -1 | grep -q ",key,design_area_mm2,design_nodes,design_pe_array," ||
  fail "csv header: $("$KAPLA" results --csv "$T/out.h5" | head -1)"
"$KAPLA" sweep "$T/job.json" --threads 1 2> "$T/err2" || fail "rerun: $(cat "$T/err2")"
grep -q "0 this run.*4 resumed" "$T/err2" || fail "rerun did not resume: $(cat "$T/err2")"
echo ok
