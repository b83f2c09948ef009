#!/bin/sh
# memplan-plan share with room to spare plans no needless swap (each job
# its pool without swaps, at the same zero overhead), and when nothing fits
# its message prints the right figures: the persistent bytes of all jobs
# (not --device-memory), and each job's own persistent bytes (not its pool).
. tests/cli/lib.sh

for m in "alexnet 32" "vgg16 4"; do
	set -- $m
	memplan-trace synth --model "$1" --batch "$2" -o "$T/$1.trace" >/dev/null 2>"$T/err"
	ok $? "a zoo trace: $1 batch $2"
done
expect 0 "share on a roomy device" \
	memplan-plan share "$T/alexnet.trace" "$T/vgg16.trace" \
	--device-memory 64GiB --step 25 --json -o "$T/roomy"
has "$T/out" '"worst_overhead_percent":0,' "  ... no overhead"
if grep -q '"swaps":[1-9]' "$T/out"; then r=1; else r=0; fi
ok $r "  ... and no swap in any job's plan"
for m in alexnet vgg16; do
	expect 0 "  ... $m.plan inspected" memplan-plan inspect "$T/roomy/$m.plan"
	has "$T/out" "swaps:        0 " "  ... $m.plan has no swap"
done

# persistent bytes: from a share that fits
memplan-plan share "$T/alexnet.trace" "$T/vgg16.trace" --device-memory 64GiB \
	--step 25 --json -o "$T/roomy" >"$T/j"
total=$(sed 's/.*"total":{[^}]*"persistent":\([0-9]*\).*/\1/' "$T/j")
pa=$(sed 's/.*"trace":"[^"]*alexnet.trace"[^}]*"persistent":\([0-9]*\).*/\1/' "$T/j")
# size BYTES: as the commands print it (MiB with two decimals, or GiB)
size() { awk -v b="$1" 'BEGIN { if (b >= 1073741824) printf "%.2f GiB", b / 1073741824; else printf "%.2f MiB", b / 1048576 }'; }
expect 1 "a device too small" \
	memplan-plan share "$T/alexnet.trace" "$T/vgg16.trace" \
	--device-memory 1GiB --step 25 -o "$T/small"
has "$T/err" "persistent bytes $(size "$total") and each" \
	"  ... the persistent bytes of all jobs, $(size "$total"), not --device-memory"
has "$T/err" "persistent $(size "$pa")" \
	"  ... alexnet's own persistent bytes, $(size "$pa"), not its pool"

done_testing
