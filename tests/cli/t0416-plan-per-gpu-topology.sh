#!/bin/sh
# compile --per-gpu on a topology preset: a DGX-2's uplink carries four
# GPUs at their own 12 GB/s (lock step costs what one GPU alone does), all
# sixteen at 3 GB/s each (lock step costs more, the joint plans less than
# lock step); hgx-pcie5's eight GPUs; every plan verifies.
. tests/cli/lib.sh

memplan-trace synth --model vgg16 --batch 8 -o "$T/v.trace" 2>"$T/err"
ok $? "a zoo trace"
num() { sed "s/.*\"$1\":\([0-9.]*\).*/\1/" "$2"; }

expect 0 "one GPU on dgx2 at 80%" \
	memplan-plan compile "$T/v.trace" --budget 80% --link dgx2 --json -o "$T/one.plan"
alone=$(num overhead_percent "$T/out")

expect 0 "four GPUs on dgx2, jointly" \
	memplan-plan compile "$T/v.trace" --budget 80% --link dgx2,gpus=4 --per-gpu --json -o "$T/d4"
lock4=$(num lockstep_overhead_percent "$T/out")
awk -v a="$alone" -v l="$lock4" 'BEGIN { d = a - l; exit !(d < 1e-3 && d > -1e-3) }'
ok $? "  ... four fit the 48 GB/s uplink: lock step $lock4% = alone $alone%"

expect 0 "sixteen GPUs on dgx2, jointly" \
	memplan-plan compile "$T/v.trace" --budget 80% --link dgx2,gpus=16 --per-gpu --json -o "$T/d16"
cp "$T/out" "$T/d16.json"
lock16=$(num lockstep_overhead_percent "$T/d16.json")
worst16=$(num worst_overhead_percent "$T/d16.json")
awk -v a="$alone" -v l="$lock16" 'BEGIN { exit !(l > a) }'
ok $? "  ... sixteen at 3 GB/s each: lock step $lock16% > alone $alone%"
awk -v w="$worst16" -v l="$lock16" 'BEGIN { exit !(w < l) }'
ok $? "  ... the joint plans' worst $worst16% < lock step $lock16%"
n=0
for g in $(seq 0 15); do
	memplan-plan verify "$T/d16.gpu$g.plan" "$T/v.trace" >/dev/null 2>&1 && n=$((n + 1))
done
[ "$n" -eq 16 ]
ok $? "  ... all sixteen plans verify ($n)"

expect 0 "eight GPUs on hgx-pcie5, jointly" \
	memplan-plan compile "$T/v.trace" --budget 70% --link hgx-pcie5,gpus=8 --per-gpu --json -o "$T/h8"
w=$(num worst_overhead_percent "$T/out")
l=$(num lockstep_overhead_percent "$T/out")
awk -v w="$w" -v l="$l" 'BEGIN { exit !(w <= l) }'
ok $? "  ... worst $w% <= lock step $l%"
expect 0 "  ... gpu7 verifies" memplan-plan verify "$T/h8.gpu7.plan" "$T/v.trace"

done_testing
