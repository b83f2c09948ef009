#!/bin/sh
# memplan-plan inspect and the optional SWAP_TIMING section: each swap's
# predicted slacks and stall in text and JSON when the plan has them ("-"
# and null where a flag voids a slack), nothing extra when it does not, and
# compile --budget records them.
. tests/cli/lib.sh

expect 0 "inspect a plan with SWAP_TIMING" \
	memplan-plan inspect tests/fuzz/seeds/plan/timing.plan
has "$T/out" "SWAP_TIMING optional" "  ... the section, optional"
has "$T/out" "predicted stall 1500 ns" "  ... the predicted stall in all"
has "$T/out" "d2h_slack_ns  h2d_slack_ns     stall_ns" "  ... timing columns"
has "$T/out" "        -1500          2500         1500" "  ... a swap's slacks and stall"
has "$T/out" "            -             -            0" "  ... voided slacks as -"
expect 0 "inspect --json" memplan-plan inspect --json tests/fuzz/seeds/plan/timing.plan
has "$T/out" '"timing":{"d2h_slack_ns":-1500,"h2d_slack_ns":2500,"predicted_stall_ns":1500,"flags":0}' \
	"  ... a swap's timing"
has "$T/out" '"timing":{"d2h_slack_ns":null,"h2d_slack_ns":null,"predicted_stall_ns":0,"flags":3}' \
	"  ... voided slacks as null"
expect 0 "inspect a plan without SWAP_TIMING" \
	memplan-plan inspect tests/fuzz/seeds/plan/swaps.plan
! grep -q "slack\|timing" "$T/out"
ok $? "  ... shows no timing"
expect 0 "inspect --json without SWAP_TIMING" \
	memplan-plan inspect --json tests/fuzz/seeds/plan/swaps.plan
has "$T/out" '"timing":null' "  ... timing null"

memplan-trace synth --model resnet50 --batch 4 -o "$T/r.trace" 2>"$T/err"
ok $? "a zoo trace to plan"
expect 0 "compile --budget 70%" memplan-plan compile "$T/r.trace" --budget 70% -o "$T/s.plan"
expect 0 "  ... its plan carries SWAP_TIMING" memplan-plan inspect "$T/s.plan"
has "$T/out" "SWAP_TIMING optional" "  ... as an optional section"
has "$T/out" "predicted stall" "  ... with the predicted stall"
done_testing
