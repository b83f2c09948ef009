#!/bin/sh
# memplan-plan compile --budget: swap plans for a budget with each swap
# strategy and link, verified; refusals of bad --budget, --link and
# --swap-strategy; a budget nothing reaches; JSON.
. tests/cli/lib.sh

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo trace to plan"

for s in memplan singa vdnn; do
	for l in pcie5 gh200-c2c "pcie4,gpus=2,duplex=full"; do
		expect 0 "compile --budget 80% --swap-strategy $s --link $l" \
			memplan-plan compile "$T/r.trace" --budget 80% --link "$l" \
			--swap-strategy "$s" -o "$T/s.plan"
		has "$T/out" "swaps" "  ... prints the swaps and the overhead"
		expect 0 "  ... verify" memplan-plan verify "$T/s.plan" "$T/r.trace"
	done
done

expect 0 "compile --budget --json on an infinite link" \
	memplan-plan compile "$T/r.trace" --budget 75% --link infinite --json -o "$T/i.plan"
has "$T/out" '"stall_ns":0,' "  ... no stall on an infinitely fast link"
has "$T/out" '"swaps":' "  ... JSON names the swaps"
pool=$(sed 's/.*"pool":\([0-9]*\).*/\1/' "$T/out")
budget=$(sed 's/.*"budget":\([0-9]*\).*/\1/' "$T/out")
[ "$pool" -le "$budget" ]
ok $? "  ... pool $pool <= budget $budget"
expect 0 "  ... inspect shows the swaps" memplan-plan inspect "$T/i.plan"

expect 1 "a budget of 1 KiB fits nothing" \
	memplan-plan compile "$T/r.trace" --budget 1KiB -o "$T/n.plan"
has "$T/err" "no plan fits --budget" "  ... says so"
[ ! -e "$T/n.plan" ]
ok $? "  ... and writes no plan"

expect 2 "--budget 0% is refused" memplan-plan compile "$T/r.trace" --budget 0% -o "$T/x.plan"
expect 2 "--budget 120% is refused" memplan-plan compile "$T/r.trace" --budget 120% -o "$T/x.plan"
expect 2 "--budget lots is refused" memplan-plan compile "$T/r.trace" --budget lots -o "$T/x.plan"
has "$T/err" "--budget 'lots'" "  ... naming it"
expect 2 "--link pcie9 is refused" memplan-plan compile "$T/r.trace" --budget 80% --link pcie9 -o "$T/x.plan"
has "$T/err" "pcie9" "  ... naming it"
expect 2 "--link pcie4,gpus=0 is refused" memplan-plan compile "$T/r.trace" --budget 80% --link pcie4,gpus=0 -o "$T/x.plan"
expect 2 "--swap-strategy zero is refused" memplan-plan compile "$T/r.trace" --budget 80% --swap-strategy zero -o "$T/x.plan"
expect 2 "--link without --budget is refused" memplan-plan compile "$T/r.trace" --link pcie4 -o "$T/x.plan"
expect 2 "--budget with --max-pool is refused" memplan-plan compile "$T/r.trace" --budget 80% --max-pool 1GiB -o "$T/x.plan"
expect 3 "--link measured on a trace that measured nothing" \
	memplan-plan compile "$T/r.trace" --budget 80% --link measured -o "$T/x.plan"

done_testing
