#!/bin/sh
# Issue 32: hybrid at a deep budget.  ResNet-50 b32 over PCIe 5.0 at 30% of
# its lower bound (a 70% cut): with three mixes hybrid was recompute-only,
# 19.5% slower; sweeping the share recomputed it recomputes most and swaps
# a few tensors, within 16% (the goal: at least 67% less within
# 16%), and it stays no slower than swap-only and recompute-only there.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 32 -o "$T/r.trace" >/dev/null 2>"$T/err"
ok $? "ResNet-50 b32"
expect 0 "frontier at 30% of the lower bound" \
	memplan-plan frontier "$T/r.trace" --link pcie5 --strategies memplan,recompute,hybrid --from 30 --to 25 --step 5 --csv --quiet
cp "$T/out" "$T/f.csv"
awk -F, '$3 == "hybrid" && $4 == 1 && $7 <= 16 { f = 1 } END { exit !f }' "$T/f.csv"
ok $? "  ... hybrid fits within 16% predicted overhead"
awk -F, '$3 == "hybrid" && $10 > 0 { f = 1 } END { exit !f }' "$T/f.csv"
ok $? "  ... recomputing and swapping"
awk -F, 'NR > 1 && $4 == 1 { ov[$3] = $7 }
	 END { exit !(ov["hybrid"] <= ov["memplan"] + 1e-9 && ov["hybrid"] <= ov["recompute"] + 1e-9) }' "$T/f.csv"
ok $? "  ... no slower than swap-only or recompute-only"

done_testing
