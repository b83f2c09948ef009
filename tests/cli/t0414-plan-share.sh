#!/bin/sh
# memplan-plan share: three zoo jobs on one device in 70% of their
# transient need plus their persistent bytes; one plan per job in DIR,
# each verified and replayed; JSON; the sum objective; a device too small
# (the least memory that fits, what each job gives); refusals.
. tests/cli/lib.sh

for m in "alexnet 32" "vgg16 4" "resnet50 4"; do
	set -- $m
	memplan-trace synth --model "$1" --batch "$2" -o "$T/$1.trace" 2>"$T/err"
	ok $? "a zoo trace: $1 batch $2"
done
need=0
persistent=0
for m in alexnet vgg16 resnet50; do
	memplan-plan compile "$T/$m.trace" --json -o "$T/x.plan" >"$T/c.json"
	lb=$(sed 's/.*"lower_bound":\([0-9]*\).*/\1/' "$T/c.json")
	need=$((need + lb))
done
expect 0 "share at a roomy device" \
	memplan-plan share "$T/alexnet.trace" "$T/vgg16.trace" "$T/resnet50.trace" \
	--device-memory 64GiB --step 25 --json -o "$T/roomy"
has "$T/out" '"worst_overhead_percent":0,' "  ... no overhead when everything fits"
persistent=$(sed 's/.*"total":{[^}]*"persistent":\([0-9]*\).*/\1/' "$T/out")
[ "$persistent" -gt 0 ]
ok $? "  ... persistent bytes counted ($persistent)"

device=$((need / 10 * 7 + persistent))
expect 0 "share in 70% of the combined need" \
	memplan-plan share "$T/alexnet.trace" "$T/vgg16.trace" "$T/resnet50.trace" \
	--device-memory "$device" --step 10 --json -o "$T/dir"
cp "$T/out" "$T/share.json"
for k in '"workloads":[' '"trace":' '"plan":' '"budget":' '"pool":' '"persistent":' '"overhead_percent":' '"total":{'; do
	has "$T/share.json" "$k" "  ... JSON has $k"
done
bytes=$(sed 's/.*"total":{[^}]*"bytes":\([0-9]*\).*/\1/' "$T/share.json")
[ "$bytes" -le "$device" ]
ok $? "  ... pools and persistent bytes $bytes <= device $device"
worst=$(sed 's/.*"total":{[^}]*"worst_overhead_percent":\([0-9.e+-]*\).*/\1/' "$T/share.json")
pworst=$(sed 's/.*"proportional":{"worst_overhead_percent":\([0-9.e+a-z-]*\).*/\1/' "$T/share.json")
[ "$pworst" = null ] || awk -v a="$worst" -v b="$pworst" 'BEGIN { exit !(a <= b + 1e-9) }'
ok $? "  ... worst overhead $worst <= the proportional split's $pworst"
for m in alexnet vgg16 resnet50; do
	[ -s "$T/dir/$m.plan" ]
	ok $? "  ... wrote $m.plan"
	expect 0 "  ... $m.plan verifies" memplan-plan verify "$T/dir/$m.plan" "$T/$m.trace"
	expect 0 "  ... $m.plan replays" memplan-replay --iterations 2 "$T/dir/$m.plan" "$T/$m.trace"
	# issue 30: the link its swaps were planned for, as compile --budget
	# records it, so that simulate judges it by that link
	expect 0 "  ... $m.plan inspects" memplan-plan inspect "$T/dir/$m.plan"
	has "$T/out" "link:         pcie5 (LINK" "  ... with a LINK section: the default link, pcie5"
done
expect 0 "share --link gh200-c2c" \
	memplan-plan share "$T/alexnet.trace" "$T/vgg16.trace" "$T/resnet50.trace" \
	--device-memory "$device" --step 25 --link gh200-c2c -o "$T/c2c"
expect 0 "  ... simulate takes the plan's link" memplan-plan simulate "$T/c2c/vgg16.plan" "$T/vgg16.trace"
has "$T/out" "gh200-c2c" "  ... gh200-c2c"
has "$T/out" "the plan's link" "  ... from the plan"

expect 0 "share --objective sum, text" \
	memplan-plan share "$T/alexnet.trace" "$T/vgg16.trace" "$T/resnet50.trace" \
	--device-memory "$device" --step 10 --objective sum -o "$T/sum"
has "$T/out" "objective sum" "  ... says the objective"
has "$T/out" "proportional" "  ... and the proportional split's figures"

expect 1 "a device too small" \
	memplan-plan share "$T/alexnet.trace" "$T/vgg16.trace" "$T/resnet50.trace" \
	--device-memory "$persistent" --step 25 -o "$T/small"
has "$T/err" "no split fits --device-memory" "  ... says so"
has "$T/err" "the least that fits is" "  ... with the least device memory that would"
has "$T/err" "alexnet.trace: pool" "  ... and what each job would have to give"
[ ! -e "$T/small" ]
ok $? "  ... and writes nothing"

expect 2 "share without --device-memory" memplan-plan share "$T/vgg16.trace" -o "$T/x"
expect 2 "share without -o" memplan-plan share "$T/vgg16.trace" --device-memory 1GiB
expect 2 "share without a trace" memplan-plan share --device-memory 1GiB -o "$T/x"
expect 2 "share --objective mean" memplan-plan share "$T/vgg16.trace" --device-memory 1GiB --objective mean -o "$T/x"
expect 2 "the same trace name twice" memplan-plan share "$T/vgg16.trace" "$T/vgg16.trace" --device-memory 1GiB -o "$T/x"
has "$T/err" "rename one" "  ... says why"
expect 2 "share --link pcie9" memplan-plan share "$T/vgg16.trace" --device-memory 1GiB --link pcie9 -o "$T/x"

done_testing
